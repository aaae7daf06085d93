package xs2atest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidPostal = asn1.ObjectIdentifier{2, 5, 4, 17}
	oidOrgID  = asn1.ObjectIdentifier{2, 5, 4, 97}
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
)

// str is an attribute value with an explicit string tag.
func str(tag int, b []byte) asn1.RawValue { return asn1.RawValue{Tag: tag, Bytes: b} }

// dnDER encodes RDNs (first = most significant, as in the certificate),
// each a list of type/value pairs.
func dnDER(t testing.TB, rdns ...[]dnAttribute) []byte {
	t.Helper()
	seq := make([]dnRDNSET, len(rdns))
	for i, r := range rdns {
		seq[i] = dnRDNSET(r)
	}
	der, err := asn1.Marshal(seq)
	require.NoError(t, err)
	return der
}

func one(typ asn1.ObjectIdentifier, v asn1.RawValue) []dnAttribute {
	return []dnAttribute{{Type: typ, Value: v}}
}

func TestStrictRFC2253(t *testing.T) {
	t.Parallel()
	ps := func(s string) asn1.RawValue { return str(asn1.TagPrintableString, []byte(s)) }
	utf := func(s string) asn1.RawValue { return str(asn1.TagUTF8String, []byte(s)) }
	tests := []struct {
		name string
		rdns [][]dnAttribute
		want string
	}{
		{"keywords, reverse order", [][]dnAttribute{one(oidC, ps("NO")), one(oidO, utf("Bank AS")), one(oidCN, ps("Test CA"))},
			"CN=Test CA,O=Bank AS,C=NO"},
		{"serialNumber as dotted OID with the DER value", [][]dnAttribute{one(oidC, ps("NO")), one(oidSerial, ps("123"))},
			"2.5.4.5=#1303313233,C=NO"},
		{"organizationIdentifier keeps its UTF8String tag", [][]dnAttribute{one(oidOrgID, utf("NTRNO-1"))},
			"2.5.4.97=#0c074e54524e4f2d31"},
		{"postalCode", [][]dnAttribute{one(oidPostal, ps("0150"))}, "2.5.4.17=#130430313530"},
		{"DC and UID are keywords", [][]dnAttribute{one(oidDC, str(asn1.TagIA5String, []byte("example"))), one(oidUID, utf("u1"))},
			"UID=u1,DC=example"},
		{"escapes", [][]dnAttribute{one(oidCN, utf(`#a, b+"c"<d>;e\ `))}, `CN=\#a\, b\+\"c\"\<d\>\;e\\\ `},
		{"leading space, inner #", [][]dnAttribute{one(oidO, utf(" a#b"))}, `O=\ a#b`},
		{"non-ASCII stays as is", [][]dnAttribute{one(oidCN, utf("Bankø Ærø"))}, "CN=Bankø Ærø"},
		{"TeletexString as Latin-1", [][]dnAttribute{one(oidCN, str(asn1.TagT61String, []byte{'B', 0xf8}))}, "CN=Bø"},
		{"BMPString", [][]dnAttribute{one(oidCN, str(asn1.TagBMPString, []byte{0, 'A', 0, 0xd8}))}, "CN=AØ"},
		{"UniversalString", [][]dnAttribute{one(oidCN, str(28, []byte{0, 0, 0, 'A', 0, 0, 0, 0xe5}))}, "CN=Aå"},
		{"keyword with a non-string value", [][]dnAttribute{one(oidCN, asn1.RawValue{Tag: asn1.TagInteger, Bytes: []byte{1}})},
			"2.5.4.3=#020101"},
		{"PrintableString with a non-ASCII byte", [][]dnAttribute{one(oidCN, str(asn1.TagPrintableString, []byte{0xf8}))},
			"2.5.4.3=#1301f8"},
		{"multi-valued RDN", [][]dnAttribute{{{Type: oidCN, Value: ps("a")}, {Type: oidO, Value: ps("b")}}, one(oidC, ps("NO"))},
			"C=NO,CN=a+O=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictRFC2253(dnDER(t, tt.rdns...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			n, ok := normalizeDN(got)
			assert.True(t, ok)
			assert.Equal(t, got, n, "the strict form is already normal")
		})
	}
	_, err := strictRFC2253([]byte{0x30, 0x03, 0x31})
	assert.Error(t, err)
	_, err = strictRFC2253(append(dnDER(t, one(oidCN, ps("a"))), 0))
	assert.Error(t, err, "trailing bytes")
}

func TestNormalizeDN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`CN=Test CA,O=Bank`, `CN=Test CA,O=Bank`, true},
		{`O=Test \22QTSP\22 AS`, `O=Test \"QTSP\" AS`, true},
		{`O=Test \"QTSP\" AS`, `O=Test \"QTSP\" AS`, true},
		{`CN=\42ank\C3\B8`, `CN=Bankø`, true},
		{`CN=\20a\20`, `CN=\ a\ `, true},
		{`CN=a\=b`, `CN=a=b`, true},
		{`2.5.4.97=#0C074E`, `2.5.4.97=#0c074e`, true},
		{`CN=a+O=b,C=NO`, `CN=a+O=b,C=NO`, true},
		{`CN=`, `CN=`, true},
		{``, ``, false},
		{`CN`, ``, false},
		{`=x`, ``, false},
		{`CN=a,`, ``, false},
		{`CN=a\`, ``, false},
		{`CN=\ff`, ``, false},
		{`2.5.4.97=#0c0`, ``, false},
		{`2.5.4.97=#zz`, ``, false},
		{`2.5.4.97=#`, ``, false},
		{`C N=a`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := normalizeDN(tt.in)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

// eidasCert is a self-signed certificate whose issuer has serialNumber,
// organizationIdentifier (UTF8String), DC, postalCode and a quote in O.
func eidasCert(t testing.TB) (*rsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	name := pkix.Name{CommonName: "xs2atest eIDAS CA (TEST ONLY)", Organization: []string{`Test "QTSP" AS`}, Country: []string{"NO"},
		SerialNumber: "NTRNO-983163327", PostalCode: []string{"0150"},
		ExtraNames: []pkix.AttributeTypeAndValue{
			{Type: oidOrgID, Value: str(asn1.TagUTF8String, []byte("NTRNO-983163327"))},
			{Type: oidDC, Value: str(asn1.TagIA5String, []byte("test"))},
		}}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(0x1a2b3c), Subject: name, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return key, cert
}

func TestCheckKeyIDEIDASIssuer(t *testing.T) {
	t.Parallel()
	_, cert := eidasCert(t)
	strict, err := strictRFC2253(cert.RawIssuer)
	require.NoError(t, err)
	// the strict form, by hand: 2.5.4.17 postalCode and 2.5.4.5 serialNumber
	// (PrintableString, 0x13) and 2.5.4.97 (UTF8String, 0x0c) as #hex, DC
	// as a keyword.
	require.Equal(t, "DC=test,2.5.4.97=#0c0f4e54524e4f2d393833313633333237,2.5.4.5=#130f4e54524e4f2d393833313633333237,"+
		`CN=xs2atest eIDAS CA (TEST ONLY),O=Test \"QTSP\" AS,2.5.4.17=#130430313530,C=NO`, strict)
	var rdn pkix.RDNSequence
	_, err = asn1.Unmarshal(cert.RawIssuer, &rdn)
	require.NoError(t, err)
	goForm := rdn.String()
	require.Contains(t, goForm, "SERIALNUMBER=NTRNO-983163327", "Go's form differs from the strict one")
	require.Contains(t, goForm, "2.5.4.97=#130f", "Go re-encodes the UTF8String as a PrintableString")

	sn := "SN=1A2B3C,CA="
	tests := []struct {
		name, keyID string
		ok          bool // by default (docs/interface.md: upper-case serial, RFC 2253 CA)
		variantsOK  bool // with WithKeyIDVariants
	}{
		{"strict RFC 2253", sn + strict, true, true},
		{"strict, quote as \\22 (the SDK's escape)", sn + strings.ReplaceAll(strict, `\"`, `\22`), true, true},
		{"strict, upper-case hex", sn + strings.ReplaceAll(strict, "#0c0f4e", "#0C0F4E"), true, true},
		{"strict, %20 for spaces", sn + strings.ReplaceAll(strict, " ", "%20"), false, true},
		{"strict, lower-case serial", "SN=1a2b3c,CA=" + strict, false, true},
		{"strict, mixed-case serial", "SN=1A2b3C,CA=" + strict, false, true},
		{"strict, serial with a leading zero", "SN=01A2B3C,CA=" + strict, true, true},
		{"Go pkix form", sn + goForm, true, true},
		{"pkix.Name.String", sn + cert.Issuer.String(), true, true},
		{"Go pkix form, %20 for spaces", sn + strings.ReplaceAll(goForm, " ", "%20"), false, true},
		{"strict names with Go's re-encoded value", sn + strings.Replace(strict, "2.5.4.97=#0c", "2.5.4.97=#13", 1), false, false},
		{"strict with the SERIALNUMBER keyword", sn + strings.Replace(strict, "2.5.4.5=#130f4e54524e4f2d393833313633333237",
			"SERIALNUMBER=NTRNO-983163327", 1), false, false},
		{"RDNs in certificate order", sn + "C=NO,2.5.4.17=#130430313530," + strings.Split(strict, ",2.5.4.17")[0], false, false},
		{"wrong serial", "SN=1A2B3D,CA=" + strict, false, false},
		{"wrong serial, lower case", "SN=1a2b3d,CA=" + strict, false, false},
		{"serial with a sign", "SN=+1A2B3C,CA=" + strict, false, false},
		{"empty serial", "SN=,CA=" + strict, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, variants := range []bool{false, true} {
				err := checkKeyID(tt.keyID, cert, variants)
				if want := tt.ok || (variants && tt.variantsOK); want {
					assert.NoError(t, err, "variants=%v", variants)
				} else {
					assert.Error(t, err, "variants=%v", variants)
				}
			}
		})
	}
}

// TestVerifyRequestEIDASIssuer: a whole signed request whose keyId names an
// eIDAS-style issuer in strict RFC 2253 form, and in Go's form.
func TestVerifyRequestEIDASIssuer(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	key, cert := eidasCert(t)
	p := &testTPP{key: key, cert: cert, certB64: base64.StdEncoding.EncodeToString(cert.Raw), alg: "rsa-sha256",
		redirect: "https://tpp.example/callback"}
	for name, keyID := range map[string]string{
		"strict": "SN=1A2B3C,CA=" + issuerString(cert),
		"go":     "SN=1A2B3C,CA=" + cert.Issuer.String(),
	} {
		t.Run(name, func(t *testing.T) {
			c := newTestClient(t, s)
			q := *p
			q.keyID = keyID
			c.tpp = &q
			r := c.do("GET", "/v1/sandbox/customers", nil)
			assert.Equal(t, 200, r.status, "body: %s", r.body)
		})
	}
}

// FuzzDN: the strict writer never panics on any DER, its output is a fixed
// point of normalizeDN, and normalizeDN is idempotent on any text.
func FuzzDN(f *testing.F) {
	f.Add([]byte{}, `CN=a\22b,O=#0C01`)
	f.Add(dnDER(f, one(oidCN, str(asn1.TagUTF8String, []byte(`#x, "y" `))), one(oidSerial, str(asn1.TagPrintableString, []byte("1")))), `2.5.4.5=#130131`)
	f.Add(dnDER(f, one(oidCN, str(asn1.TagBMPString, []byte{0xd8, 0x00}))), `CN=\C3\B8\20`)
	f.Fuzz(func(t *testing.T, der []byte, text string) {
		if s, err := strictRFC2253(der); err == nil && s != "" {
			n, ok := normalizeDN(s)
			if !ok || n != s {
				t.Fatalf("strict form %q not normal: %q %v", s, n, ok)
			}
		}
		if n, ok := normalizeDN(text); ok {
			if m, ok := normalizeDN(n); !ok || m != n {
				t.Fatalf("normalizeDN(%q) = %q, again %q %v", text, n, m, ok)
			}
		}
	})
}
