package xs2a

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/tppkit/xs2a/internal/testcert"
)

// shortLived makes a P-256 key and a certificate valid for 45 days from
// 2030-06-01, issued by a throw-away CA. TEST ONLY.
func shortLived(t testing.TB) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	from := time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	issuer := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Short CA - TEST ONLY"},
		NotBefore: from, NotAfter: from.AddDate(1, 0, 0), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(0xC0FFEE), NotBefore: from, NotAfter: from.Add(45 * 24 * time.Hour),
		Subject: pkix.Name{CommonName: "Short TPP - TEST ONLY", Organization: []string{"Kortvarig TPP AS\r\nforged"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: "PSDNO-FSA-987654321"}}},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), ca)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return key, cert
}

// logRecords decodes the JSON lines of a slog JSON handler.
func logRecords(t testing.TB, out []byte) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for line := range bytes.SplitSeq(bytes.TrimSpace(out), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal(line, &r), string(line))
		recs = append(recs, r)
	}
	return recs
}

// TestNewSignerCertificateValidity: on a fake clock, NewSigner logs nothing
// for a certificate with 30 days or more left, a warning inside the last
// 30 days and an error-level record for one expired or not valid yet; it
// makes the Signer in every case. The record names the organisation (made
// inert), tppId, serial and dates, and holds no key or certificate
// material.
func TestNewSignerCertificateValidity(t *testing.T) {
	t.Parallel()
	key, cert := shortLived(t)
	const day = 24 * time.Hour
	for _, tc := range []struct {
		name  string
		now   time.Time
		level string // "" : no record
		msg   string
		days  float64
	}{
		{"fresh", cert.NotBefore, "", "", 0},
		{"31 days left", cert.NotAfter.Add(-31 * day), "", "", 0},
		{"exactly 30 days left", cert.NotAfter.Add(-30 * day), "", "", 0},
		{"a second inside 30 days", cert.NotAfter.Add(-30*day + time.Second), "WARN", "expires soon", 29},
		{"10 days left", cert.NotAfter.Add(-10 * day), "WARN", "expires soon", 10},
		{"an hour left", cert.NotAfter.Add(-time.Hour), "WARN", "expires soon", 0},
		{"at its last instant", cert.NotAfter, "WARN", "expires soon", 0},
		{"expired a second ago", cert.NotAfter.Add(time.Second), "ERROR", "has expired", -1},
		{"expired long ago", cert.NotAfter.Add(400 * day), "ERROR", "has expired", -400},
		{"not valid yet", cert.NotBefore.Add(-time.Second), "ERROR", "not valid yet", 45},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			s, err := NewSigner(key, cert, &SignerOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil)), Now: func() time.Time { return tc.now }})
			require.NoError(t, err)
			require.NotNil(t, s)
			recs := logRecords(t, buf.Bytes())
			if tc.level == "" {
				assert.Empty(t, recs)
				return
			}
			require.Len(t, recs, 1)
			r := recs[0]
			assert.Equal(t, tc.level, r["level"])
			assert.Contains(t, r["msg"], tc.msg)
			assert.True(t, strings.HasPrefix(r["msg"].(string), "xs2a: "))
			assert.Equal(t, "Kortvarig TPP AS  forged", r["organization"], "made inert: no line break")
			assert.Equal(t, "NO-FSA-987654321", r["tpp_id"])
			assert.Equal(t, "C0FFEE", r["serial"])
			assert.Equal(t, "2030-07-16T00:00:00Z", r["not_after"])
			assert.Equal(t, "2030-06-01T00:00:00Z", r["not_before"])
			assert.Equal(t, tc.days, r["days_left"])
			pub, err := x509.MarshalPKIXPublicKey(key.Public())
			require.NoError(t, err)
			priv, err := x509.MarshalECPrivateKey(key)
			require.NoError(t, err)
			raw, err := key.Bytes()
			require.NoError(t, err)
			for _, material := range [][]byte{cert.Raw, pub, priv, raw} {
				b64 := base64.StdEncoding.EncodeToString(material)
				assert.NotContains(t, buf.String(), b64[:24], "no key or certificate material")
				assert.NotContains(t, strings.ToLower(buf.String()), hex.EncodeToString(material)[:24])
			}
			assert.NotContains(t, buf.String(), "MII")
		})
	}
}

// TestSignerOptionsValidityPassedThrough: LoadSigner, ParseSigner,
// LoadPKCS12 and ParsePKCS12 hand the options' Logger and Now to NewSigner
// (the test certificates expire on 2050-01-01: the clock is 10 days
// before); a Signer that is refused logs nothing.
func TestSignerOptionsValidityPassedThrough(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Date(2049, 12, 22, 0, 0, 0, 0, time.UTC) }
	certPEM, keyPEM := mustRead(t, certPath("tpp-rsa.cert.pem")), mustRead(t, certPath("tpp-rsa.key.pem"))
	p12 := mustRead(t, certPath("tpp-rsa.p12"))
	for _, tc := range []struct {
		name string
		make func(*SignerOptions) (*Signer, error)
		want int
	}{
		{"LoadSigner", func(o *SignerOptions) (*Signer, error) {
			return LoadSigner(certPath("tpp-rsa.cert.pem"), certPath("tpp-rsa.key.pem"), o)
		}, 1},
		{"ParseSigner", func(o *SignerOptions) (*Signer, error) { return ParseSigner(certPEM, keyPEM, o) }, 1},
		{"LoadPKCS12", func(o *SignerOptions) (*Signer, error) { return LoadPKCS12(certPath("tpp-rsa.p12"), "test-only", o) }, 1},
		{"ParsePKCS12", func(o *SignerOptions) (*Signer, error) { return ParsePKCS12(p12, "test-only", o) }, 1},
		{"refused: key of another certificate", func(o *SignerOptions) (*Signer, error) {
			return ParseSigner(certPEM, mustRead(t, certPath("tpp-ec.key.pem")), o)
		}, 0},
		{"refused: bad option", func(o *SignerOptions) (*Signer, error) {
			o.KeyID = `"`
			return ParseSigner(certPEM, keyPEM, o)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			s, err := tc.make(&SignerOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil)), Now: now})
			assert.Equal(t, tc.want == 1, err == nil, "%v", err)
			assert.Equal(t, tc.want == 1, s != nil)
			recs := logRecords(t, buf.Bytes())
			require.Len(t, recs, tc.want)
			if tc.want == 1 {
				assert.Equal(t, "WARN", recs[0]["level"])
				assert.Equal(t, "Test TPP AS", recs[0]["organization"])
				assert.Equal(t, float64(10), recs[0]["days_left"])
			}
		})
	}
}

// TestNewSignerValidityDefaults: without Logger and Now, NewSigner logs to
// slog.Default() on time.Now. The certificate expired in 2021, before any
// clock this test runs on. Not parallel: it sets slog's default logger.
func TestNewSignerValidityDefaults(t *testing.T) {
	p, err := testcert.New(testcert.Options{EC: true, Years: 1,
		Subject: pkix.Name{CommonName: "Expired TPP - TEST ONLY", Organization: []string{"Gammel TPP AS"}}})
	require.NoError(t, err)
	var mu sync.Mutex
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	_, err = NewSigner(p.Key, p.Cert, nil)
	require.NoError(t, err)
	_, err = NewSigner(p.Key, p.Cert, &SignerOptions{})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	var mine []map[string]any
	for _, r := range logRecords(t, buf.Bytes()) {
		if r["organization"] == "Gammel TPP AS" {
			mine = append(mine, r)
		}
	}
	require.Len(t, mine, 2, buf.String())
	for _, r := range mine {
		assert.Equal(t, "ERROR", r["level"])
		assert.Contains(t, r["msg"], "has expired")
		assert.Equal(t, "2021-01-01T00:00:00Z", r["not_after"])
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestLoadPKCS12ShortLived: a .p12 of a short-lived certificate warns
// through the options' logger, as PEM does.
func TestLoadPKCS12ShortLived(t *testing.T) {
	t.Parallel()
	key, cert := shortLived(t)
	data, err := pkcs12.Modern.Encode(key, cert, nil, "test-only")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "short.p12")
	require.NoError(t, os.WriteFile(file, data, 0o600))
	var buf bytes.Buffer
	_, err = LoadPKCS12(file, "test-only", &SignerOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil)),
		Now: func() time.Time { return cert.NotAfter.Add(-5 * 24 * time.Hour) }})
	require.NoError(t, err)
	recs := logRecords(t, buf.Bytes())
	require.Len(t, recs, 1)
	assert.Equal(t, float64(5), recs[0]["days_left"])
	assert.NotContains(t, buf.String(), "test-only", "no password")
}
