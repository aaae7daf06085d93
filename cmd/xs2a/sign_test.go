package main

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"mime"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest"
)

type signed struct {
	Method, URL   string
	Headers       map[string]string
	SigningString string
	Signature     string
}

func signJSON(t *testing.T, args ...string) signed {
	t.Helper()
	code, stdout, stderr := runCmd(t, nil, append([]string{"sign", "-json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var s signed
	require.NoError(t, json.Unmarshal([]byte(stdout), &s), stdout)
	return s
}

var sigValue = regexp.MustCompile(`signature="([^"]+)"`)

// TestSign: fixed -date and -request-id go into the request, the printed
// signing string is the one the Signature signs (checked with the
// certificate's key), with and without RFC 2047, and the text output shows
// the same three parts.
func TestSign(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	pemBytes, err := os.ReadFile(c.cert)
	require.NoError(t, err)
	cert, err := parseCert(pemBytes)
	require.NoError(t, err)
	base := []string{"-cert", c.cert, "-key", c.key, "-method", "POST", "-url", "https://bank.example/api/v1/payments/sepa",
		"-body", `{"a":1}`, "-date", "Wed, 12 Mar 2025 10:00:00 GMT", "-request-id", "3b1c4f0e-7b0a-4c4e-9a57-1f2d3c4b5a69",
		"-psu-id", "1b1c4f0e-7b0a-4c4e-9a57-1f2d3c4b5a60"}
	for _, tc := range []struct {
		name string
		args []string
	}{{"plain", nil}, {"rfc2047", []string{"-rfc2047"}}} {
		t.Run(tc.name, func(t *testing.T) {
			s := signJSON(t, append(base, tc.args...)...)
			assert.Equal(t, "Wed, 12 Mar 2025 10:00:00 GMT", s.Headers["Date"])
			assert.Equal(t, "3b1c4f0e-7b0a-4c4e-9a57-1f2d3c4b5a69", s.Headers["X-Request-Id"])
			assert.Equal(t, "date: Wed, 12 Mar 2025 10:00:00 GMT\ndigest: "+s.Headers["Digest"]+
				"\nx-request-id: 3b1c4f0e-7b0a-4c4e-9a57-1f2d3c4b5a69\npsu-id: 1b1c4f0e-7b0a-4c4e-9a57-1f2d3c4b5a60"+
				"\ntpp-redirect-uri: "+xs2atest.DefaultRedirectURI, s.SigningString)
			sig := s.Signature
			if tc.name == "rfc2047" {
				require.Regexp(t, `^=\?utf-8\?`, sig)
				sig, err = decode2047(sig)
				require.NoError(t, err)
			}
			m := sigValue.FindStringSubmatch(sig)
			require.NotNil(t, m, sig)
			raw, err := base64.StdEncoding.DecodeString(m[1])
			require.NoError(t, err)
			sum := sha256.Sum256([]byte(s.SigningString))
			assert.True(t, ecdsa.VerifyASN1(cert.PublicKey.(*ecdsa.PublicKey), sum[:], raw), "signature over the printed signing string")
		})
	}
	code, stdout, _ := runCmd(t, nil, append([]string{"sign"}, base...)...)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "POST https://bank.example/api/v1/payments/sepa\n")
	assert.Contains(t, stdout, "\nSigning string:\ndate: Wed, 12 Mar 2025 10:00:00 GMT\n")
	assert.Contains(t, stdout, "\nSignature:\nkeyId=\"SN=")
}

// TestSignAccepted: the headers `xs2a sign` prints (a test certificate of
// its own) get past the fake bank's signature check: 401 asking for SCA,
// not 400.
func TestSignAccepted(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	code, stdout, stderr := runCmd(t, nil, "sign", "-json", "-url", srv.URL()+"/v1/accounts")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "test certificate")
	var s signed
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	req, err := http.NewRequest(s.Method, s.URL, nil)
	require.NoError(t, err)
	for k, v := range s.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestSignErrors: usage errors exit 2, an unusable certificate 1.
func TestSignErrors(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no url", nil, 2, `-url "": want an absolute http or https URL`},
		{"relative url", []string{"-url", "/v1/accounts"}, 2, "want an absolute"},
		{"bad date", []string{"-url", "https://b.example/v1", "-date", "today"}, 2, "want an HTTP date or RFC 3339"},
		{"cert without key", []string{"-url", "https://b.example/v1", "-cert", c.cert}, 2, "-cert and -key go together"},
		{"unreadable key", []string{"-url", "https://b.example/v1", "-cert", c.cert, "-key", c.key + ".gone"}, 1, "reading key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, nil, append([]string{"sign"}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}

func parseCert(pemBytes []byte) (*x509.Certificate, error) {
	b, _ := pem.Decode(pemBytes)
	if b == nil {
		return nil, errors.New("no PEM block")
	}
	return x509.ParseCertificate(b.Bytes)
}

func decode2047(s string) (string, error) { return new(mime.WordDecoder).DecodeHeader(s) }
