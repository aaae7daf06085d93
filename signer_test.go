package xs2a

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a/internal/testcert"
)

// The fixed TEST-ONLY certificates of testdata/certs (testdata/gencerts).
const (
	testKeyID       = "SN=1A2B3C4D5E6F,CA=CN=xs2a Test CA - TEST ONLY,O=tppkit,C=NO"
	testNordicKeyID = "SN=C0FFEE,CA=CN=Testbanken Sertifikat Ø - TEST ONLY,O=Bankø Test AS,C=NO"
	testECKeyID     = "SN=EC256,CA=CN=xs2a Test CA - TEST ONLY,O=tppkit,C=NO"
)

// mustNotPanic runs f and turns a panic into a test failure, so that one
// panicking case does not end the whole test binary.
func mustNotPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("panic: %v", r)
		}
	}()
	f()
}

func certPath(name string) string { return filepath.Join("testdata", "certs", name) }

// testECSigner loads the fixed TEST-ONLY ECDSA P-256 certificate and key.
func testECSigner(t testing.TB) *Signer {
	t.Helper()
	return testECSignerWith(t, nil)
}

// testECSignerWith is testECSigner with opts.
func testECSignerWith(t testing.TB, opts *SignerOptions) *Signer {
	t.Helper()
	s, err := LoadSigner(certPath("tpp-ec.cert.pem"), certPath("tpp-ec.key.pem"), opts)
	require.NoError(t, err)
	return s
}

// testNordicSigner loads the RSA key under the issuer with non-ASCII text.
func testNordicSigner(t testing.TB) *Signer {
	t.Helper()
	return testNordicSignerWith(t, nil)
}

// testNordicSignerWith is testNordicSigner with opts.
func testNordicSignerWith(t testing.TB, opts *SignerOptions) *Signer {
	t.Helper()
	s, err := LoadSigner(certPath("tpp-nordic.cert.pem"), certPath("tpp-rsa.key.pem"), opts)
	require.NoError(t, err)
	return s
}

// selfSigned makes a throw-away self-signed certificate for key.
func selfSigned(t testing.TB, key crypto.Signer) *x509.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x5E1F),
		Subject:      pkix.Name{CommonName: "self-signed - TEST ONLY"},
		NotBefore:    time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2050, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return cert
}

// cavageVectors is testdata/vectors/http-signature-cavage.json:
// draft-cavage-http-signatures-10, Appendix C.
type cavageVectors struct {
	PrivateKeyPEM string `json:"privateKeyPEM"`
	PublicKeyPEM  string `json:"publicKeyPEM"`
	Request       struct {
		Method  string      `json:"method"`
		Target  string      `json:"target"`
		Headers [][2]string `json:"headers"`
		Body    string      `json:"body"`
	} `json:"request"`
	KeyID     string `json:"keyId"`
	Algorithm string `json:"algorithm"`
	Cases     []struct {
		Name      string `json:"name"`
		Headers   string `json:"headers"`
		Signature string `json:"signature"`
	} `json:"cases"`
}

func loadCavage(t testing.TB) (cavageVectors, *rsa.PrivateKey, *rsa.PublicKey) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "vectors", "http-signature-cavage.json"))
	require.NoError(t, err)
	var v cavageVectors
	require.NoError(t, json.Unmarshal(data, &v))
	require.Len(t, v.Cases, 3)
	block, _ := pem.Decode([]byte(v.PrivateKeyPEM))
	require.NotNil(t, block)
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	require.NoError(t, err)
	block, _ = pem.Decode([]byte(v.PublicKeyPEM))
	require.NotNil(t, block)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	require.True(t, key.PublicKey.Equal(pub), "the vector's public key is the private key's")
	return v, key, pub.(*rsa.PublicKey)
}

// cavageSigningStrings are the signing strings of draft-cavage-http-signatures-10,
// Appendix C.1 to C.3, as the draft prints them.
var cavageSigningStrings = map[string]string{
	"C.1 default": "date: Sun, 05 Jan 2014 21:31:40 GMT",
	"C.2 basic": "(request-target): post /foo?param=value&pet=dog\n" +
		"host: example.com\n" +
		"date: Sun, 05 Jan 2014 21:31:40 GMT",
	"C.3 all headers": "(request-target): post /foo?param=value&pet=dog\n" +
		"host: example.com\n" +
		"date: Sun, 05 Jan 2014 21:31:40 GMT\n" +
		"content-type: application/json\n" +
		"digest: SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=\n" +
		"content-length: 18",
}

// TestCavageVectors reproduces draft-cavage Appendix C bit for bit: the
// signing strings from signingString and the rsa-sha256 signatures from a
// Signer built with NewSigner over the vector's key.
func TestCavageVectors(t *testing.T) {
	t.Parallel()
	v, key, pub := loadCavage(t)
	h := make(map[string][]string)
	for _, kv := range v.Request.Headers {
		h[kv[0]] = append(h[kv[0]], kv[1])
	}
	// The key has no certificate in the draft: a self-signed one stands in.
	signer, err := NewSigner(key, selfSigned(t, key), &SignerOptions{KeyID: v.KeyID})
	require.NoError(t, err)
	require.Equal(t, v.Algorithm, signer.Algorithm())

	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			names := strings.Fields(c.Headers)
			want := cavageSigningStrings[c.Name]
			require.NotEmpty(t, want)
			// host from the request's Host field, and from a Host header.
			for _, src := range []headerSource{
				{h: h, method: v.Request.Method, target: v.Request.Target, host: "example.com"},
				{h: h, method: v.Request.Method, target: v.Request.Target},
			} {
				str, used := signingString(names, src)
				assert.Equal(t, want, str)
				assert.Equal(t, c.Headers, used)
			}

			s := *signer
			s.setHeaders(names)
			got, err := s.sign(headerSource{h: h, method: v.Request.Method, target: v.Request.Target, host: "example.com"})
			require.NoError(t, err)
			assert.Equal(t, `keyId="Test",algorithm="rsa-sha256",headers="`+c.Headers+`",signature="`+c.Signature+`"`, got)

			// The vector's signature checks out with the draft's public key.
			sig, err := base64.StdEncoding.DecodeString(c.Signature)
			require.NoError(t, err)
			sum := sha256.Sum256([]byte(want))
			require.NoError(t, rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig))
		})
	}
}

func TestKeyID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		load func(t testing.TB, opts *SignerOptions) *Signer
		opts *SignerOptions
		want string
	}{
		{"default", testSignerWith, nil, testKeyID},
		{"zero options", testSignerWith, &SignerOptions{}, testKeyID},
		{"lower-case serial", testSignerWith, &SignerOptions{LowerCaseSerial: true}, "SN=1a2b3c4d5e6f,CA=CN=xs2a Test CA - TEST ONLY,O=tppkit,C=NO"},
		{"escaped spaces", testSignerWith, &SignerOptions{EscapedSpacesInCA: true}, "SN=1A2B3C4D5E6F,CA=CN=xs2a%20Test%20CA%20-%20TEST%20ONLY,O=tppkit,C=NO"},
		{"both variants", testSignerWith, &SignerOptions{LowerCaseSerial: true, EscapedSpacesInCA: true}, "SN=1a2b3c4d5e6f,CA=CN=xs2a%20Test%20CA%20-%20TEST%20ONLY,O=tppkit,C=NO"},
		{"KeyID", testSignerWith, &SignerOptions{KeyID: "registered-key-42"}, "registered-key-42"},
		{"KeyID wins over the variants", testSignerWith, &SignerOptions{KeyID: "k", LowerCaseSerial: true}, "k"},
		{"ECDSA", testECSignerWith, nil, testECKeyID},
		{"non-ASCII issuer", testNordicSignerWith, nil, testNordicKeyID},
		{"PKCS#12", func(t testing.TB, opts *SignerOptions) *Signer {
			s, err := LoadPKCS12(certPath("tpp-rsa.p12"), "test-only", opts)
			require.NoError(t, err)
			return s
		}, nil, testKeyID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.load(t, tt.opts).KeyID())
		})
	}
}

func TestSignerOptionsKeyIDInvalid(t *testing.T) {
	t.Parallel()
	for _, id := range []string{`a"b`, "a\rb", "a\nb"} {
		_, err := ParseSigner(mustRead(t, certPath("tpp-rsa.cert.pem")), mustRead(t, certPath("tpp-rsa.key.pem")), &SignerOptions{KeyID: id})
		var verr *ValidationError
		require.ErrorAs(t, err, &verr, "%q", id)
		assert.Equal(t, "SignerOptions.KeyID", verr.Field)
	}
}

func TestSignerOptionsSignedHeaders(t *testing.T) {
	t.Parallel()
	extra := []string{"TPP-Session-ID", " (request-target) ", "date", "tpp-session-id"}
	s := testSignerWith(t, &SignerOptions{SignedHeaders: extra})
	assert.Equal(t, "TPP-Session-ID", extra[0], "the caller's slice is left alone")
	assert.Equal(t, []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri", "tpp-session-id", "(request-target)"}, s.SignedHeaders())
	s.SignedHeaders()[0] = "changed"
	assert.Equal(t, "date", s.SignedHeaders()[0], "SignedHeaders returns a copy")
	assert.Equal(t, "date", DefaultSignedHeaders[0])

	for _, bad := range []string{"", " ", "a b", `a"b`, "a,b", "a:b", "a\nb"} {
		_, err := NewSigner(s.key, s.cert, &SignerOptions{SignedHeaders: []string{bad}})
		var verr *ValidationError
		require.ErrorAs(t, err, &verr, "%q", bad)
		assert.Equal(t, "SignerOptions.SignedHeaders", verr.Field)
	}
}

func TestSignerAccessors(t *testing.T) {
	t.Parallel()
	rsaS, ecS := testSigner(t), testECSigner(t)
	assert.Equal(t, "rsa-sha256", rsaS.Algorithm())
	assert.Equal(t, "ecdsa-sha256", ecS.Algorithm())
	assert.Equal(t, big.NewInt(0x1A2B3C4D5E6F), rsaS.Certificate().SerialNumber)
	assert.Equal(t, DefaultSignedHeaders, rsaS.SignedHeaders())
}

// dn encodes RDNs (in DER order, most significant first) as a DER Name.
func dn(t *testing.T, rdns ...[]pkix.AttributeTypeAndValue) []byte {
	t.Helper()
	var seq pkix.RDNSequence
	for _, r := range rdns {
		seq = append(seq, r)
	}
	der, err := asn1.Marshal(seq)
	require.NoError(t, err)
	return der
}

func atv(oid asn1.ObjectIdentifier, v any) pkix.AttributeTypeAndValue {
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}
}

// rawString is an attribute value with an explicit ASN.1 string type.
func rawString(tag int, s string) asn1.RawValue {
	return asn1.RawValue{Tag: tag, Bytes: []byte(s)}
}

var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidL      = asn1.ObjectIdentifier{2, 5, 4, 7}
	oidST     = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidStreet = asn1.ObjectIdentifier{2, 5, 4, 9}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidOU     = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidOrgID  = asn1.ObjectIdentifier{2, 5, 4, 97} // organizationIdentifier
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidEmail  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

// single is a one-attribute RDN.
func single(oid asn1.ObjectIdentifier, v any) []pkix.AttributeTypeAndValue {
	return []pkix.AttributeTypeAndValue{atv(oid, v)}
}

// hexOfString is the hex DER of a short string of ASN.1 type tag.
func hexOfString(tag byte, s string) string {
	return hex.EncodeToString(append([]byte{tag, byte(len(s))}, s...))
}

// TestRFC2253 checks the issuer string form of the keyId (RFC 2253 section 2)
// on crafted names.
func TestRFC2253(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rdns [][]pkix.AttributeTypeAndValue
		want string
	}{
		{"reverse order", [][]pkix.AttributeTypeAndValue{single(oidC, "NO"), single(oidO, "tppkit"), single(oidCN, "xs2a Test CA")},
			"CN=xs2a Test CA,O=tppkit,C=NO"},
		{"all keywords", [][]pkix.AttributeTypeAndValue{single(oidDC, "no"), single(oidC, "NO"), single(oidST, "Oslo"), single(oidL, "Oslo"),
			single(oidStreet, "Gate 1"), single(oidO, "B"), single(oidOU, "U"), single(oidUID, "u1"), single(oidCN, "c")},
			"CN=c,UID=u1,OU=U,O=B,STREET=Gate 1,L=Oslo,ST=Oslo,C=NO,DC=no"},
		{"special characters", [][]pkix.AttributeTypeAndValue{single(oidO, `a,b+c"d\e<f>g;h`)},
			`O=a\,b\+c\22d\\e\<f\>g\;h`},
		{"leading hash", [][]pkix.AttributeTypeAndValue{single(oidCN, "#1 CA#2")}, `CN=\#1 CA#2`},
		{"leading and trailing space", [][]pkix.AttributeTypeAndValue{single(oidCN, " a b ")}, `CN=\ a b\ `},
		{"a single space", [][]pkix.AttributeTypeAndValue{single(oidCN, " ")}, `CN=\ `},
		{"equals sign is not special", [][]pkix.AttributeTypeAndValue{single(oidCN, "a=b")}, `CN=a=b`},
		{"non-ASCII kept as UTF-8", [][]pkix.AttributeTypeAndValue{single(oidO, "Bankø Test AS"), single(oidCN, "Ø")}, "CN=Ø,O=Bankø Test AS"},
		{"multi-valued RDN", [][]pkix.AttributeTypeAndValue{single(oidC, "NO"), {atv(oidOU, "Payments"), atv(oidCN, "Bank CA")}},
			"CN=Bank CA+OU=Payments,C=NO"},
		{"organizationIdentifier (PrintableString) as #hex DER", [][]pkix.AttributeTypeAndValue{single(oidC, "NO"), single(oidOrgID, "NTRNO-983163327"), single(oidCN, "CA")},
			"CN=CA,2.5.4.97=#" + hexOfString(0x13, "NTRNO-983163327") + ",C=NO"},
		{"serialNumber as #hex DER", [][]pkix.AttributeTypeAndValue{single(oidSerial, "42")}, "2.5.4.5=#" + hexOfString(0x13, "42")},
		// The #hex form is the BER of the value as the certificate holds it
		// (RFC 2253 section 2.4): a UTF8String stays 0c, an IA5String 16.
		{"organizationIdentifier (UTF8String) keeps its encoding", [][]pkix.AttributeTypeAndValue{single(oidOrgID, rawString(asn1.TagUTF8String, "NTRNO-983163327"))},
			"2.5.4.97=#" + hexOfString(0x0c, "NTRNO-983163327")},
		{"emailAddress (IA5String) keeps its encoding", [][]pkix.AttributeTypeAndValue{single(oidEmail, rawString(asn1.TagIA5String, "ca@bank.no"))},
			"1.2.840.113549.1.9.1=#" + hexOfString(0x16, "ca@bank.no")},
		{"keyword with a UTF8String value", [][]pkix.AttributeTypeAndValue{single(oidCN, rawString(asn1.TagUTF8String, "CA"))}, "CN=CA"},
		{"keyword with an IA5String value", [][]pkix.AttributeTypeAndValue{single(oidDC, rawString(asn1.TagIA5String, "bank"))}, "DC=bank"},
		{"empty name", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := rfc2253(dn(t, tt.rdns...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	t.Run("malformed", func(t *testing.T) {
		_, err := rfc2253([]byte{0x30, 0x05, 0x31})
		require.Error(t, err)
		_, err = rfc2253(append(dn(t, single(oidCN, "a")), 0x00))
		require.Error(t, err, "trailing data")
	})
}

func TestNewSignerErrors(t *testing.T) {
	t.Parallel()
	rsaS, ecS := testSigner(t), testECSigner(t)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)

	tests := []struct {
		name  string
		key   crypto.Signer
		cert  *x509.Certificate
		field string
	}{
		{"nil key", nil, rsaS.cert, "key"},
		{"typed nil key", (*rsa.PrivateKey)(nil), rsaS.cert, "key"},
		{"nil cert", rsaS.key, nil, "cert"},
		{"RSA key, ECDSA certificate", rsaS.key, ecS.cert, "key"},
		{"ECDSA key, RSA certificate", ecS.key, rsaS.cert, "key"},
		{"P-384 key", p384, selfSigned(t, p384), "key"},
		{"Ed25519 key", edKey, selfSigned(t, edKey), "key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := NewSigner(tt.key, tt.cert, nil)
			require.Nil(t, s)
			var verr *ValidationError
			require.ErrorAs(t, err, &verr)
			assert.Equal(t, tt.field, verr.Field)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
		})
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestLoadSigner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cert, key, alg string
	}{
		{"PKCS#1", "tpp-rsa.cert.pem", "tpp-rsa.key.pem", "rsa-sha256"},
		{"PKCS#8", "tpp-rsa.cert.pem", "tpp-rsa.pkcs8.key.pem", "rsa-sha256"},
		{"EC", "tpp-ec.cert.pem", "tpp-ec.key.pem", "ecdsa-sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := LoadSigner(certPath(tt.cert), certPath(tt.key), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.alg, s.Algorithm())
			assert.Equal(t, base64.StdEncoding.EncodeToString(s.cert.Raw), s.certHeader)
			assertSignsVerifiably(t, s)
		})
	}

	t.Run("blocks before the ones wanted are skipped", func(t *testing.T) {
		t.Parallel()
		params := pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}})
		junk := pem.EncodeToMemory(&pem.Block{Type: "TRUSTED NOTE", Bytes: []byte("x")})
		s, err := ParseSigner(append(junk, mustRead(t, certPath("tpp-ec.cert.pem"))...), append(params, mustRead(t, certPath("tpp-ec.key.pem"))...), nil)
		require.NoError(t, err)
		assert.Equal(t, testECKeyID, s.KeyID())
	})

	t.Run("missing files", func(t *testing.T) {
		t.Parallel()
		_, err := LoadSigner(certPath("nope.pem"), certPath("tpp-rsa.key.pem"), nil)
		require.ErrorIs(t, err, os.ErrNotExist)
		_, err = LoadSigner(certPath("tpp-rsa.cert.pem"), certPath("nope.pem"), nil)
		require.ErrorIs(t, err, os.ErrNotExist)
	})
}

// assertSignsVerifiably signs a signing string with s and checks it with the
// certificate's public key.
func assertSignsVerifiably(t *testing.T, s *Signer) {
	t.Helper()
	h := map[string][]string{"Date": {"Mon, 02 Mar 2026 10:04:05 GMT"}}
	v, err := s.sign(headerSource{h: h})
	require.NoError(t, err)
	p := splitSignature(t, v)
	sig, err := base64.StdEncoding.DecodeString(p["signature"])
	require.NoError(t, err)
	require.NoError(t, verifyWithPublicKey(s.cert.PublicKey, []byte("date: Mon, 02 Mar 2026 10:04:05 GMT"), sig))
}

func TestParseSignerErrors(t *testing.T) {
	t.Parallel()
	certPEM := mustRead(t, certPath("tpp-rsa.cert.pem"))
	keyPEM := mustRead(t, certPath("tpp-rsa.key.pem"))
	block, _ := pem.Decode(keyPEM)
	require.NotNil(t, block)
	//lint:ignore SA1019 a legacy encrypted PEM key, as old OpenSSL writes it, must be refused
	legacy, err := x509.EncryptPEMBlock(rand.Reader, "RSA PRIVATE KEY", block.Bytes, []byte("pw"), x509.PEMCipherAES256)
	require.NoError(t, err)
	encPKCS8 := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0x00}})

	tests := []struct {
		name          string
		cert, key     []byte
		wantInMessage string
	}{
		{"no certificate block", keyPEM, keyPEM, "no CERTIFICATE block"},
		{"empty certificate", nil, keyPEM, "no CERTIFICATE block"},
		{"bad certificate", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2, 3}}), keyPEM, "parsing certificate"},
		{"no key block", certPEM, certPEM, "no private key block"},
		{"empty key", certPEM, nil, "no private key block"},
		{"encrypted PKCS#8 key", certPEM, encPKCS8, "encrypted"},
		{"legacy encrypted PKCS#1 key", certPEM, pem.EncodeToMemory(legacy), "encrypted"},
		{"bad key", certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), "parsing PRIVATE KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSigner(tt.cert, tt.key, nil)
			require.Nil(t, s)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantInMessage)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			assert.NotContains(t, err.Error(), "MII", "no key or certificate material in the message")
		})
	}
}

func TestLoadPKCS12(t *testing.T) {
	t.Parallel()
	s, err := LoadPKCS12(certPath("tpp-rsa.p12"), "test-only", nil)
	require.NoError(t, err)
	assert.Equal(t, testKeyID, s.KeyID())
	assert.Equal(t, testSigner(t).cert.Raw, s.cert.Raw)
	assertSignsVerifiably(t, s)

	_, err = LoadPKCS12(certPath("tpp-rsa.p12"), "wrong", nil)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
	assert.NotContains(t, err.Error(), "test-only", "the password never appears")

	_, err = LoadPKCS12(certPath("nope.p12"), "test-only", nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// hsmKey stands for a key held in an HSM or KMS: it only exposes
// crypto.Signer and counts its use.
type hsmKey struct {
	inner crypto.Signer
	calls atomic.Int32
	opts  atomic.Value // crypto.SignerOpts of the last call
	err   error
}

func (k *hsmKey) Public() crypto.PublicKey { return k.inner.Public() }

func (k *hsmKey) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	k.calls.Add(1)
	k.opts.Store(opts)
	if k.err != nil {
		return nil, k.err
	}
	return k.inner.Sign(r, digest, opts)
}

func TestCryptoSignerKey(t *testing.T) {
	t.Parallel()
	for _, base := range []*Signer{testSigner(t), testECSigner(t)} {
		t.Run(base.Algorithm(), func(t *testing.T) {
			t.Parallel()
			key := &hsmKey{inner: base.key}
			s, err := NewSigner(key, base.cert, nil)
			require.NoError(t, err)
			assert.Equal(t, base.KeyID(), s.KeyID())
			assertSignsVerifiably(t, s)
			assert.EqualValues(t, 1, key.calls.Load())
			assert.Equal(t, crypto.SHA256, key.opts.Load())

			key.err = errors.New("hsm offline")
			_, err = s.sign(headerSource{h: map[string][]string{"Date": {"x"}}})
			require.ErrorContains(t, err, "hsm offline")
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: signing: "), err.Error())
		})
	}
}

// TestNordicIssuer checks the RFC 2047 form (docs/interface.md, Authentication,
// item 7) for the issuer with non-ASCII text, against a golden value, and
// that it decodes to the plain value.
func TestNordicIssuerGolden(t *testing.T) {
	t.Parallel()
	s := testNordicSigner(t)
	assert.Equal(t, testNordicKeyID, s.KeyID())
	capt := &captureRT{}
	tr := &Transport{Base: capt, Signer: s, RedirectURI: "https://tpp.example/cb", Now: fixedNow}
	req := newGet(t, "https://psd2.bank.example/api/v1/accounts")
	req.Header.Set("X-Request-ID", goldenRequestID)
	_, err := tr.RoundTrip(req)
	require.NoError(t, err)
	v := capt.last(t).Header.Get("Signature")
	checkGolden(t, "sign/nordic-issuer.txt", []byte(v+"\n"))

	require.True(t, strings.HasPrefix(v, "=?utf-8?B?") && strings.HasSuffix(v, "?="), v)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?utf-8?B?"), "?="))
	require.NoError(t, err)
	plain := string(raw)
	require.True(t, utf8.ValidString(plain))
	p := splitSignature(t, plain)
	assert.Equal(t, testNordicKeyID, p["keyId"])
	assert.Equal(t, "date x-request-id tpp-redirect-uri", p["headers"])
	dec, err := decodeRFC2047(v)
	require.NoError(t, err)
	assert.Equal(t, plain, dec)

	// The signature is the same as the ASCII certificate's would be over the
	// same signing string: same key, deterministic PKCS#1 v1.5.
	sig, err := base64.StdEncoding.DecodeString(p["signature"])
	require.NoError(t, err)
	str, _ := signingString(s.headers, headerSource{h: capt.last(t).Header})
	require.NoError(t, verifyWithPublicKey(s.cert.PublicKey, []byte(str), sig))
}

func TestDecodeRFC2047(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"plain value passes", `keyId="a"`, `keyId="a"`, false},
		{"utf-8 B", encodeRFC2047([]byte("Bankø")), "Bankø", false},
		{"UTF-8 b, case-insensitive", "=?UTF-8?b?" + base64.StdEncoding.EncodeToString([]byte("Ø")) + "?=", "Ø", false},
		{"iso-8859-1 B", "=?iso-8859-1?B?" + base64.StdEncoding.EncodeToString([]byte{'B', 0xf8}) + "?=", "Bø", false},
		{"latin1 Q", "=?latin1?Q?Bank=F8_AS?=", "Bankø AS", false},
		{"utf-8 Q", "=?utf-8?Q?=C3=98?=", "Ø", false},
		{"empty encoded text", "=?utf-8?B??=", "", false},
		{"bad base64", "=?utf-8?B?***?=", "", true},
		{"bad Q escape", "=?utf-8?Q?=Z1?=", "", true},
		{"short Q escape", "=?utf-8?Q?a=4?=", "", true},
		{"unknown encoding", "=?utf-8?X?abc?=", "", true},
		{"unknown charset", "=?koi8-r?B?YQ==?=", "", true},
		{"invalid UTF-8", "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte{0xff}) + "?=", "", true},
		{"missing parts", "=?utf-8?=", "", true},
		{"overlapping markers are no encoded word", "=?=", "=?=", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustNotPanic(t, func() {
				got, err := decodeRFC2047(tt.in)
				if tt.wantErr {
					require.Error(t, err)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
			})
		})
	}
}

// FuzzDecodeRFC2047: untrusted response headers go through decodeRFC2047.
// It never panics, and what encodeRFC2047 writes decodes back.
func FuzzDecodeRFC2047(f *testing.F) {
	for _, s := range []string{"", "=?utf-8?B?YQ==?=", "=?iso-8859-1?Q?a=F8_b?=", "=?x?y?z?=", "=??=", "plain", "=?utf-8?Q?=?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeRFC2047(s)
		if err == nil && !strings.HasPrefix(s, "=?") {
			if got != s {
				t.Fatalf("plain %q changed to %q", s, got)
			}
		}
		if utf8.ValidString(s) {
			back, err := decodeRFC2047(encodeRFC2047([]byte(s)))
			if err != nil || back != s {
				t.Fatalf("round trip of %q: %q, %v", s, back, err)
			}
		}
	})
}

// TestRFC2047SignatureGolden pins the Signature value RFC2047Signature
// sends for the fixed key, clock and request id, with and without
// LowerCaseSerial: one encoded word whose text is exactly the value the
// signer sends without the option (PKCS#1 v1.5 is deterministic), with the
// keyId's serial in the case asked for.
func TestRFC2047SignatureGolden(t *testing.T) {
	t.Parallel()
	sendSigned := func(t *testing.T, s *Signer) string {
		t.Helper()
		capt := &captureRT{}
		tr := &Transport{Base: capt, Signer: s, RedirectURI: testRedirectURI, Now: fixedNow}
		req := newGet(t, testBankURL+"/v1/accounts/some-account/balances")
		req.Header.Set("X-Request-ID", goldenRequestID)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
		return capt.last(t).Header.Get("Signature")
	}
	tests := []struct {
		name, golden string
		lower        bool
	}{
		{"upper-case serial", "sign/rfc2047.txt", false},
		{"lower-case serial", "sign/rfc2047-lower-serial.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plain := sendSigned(t, testSignerWith(t, &SignerOptions{LowerCaseSerial: tt.lower}))
			v := sendSigned(t, testSignerWith(t, &SignerOptions{LowerCaseSerial: tt.lower, RFC2047Signature: true}))
			checkGolden(t, tt.golden, []byte(v+"\n"))

			inner, ok := strings.CutPrefix(v, "=?utf-8?B?")
			require.True(t, ok, v)
			inner, ok = strings.CutSuffix(inner, "?=")
			require.True(t, ok, v)
			raw, err := base64.StdEncoding.DecodeString(inner)
			require.NoError(t, err)
			assert.Equal(t, plain, string(raw), "the wrapped text is the plain value")
			serial := "1A2B3C4D5E6F"
			if tt.lower {
				serial = "1a2b3c4d5e6f"
			}
			assert.True(t, strings.HasPrefix(string(raw), `keyId="SN=`+serial+`,CA=`), string(raw))
		})
	}
}

// TestSignerTPPID: the tppId comes from the subject's organizationIdentifier
// in its PSD2 form only.
func TestSignerTPPID(t *testing.T) {
	t.Parallel()
	tests := []struct{ orgID, want string }{
		{"PSDNO-FSA-987654321", "NO-FSA-987654321"},
		{"PSDSE-FINA-44059", "SE-FINA-44059"},
		{"", ""},
		{"NTRNO-983163327", ""}, // a company registration, not a PSD2 authorisation
		{"PSD", ""},
		{"PSDNO FSA 1", ""}, // not one path segment
	}
	for _, tt := range tests {
		t.Run(tt.orgID, func(t *testing.T) {
			t.Parallel()
			subject := pkix.Name{CommonName: "xs2a test TPP - TEST ONLY"}
			if tt.orgID != "" {
				subject.ExtraNames = []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: tt.orgID}}
			}
			p, err := testcert.New(testcert.Options{Subject: subject, Issuer: pkix.Name{CommonName: "xs2a Test CA - TEST ONLY"}, EC: true})
			require.NoError(t, err)
			s, err := NewSigner(p.Key, p.Cert, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.TPPID())
		})
	}
}

// signingString returns the signing string for names over src and the
// space-separated list of the names used.
func signingString(names []string, src headerSource) (str, used string) {
	b, u, _ := appendSigningString(nil, nil, names, nil, src)
	return string(b), string(u)
}

// sign returns the Signature header value for the request described by src.
func (s *Signer) sign(src headerSource) (string, error) {
	var b strings.Builder
	if err := s.writeSignature(&b, src, new([sha256.Size]byte)); err != nil {
		return "", err
	}
	return b.String(), nil
}
