// Package testcert makes certificates and keys for tests and the fake bank.
// Everything it makes is for tests only: the subjects say so, and nothing it
// makes may be used against a real bank.
package testcert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"time"
)

// Pair is a key and its certificate.
type Pair struct {
	Key  crypto.Signer
	Cert *x509.Certificate
}

// Options describe a certificate to make.
type Options struct {
	Subject, Issuer pkix.Name // Issuer is used for a self-made CA that signs the certificate
	Serial          *big.Int  // nil: random
	EC              bool      // P-256 instead of RSA 2048
	NotBefore       time.Time // zero: 2020-01-01
	Years           int       // zero: 30
	// PSD2Roles, when set, adds a PSD2 QCStatement (ETSI TS 119 495) with
	// these roles of the TPP: RolePSPAS, RolePSPPI, RolePSPAI, RolePSPIC.
	// TEST ONLY: no real authority issued them.
	PSD2Roles []string
}

// New makes a key and a certificate issued by a throw-away CA named
// o.Issuer (so the certificate's issuer is o.Issuer).
func New(o Options) (Pair, error) {
	key, err := newKey(o.EC)
	if err != nil {
		return Pair{}, err
	}
	caKey, err := newKey(o.EC)
	if err != nil {
		return Pair{}, err
	}
	nb := o.NotBefore
	if nb.IsZero() {
		nb = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	years := o.Years
	if years == 0 {
		years = 30
	}
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               o.Issuer,
		NotBefore:             nb,
		NotAfter:              nb.AddDate(years, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	serial := o.Serial
	if serial == nil {
		serial, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
		if err != nil {
			return Pair{}, err
		}
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      o.Subject,
		NotBefore:    nb,
		NotAfter:     nb.AddDate(years, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if len(o.PSD2Roles) > 0 {
		ext, err := PSD2QCStatements(o.PSD2Roles...)
		if err != nil {
			return Pair{}, err
		}
		tmpl.ExtraExtensions = append(tmpl.ExtraExtensions, ext)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return Pair{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Key: key, Cert: cert}, nil
}

// Default makes an RSA TPP test certificate with an ASCII issuer.
func Default() (Pair, error) {
	return New(Options{
		Subject: pkix.Name{CommonName: "xs2a test TPP - TEST ONLY", Organization: []string{"Test TPP AS"}, Country: []string{"NO"}},
		Issuer:  pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Organization: []string{"tppkit"}, Country: []string{"NO"}},
	})
}

func newKey(ec bool) (crypto.Signer, error) {
	if ec {
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	return rsa.GenerateKey(rand.Reader, 2048)
}

// CertPEM encodes a certificate as PEM.
func CertPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// KeyPEM encodes a key as PKCS#8 PEM.
func KeyPEM(k crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
