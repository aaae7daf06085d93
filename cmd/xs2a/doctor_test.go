package main

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/testcert"
)

// at fixes the doctor's clock.
func at(now time.Time) func(*env) { return func(e *env) { e.now = func() time.Time { return now } } }

// TestDoctor: each check says in plain words what a bank would refuse;
// a refusal exits 1. The test certificates are valid from 2020-01-01 for
// 30 years; the doctor's clock is fixed.
func TestDoctor(t *testing.T) {
	t.Parallel()
	plain := ecCerts(t)
	other := ecCerts(t)
	psd2 := writeCerts(t, testcert.Options{EC: true, Subject: pkix.Name{CommonName: "PSD2 TPP - TEST ONLY",
		ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "PSDNO-FSA-987654321"}}}})
	nonASCII := writeCerts(t, testcert.Options{EC: true, Issuer: pkix.Name{CommonName: "Tillitstjeneste Ærø - TEST ONLY"}})
	inside := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	end := time.Date(2050, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		args   []string
		now    time.Time
		code   int
		stdout []string
		stderr string
	}{
		{"good, PEM", []string{"-cert", plain.cert, "-key", plain.key}, inside, 0,
			[]string{"ok    key matches the certificate (ecdsa-sha256)", "ok    valid from 2020-01-01 to 2050-01-01", "ok    keyId SN=", "no RFC 2047 encoding needed", "warn  no PSD2 organizationIdentifier"}, ""},
		{"good, PKCS#12", []string{"-p12", plain.p12, "-p12-password", p12Password}, inside, 0, []string{"ok    key matches"}, ""},
		{"TPP id", []string{"-cert", psd2.cert, "-key", psd2.key}, inside, 0, []string{"ok    TPP id NO-FSA-987654321"}, ""},
		{"non-ASCII issuer", []string{"-cert", nonASCII.cert, "-key", nonASCII.key}, inside, 0, []string{"must be RFC 2047 encoded"}, ""},
		{"expiring", []string{"-cert", plain.cert, "-key", plain.key}, end.Add(-10 * 24 * time.Hour), 0, []string{"warn  expires in 10 days (2050-01-01)"}, ""},
		{"30 days left", []string{"-cert", plain.cert, "-key", plain.key}, end.Add(-xs2a.CertificateExpiryWarning), 0, []string{"ok    valid from 2020-01-01 to 2050-01-01"}, ""},
		{"a second inside 30 days", []string{"-p12", plain.p12, "-p12-password", p12Password}, end.Add(-xs2a.CertificateExpiryWarning + time.Second), 0, []string{"warn  expires in 29 days (2050-01-01)"}, ""},
		{"expired", []string{"-cert", plain.cert, "-key", plain.key}, end.Add(time.Hour), 1, []string{"FAIL  expired on 2050-01-01"}, "a bank would refuse"},
		{"not yet valid", []string{"-cert", plain.cert, "-key", plain.key}, time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC), 1, []string{"FAIL  not valid before 2020-01-01"}, "a bank would refuse"},
		{"key of another certificate", []string{"-cert", plain.cert, "-key", other.key}, inside, 1, nil, "the key does not belong to the certificate"},
		{"wrong password", []string{"-p12", plain.p12, "-p12-password", "nope"}, inside, 1, nil, "wrong password"},
		{"unreadable certificate", []string{"-cert", plain.cert + ".gone", "-key", plain.key}, inside, 1, nil, "reading certificate"},
		{"no certificate", nil, inside, 2, nil, "give the certificate"},
		{"bad flag", []string{"-frob"}, inside, 2, nil, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, at(tc.now), append([]string{"doctor"}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			assert.Contains(t, stderr, tc.stderr)
			assert.LessOrEqual(t, strings.Count(stderr, "\n"), 1)
			assert.NotContains(t, stderr, "TPP certificate", "the report says it once, in its own words")
		})
	}
}

// TestCertificateWarningOnStderr: the other commands that load a
// certificate pass on the SDK's warning about its dates, on the command's
// clock, to stderr, and still run.
func TestCertificateWarningOnStderr(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	end := time.Date(2050, 1, 1, 0, 0, 0, 0, time.UTC)
	args := []string{"sign", "-cert", c.cert, "-key", c.key, "-url", "https://bank.example/api/v1/accounts"}
	code, stdout, stderr := runCmd(t, at(end.Add(-10*24*time.Hour)), args...)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Signature")
	assert.Contains(t, stderr, "level=WARN")
	assert.Contains(t, stderr, "the TPP certificate expires soon")
	assert.Contains(t, stderr, "not_after=2050-01-01T00:00:00Z days_left=10")
	assert.NotContains(t, stderr, "time=")

	code, _, stderr = runCmd(t, at(end.Add(-31*24*time.Hour)), args...)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
}

// TestDoctorClock: with -base-url the machine's clock is compared with the
// bank's Date; a bank that does not answer is a failure.
func TestDoctorClock(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	bankTime := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", bankTime.Format(http.TimeFormat))
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(bank.Close)
	for _, tc := range []struct {
		name   string
		url    string
		now    time.Time
		code   int
		stdout string
	}{
		{"agrees", bank.URL, bankTime.Add(2 * time.Second), 0, "ok    the clock agrees with the bank's Date"},
		{"ahead", bank.URL, bankTime.Add(time.Minute), 0, "warn  this machine's clock is 1m0s off the bank's"},
		{"behind", bank.URL, bankTime.Add(-30 * time.Second), 0, "clock is -30s off"},
		{"bank down", closedURL(t), bankTime, 1, "FAIL  the bank does not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, at(tc.now), "doctor", "-cert", c.cert, "-key", c.key, "-base-url", tc.url)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stdout, tc.stdout)
		})
	}
}
