package xs2atest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// A test-only TPP signer, written independently of the SDK's Signer, so the
// fake bank's verifier is checked against a second implementation.

type testTPP struct {
	key      crypto.Signer
	cert     *x509.Certificate
	certB64  string
	keyID    string
	alg      string
	redirect string
}

var (
	rsaTPPOnce sync.Once
	rsaTPP     *testTPP
	rsaTPP2    *testTPP
)

// sharedTPP is an RSA 2048 TPP shared by tests (key generation is slow).
func sharedTPP(t testing.TB) *testTPP {
	rsaTPPOnce.Do(func() {
		rsaTPP = newTPP(t, "rsa", "xs2atest TPP CA (TEST ONLY)")
		rsaTPP2 = newTPP(t, "rsa", "xs2atest second TPP CA (TEST ONLY)")
	})
	return rsaTPP
}

func newTPP(t testing.TB, kind, issuerCN string) *testTPP {
	t.Helper()
	var key crypto.Signer
	var err error
	alg := "rsa-sha256"
	if kind == "ecdsa" {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		alg = "ecdsa-sha256"
	} else {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	require.NoError(t, err)
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 70))
	name := pkix.Name{CommonName: issuerCN, Organization: []string{"Test TPP AS (TEST ONLY)"}, Country: []string{"NO"}}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: name, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testTPP{key: key, cert: cert, certB64: base64.StdEncoding.EncodeToString(der), alg: alg,
		keyID:    "SN=" + strings.ToUpper(cert.SerialNumber.Text(16)) + ",CA=" + cert.Issuer.String(),
		redirect: "https://tpp.example/callback"}
}

var signOrder = []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// stamp sets the headers the reference clients send, without Signature.
func (p *testTPP) stamp(r *http.Request, body []byte) {
	h := r.Header
	if h.Get("Date") == "" {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	if h.Get("X-Request-ID") == "" {
		h.Set("X-Request-ID", uuid.NewString())
	}
	if _, set := h["Tpp-Redirect-Uri"]; !set && p.redirect != "" {
		h.Set("TPP-Redirect-URI", p.redirect)
	}
	if len(body) > 0 && h.Get("Digest") == "" {
		sum := sha256.Sum256(body)
		h.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	}
	if _, set := h["Tpp-Signature-Certificate"]; !set {
		h.Set("TPP-Signature-Certificate", p.certB64)
	}
}

// signatureValue signs the present headers of signOrder.
func (p *testTPP) signatureValue(t testing.TB, h http.Header, keyID string) string {
	var names, lines []string
	for _, n := range signOrder {
		if v := h.Get(n); v != "" {
			names = append(names, n)
			lines = append(lines, n+": "+v)
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	var sig []byte
	var err error
	switch k := p.key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	case *ecdsa.PrivateKey:
		sig, err = ecdsa.SignASN1(rand.Reader, k, sum[:])
	}
	require.NoError(t, err)
	return fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`, keyID, p.alg,
		strings.Join(names, " "), base64.StdEncoding.EncodeToString(sig))
}

func (p *testTPP) sign(t testing.TB, r *http.Request, body []byte) {
	p.stamp(r, body)
	if r.Header.Get("Signature") == "" {
		r.Header.Set("Signature", p.signatureValue(t, r.Header, p.keyID))
	}
}

type res struct {
	status int
	header http.Header
	body   []byte
}

func (r *res) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

// code is the first tppMessage's code.
func (r *res) code() string {
	var e struct {
		TPPMessages []tppMessage `json:"tppMessages"`
	}
	_ = json.Unmarshal(r.body, &e)
	if len(e.TPPMessages) == 0 {
		return ""
	}
	return e.TPPMessages[0].Code
}

// link is the href of _links.<name>, at the top level or under key.
func (r *res) link(t testing.TB, name string) string {
	t.Helper()
	var m struct {
		Links map[string]link `json:"_links"`
	}
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m.Links[name].Href
}

type testClient struct {
	t   testing.TB
	s   *Server
	tpp *testTPP
	hc  *http.Client
}

func newTestClient(t testing.TB, s *Server) *testClient {
	return &testClient{t: t, s: s, tpp: sharedTPP(t), hc: s.HTTPClient()}
}

// do sends a signed request; body is nil, []byte, string (raw) or a value
// to marshal; hdr are header name/value pairs.
func (c *testClient) do(method, path string, body any, hdr ...string) *res {
	c.t.Helper()
	return c.doWith(func(*http.Request) {}, method, path, body, hdr...)
}

func (c *testClient) doWith(edit func(*http.Request), method, path string, body any, hdr ...string) *res {
	c.t.Helper()
	var b []byte
	switch v := body.(type) {
	case nil:
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		var err error
		b, err = json.Marshal(v)
		require.NoError(c.t, err)
	}
	u := path
	if !strings.HasPrefix(path, "http") {
		u = c.s.URL() + path
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(b))
	require.NoError(c.t, err)
	if b != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c.tpp.sign(c.t, req, b)
	edit(req)
	resp, err := c.hc.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return &res{status: resp.StatusCode, header: resp.Header, body: rb}
}

// scaFlow follows a scaRedirect as the customer and returns the callback query.
func (c *testClient) scaFlow(href, customer string, opts ...SCAOption) url.Values {
	c.t.Helper()
	require.NotEmpty(c.t, href, "no scaRedirect")
	cb, err := c.s.CompleteSCA(context.Background(), href, customer, opts...)
	require.NoError(c.t, err)
	require.True(c.t, strings.HasPrefix(cb.String(), c.tpp.redirect), "callback %s", cb)
	return cb.Query()
}

// consent runs the account flow (GET /v1/accounts -> 401 -> SCA) and
// returns the callback query (psu-id, tpp-session-id, ...).
func (c *testClient) consent(customer string, hdr []string, opts ...SCAOption) url.Values {
	c.t.Helper()
	r := c.do("GET", "/v1/accounts", nil, hdr...)
	require.Equal(c.t, http.StatusUnauthorized, r.status, "body: %s", r.body)
	return c.scaFlow(r.link(c.t, "scaRedirect"), customer, opts...)
}

// privatePSU gives consent as customer to all accounts and returns psu-id.
func (c *testClient) privatePSU(customer string) string {
	c.t.Helper()
	q := c.consent(customer, nil)
	return q.Get("psu-id")
}

func (c *testClient) accounts(psuID string, hdr ...string) []map[string]any {
	c.t.Helper()
	r := c.do("GET", "/v1/accounts", nil, append([]string{"PSU-ID", psuID}, hdr...)...)
	require.Equal(c.t, 200, r.status, "body: %s", r.body)
	var out []map[string]any
	for _, a := range r.json(c.t)["accounts"].([]any) {
		out = append(out, a.(map[string]any))
	}
	return out
}

// fakeClock is a settable clock for WithClock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// wednesday10 is Wednesday 2025-03-12 10:00 in Oslo.
var wednesday10 = time.Date(2025, 3, 12, 10, 0, 0, 0, bank.Oslo)

func customerOf(t testing.TB, s *Server, number string) Customer {
	c, ok := s.Customer(number)
	require.True(t, ok)
	return c
}

func ioNopCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
