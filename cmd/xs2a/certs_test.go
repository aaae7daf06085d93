package main

import (
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/internal/testcert"
	"software.sslmate.com/src/go-pkcs12"
)

// p12Password is the password of the PKCS#12 files tests write.
const p12Password = "test only"

// certFiles are a test certificate and key as files: PEM and PKCS#12.
type certFiles struct{ cert, key, p12 string }

// writeCerts makes a test certificate (P-256 unless o says otherwise) and
// writes it to a temporary directory.
func writeCerts(t *testing.T, o testcert.Options) certFiles {
	t.Helper()
	if o.Subject.CommonName == "" {
		o.Subject = pkix.Name{CommonName: "xs2a cmd test TPP - TEST ONLY", Country: []string{"NO"}}
	}
	if o.Issuer.CommonName == "" {
		o.Issuer = pkix.Name{CommonName: "xs2a cmd test CA - TEST ONLY", Country: []string{"NO"}}
	}
	p, err := testcert.New(o)
	require.NoError(t, err)
	dir := t.TempDir()
	f := certFiles{filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "tpp.p12")}
	keyPEM, err := testcert.KeyPEM(p.Key)
	require.NoError(t, err)
	p12, err := pkcs12.Modern.Encode(p.Key, p.Cert, nil, p12Password)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f.cert, testcert.CertPEM(p.Cert), 0o600))
	require.NoError(t, os.WriteFile(f.key, keyPEM, 0o600))
	require.NoError(t, os.WriteFile(f.p12, p12, 0o600))
	return f
}

// ecCerts is writeCerts for a plain P-256 test certificate.
func ecCerts(t *testing.T) certFiles { return writeCerts(t, testcert.Options{EC: true}) }
