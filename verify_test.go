package xs2a

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const validSignature = `keyId="SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO",algorithm="rsa-sha256",headers="date digest x-request-id",signature="QUJD"`

func TestParseSignature(t *testing.T) {
	t.Parallel()
	want := signatureParams{KeyID: "SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO", Algorithm: "rsa-sha256", Headers: []string{"date", "digest", "x-request-id"}, Signature: []byte("ABC")}
	with := func(f func(*signatureParams)) signatureParams {
		p := want
		p.Headers = slices.Clone(want.Headers)
		f(&p)
		return p
	}
	tests := []struct {
		name    string
		in      string
		want    signatureParams
		wantErr bool
	}{
		{name: "valid", in: validSignature, want: want},
		{name: "spaces around parts", in: `  keyId="SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO" , algorithm="rsa-sha256",  headers="date digest x-request-id" ,signature="QUJD"  `, want: want},
		{name: "other order", in: `signature="QUJD",headers="date digest x-request-id",algorithm="rsa-sha256",keyId="SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO"`, want: want},
		{name: "unknown parts are ignored", in: `keyId="SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO",created="1402170695",algorithm="rsa-sha256",headers="date digest x-request-id",signature="QUJD"`, want: want},
		{name: "trailing comma", in: validSignature + ",", want: want},
		{name: "header names lower-cased, extra spaces", in: `keyId="SN=1A2B,CA=CN=Bank CA,O=Bank,C=NO",algorithm="rsa-sha256",headers=" Date  DIGEST X-Request-ID ",signature="QUJD"`, want: want},
		{name: "RFC 2047 form", in: encodeRFC2047([]byte(validSignature)), want: want},
		{name: "RFC 2047 form with spaces around", in: " " + encodeRFC2047([]byte(validSignature)) + " ", want: want},
		{name: "RFC 2047 with non-ASCII keyId", in: encodeRFC2047([]byte(`keyId="SN=C0FFEE,CA=O=Bankø",signature="QUJD"`)),
			want: signatureParams{KeyID: "SN=C0FFEE,CA=O=Bankø", Headers: []string{"date"}, Signature: []byte("ABC")}},
		{name: "RFC 2047 Q, ISO-8859-1", in: `=?iso-8859-1?Q?keyId=3D"O=3DBank=F8",signature=3D"QUJD"?=`,
			want: signatureParams{KeyID: "O=Bankø", Headers: []string{"date"}, Signature: []byte("ABC")}},
		{name: "default headers", in: `keyId="k",algorithm="hs2019",signature="QUJD"`,
			want: signatureParams{KeyID: "k", Algorithm: "hs2019", Headers: []string{"date"}, Signature: []byte("ABC")}},
		{name: "empty headers list", in: `keyId="k",headers="",signature="QUJD"`,
			want: signatureParams{KeyID: "k", Headers: []string{}, Signature: []byte("ABC")}},
		{name: "no algorithm", in: `keyId="k",headers="date",signature="QUJD"`, want: with(func(p *signatureParams) {
			p.KeyID, p.Algorithm, p.Headers = "k", "", []string{"date"}
		})},
		{name: "missing keyId", in: `algorithm="rsa-sha256",headers="date",signature="QUJD"`, wantErr: true},
		{name: "empty keyId", in: `keyId="",signature="QUJD"`, wantErr: true},
		{name: "missing signature", in: `keyId="k",algorithm="rsa-sha256",headers="date"`, wantErr: true},
		{name: "empty signature", in: `keyId="k",signature=""`, wantErr: true},
		{name: "duplicate keyId", in: `keyId="k",keyId="j",signature="QUJD"`, wantErr: true},
		{name: "duplicate signature", in: `keyId="k",signature="QUJD",signature="QUJD"`, wantErr: true},
		{name: "duplicate headers", in: `keyId="k",headers="date",headers="digest",signature="QUJD"`, wantErr: true},
		{name: "duplicate unknown part", in: `keyId="k",created="1",created="2",signature="QUJD"`, wantErr: true},
		{name: "unterminated quotes", in: `keyId="k,signature="QUJD`, wantErr: true},
		{name: "unterminated last value", in: `keyId="k",signature="QUJD`, wantErr: true},
		{name: "value not quoted", in: `keyId=k,signature="QUJD"`, wantErr: true},
		{name: "name without value", in: `keyId`, wantErr: true},
		{name: "empty name", in: `="k"`, wantErr: true},
		{name: "no comma between parts", in: `keyId="k"signature="QUJD"`, wantErr: true},
		{name: "bad base64", in: `keyId="k",signature="not base64!"`, wantErr: true},
		{name: "empty value", in: "", wantErr: true},
		{name: "bad RFC 2047", in: "=?utf-8?B?***?=", wantErr: true},
		{name: "RFC 2047 markers only", in: "=?=", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustNotPanic(t, func() {
				got, err := parseSignature(tt.in)
				if tt.wantErr {
					require.Error(t, err)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
			})
		})
	}

	t.Run("the Signer's own values", func(t *testing.T) {
		t.Parallel()
		for _, s := range []*Signer{testSigner(t), testECSigner(t), testNordicSigner(t)} {
			v, err := s.sign(headerSource{h: http.Header{"Date": {"x"}, "Digest": {"y"}}})
			require.NoError(t, err)
			p, err := parseSignature(v)
			require.NoError(t, err)
			assert.Equal(t, s.KeyID(), p.KeyID)
			assert.Equal(t, s.Algorithm(), p.Algorithm)
			assert.Equal(t, []string{"date", "digest"}, p.Headers)
		}
	})
}

// formatSignature writes p back as a Signature value.
func formatSignature(p signatureParams) string {
	return `keyId="` + p.KeyID + `",algorithm="` + p.Algorithm + `",headers="` + strings.Join(p.Headers, " ") +
		`",signature="` + base64.StdEncoding.EncodeToString(p.Signature) + `"`
}

// FuzzParseSignature: parseSignature reads a header of the bank's response.
// It never panics, and what it accepts, written back, parses the same.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{
		validSignature,
		encodeRFC2047([]byte(validSignature)),
		`keyId="k",signature="QUJD"`,
		`keyId="k",headers="",signature="QUJD",`,
		`=?iso-8859-1?Q?keyId=3D"O=3DBank=F8",signature=3D"QUJD"?=`,
		`keyId="k,signature="QUJD`,
		"=?=",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseSignature(s)
		if err != nil {
			return
		}
		if p.KeyID == "" || len(p.Signature) == 0 {
			t.Fatalf("accepted %q without keyId or signature: %+v", s, p)
		}
		again, err := parseSignature(formatSignature(p))
		if err != nil {
			t.Fatalf("%q parsed to %+v, which does not parse back: %v", s, p, err)
		}
		if again.KeyID != p.KeyID || again.Algorithm != p.Algorithm || !slices.Equal(again.Headers, p.Headers) || string(again.Signature) != string(p.Signature) {
			t.Fatalf("%q: %+v parses back as %+v", s, p, again)
		}
	})
}

// bankResponse describes how the test bank answers in TestResponseVerification.
type bankResponse struct {
	status   int
	body     string
	signer   *Signer // nil: no Signature
	headers  []string
	edit     func(h http.Header) // after signing
	sentBody string              // "" : body
}

func (b bankResponse) handler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Date", fixedNow().Format(http.TimeFormat))
		h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		if b.signer != nil {
			h.Set("Digest", Digest([]byte(b.body)))
			s := *b.signer
			if b.headers != nil {
				s.setHeaders(b.headers)
			}
			sig, err := s.sign(headerSource{h: h})
			if err != nil {
				t.Error(err)
			}
			h.Set("Signature", sig)
		}
		if b.edit != nil {
			b.edit(h)
		}
		w.WriteHeader(b.status)
		body := b.body
		if b.sentBody != "" {
			body = b.sentBody
		}
		w.Write([]byte(body))
	})
}

// verification is WithResponseVerification when require, else
// WithResponseVerificationIfSigned.
func verification(cert *x509.Certificate, require bool) Option {
	if require {
		return WithResponseVerification(cert)
	}
	return WithResponseVerificationIfSigned(cert)
}

// TestResponseVerificationOptions: WithResponseVerification requires a
// signature on a successful answer, WithResponseVerificationIfSigned lets
// an unsigned one through, and of the two the last one given applies.
func TestResponseVerificationOptions(t *testing.T) {
	t.Parallel()
	bank := testECSigner(t)
	cert := bank.Certificate()
	tests := []struct {
		name     string
		opts     []Option
		unsigned bool // an unsigned answer passes
	}{
		{"required", []Option{WithResponseVerification(cert)}, false},
		{"if signed", []Option{WithResponseVerificationIfSigned(cert)}, true},
		{"if signed, then required", []Option{WithResponseVerificationIfSigned(cert), WithResponseVerification(cert)}, false},
		{"required, then if signed", []Option{WithResponseVerification(cert), WithResponseVerificationIfSigned(cert)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, signed := range []bool{true, false} {
				resp := bankResponse{status: 200, body: `{"accounts":[]}`}
				if signed {
					resp.signer = bank
				}
				_, c := newTestServer(t, resp.handler(t), tt.opts...)
				_, err := c.do(context.Background(), &request{op: "test.get", method: http.MethodGet, href: "/v1/accounts"}, &map[string]any{})
				if signed || tt.unsigned {
					require.NoError(t, err, "signed: %v", signed)
					continue
				}
				var se *SignatureError
				require.ErrorAs(t, err, &se)
			}
		})
	}
}

// TestResponseVerification runs the bank's response signatures through a
// real Client (WithResponseVerification, docs/interface.md SIG3).
func TestResponseVerification(t *testing.T) {
	t.Parallel()
	bank := testECSigner(t) // the bank's certificate and key in this test
	nordicBank := testNordicSigner(t)
	other := testSigner(t)
	const okBody = `{"accounts":[]}`
	const errBody = `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","text":"x"}]}`
	tests := []struct {
		name     string
		resp     bankResponse
		bankCert *Signer
		require  bool
		wantErr  string // "": none; "signature": *SignatureError; "error": *Error
	}{
		{name: "signed", resp: bankResponse{status: 200, body: okBody, signer: bank}},
		{name: "signed, required", resp: bankResponse{status: 200, body: okBody, signer: bank}, require: true},
		{name: "signed in RFC 2047 form", resp: bankResponse{status: 200, body: okBody, signer: nordicBank}, bankCert: nordicBank, require: true},
		{name: "signed, empty body without digest in the signature", resp: bankResponse{status: 200, signer: bank, headers: []string{"date", "x-request-id"}}, require: true},
		{name: "tampered body", resp: bankResponse{status: 200, body: okBody, signer: bank, sentBody: `{"accounts":[{}]}`}, wantErr: "signature"},
		{name: "tampered signed header", resp: bankResponse{status: 200, body: okBody, signer: bank,
			edit: func(h http.Header) { h.Set("Date", "Tue, 03 Mar 2026 10:04:05 GMT") }}, wantErr: "signature"},
		{name: "tampered Digest", resp: bankResponse{status: 200, body: okBody, signer: bank,
			edit: func(h http.Header) { h.Set("Digest", Digest([]byte("x"))) }}, wantErr: "signature"},
		{name: "signed by another key", resp: bankResponse{status: 200, body: okBody, signer: other}, wantErr: "signature"},
		{name: "signed by another key under the bank's keyId", resp: bankResponse{status: 200, body: okBody, signer: func() *Signer {
			s := *other
			s.paramsHead = `keyId="` + bank.KeyID() + `",algorithm="ecdsa-sha256",headers="`
			return &s
		}()}, wantErr: "signature"},
		{name: "body not covered by the signature", resp: bankResponse{status: 200, body: okBody, signer: bank, headers: []string{"date", "x-request-id"}}, wantErr: "signature"},
		{name: "malformed Signature", resp: bankResponse{status: 200, body: okBody, edit: func(h http.Header) { h.Set("Signature", `keyId="x"`) }}, wantErr: "signature"},
		{name: "Signature with RFC 2047 markers only", resp: bankResponse{status: 200, body: okBody, edit: func(h http.Header) { h.Set("Signature", "=?=") }}, wantErr: "signature"},
		{name: "missing signature", resp: bankResponse{status: 200, body: okBody}},
		{name: "missing signature, required", resp: bankResponse{status: 200, body: okBody}, require: true, wantErr: "signature"},
		{name: "missing signature on an error answer, required", resp: bankResponse{status: 400, body: errBody}, require: true, wantErr: "error"},
		{name: "signed error answer", resp: bankResponse{status: 400, body: errBody, signer: bank}, require: true, wantErr: "error"},
		{name: "tampered error answer", resp: bankResponse{status: 400, body: errBody, signer: bank, sentBody: `{"tppMessages":[]}`}, wantErr: "signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cert := bank.Certificate()
			if tt.bankCert != nil {
				cert = tt.bankCert.Certificate()
			}
			_, c := newTestServer(t, tt.resp.handler(t), verification(cert, tt.require))
			var into map[string]any
			var resp *Response
			var err error
			mustNotPanic(t, func() {
				resp, err = c.do(context.Background(), &request{op: "test.get", method: http.MethodGet, href: "/v1/accounts"}, &into)
			})
			switch tt.wantErr {
			case "":
				require.NoError(t, err)
				assert.Equal(t, 200, resp.StatusCode)
				if tt.resp.body != "" {
					assert.Contains(t, into, "accounts")
				}
			case "signature":
				var serr *SignatureError
				require.ErrorAs(t, err, &serr)
				require.ErrorIs(t, err, ErrSignatureInvalid)
				require.NotNil(t, resp)
				assert.Equal(t, resp.RequestID, serr.RequestID)
				assert.NotContains(t, err.Error(), "accounts", "no body in the message")
				assert.Nil(t, into, "nothing decoded from an unverified body")
			case "error":
				var aerr *Error
				require.ErrorAs(t, err, &aerr)
				assert.Equal(t, 400, aerr.StatusCode)
				assert.False(t, errors.Is(err, ErrSignatureInvalid) && errors.As(err, new(*SignatureError)))
			}
		})
	}
}

// TestResponseVerificationTiesTheAnswerToItsRequest: with verification
// required, a validly signed answer that names another request's
// X-Request-ID (an old answer replayed) is refused, and so is an unsigned 401
// whose scaRedirect the PSU's browser would be sent to.
func TestResponseVerificationTiesTheAnswerToItsRequest(t *testing.T) {
	t.Parallel()
	bank := testSigner(t)
	t.Run("signed answer to another request", func(t *testing.T) {
		t.Parallel()
		const body = `{"transactionStatus":"ACSC"}`
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hd := w.Header()
			hd.Set("Content-Type", "application/json")
			hd.Set("Date", "Mon, 02 Mar 2020 10:04:05 GMT")
			hd.Set("X-Request-ID", "00000000-0000-4000-8000-000000000001")
			hd.Set("Digest", Digest([]byte(body)))
			sig, err := bank.sign(headerSource{h: hd})
			if err != nil {
				t.Error(err)
			}
			hd.Set("Signature", sig)
			w.Write([]byte(body))
		})
		_, c := newTestServer(t, h, WithResponseVerification(bank.Certificate()))
		_, _, err := c.Payments.Status(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"}, Link{Href: "/v1/payments/x/p1/status"})
		assert.ErrorIs(t, err, ErrSignatureInvalid)
		assert.Contains(t, err.Error(), "another request")
	})
	t.Run("unsigned scaRedirect", func(t *testing.T) {
		t.Parallel()
		rec := &testBank{fn: answer(401, "application/json", `{"_links":{"scaRedirect":{"href":"https://phish.example/sca"}}}`)}
		_, c := newTestServer(t, rec, WithResponseVerification(bank.Certificate()))
		_, _, err := c.Accounts.List(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"})
		assert.ErrorIs(t, err, ErrSignatureInvalid)
		var sca *SCARequiredError
		assert.False(t, errors.As(err, &sca), "no redirect to follow")
	})
}
