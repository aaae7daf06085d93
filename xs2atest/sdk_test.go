package xs2atest_test

import (
	"bytes"
	"context"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/testcert"
	"github.com/tppkit/xs2a/xs2atest"
)

// The fake bank against the SDK's own signing Transport: every signer
// variant the SDK offers must be accepted by the bank's independent verifier
// (the keyId variants SignerOptions.LowerCaseSerial and EscapedSpacesInCA with
// xs2atest.WithKeyIDVariants, as docs/interface.md's keyId is upper-case and
// unescaped).

func signerFrom(t *testing.T, o testcert.Options, opts *xs2a.SignerOptions) *xs2a.Signer {
	t.Helper()
	p, err := testcert.New(o)
	require.NoError(t, err)
	sg, err := xs2a.NewSigner(p.Key, p.Cert, opts)
	require.NoError(t, err)
	return sg
}

func get(t *testing.T, hc *http.Client, method, url string, body []byte, hdr ...string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func TestSDKTransportIsAccepted(t *testing.T) {
	t.Parallel()
	ascii := pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Organization: []string{"tppkit"}, Country: []string{"NO"}}
	nordic := pkix.Name{CommonName: "Testbanken Sertifikat Ø - TEST ONLY", Organization: []string{"Bankø Test AS"}, Country: []string{"NO"}}
	subject := pkix.Name{CommonName: "xs2a test TPP - TEST ONLY", Country: []string{"NO"}}
	// an eIDAS-style issuer: serialNumber (2.5.4.5), organizationIdentifier
	// (2.5.4.97, UTF8String), DC (IA5String), postalCode and a quote in O.
	// Strict RFC 2253 writes 2.5.4.5=#13..., 2.5.4.97=#0c... and DC=...
	// where Go's pkix form writes SERIALNUMBER=, a PrintableString #13...
	// and 0.9.2342.19200300.100.1.25=#13...
	eidas := pkix.Name{CommonName: "xs2a eIDAS Test CA - TEST ONLY", Organization: []string{`Test "QTSP" AS`},
		Country: []string{"NO"}, SerialNumber: "NTRNO-983163327", PostalCode: []string{"0150"},
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: asn1.RawValue{Tag: asn1.TagUTF8String, Bytes: []byte("NTRNO-983163327")}},
			{Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}, Value: asn1.RawValue{Tag: asn1.TagIA5String, Bytes: []byte("test")}},
		}}
	variants := []xs2atest.Option{xs2atest.WithKeyIDVariants()}
	tests := []struct {
		name   string
		o      testcert.Options
		opts   *xs2a.SignerOptions
		server []xs2atest.Option
	}{
		{"rsa", testcert.Options{Subject: subject, Issuer: ascii}, nil, nil},
		{"ecdsa", testcert.Options{Subject: subject, Issuer: ascii, EC: true}, nil, nil},
		{"non-ASCII issuer (RFC 2047)", testcert.Options{Subject: subject, Issuer: nordic, EC: true}, nil, nil},
		{"lower-case serial", testcert.Options{Subject: subject, Issuer: ascii, EC: true}, &xs2a.SignerOptions{LowerCaseSerial: true}, variants},
		{"%20 in CA", testcert.Options{Subject: subject, Issuer: ascii, EC: true}, &xs2a.SignerOptions{EscapedSpacesInCA: true}, variants},
		{"issuer with serialNumber, organizationIdentifier, DC", testcert.Options{Subject: subject, Issuer: eidas}, nil, nil},
		{"eIDAS issuer, EC, %20 in CA", testcert.Options{Subject: subject, Issuer: eidas, EC: true}, &xs2a.SignerOptions{EscapedSpacesInCA: true}, variants},
		{"RFC 2047 wrapped Signature", testcert.Options{Subject: subject, Issuer: ascii}, &xs2a.SignerOptions{RFC2047Signature: true}, nil},
		{"RFC 2047 wrapped, lower-case serial", testcert.Options{Subject: subject, Issuer: ascii},
			&xs2a.SignerOptions{RFC2047Signature: true, LowerCaseSerial: true}, variants},
		{"digest on empty body", testcert.Options{Subject: subject, Issuer: ascii, EC: true}, &xs2a.SignerOptions{DigestOnEmptyBody: true}, nil},
	}
	for _, tls := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s tls=%v", tt.name, tls), func(t *testing.T) {
				t.Parallel()
				opts := append([]xs2atest.Option(nil), tt.server...)
				if tls {
					opts = append(opts, xs2atest.WithTLS())
				}
				s := xs2atest.NewServer(t, opts...)
				sg := signerFrom(t, tt.o, tt.opts)
				hc := &http.Client{Transport: &xs2a.Transport{Base: s.HTTPClient().Transport, Signer: sg,
					RedirectURI: xs2atest.DefaultRedirectURI}}

				status, body := get(t, hc, "GET", s.URL()+"/v1/accounts", nil, "TPP-Session-ID", xs2a.NewSessionID())
				require.Equal(t, 401, status, "%v", body)
				href := body["_links"].(map[string]any)["scaRedirect"].(map[string]any)["href"].(string)
				cbURL, err := s.CompleteSCA(context.Background(), href, xs2atest.PrivateCustomer1)
				require.NoError(t, err)
				cb, err := xs2a.ParseCallback(cbURL.Query())
				require.NoError(t, err)
				assert.Equal(t, xs2atest.PSUID(sg.KeyID(), xs2atest.PrivateCustomer1), cb.PSUID)

				status, body = get(t, hc, "GET", s.URL()+"/v1/accounts", nil, "PSU-ID", cb.PSUID)
				require.Equal(t, 200, status, "%v", body)
				accts := body["accounts"].([]any)
				require.Len(t, accts, 2)
				debtor := accts[0].(map[string]any)["bban"].(string)

				payment := []byte(`{"instructedAmount":{"currency":"NOK","amount":"99.90"},"debtorAccount":{"bban":"` + debtor +
					`"},"creditorAccount":{"bban":"86011117947"},"creditorName":"Fjordkraft AS"}`)
				status, body = get(t, hc, "POST", s.URL()+"/v1/payments/norwegian-domestic-credit-transfers", payment,
					"PSU-ID", cb.PSUID, "PSU-IP-Address", "192.0.2.10", "Content-Type", "application/json")
				require.Equal(t, 201, status, "%v", body)
				assert.Equal(t, "RCVD", body["transactionStatus"])
			})
		}
	}
}

// TestSDKKeyIDVariantsRefusedByDefault: the SDK's keyId variants are not
// the form docs/interface.md gives (upper-case serial, RFC 2253 issuer), so the
// fake bank refuses them unless WithKeyIDVariants is on.
func TestSDKKeyIDVariantsRefusedByDefault(t *testing.T) {
	t.Parallel()
	s := xs2atest.NewServer(t)
	issuer := pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Organization: []string{"tppkit"}, Country: []string{"NO"}}
	// a serial with hex letters, so the lower-case serial differs
	o := testcert.Options{Subject: pkix.Name{CommonName: "xs2a test TPP - TEST ONLY", Country: []string{"NO"}}, Issuer: issuer, EC: true,
		Serial: big.NewInt(0xC0FFEE)}
	for name, opt := range map[string]*xs2a.SignerOptions{
		"lower-case serial": {LowerCaseSerial: true},
		"%20 in CA":         {EscapedSpacesInCA: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sg := signerFrom(t, o, opt)
			hc := &http.Client{Transport: &xs2a.Transport{Base: s.HTTPClient().Transport, Signer: sg,
				RedirectURI: xs2atest.DefaultRedirectURI}}
			status, body := get(t, hc, "GET", s.URL()+"/v1/sandbox/customers", nil)
			assert.Equal(t, http.StatusBadRequest, status, "%v", body)
			assert.Contains(t, fmt.Sprint(body), "SIGNATURE_INVALID")
		})
	}
}

func TestServerClient(t *testing.T) {
	t.Parallel()
	s := xs2atest.NewServer(t, xs2atest.WithTLS(), xs2atest.WithResponseSigning())
	c, err := s.Client(nil)
	require.NoError(t, err)
	assert.Equal(t, s.URL(), c.BaseURL())
	c2, err := s.Client(nil, xs2a.WithRedirectURI("https://other.example/cb"))
	require.NoError(t, err)
	assert.NotNil(t, c2)
	sg, err := xs2atest.NewTestSigner(nil)
	require.NoError(t, err)
	assert.Contains(t, sg.Certificate().Subject.CommonName, "TEST ONLY")
	assert.Contains(t, sg.Certificate().Issuer.CommonName, "TEST ONLY")
	_, err = s.Client(sg)
	require.NoError(t, err)
}

// Example: the account flow against the fake bank with the SDK's signing
// Transport: 401 with scaRedirect, the PSU's SCA, then the accounts.
func ExampleServer_CompleteSCA() {
	s, err := xs2atest.Start()
	if err != nil {
		panic(err)
	}
	defer s.Close()
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		panic(err)
	}
	hc := &http.Client{Transport: &xs2a.Transport{Signer: signer, RedirectURI: xs2atest.DefaultRedirectURI}}

	req, _ := http.NewRequest("GET", s.URL()+"/v1/accounts", nil)
	req.Header.Set("TPP-Session-ID", "session-1")
	resp, err := hc.Do(req)
	if err != nil {
		panic(err)
	}
	var sca struct {
		Links map[string]xs2a.Link `json:"_links"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&sca)
	resp.Body.Close()
	fmt.Println("first call:", resp.StatusCode)

	callback, err := s.CompleteSCA(context.Background(), sca.Links["scaRedirect"].Href, xs2atest.PrivateCustomer1)
	if err != nil {
		panic(err)
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		panic(err)
	}
	fmt.Println("context:", cb.Context, "session:", cb.TPPSessionID)

	req, _ = http.NewRequest("GET", s.URL()+"/v1/accounts", nil)
	req.Header.Set("PSU-ID", cb.PSUID)
	resp, _ = hc.Do(req)
	var list struct {
		Accounts []struct{ Name, Currency string } `json:"accounts"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	for _, a := range list.Accounts {
		fmt.Println(a.Name, a.Currency)
	}
	// Output:
	// first call: 401
	// context: PRIVATE session: session-1
	// Brukskonto NOK
	// Sparekonto for felles husholdning o NOK
}

// psd2Subject is a TPP certificate subject with the PSD2
// organizationIdentifier orgID ("" for none).
func psd2Subject(cn, orgID string) pkix.Name {
	n := pkix.Name{CommonName: cn + " - TEST ONLY", Country: []string{"NO"}}
	if orgID != "" {
		n.ExtraNames = []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: orgID}}
	}
	return n
}

// TestTPPContactBoundToCertificate: a tppId's contact e-mail can be read
// and written only with the certificate it belongs to: the one whose
// organizationIdentifier names it, or, for a certificate without one, the
// key that wrote it first. Any other TPP gets 403 and changes nothing.
func TestTPPContactBoundToCertificate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := xs2atest.NewServer(t)
	ca := pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Country: []string{"NO"}}
	newClient := func(cn, orgID string) (*xs2a.Client, *xs2a.Signer) {
		sg := signerFrom(t, testcert.Options{Subject: psd2Subject(cn, orgID), Issuer: ca, EC: true}, nil)
		c, err := s.Client(sg)
		require.NoError(t, err)
		return c, sg
	}
	alpha, alphaSigner := newClient("Alpha TPP", "PSDNO-FSA-111111111")
	beta, betaSigner := newClient("Beta TPP", "PSDNO-FSA-222222222")
	gamma, gammaSigner := newClient("Gamma TPP", "")
	delta, _ := newClient("Delta TPP", "")
	alphaRenewed, _ := newClient("Alpha TPP renewed", "PSDNO-FSA-111111111") // same TPP, new key
	require.Equal(t, "NO-FSA-111111111", alphaSigner.TPPID())
	require.Equal(t, "NO-FSA-222222222", betaSigner.TPPID())
	require.Empty(t, gammaSigner.TPPID())

	// the owners register
	_, err := alpha.TPP.SetContactEmail(ctx, alphaSigner.TPPID(), "ops@alpha.example")
	require.NoError(t, err)
	_, err = beta.TPP.SetContactEmail(ctx, betaSigner.TPPID(), "ops@beta.example")
	require.NoError(t, err)
	_, err = gamma.TPP.SetContactEmail(ctx, "NO-FSA-333333333", "ops@gamma.example") // binds the id to gamma's key
	require.NoError(t, err)

	forbidden := []struct {
		name  string
		c     *xs2a.Client
		tppID string
	}{
		{"beta on alpha's id", beta, "NO-FSA-111111111"},
		{"alpha on beta's id", alpha, "NO-FSA-222222222"},
		{"key-bound gamma on alpha's id", gamma, "NO-FSA-111111111"},
		{"delta on gamma's key-bound id", delta, "NO-FSA-333333333"},
		{"alpha on gamma's key-bound id", alpha, "NO-FSA-333333333"},
		{"gamma on a second id", gamma, "NO-FSA-444444444"},
	}
	for _, tt := range forbidden {
		t.Run(tt.name, func(t *testing.T) {
			_, resp, err := tt.c.TPP.ContactEmail(ctx, tt.tppID)
			requireForbidden(t, resp, err)
			resp, err = tt.c.TPP.SetContactEmail(ctx, tt.tppID, "attacker@evil.example")
			requireForbidden(t, resp, err)
		})
	}

	owners := []struct {
		name, tppID, email string
		c                  *xs2a.Client
	}{
		{"alpha", "NO-FSA-111111111", "ops@alpha.example", alpha},
		{"alpha with a renewed certificate", "NO-FSA-111111111", "ops@alpha.example", alphaRenewed},
		{"beta", "NO-FSA-222222222", "ops@beta.example", beta},
		{"gamma", "NO-FSA-333333333", "ops@gamma.example", gamma},
	}
	for _, tt := range owners {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := tt.c.TPP.ContactEmail(ctx, tt.tppID)
			require.NoError(t, err)
			assert.Equal(t, tt.email, got, "unchanged by the refused writes")
		})
	}
	_, err = gamma.TPP.SetContactEmail(ctx, "NO-FSA-333333333", "noc@gamma.example")
	require.NoError(t, err, "the owner may overwrite")
	got, _, err := gamma.TPP.ContactEmail(ctx, "NO-FSA-333333333")
	require.NoError(t, err)
	assert.Equal(t, "noc@gamma.example", got)
}

// requireForbidden checks a 403 CERTIFICATE_INVALID for the tppId, which
// does not read as a consent problem.
func requireForbidden(t *testing.T, resp *xs2a.Response, err error) {
	t.Helper()
	var e *xs2a.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusForbidden, e.StatusCode)
	assert.Equal(t, "CERTIFICATE_INVALID", e.Code)
	require.NotEmpty(t, e.Messages)
	assert.Equal(t, "tppId", e.Messages[0].Path)
	assert.NotErrorIs(t, err, xs2a.ErrConsentInvalid)
	require.NotNil(t, resp)
}
