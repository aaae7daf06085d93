// Command gencerts writes the fixed TEST-ONLY certificates and keys under
// testdata/certs that the signing golden tests pin. Run from the module root:
//
//	go run ./testdata/gencerts
//
// Re-running changes every key: regenerate the goldens afterwards
// (go test -run Golden -update).
package main

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log"
	"math/big"
	"os"
	"path/filepath"

	"github.com/tppkit/xs2a/internal/testcert"
	"software.sslmate.com/src/go-pkcs12"
)

func main() {
	dir := filepath.Join("testdata", "certs")
	subject := pkix.Name{CommonName: "xs2a test TPP - TEST ONLY", Organization: []string{"Test TPP AS"}, Country: []string{"NO"}}
	ascii := pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Organization: []string{"tppkit"}, Country: []string{"NO"}}
	nordic := pkix.Name{CommonName: "Testbanken Sertifikat Ø - TEST ONLY", Organization: []string{"Bankø Test AS"}, Country: []string{"NO"}}

	rsaPair := must(testcert.New(testcert.Options{Subject: subject, Issuer: ascii, Serial: big.NewInt(0x1A2B3C4D5E6F)}))
	write(dir, "tpp-rsa.cert.pem", testcert.CertPEM(rsaPair.Cert))
	write(dir, "tpp-rsa.key.pem", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaPair.Key.(*rsa.PrivateKey))}))
	write(dir, "tpp-rsa.pkcs8.key.pem", must(testcert.KeyPEM(rsaPair.Key)))

	// The same key under an issuer with non-ASCII text (RFC 2047 form).
	nordicPair := must(testcert.New(testcert.Options{Subject: subject, Issuer: nordic, Serial: big.NewInt(0x0C0FFEE)}))
	nordicPair.Cert = reissue(nordicPair, rsaPair)
	write(dir, "tpp-nordic.cert.pem", testcert.CertPEM(nordicPair.Cert))

	ecPair := must(testcert.New(testcert.Options{Subject: subject, Issuer: ascii, Serial: big.NewInt(0xEC256), EC: true}))
	write(dir, "tpp-ec.cert.pem", testcert.CertPEM(ecPair.Cert))
	ecDER := must(x509.MarshalECPrivateKey(ecPair.Key.(*ecdsa.PrivateKey)))
	write(dir, "tpp-ec.key.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}))

	p12 := must(pkcs12.Modern.Encode(rsaPair.Key, rsaPair.Cert, nil, "test-only"))
	write(dir, "tpp-rsa.p12", p12)
}

// reissue makes a certificate like p's but for the key of keyOf.
func reissue(p, keyOf testcert.Pair) *x509.Certificate {
	caKey := must(testcert.New(testcert.Options{Subject: p.Cert.Issuer, Issuer: p.Cert.Issuer}))
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: p.Cert.Issuer, NotBefore: p.Cert.NotBefore, NotAfter: p.Cert.NotAfter, IsCA: true, BasicConstraintsValid: true}
	tmpl := *p.Cert
	der := must(x509.CreateCertificate(nil, &tmpl, ca, keyOf.Key.Public(), caKey.Key))
	return must(x509.ParseCertificate(der))
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func write(dir, name string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		log.Fatal(err)
	}
}
