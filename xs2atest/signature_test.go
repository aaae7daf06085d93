package xs2atest

import (
	"bytes"
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
	"encoding/pem"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-fed/httpsig"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSignatureHeader(t *testing.T) {
	t.Parallel()
	valid := `keyId="SN=1A2B,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="date digest x-request-id",signature="c2ln"`
	tests := []struct {
		name    string
		in      string
		wantErr bool
		keyID   string
		headers []string
	}{
		{name: "plain", in: valid, keyID: "SN=1A2B,CA=CN=Test CA,O=Bank", headers: []string{"date", "digest", "x-request-id"}},
		{name: "spaces after commas", in: strings.ReplaceAll(valid, `",`, `", `), keyID: "SN=1A2B,CA=CN=Test CA,O=Bank",
			headers: []string{"date", "digest", "x-request-id"}},
		{name: "rfc2047 utf-8 B", in: mime.BEncoding.Encode("utf-8", strings.Replace(valid, "Test CA", "Tést CA", 1)),
			keyID: "SN=1A2B,CA=CN=Tést CA,O=Bank", headers: []string{"date", "digest", "x-request-id"}},
		{name: "rfc2047 whole value one word", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid)) + "?=",
			keyID: "SN=1A2B,CA=CN=Test CA,O=Bank", headers: []string{"date", "digest", "x-request-id"}},
		{name: "escaped quote in CA", in: `keyId="SN=1,CA=CN=A\"B",algorithm="rsa-sha256",headers="date",signature="c2ln"`,
			keyID: `SN=1,CA=CN=A\"B`, headers: []string{"date"}},
		{name: "wrong order", in: `algorithm="rsa-sha256",keyId="SN=1,CA=X",headers="date",signature="c2ln"`, wantErr: true},
		{name: "missing signature", in: `keyId="SN=1,CA=X",algorithm="rsa-sha256",headers="date"`, wantErr: true},
		{name: "extra part", in: valid + `,created="1"`, wantErr: true},
		{name: "unterminated", in: `keyId="SN=1,CA=X,algorithm="rsa-sha256`, wantErr: true},
		{name: "bad base64", in: strings.Replace(valid, "c2ln", "***", 1), wantErr: true},
		{name: "upper-case header name", in: strings.Replace(valid, "date", "Date", 1), wantErr: true},
		{name: "duplicate header name", in: strings.Replace(valid, "digest", "date", 1), wantErr: true},
		{name: "empty headers", in: strings.Replace(valid, "date digest x-request-id", "", 1), wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "broken rfc2047", in: "=?utf-8?B?!!!?=", wantErr: true},
		{name: "rfc2047 two words", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid[:20])) + "?= =?utf-8?Q?" +
			strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(valid[20:], "=", "=3D"), " ", "_"), "?", "=3F") + "?=",
			keyID: "SN=1A2B,CA=CN=Test CA,O=Bank", headers: []string{"date", "digest", "x-request-id"}},
		{name: "rfc2047 partly wrapped", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid[:20])) + "?=" + valid[20:], wantErr: true},
		{name: "rfc2047 text after the word", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid)) + "?= x", wantErr: true},
		{name: "rfc2047 unterminated", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid)), wantErr: true},
		{name: "rfc2047 unknown charset", in: "=?koi8-r?B?" + base64.StdEncoding.EncodeToString([]byte(valid)) + "?=", wantErr: true},
		{name: "rfc2047 unknown encoding", in: "=?utf-8?X?" + base64.StdEncoding.EncodeToString([]byte(valid)) + "?=", wantErr: true},
		{name: "rfc2047 truncated base64", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(valid))[:30] + "?=", wantErr: true},
		{name: "rfc2047 wrapped twice", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte("=?utf-8?B?"+
			base64.StdEncoding.EncodeToString([]byte(valid))+"?=")) + "?=", wantErr: true},
		{name: "rfc2047 not UTF-8", in: "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte("keyId=\"\xff\"")) + "?=", wantErr: true},
		{name: "rfc2047 empty word", in: "=?utf-8?B??=", wantErr: true},
		{name: "raw utf-8, not rfc2047", in: strings.Replace(valid, "Test CA", "Tést CA", 1), wantErr: true},
		{name: "raw latin-1 byte, not rfc2047", in: strings.Replace(valid, "Test CA", "T\xe9st CA", 1), wantErr: true},
		{name: "rfc2047 iso-8859-1 Q", in: mime.QEncoding.Encode("iso-8859-1", strings.Replace(valid, "Test CA", "T\xe9st CA", 1)),
			keyID: "SN=1A2B,CA=CN=Tést CA,O=Bank", headers: []string{"date", "digest", "x-request-id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseSignatureHeader(tt.in)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.keyID, p.KeyID)
			assert.Equal(t, "rsa-sha256", p.Algorithm)
			assert.Equal(t, tt.headers, p.Headers)
			assert.Equal(t, []byte("sig"), p.Signature)
		})
	}
}

// TestCavageVectors checks the signing-string and RSA-SHA256 machinery
// against draft-cavage-http-signatures-10 Appendix C.
func TestCavageVectors(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/http-signature-cavage.json")
	require.NoError(t, err)
	var v struct {
		PublicKeyPEM string `json:"publicKeyPEM"`
		Request      struct {
			Method  string      `json:"method"`
			Target  string      `json:"target"`
			Headers [][2]string `json:"headers"`
		} `json:"request"`
		Cases []struct {
			Name, Headers, Signature string
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	blk, _ := pem.Decode([]byte(v.PublicKeyPEM))
	pub, err := x509.ParsePKIXPublicKey(blk.Bytes)
	require.NoError(t, err)
	req, err := http.NewRequest(v.Request.Method, "http://example.com"+v.Request.Target, nil)
	require.NoError(t, err)
	for _, h := range v.Request.Headers {
		if h[0] == "Host" {
			req.Host = h[1]
			continue
		}
		req.Header.Set(h[0], h[1])
	}
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			ss, err := signingString(req, strings.Fields(c.Headers))
			require.NoError(t, err)
			sig, _ := base64.StdEncoding.DecodeString(c.Signature)
			assert.NoError(t, verifySignature(pub, "rsa-sha256", []byte(ss), sig))
			assert.Error(t, verifySignature(pub, "rsa-sha256", []byte(ss+"x"), sig))
		})
	}
}

func TestVerifyRequest(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	tpp := sharedTPP(t)
	ec := newTPP(t, "ecdsa", "xs2atest EC CA (TEST ONLY)")
	nonASCII := newTPP(t, "ecdsa", "Testbank Ærøskøbing CA (TEST ONLY)")
	body := []byte(`{"email":"ops@tpp.example"}`)
	// each TPP its own tppId: a tppId belongs to the first key that writes it
	put := func(t *testing.T, p *testTPP, edit func(r *http.Request)) *res {
		c := newTestClient(t, s)
		c.tpp = p
		return c.doWith(edit, "PUT", "/v1/tpps/NO-FSA-"+p.cert.SerialNumber.Text(16)+"/contact-information", body)
	}
	resign := func(p *testTPP, keyID string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Signature", p.signatureValue(t, r.Header, keyID)) }
	}
	tests := []struct {
		name string
		tpp  *testTPP
		edit func(r *http.Request)
		code string // "" = accepted
	}{
		{name: "valid rsa", tpp: tpp, edit: func(*http.Request) {}},
		{name: "valid ecdsa", tpp: ec, edit: func(*http.Request) {}},
		{name: "RFC 2253 keyId from raw issuer", tpp: tpp, edit: resign(tpp, keyIDOf(tpp.cert))},
		{name: "RFC 2047 encoded, non-ASCII issuer", tpp: nonASCII, edit: func(r *http.Request) {
			r.Header.Set("Signature", mime.BEncoding.Encode("utf-8", nonASCII.signatureValue(t, r.Header, keyIDOf(nonASCII.cert))))
		}},
		// docs/interface.md, Authentication 7: non-ASCII text in the Signature is MIME-encoded per RFC 2047
		{name: "raw non-ASCII issuer, not RFC 2047 encoded", tpp: nonASCII, edit: func(r *http.Request) {
			r.Header.Set("Signature", nonASCII.signatureValue(t, r.Header, keyIDOf(nonASCII.cert)))
		}, code: "SIGNATURE_INVALID"},
		{name: "PEM certificate", tpp: tpp, edit: func(r *http.Request) {
			p := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tpp.cert.Raw})
			r.Header.Set("TPP-Signature-Certificate", strings.ReplaceAll(strings.TrimSpace(string(p)), "\n", " "))
		}},
		{name: "SHA-512 digest", tpp: tpp, edit: func(r *http.Request) {
			r.Header.Set("Digest", "SHA-512=k5N0DfQLOyg9Cn4tSAvVYQqJCM0JzZDYKNOsB89Gr8DpYyhqThk44GwCoOmk44UHkr1ne8o2hVvmpyvixadNGw==")
		}, code: "SIGNATURE_INVALID"},
		{name: "missing signature", tpp: tpp, edit: func(r *http.Request) { r.Header.Del("Signature") }, code: "SIGNATURE_MISSING"},
		{name: "tampered signed header", tpp: tpp, edit: func(r *http.Request) { r.Header.Set("X-Request-ID", "6b7d1f9e-0000-4000-8000-000000000000") }, code: "SIGNATURE_INVALID"},
		{name: "tampered body", tpp: tpp, edit: func(r *http.Request) {
			b := bytes.Replace(body, []byte("ops"), []byte("dev"), 1)
			r.Body = ioNopCloser(b)
		}, code: "SIGNATURE_INVALID"},
		{name: "wrong key", tpp: tpp, edit: func(r *http.Request) {
			other := rsaTPP2
			r.Header.Set("Signature", other.signatureValue(t, r.Header, tpp.keyID))
		}, code: "SIGNATURE_INVALID"},
		{name: "wrong keyId serial", tpp: tpp, edit: resign(tpp, "SN=1234,CA="+issuerString(tpp.cert)), code: "SIGNATURE_INVALID"},
		{name: "wrong keyId CA", tpp: tpp, edit: resign(tpp, "SN="+strings.ToUpper(tpp.cert.SerialNumber.Text(16))+",CA=CN=Other CA"), code: "SIGNATURE_INVALID"},
		{name: "algorithm does not fit key", tpp: tpp, edit: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "rsa-sha256", "ecdsa-sha256", 1))
		}, code: "SIGNATURE_INVALID"},
		{name: "unknown algorithm", tpp: tpp, edit: func(r *http.Request) {
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "rsa-sha256", "hmac-sha256", 1))
		}, code: "SIGNATURE_INVALID"},
		{name: "missing digest on a body", tpp: tpp, edit: func(r *http.Request) {
			r.Header.Del("Digest")
			r.Header.Set("Signature", tpp.signatureValue(t, r.Header, tpp.keyID))
		}, code: "SIGNATURE_INVALID"},
		{name: "digest not signed", tpp: tpp, edit: func(r *http.Request) {
			d := r.Header.Get("Digest")
			r.Header.Del("Digest")
			r.Header.Set("Signature", tpp.signatureValue(t, r.Header, tpp.keyID))
			r.Header.Set("Digest", d)
		}, code: "SIGNATURE_INVALID"},
		{name: "tpp-redirect-uri not signed", tpp: tpp, edit: func(r *http.Request) {
			u := r.Header.Get("TPP-Redirect-URI")
			r.Header.Del("TPP-Redirect-URI")
			r.Header.Set("Signature", tpp.signatureValue(t, r.Header, tpp.keyID))
			r.Header.Set("TPP-Redirect-URI", u)
		}, code: "SIGNATURE_INVALID"},
		{name: "missing certificate", tpp: tpp, edit: func(r *http.Request) { r.Header.Del("TPP-Signature-Certificate") }, code: "CERTIFICATE_MISSING"},
		{name: "garbage certificate", tpp: tpp, edit: func(r *http.Request) { r.Header.Set("TPP-Signature-Certificate", "bm90IGEgY2VydA==") }, code: "CERTIFICATE_INVALID"},
		{name: "missing TPP-Redirect-URI", tpp: tpp, edit: func(r *http.Request) {
			r.Header.Del("TPP-Redirect-URI")
			r.Header.Set("Signature", tpp.signatureValue(t, r.Header, tpp.keyID))
		}, code: "FORMAT_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := put(t, tt.tpp, tt.edit)
			if tt.code == "" {
				assert.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
				return
			}
			assert.Equal(t, http.StatusBadRequest, r.status, "body: %s", r.body)
			assert.Equal(t, tt.code, r.code())
			assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		})
	}
}

// TestKeyIDVariants: docs/interface.md, Authentication 4 writes keyId as
// "SN=<hex serial, upper case>,CA=<issuer as RFC 2253>". A lower-case serial
// and "%20" for a space in the CA are refused by default and accepted with
// WithKeyIDVariants; the strict keyId is accepted either way.
func TestKeyIDVariants(t *testing.T) {
	t.Parallel()
	// a serial with hex letters and an issuer with spaces, so both variants differ
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	name := pkix.Name{CommonName: "xs2atest keyId variants CA (TEST ONLY)", Country: []string{"NO"}}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(0xC0FFEE), Subject: name, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	tpp := &testTPP{key: key, cert: cert, certB64: base64.StdEncoding.EncodeToString(der), alg: "ecdsa-sha256",
		keyID: keyIDOf(cert), redirect: "https://tpp.example/callback"}
	strict := keyIDOf(cert)
	upper, lower := "C0FFEE", "c0ffee"
	require.Equal(t, "SN="+upper+",CA=CN=xs2atest keyId variants CA (TEST ONLY),C=NO", strict)
	strictServer, variantServer := NewServer(t), NewServer(t, WithKeyIDVariants())
	tests := []struct {
		name      string
		keyID     string
		variant   bool   // accepted only with WithKeyIDVariants
		errorText string // part of the refusal's text by default
	}{
		{"strict", strict, false, ""},
		{"Go pkix issuer", "SN=" + upper + ",CA=" + tpp.cert.Issuer.String(), false, ""},
		{"lower-case serial", strings.Replace(strict, upper, lower, 1), true, "upper-case hex"},
		{"%20 for spaces in CA", strings.ReplaceAll(strict, " ", "%20"), true, "%20"},
		{"both", strings.ReplaceAll(strings.Replace(strict, upper, lower, 1), " ", "%20"), true, "upper-case hex"},
	}
	for _, tt := range tests {
		for _, variants := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s variants=%v", tt.name, variants), func(t *testing.T) {
				s := strictServer
				if variants {
					s = variantServer
				}
				c := newTestClient(t, s)
				c.tpp = tpp
				r := c.doWith(func(r *http.Request) {
					r.Header.Set("Signature", tpp.signatureValue(t, r.Header, tt.keyID))
				}, "GET", "/v1/sandbox/customers", nil)
				if !tt.variant || variants {
					assert.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
					return
				}
				assert.Equal(t, http.StatusBadRequest, r.status, "body: %s", r.body)
				assert.Equal(t, "SIGNATURE_INVALID", r.code())
				assert.Contains(t, string(r.body), tt.errorText)
			})
		}
	}
}

// TestRFC2047WrappedSignature: the whole Signature value wrapped as one
// encoded word is accepted; a malformed wrapping of the same genuine value
// gets 400 SIGNATURE_INVALID.
func TestRFC2047WrappedSignature(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name string
		wrap func(v string) string
		ok   bool
	}{
		{"one word", func(v string) string { return "=?utf-8?B?" + b64([]byte(v)) + "?=" }, true},
		{"upper-case charset and encoding", func(v string) string { return "=?UTF-8?b?" + b64([]byte(v)) + "?=" }, true},
		{"partly wrapped", func(v string) string { return "=?utf-8?B?" + b64([]byte(v[:10])) + "?=" + v[10:] }, false},
		{"no closing ?=", func(v string) string { return "=?utf-8?B?" + b64([]byte(v)) }, false},
		{"text after the word", func(v string) string { return "=?utf-8?B?" + b64([]byte(v)) + "?= ok" }, false},
		{"unknown charset", func(v string) string { return "=?ebcdic?B?" + b64([]byte(v)) + "?=" }, false},
		{"raw base64 url alphabet", func(v string) string {
			return "=?utf-8?B?" + base64.URLEncoding.EncodeToString([]byte(v+"??>>")) + "?="
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, s)
			r := c.doWith(func(r *http.Request) {
				r.Header.Set("Signature", tt.wrap(r.Header.Get("Signature")))
			}, "GET", "/v1/sandbox/customers", nil)
			if tt.ok {
				assert.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
				return
			}
			assert.Equal(t, http.StatusBadRequest, r.status, "body: %s", r.body)
			assert.Equal(t, "SIGNATURE_INVALID", r.code())
		})
	}
}

// TestVerifyGoFedSigner cross-checks the verifier with an independent
// signer (github.com/go-fed/httpsig), whose hs2019 label is rewritten to the
// rsa-sha256 the bank expects (same bytes for an RSA key).
func TestVerifyGoFedSigner(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(func() time.Time { return time.Date(2025, 3, 11, 10, 0, 30, 0, time.UTC) }))
	tpp := sharedTPP(t)
	body := []byte(`{"email":"ops@tpp.example"}`)
	req, err := http.NewRequest("PUT", s.URL()+"/v1/tpps/NO-FSA-2/contact-information", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Date", "Tue, 11 Mar 2025 10:00:00 GMT")
	req.Header.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	req.Header.Set("TPP-Redirect-URI", "https://tpp.example/cb")
	req.Header.Set("TPP-Signature-Certificate", tpp.certB64)
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{"date", "digest", "x-request-id", "tpp-redirect-uri"}, httpsig.Signature, 0)
	require.NoError(t, err)
	require.NoError(t, signer.SignRequest(tpp.key.(*rsa.PrivateKey), keyIDOf(tpp.cert), req, body))
	req.Header.Set("Signature", strings.Replace(req.Header.Get("Signature"), `algorithm="hs2019"`, `algorithm="rsa-sha256"`, 1))
	resp, err := s.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestResponseSigning verifies the bank's response signature with go-fed/httpsig.
func TestResponseSigning(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithResponseSigning())
	require.NotNil(t, s.Certificate())
	c := newTestClient(t, s)
	r := c.do("GET", "/v1/sandbox/customers", nil)
	require.Equal(t, 200, r.status)
	assert.NotEmpty(t, r.header.Get("Digest"))
	p, err := parseSignatureHeader(r.header.Get("Signature"))
	require.NoError(t, err)
	assert.Equal(t, []string{"date", "digest", "x-request-id"}, p.Headers)
	assert.Equal(t, keyIDOf(s.Certificate()), p.KeyID)
	require.NoError(t, verifyDigest(r.header.Get("Digest"), r.body))
	resp := &http.Request{Header: r.header}
	ss, err := signingString(resp, p.Headers)
	require.NoError(t, err)
	require.NoError(t, verifySignature(s.Certificate().PublicKey, p.Algorithm, []byte(ss), p.Signature))
	// and by hand, without the package's helpers
	lines := "date: " + r.header.Get("Date") + "\ndigest: " + r.header.Get("Digest") + "\nx-request-id: " + r.header.Get("X-Request-ID")
	sum := sha256.Sum256([]byte(lines))
	assert.NoError(t, rsa.VerifyPKCS1v15(s.Certificate().PublicKey.(*rsa.PublicKey), crypto.SHA256, sum[:], p.Signature))
}

func FuzzParseSignatureHeader(f *testing.F) {
	f.Add(`keyId="SN=1A2B,CA=CN=Test CA,O=Bank",algorithm="rsa-sha256",headers="date digest",signature="c2ln"`)
	f.Add(`=?utf-8?B?a2V5SWQ9IlNOPTEsQ0E9WCIsYWxnb3JpdGhtPSJyc2Etc2hhMjU2IixoZWFkZXJzPSJkYXRlIixzaWduYXR1cmU9ImMybG4iCg==?=`)
	f.Add(`keyId="SN=1,CA=CN=A\"B",algorithm="ecdsa-sha256",headers="date",signature="c2ln"`)
	f.Add(`keyId="`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := parseSignatureHeader(in)
		if err != nil {
			return
		}
		if p.KeyID == "" || len(p.Headers) == 0 || len(p.Signature) == 0 {
			t.Fatalf("accepted incomplete header %q", in)
		}
	})
}

// FuzzUnwrapRFC2047: whatever unwrapRFC2047 accepts, mime.WordDecoder's
// DecodeHeader (the reference) decodes to the same text, and it never
// accepts text outside encoded words.
func FuzzUnwrapRFC2047(f *testing.F) {
	f.Add("=?utf-8?B?a2V5SWQ9IlNOPTEiLGFsZ29yaXRobT0icnNhLXNoYTI1NiI=?=")
	f.Add("=?utf-8?B?YQ==?= =?UTF-8?q?b_c?=")
	f.Add("=?iso-8859-1?Q?=E6?=")
	f.Add("=?utf-8?B?YQ==?=b")
	f.Add("=?utf-8?B?!!!?=")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := unwrapRFC2047(in)
		if err != nil {
			return
		}
		want, err := new(mime.WordDecoder).DecodeHeader(in)
		if err != nil {
			t.Fatalf("accepted %q, which the reference refuses: %v", in, err)
		}
		if got != strings.TrimSpace(want) && got != want {
			t.Fatalf("unwrap(%q) = %q, reference %q", in, got, want)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("unwrap(%q) is not UTF-8", in)
		}
	})
}

// FuzzVerifySignature throws arbitrary Signature and Digest values at the
// verifier: it must never panic, and never accept a value other than the
// genuine one.
func FuzzVerifySignature(f *testing.F) {
	tpp := sharedTPP(f)
	body := []byte(`{"a":1}`)
	req, _ := http.NewRequest("POST", "http://bank.example/v1/consents", nil)
	tpp.sign(f, req, body)
	genuine := req.Header.Get("Signature")
	f.Add(genuine, req.Header.Get("Digest"))
	f.Add(strings.Replace(genuine, "rsa-sha256", "ecdsa-sha256", 1), "SHA-512=AAAA")
	f.Add(`keyId="SN=0,CA=",algorithm="rsa-sha256",headers="(request-target) host",signature="AA=="`, "")
	f.Fuzz(func(t *testing.T, sig, digest string) {
		r := req.Clone(req.Context())
		r.Header.Set("Signature", sig)
		r.Header.Set("Digest", digest)
		keyID, code, _ := verifyRequest(r, body, false)
		if code == "" && (sig != genuine || keyID != tpp.keyID) {
			p, err := parseSignatureHeader(sig)
			if err != nil || !bytes.Equal(p.Signature, mustParse(genuine).Signature) {
				t.Fatalf("accepted a forged signature %q", sig)
			}
		}
	})
}

func mustParse(v string) *signatureParams {
	p, err := parseSignatureHeader(v)
	if err != nil {
		panic(err)
	}
	return p
}
