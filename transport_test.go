package xs2a

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-fed/httpsig"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fixed ids of the golden tests.
const (
	goldenRequestID = "3f1c9a52-7d2e-4b8a-9c41-5e2f0a6b7c8d"
	signPSUID       = "0b8c4f6e-1d2a-4e3b-8f9c-7a6b5c4d3e2f"
	signCorporateID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	signSessionID   = "5c0e7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"
	testRedirectURI = "https://tpp.example/cb"
	testBankURL     = "https://psd2.bank.example/api"
	emptyDigest     = "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
)

// testPaymentBody is a typical single payment initiation as compact JSON
// (about 400 bytes, docs/interface.md, Payment initiation request).
const testPaymentBody = `{"instructedAmount":{"currency":"NOK","amount":"1250.00"},` +
	`"debtorAccount":{"bban":"12345678903","currency":"NOK"},` +
	`"creditorAccount":{"bban":"98765432106","currency":"NOK"},` +
	`"creditorName":"Kraftverket Energi AS","creditorAddress":{"country":"NO"},` +
	`"purposeCode":"SUPP","requestedExecutionDate":"2026-03-04",` +
	`"remittanceInformationStructuredArray":[{"reference":"2345678901234567","referenceType":"SCOR","referenceIssuer":"Kraftverket Energi AS"}]}`

// captureRT is a Base RoundTripper that records what reaches it and answers
// 201 (or fails with err).
type captureRT struct {
	mu     sync.Mutex
	reqs   []*http.Request
	bodies [][]byte
	err    error
}

func (c *captureRT) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
	}
	c.mu.Lock()
	c.reqs = append(c.reqs, r)
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

func (c *captureRT) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.reqs)
}

func (c *captureRT) last(t testing.TB) *http.Request {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.NotEmpty(t, c.reqs, "nothing reached the base RoundTripper")
	return c.reqs[len(c.reqs)-1]
}

func (c *captureRT) lastBody(t testing.TB) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.NotEmpty(t, c.bodies)
	return c.bodies[len(c.bodies)-1]
}

func newGet(t testing.TB, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	return req
}

// newPost makes a POST with a replayable body (GetBody set).
func newPost(t testing.TB, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// sigPart is one name="value" part of a Signature header.
var sigPart = regexp.MustCompile(`^([A-Za-z]+)="([^"]*)"(,|$)`)

// splitSignature is a parser independent of parseSignature: the parts
// keyId, algorithm, headers and signature, each once, in that order
// (docs/interface.md, Authentication, item 4).
func splitSignature(t testing.TB, v string) map[string]string {
	t.Helper()
	parts := map[string]string{}
	var order []string
	for rest := v; rest != ""; {
		m := sigPart.FindStringSubmatch(rest)
		require.NotNil(t, m, "malformed Signature %q at %q", v, rest)
		require.NotContains(t, parts, m[1], "part %s given twice", m[1])
		parts[m[1]] = m[2]
		order = append(order, m[1])
		rest = rest[len(m[0]):]
	}
	require.Equal(t, []string{"keyId", "algorithm", "headers", "signature"}, order)
	return parts
}

// buildSigningString is the signing string of draft-cavage (docs/interface.md,
// Authentication, item 6) written independently of signingString.
func buildSigningString(t testing.TB, names []string, h http.Header, method, target, host string) string {
	t.Helper()
	var lines []string
	for _, n := range names {
		var v string
		switch n {
		case "(request-target)":
			v = strings.ToLower(method) + " " + target
		case "host":
			v = host
		default:
			vs, ok := h[http.CanonicalHeaderKey(n)]
			require.True(t, ok, "signed header %s is not in the request", n)
			vs = slices.Clone(vs)
			for i := range vs {
				vs[i] = strings.TrimSpace(vs[i])
			}
			v = strings.Join(vs, ", ")
		}
		lines = append(lines, n+": "+v)
	}
	return strings.Join(lines, "\n")
}

func verifyWithPublicKey(pub crypto.PublicKey, msg, sig []byte) error {
	sum := sha256.Sum256(msg)
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig)
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(k, sum[:], sig) {
			return errors.New("ECDSA signature does not verify")
		}
		return nil
	}
	return errors.New("unexpected key type")
}

// verifyRequest checks a signed request as a bank would, with code of its
// own: the certificate from TPP-Signature-Certificate, the keyId, the
// signature over the signing string rebuilt from the headers, the Digest
// over body. It returns the Signature's parts and the certificate.
func verifyRequest(t testing.TB, r *http.Request, body []byte) (map[string]string, *x509.Certificate) {
	t.Helper()
	der, err := base64.StdEncoding.DecodeString(r.Header.Get("TPP-Signature-Certificate"))
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	v := r.Header.Get("Signature")
	if strings.HasPrefix(v, "=?utf-8?B?") {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?utf-8?B?"), "?="))
		require.NoError(t, err)
		v = string(raw)
	}
	p := splitSignature(t, v)
	sig, err := base64.StdEncoding.DecodeString(p["signature"])
	require.NoError(t, err)
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	str := buildSigningString(t, strings.Fields(p["headers"]), r.Header, cmp.Or(r.Method, http.MethodGet), r.URL.RequestURI(), host)
	require.NoError(t, verifyWithPublicKey(cert.PublicKey, []byte(str), sig), "signing string:\n%s", str)
	if d := r.Header.Get("Digest"); d != "" {
		sum := sha256.Sum256(body)
		assert.Equal(t, "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]), d)
	}
	return p, cert
}

// TestTransportGolden pins the Signature values for the fixed RSA key, clock
// and request id: go test -run TestTransportGolden -update rewrites them.
func TestTransportGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  func(t *testing.T) *http.Request
	}{
		{"payment-post", func(t *testing.T) *http.Request {
			req := newPost(t, testBankURL+"/v1/payments/norwegian-domestic-credit-transfers", testPaymentBody)
			require.NoError(t, PSU{ID: signPSUID, IPAddress: "192.0.2.10", SessionID: signSessionID}.writeHeaders(req.Header, false))
			return req
		}},
		{"get-psu-corporate", func(t *testing.T) *http.Request {
			req := newGet(t, testBankURL+"/v1/accounts")
			require.NoError(t, PSU{ID: signPSUID, CorporateID: signCorporateID}.writeHeaders(req.Header, false))
			return req
		}},
		{"get-no-psu", func(t *testing.T) *http.Request {
			return newGet(t, testBankURL+"/v1/accounts/some-account/balances")
		}},
	}
	signer := testSigner(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			capt := &captureRT{}
			tr := &Transport{Base: capt, Signer: signer, RedirectURI: testRedirectURI, Now: fixedNow}
			req := tt.req(t)
			req.Header.Set("X-Request-ID", goldenRequestID)
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err)
			resp.Body.Close()
			sent := capt.last(t)
			p, _ := verifyRequest(t, sent, capt.lastBody(t))
			str := buildSigningString(t, strings.Fields(p["headers"]), sent.Header, sent.Method, sent.URL.RequestURI(), sent.Host)
			checkGolden(t, "sign/"+tt.name+".txt", []byte(str+"\n\nSignature: "+sent.Header.Get("Signature")+"\n"))
		})
	}
}

// TestTransportSignedHeaders checks which headers are signed, in which
// order, and when Digest is sent (docs/interface.md, Authentication, item 5).
func TestTransportSignedHeaders(t *testing.T) {
	t.Parallel()
	psu := func(p PSU) func(*http.Request) {
		return func(r *http.Request) { assert.NoError(t, p.writeHeaders(r.Header, false)) }
	}
	payment := func(t *testing.T) *http.Request {
		return newPost(t, testBankURL+"/v1/payments/x?allowLogicalDuplicate=true", testPaymentBody)
	}
	get := func(t *testing.T) *http.Request { return newGet(t, testBankURL+"/v1/accounts?withBalance=true") }
	emptyPost := func(t *testing.T) *http.Request {
		req, err := http.NewRequest(http.MethodPost, testBankURL+"/v1/consents", http.NoBody)
		require.NoError(t, err)
		return req
	}
	tests := []struct {
		name        string
		req         func(t *testing.T) *http.Request
		edit        func(*http.Request)
		opts        *SignerOptions
		redirectURI string
		headers     string
		digest      string // "" : no Digest header
	}{
		{name: "GET, no PSU, no redirect URI", req: get, headers: "date x-request-id"},
		{name: "GET, no PSU", req: get, redirectURI: testRedirectURI, headers: "date x-request-id tpp-redirect-uri"},
		{name: "GET with digest on empty body", req: get, redirectURI: testRedirectURI, opts: &SignerOptions{DigestOnEmptyBody: true},
			headers: "date digest x-request-id tpp-redirect-uri", digest: emptyDigest},
		{name: "GET with PSU-ID", req: get, edit: psu(PSU{ID: signPSUID}), redirectURI: testRedirectURI,
			headers: "date x-request-id psu-id tpp-redirect-uri"},
		{name: "GET with PSU-ID and PSU-CORPORATE-ID", req: get, edit: psu(PSU{ID: signPSUID, CorporateID: signCorporateID}), redirectURI: testRedirectURI,
			headers: "date x-request-id psu-id psu-corporate-id tpp-redirect-uri"},
		{name: "payment: IP address and session id are not signed", req: payment,
			edit: psu(PSU{ID: signPSUID, IPAddress: "2001:db8::1", SessionID: signSessionID}), redirectURI: testRedirectURI,
			headers: "date digest x-request-id psu-id tpp-redirect-uri", digest: Digest([]byte(testPaymentBody))},
		{name: "extra signed headers come after the defaults", req: payment,
			edit: psu(PSU{ID: signPSUID, CorporateID: signCorporateID, IPAddress: "192.0.2.1", SessionID: signSessionID}), redirectURI: testRedirectURI,
			opts:    &SignerOptions{SignedHeaders: []string{"TPP-Session-ID", "psu-ip-address", "(request-target)"}},
			headers: "date digest x-request-id psu-id psu-corporate-id tpp-redirect-uri tpp-session-id psu-ip-address (request-target)",
			digest:  Digest([]byte(testPaymentBody))},
		{name: "extra signed header absent from the request", req: get, redirectURI: testRedirectURI,
			opts: &SignerOptions{SignedHeaders: []string{"tpp-session-id"}}, headers: "date x-request-id tpp-redirect-uri"},
		{name: "empty POST body has the Digest of nothing", req: emptyPost, redirectURI: testRedirectURI,
			headers: "date digest x-request-id tpp-redirect-uri", digest: emptyDigest},
		{name: "DELETE without body has no Digest", req: func(t *testing.T) *http.Request {
			req, err := http.NewRequest(http.MethodDelete, testBankURL+"/v1/payments/x/1", nil)
			require.NoError(t, err)
			return req
		}, redirectURI: testRedirectURI, headers: "date x-request-id tpp-redirect-uri"},
		{name: "empty POST body with digest on empty body", req: emptyPost, opts: &SignerOptions{DigestOnEmptyBody: true},
			headers: "date digest x-request-id", digest: emptyDigest},
		{name: "a stale Digest on a GET is dropped", req: get, edit: func(r *http.Request) { r.Header.Set("Digest", "SHA-256=stale") },
			headers: "date x-request-id"},
		{name: "a stale Digest on a POST is replaced", req: payment, edit: func(r *http.Request) { r.Header.Set("Digest", "SHA-256=stale") },
			headers: "date digest x-request-id", digest: Digest([]byte(testPaymentBody))},
		{name: "multiple values of a signed header", req: get,
			edit:    func(r *http.Request) { r.Header["Tpp-Session-Id"] = []string{" a ", "b"} },
			opts:    &SignerOptions{SignedHeaders: []string{"tpp-session-id"}},
			headers: "date x-request-id tpp-session-id"},
		{name: "a request with no Method (net/http sends GET) still signs its target", req: func(t *testing.T) *http.Request {
			r := newGet(t, testBankURL+"/v1/accounts")
			r.Method = ""
			return r
		}, opts: &SignerOptions{SignedHeaders: []string{"(request-target)"}}, headers: "date x-request-id (request-target)"},
		{name: "host of a request made without NewRequest", req: func(t *testing.T) *http.Request {
			r := newGet(t, testBankURL+"/v1/accounts")
			r.Host = "" // the URL's host is sent
			return r
		}, opts: &SignerOptions{SignedHeaders: []string{"host"}}, headers: "date x-request-id host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			signer := testSignerWith(t, tt.opts)
			capt := &captureRT{}
			tr := &Transport{Base: capt, Signer: signer, RedirectURI: tt.redirectURI, Now: fixedNow}
			req := tt.req(t)
			if tt.edit != nil {
				tt.edit(req)
			}
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err)
			resp.Body.Close()
			sent := capt.last(t)
			p, _ := verifyRequest(t, sent, capt.lastBody(t))
			assert.Equal(t, tt.headers, p["headers"])
			assert.Equal(t, testKeyID, p["keyId"])
			assert.Equal(t, "rsa-sha256", p["algorithm"])
			if tt.digest == "" {
				assert.NotContains(t, sent.Header, "Digest")
			} else {
				assert.Equal(t, []string{tt.digest}, sent.Header["Digest"])
			}
			if strings.Contains(tt.headers, "host") {
				str := buildSigningString(t, strings.Fields(tt.headers), sent.Header, sent.Method, sent.URL.RequestURI(), "psd2.bank.example")
				assert.Contains(t, str, "\nhost: psd2.bank.example")
			}
		})
	}
}

func TestTransportDateAndCertificate(t *testing.T) {
	t.Parallel()
	oslo := time.FixedZone("CET", 3600)
	capt := &captureRT{}
	signer := testSigner(t)
	tr := &Transport{Base: capt, Signer: signer, Now: func() time.Time { return fixedNow().In(oslo) }}
	req := newGet(t, testBankURL+"/v1/accounts")
	req.Header.Set("Date", "Thu, 01 Jan 1970 00:00:00 GMT")
	_, err := tr.RoundTrip(req)
	require.NoError(t, err)
	sent := capt.last(t)
	assert.Equal(t, []string{"Mon, 02 Mar 2026 10:04:05 GMT"}, sent.Header["Date"], "RFC 7231 IMF-fixdate from Now, in GMT")
	d, err := http.ParseTime(sent.Header.Get("Date"))
	require.NoError(t, err)
	assert.True(t, d.Equal(fixedNow()))

	assert.Equal(t, []string{base64.StdEncoding.EncodeToString(signer.Certificate().Raw)}, sent.Header["Tpp-Signature-Certificate"])
	der, err := base64.StdEncoding.DecodeString(sent.Header.Get("TPP-Signature-Certificate"))
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	assert.True(t, cert.Equal(signer.Certificate()))
}

func TestTransportRequestIDAndRedirectURI(t *testing.T) {
	t.Parallel()
	capt := &captureRT{}
	tr := &Transport{Base: capt, Signer: testSigner(t), RedirectURI: testRedirectURI, Now: fixedNow}

	req := newGet(t, testBankURL+"/v1/accounts")
	req.Header.Set("X-Request-ID", goldenRequestID)
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example/other-cb")
	_, err := tr.RoundTrip(req)
	require.NoError(t, err)
	sent := capt.last(t)
	assert.Equal(t, []string{goldenRequestID}, sent.Header["X-Request-Id"], "present: not overwritten")
	assert.Equal(t, []string{"https://tpp.example/other-cb"}, sent.Header["Tpp-Redirect-Uri"], "present: not overwritten")

	ids := map[string]bool{}
	for range 3 {
		_, err := tr.RoundTrip(newGet(t, testBankURL+"/v1/accounts"))
		require.NoError(t, err)
		sent := capt.last(t)
		id := sent.Header.Get("X-Request-ID")
		assert.True(t, isUUID(id), id)
		ids[id] = true
		assert.Equal(t, testRedirectURI, sent.Header.Get("TPP-Redirect-URI"))
		verifyRequest(t, sent, nil)
	}
	assert.Len(t, ids, 3, "a fresh X-Request-ID per request")
}

// TestTransportLeavesRequestAlone: the caller's request, header map and URL
// are unchanged after RoundTrip.
func TestTransportLeavesRequestAlone(t *testing.T) {
	t.Parallel()
	for _, withBody := range []bool{false, true} {
		capt := &captureRT{}
		tr := &Transport{Base: capt, Signer: testSignerWith(t, &SignerOptions{DigestOnEmptyBody: true}), RedirectURI: testRedirectURI, Now: fixedNow}
		var req *http.Request
		if withBody {
			req = newPost(t, testBankURL+"/v1/payments/x?a=b%20c", testPaymentBody)
		} else {
			req = newGet(t, testBankURL+"/v1/accounts?withBalance=true")
		}
		require.NoError(t, PSU{ID: signPSUID, CorporateID: signCorporateID, IPAddress: "192.0.2.1"}.writeHeaders(req.Header, false))
		req.Header["Tpp-Session-Id"] = []string{" spaced ", "twice"}
		header := req.Header.Clone()
		u := *req.URL
		urlString := req.URL.String()
		method, host, length := req.Method, req.Host, req.ContentLength
		ctx := req.Context()

		_, err := tr.RoundTrip(req)
		require.NoError(t, err)
		assert.True(t, reflect.DeepEqual(header, req.Header), "header changed: %v", req.Header)
		assert.Equal(t, u, *req.URL)
		assert.Equal(t, urlString, req.URL.String())
		assert.Equal(t, method, req.Method)
		assert.Equal(t, host, req.Host)
		assert.Equal(t, length, req.ContentLength)
		assert.Equal(t, ctx, req.Context())
		sent := capt.last(t)
		assert.NotSame(t, req, sent)
		// The URL is shared, as req.WithContext shares it: neither
		// RoundTrip nor net/http writes it (checked above).
		sent.Header.Set("X-Mutated", "1")
		assert.Empty(t, req.Header.Get("X-Mutated"), "the sent request shares no header map with the caller's")
		if withBody {
			rc, err := req.GetBody()
			require.NoError(t, err)
			b, _ := io.ReadAll(rc)
			assert.Equal(t, testPaymentBody, string(b), "GetBody still gives the body")
			assert.Equal(t, testPaymentBody, string(capt.lastBody(t)))
			assert.EqualValues(t, len(testPaymentBody), sent.ContentLength)
			assert.Nil(t, sent.GetBody, "net/http gets no way to send a POST's body again")
		}
	}
}

// TestTransportReplayableOnlyForGET: the request handed to Base can be
// replayed by net/http (GetBody) for a GET only: its HTTP/2 transport
// replays a request after a stream reset by the peer even when the bank had
// acted on it, and nothing but a GET is ever sent twice (PUT included).
func TestTransportReplayableOnlyForGET(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method     string
		replayable bool
	}{
		{http.MethodPost, false}, {http.MethodPatch, false}, {http.MethodPut, false}, {http.MethodDelete, false}, {http.MethodGet, true},
	} {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			capt := &captureRT{}
			tr := &Transport{Base: capt, Signer: testSigner(t), RedirectURI: testRedirectURI, Now: fixedNow}
			req, err := http.NewRequest(tt.method, testBankURL+"/v1/x", strings.NewReader(testPaymentBody))
			require.NoError(t, err)
			_, err = tr.RoundTrip(req)
			require.NoError(t, err)
			sent := capt.last(t)
			if !tt.replayable {
				assert.Nil(t, sent.GetBody)
				return
			}
			require.NotNil(t, sent.GetBody)
			rc, err := sent.GetBody()
			require.NoError(t, err)
			b, _ := io.ReadAll(rc)
			assert.Equal(t, testPaymentBody, string(b))
		})
	}
}

// countingBody is a request body that counts Close calls.
type countingBody struct {
	r      io.Reader
	closes atomic.Int32
}

func (b *countingBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *countingBody) Close() error               { b.closes.Add(1); return nil }

// TestTransportClosesBodyOnce: the request body is closed exactly once on
// success and on every error path (http.RoundTripper's contract).
func TestTransportClosesBodyOnce(t *testing.T) {
	t.Parallel()
	baseErr := errors.New("connection refused")
	failingKey := &hsmKey{inner: testSigner(t).key, err: errors.New("hsm offline")}
	failingSigner, err := NewSigner(failingKey, testSigner(t).cert, nil)
	require.NoError(t, err)
	tests := []struct {
		name          string
		body          string
		contentLength int64
		noGetBody     bool
		signer        *Signer
		baseErr       error
		wantErr       error
		wantSent      bool
	}{
		{name: "success", body: testPaymentBody, contentLength: int64(len(testPaymentBody)), wantSent: true},
		{name: "success, unknown length", body: testPaymentBody, contentLength: -1, wantSent: true},
		{name: "no signer", body: testPaymentBody, contentLength: int64(len(testPaymentBody)), signer: (*Signer)(nil), wantErr: errNoSigner},
		{name: "body without GetBody", body: testPaymentBody, contentLength: int64(len(testPaymentBody)), noGetBody: true, wantErr: errBodyNotReplay},
		{name: "base RoundTripper error", body: testPaymentBody, contentLength: int64(len(testPaymentBody)), baseErr: baseErr, wantErr: baseErr, wantSent: true},
		{name: "body shorter than ContentLength", body: "{}", contentLength: 10, wantErr: errBodyLengthDiff},
		{name: "body longer than ContentLength", body: testPaymentBody, contentLength: 10, wantErr: errBodyLengthDiff},
		{name: "empty body, ContentLength set", body: "", contentLength: 10, wantErr: errBodyLengthDiff},
		{name: "signing error", body: testPaymentBody, contentLength: int64(len(testPaymentBody)), signer: failingSigner},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			signer := testSigner(t)
			if tt.signer != nil || tt.wantErr == errNoSigner {
				signer = tt.signer
			}
			capt := &captureRT{err: tt.baseErr}
			tr := &Transport{Base: capt, Signer: signer, Now: fixedNow}
			req, err := http.NewRequest(http.MethodPost, testBankURL+"/v1/payments/x", nil)
			require.NoError(t, err)
			body := &countingBody{r: strings.NewReader(tt.body)}
			req.Body, req.ContentLength = body, tt.contentLength
			if !tt.noGetBody {
				req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tt.body)), nil }
			}
			resp, err := tr.RoundTrip(req)
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, resp)
			case tt.signer != nil:
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			default:
				require.NoError(t, err)
				resp.Body.Close()
			}
			assert.EqualValues(t, 1, body.closes.Load(), "Close calls")
			if tt.wantSent {
				require.Equal(t, 1, capt.count())
				assert.Equal(t, tt.body, string(capt.lastBody(t)))
				assert.Equal(t, Digest([]byte(tt.body)), capt.last(t).Header.Get("Digest"))
			} else {
				assert.Zero(t, capt.count(), "nothing is sent")
			}
		})
	}
}

// TestTransportMalformedRequests: requests that net/http's own Transport
// refuses with an error do not make this one panic.
func TestTransportMalformedRequests(t *testing.T) {
	t.Parallel()
	t.Run("nil Header", func(t *testing.T) {
		t.Parallel()
		capt := &captureRT{}
		tr := &Transport{Base: capt, Signer: testSigner(t), Now: fixedNow}
		req := newGet(t, testBankURL+"/v1/accounts")
		req.Header = nil
		mustNotPanic(t, func() {
			_, err := tr.RoundTrip(req)
			require.NoError(t, err)
			verifyRequest(t, capt.last(t), nil)
			assert.Nil(t, req.Header, "the caller's request is left alone")
		})
	})
	t.Run("nil URL", func(t *testing.T) {
		t.Parallel()
		capt := &captureRT{}
		tr := &Transport{Base: capt, Signer: testSigner(t), Now: fixedNow}
		body := &countingBody{r: strings.NewReader("{}")}
		req := &http.Request{Method: http.MethodPost, Header: http.Header{}, Body: body, ContentLength: 2,
			GetBody: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }}
		mustNotPanic(t, func() {
			_, err := tr.RoundTrip(req)
			require.Error(t, err)
		})
		assert.EqualValues(t, 1, body.closes.Load())
		assert.Zero(t, capt.count())
	})
}

// TestTransportVerifiedIndependently sends signed requests to an httptest
// server and verifies them there twice: with code of the test's own
// (rsa.VerifyPKCS1v15, ecdsa.VerifyASN1) and with github.com/go-fed/httpsig.
//
// httpsig v1.1.0 splits the Signature value on every comma before looking
// at quotes (getSignatureComponents: strings.Split(s, ",")), so the keyId
// SN=...,CA=CN=...,O=...,C=NO falls apart: the pieces after the first comma
// ("CA=CN=xs2a Test CA - TEST ONLY", "O=tppkit", `C=NO"`) each still hold an
// "=", so httpsig takes them for unknown parameters and ignores them, and
// its KeyId() is the truncated "SN=1A2B3C4D5E6F". The signature itself
// verifies, since the keyId is not part of the signing string. An issuer
// with an escaped comma (RFC 2253 "\,") would give a piece without "=" and
// httpsig would refuse the header as malformed. httpsig also knows nothing
// of the RFC 2047 form (it finds no keyId in "=?utf-8?B?...?="): that case is
// cross-checked on the decoded value. SignerOptions.KeyID "Test" shows the keyId
// passing through intact when it holds no comma.
func TestTransportVerifiedIndependently(t *testing.T) {
	t.Parallel()
	type received struct {
		req  *http.Request
		body []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Clone(context.Background()), b}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name        string
		signer      *Signer
		defaultBase bool // Base nil: http.DefaultTransport
		body        string
		psu         PSU
		alg         httpsig.Algorithm
		wantKeyID   string // the keyId as sent
		httpsigKey  string // the keyId as httpsig reads it
		rfc2047     bool
		wantHeaders string
	}{
		{name: "RSA payment", signer: testSigner(t), body: testPaymentBody, psu: PSU{ID: signPSUID, IPAddress: "192.0.2.1", SessionID: signSessionID},
			alg: httpsig.RSA_SHA256, wantKeyID: testKeyID, httpsigKey: "SN=1A2B3C4D5E6F",
			wantHeaders: "date digest x-request-id psu-id tpp-redirect-uri"},
		{name: "RSA GET, default base transport", signer: testSigner(t), defaultBase: true, psu: PSU{ID: signPSUID, CorporateID: signCorporateID},
			alg: httpsig.RSA_SHA256, wantKeyID: testKeyID, httpsigKey: "SN=1A2B3C4D5E6F",
			wantHeaders: "date x-request-id psu-id psu-corporate-id tpp-redirect-uri"},
		{name: "RSA with KeyID", signer: testSignerWith(t, &SignerOptions{KeyID: "Test"}), body: testPaymentBody,
			alg: httpsig.RSA_SHA256, wantKeyID: "Test", httpsigKey: "Test", wantHeaders: "date digest x-request-id tpp-redirect-uri"},
		{name: "RSA with extra signed headers", signer: testSignerWith(t, &SignerOptions{SignedHeaders: []string{"(request-target)", "host", "content-type"}}), body: testPaymentBody,
			alg: httpsig.RSA_SHA256, wantKeyID: testKeyID, httpsigKey: "SN=1A2B3C4D5E6F",
			wantHeaders: "date digest x-request-id tpp-redirect-uri (request-target) host content-type"},
		{name: "ECDSA P-256 payment", signer: testECSigner(t), body: testPaymentBody, psu: PSU{ID: signPSUID, IPAddress: "192.0.2.1"},
			alg: httpsig.ECDSA_SHA256, wantKeyID: testECKeyID, httpsigKey: "SN=EC256",
			wantHeaders: "date digest x-request-id psu-id tpp-redirect-uri"},
		{name: "ECDSA GET with digest on empty body", signer: testECSignerWith(t, &SignerOptions{DigestOnEmptyBody: true}),
			alg: httpsig.ECDSA_SHA256, wantKeyID: testECKeyID, httpsigKey: "SN=EC256",
			wantHeaders: "date digest x-request-id tpp-redirect-uri"},
		{name: "RFC 2047 keyId", signer: testNordicSigner(t), psu: PSU{ID: signPSUID},
			alg: httpsig.RSA_SHA256, wantKeyID: testNordicKeyID, httpsigKey: "SN=C0FFEE", rfc2047: true,
			wantHeaders: "date x-request-id psu-id tpp-redirect-uri"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var base http.RoundTripper
			if !tt.defaultBase {
				base = srv.Client().Transport
			}
			hc := &http.Client{Transport: &Transport{Base: base, Signer: tt.signer, RedirectURI: testRedirectURI}}
			var req *http.Request
			if tt.body != "" {
				req = newPost(t, srv.URL+"/api/v1/payments/norwegian-domestic-credit-transfers?allowLogicalDuplicate=true", tt.body)
			} else {
				req = newGet(t, srv.URL+"/api/v1/accounts?withBalance=true")
			}
			require.NoError(t, tt.psu.writeHeaders(req.Header, false))
			resp, err := hc.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusCreated, resp.StatusCode)
			rcv := <-got
			r := rcv.req

			// The test's own verifier.
			p, cert := verifyRequest(t, r, rcv.body)
			assert.Equal(t, tt.wantKeyID, p["keyId"])
			assert.Equal(t, tt.signer.Algorithm(), p["algorithm"])
			assert.Equal(t, tt.wantHeaders, p["headers"])
			assert.True(t, cert.Equal(tt.signer.Certificate()))
			assert.Equal(t, tt.body, string(rcv.body))

			// go-fed/httpsig.
			if tt.rfc2047 {
				_, err := httpsig.NewVerifier(r)
				require.Error(t, err, "httpsig does not decode RFC 2047")
				dec, err := decodeRFC2047(r.Header.Get("Signature"))
				require.NoError(t, err)
				r.Header.Set("Signature", dec)
			}
			v, err := httpsig.NewVerifier(r)
			require.NoError(t, err)
			assert.Equal(t, tt.httpsigKey, v.KeyId())
			require.NoError(t, v.Verify(cert.PublicKey, tt.alg))

			// Both reject a tampered signed header.
			r.Header.Set("X-Request-ID", "6f9619ff-8b86-4011-b42d-00cf4fc964ff")
			v, err = httpsig.NewVerifier(r)
			require.NoError(t, err)
			require.Error(t, v.Verify(cert.PublicKey, tt.alg))
			sig, err := base64.StdEncoding.DecodeString(p["signature"])
			require.NoError(t, err)
			str := buildSigningString(t, strings.Fields(p["headers"]), r.Header, r.Method, r.URL.RequestURI(), r.Host)
			require.Error(t, verifyWithPublicKey(cert.PublicKey, []byte(str), sig))
		})
	}
}

// TestCavageThroughTransport runs the draft-cavage Appendix C request through
// Transport with the draft's date as the clock: the signature parts are the
// draft's.
func TestCavageThroughTransport(t *testing.T) {
	t.Parallel()
	v, key, _ := loadCavage(t)
	date, err := http.ParseTime("Sun, 05 Jan 2014 21:31:40 GMT")
	require.NoError(t, err)
	base, err := NewSigner(key, selfSigned(t, key), &SignerOptions{KeyID: v.KeyID})
	require.NoError(t, err)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			s := *base
			s.setHeaders(strings.Fields(c.Headers))
			capt := &captureRT{}
			tr := &Transport{Base: capt, Signer: &s, Now: func() time.Time { return date }}
			req := newPost(t, "http://example.com"+v.Request.Target, v.Request.Body)
			req.Header.Set("Content-Length", "18") // signed as a header in C.3
			_, err := tr.RoundTrip(req)
			require.NoError(t, err)
			sent := capt.last(t)
			assert.Equal(t, "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", sent.Header.Get("Digest"))
			p := splitSignature(t, sent.Header.Get("Signature"))
			assert.Equal(t, c.Headers, p["headers"])
			assert.Equal(t, c.Signature, p["signature"])
		})
	}
}
