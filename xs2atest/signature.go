package xs2atest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"hash"
	"math/big"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// signatureParams are the parts of a Signature header (docs/interface.md
// "Authentication"), in their required order keyId, algorithm, headers,
// signature.
type signatureParams struct {
	KeyID     string
	Algorithm string
	Headers   []string // lower-case names, in signing-string order
	Signature []byte
}

var errSignatureSyntax = errors.New("malformed Signature header")

// parseSignatureHeader parses `keyId="...",algorithm="...",headers="...",signature="..."`,
// also when the whole value is RFC 2047 encoded (=?utf-8?B?...?=). Inside a
// quoted value a backslash keeps the next character (RFC 2253 escapes in the
// CA part stay as they are).
func parseSignatureHeader(v string) (*signatureParams, error) {
	v, err := signatureText(v)
	if err != nil {
		return nil, err
	}
	vals, err := signatureParts(v)
	if err != nil {
		return nil, err
	}
	p := &signatureParams{KeyID: vals[0], Algorithm: vals[1]}
	if p.KeyID == "" {
		return nil, errors.New("signature header: empty keyId")
	}
	if p.Headers, err = signedHeaders(vals[2]); err != nil {
		return nil, err
	}
	sig, err := base64.StdEncoding.DecodeString(vals[3])
	if err != nil || len(sig) == 0 {
		return nil, errors.New("signature header: signature is not base64")
	}
	p.Signature = sig
	return p, nil
}

// signatureText is the Signature header's text: RFC 2047 decoded when
// encoded, else plain ASCII.
func signatureText(v string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "=?") {
		d, err := unwrapRFC2047(v)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(d), nil
	}
	if !isASCII(v) {
		return "", errors.New("signature header: text other than ASCII must be MIME-encoded per RFC 2047 (=?utf-8?B?...?=)")
	}
	return v, nil
}

// signatureParts reads the quoted values of keyId, algorithm, headers and
// signature, in this order, separated by commas, and nothing after them.
func signatureParts(v string) ([]string, error) {
	want := []string{"keyId", "algorithm", "headers", "signature"}
	vals := make([]string, 0, 4)
	rest := v
	for i, name := range want {
		rest = strings.TrimLeft(rest, " \t")
		if !strings.HasPrefix(rest, name+"=\"") {
			return nil, errors.New("signature header: want part " + name + " at position " + string(rune('1'+i)))
		}
		val, after, ok := quotedValue(rest[len(name)+2:])
		if !ok {
			return nil, errSignatureSyntax
		}
		vals = append(vals, val)
		rest = strings.TrimLeft(after, " \t")
		if i < len(want)-1 {
			if !strings.HasPrefix(rest, ",") {
				return nil, errSignatureSyntax
			}
			rest = rest[1:]
		}
	}
	if rest != "" {
		return nil, errors.New("signature header: unexpected text after the signature part")
	}
	return vals, nil
}

// quotedValue reads a value up to its closing quote; a backslash keeps the
// next character, both kept as they are. It returns the value, the text
// after the quote, and false when the quote is missing.
func quotedValue(s string) (string, string, bool) {
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c == '\\' && j+1 < len(s) {
			b.WriteByte(c)
			b.WriteByte(s[j+1])
			j++
			continue
		}
		if c == '"' {
			return b.String(), s[j+1:], true
		}
		b.WriteByte(c)
	}
	return "", "", false
}

// signedHeaders are the names of the headers part: at least one, lower
// case, each once.
func signedHeaders(v string) ([]string, error) {
	hs := strings.Fields(v)
	if len(hs) == 0 {
		return nil, errors.New("signature header: no signed headers")
	}
	seen := map[string]bool{}
	for _, h := range hs {
		if h != strings.ToLower(h) || seen[h] {
			return nil, errors.New("signature header: header names must be lower case and unique")
		}
		seen[h] = true
	}
	return hs, nil
}

// errWrapping refuses a Signature value that starts as RFC 2047 but is
// not made of encoded words only.
var errWrapping = errors.New("malformed RFC 2047 encoded Signature header: want =?utf-8?B?<base64 of the value>?=")

// unwrapRFC2047 decodes a Signature value sent RFC 2047 wrapped: one or
// more encoded words (=?charset?B|Q?text?=, charset utf-8, us-ascii or
// iso-8859-1) separated by white space, and nothing else. The texts of the
// words are joined (white space between words is dropped, as RFC 2047
// says); a value partly wrapped, with text outside the words, is refused.
func unwrapRFC2047(v string) (string, error) {
	dec := new(mime.WordDecoder)
	var b strings.Builder
	for _, word := range strings.Fields(v) {
		if !strings.HasPrefix(word, "=?") || !strings.HasSuffix(word, "?=") || strings.Count(word, "?") != 4 {
			return "", errWrapping
		}
		d, err := dec.Decode(word)
		if err != nil || !utf8.ValidString(d) {
			return "", errWrapping
		}
		b.WriteString(d)
	}
	if b.Len() == 0 {
		return "", errWrapping
	}
	return b.String(), nil
}

// mustSign are headers that must be covered by the signature when the
// request carries them.
var mustSign = []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// verifyRequest checks Signature, TPP-Signature-Certificate and Digest. It
// returns the TPP's keyId, or an error code (SIGNATURE_MISSING,
// SIGNATURE_INVALID, CERTIFICATE_MISSING, CERTIFICATE_INVALID) and a text.
// keyIDVariants accepts the keyId variants of WithKeyIDVariants.
func verifyRequest(r *http.Request, body []byte, keyIDVariants bool) (keyID, code, text string) {
	raw := r.Header.Get("Signature")
	if raw == "" {
		return "", "SIGNATURE_MISSING", "every request must carry a Signature header"
	}
	p, err := parseSignatureHeader(raw)
	if err != nil {
		return "", "SIGNATURE_INVALID", err.Error()
	}
	certHeader := r.Header.Get("TPP-Signature-Certificate")
	if certHeader == "" {
		return "", "CERTIFICATE_MISSING", "TPP-Signature-Certificate is required to verify the signature"
	}
	cert, err := parseCertificateHeader(certHeader)
	if err != nil {
		return "", "CERTIFICATE_INVALID", "TPP-Signature-Certificate is not a base64 DER or PEM certificate"
	}
	if err := checkKeyID(p.KeyID, cert, keyIDVariants); err != nil {
		return "", "SIGNATURE_INVALID", err.Error()
	}
	dg := r.Header.Values("Digest")
	if len(body) > 0 && len(dg) == 0 {
		return "", "SIGNATURE_INVALID", "a request with a body must carry a Digest header"
	}
	if len(dg) > 0 {
		if err := verifyDigest(strings.Join(dg, ","), body); err != nil {
			return "", "SIGNATURE_INVALID", err.Error()
		}
	}
	signed := map[string]bool{}
	for _, h := range p.Headers {
		signed[h] = true
	}
	for _, h := range mustSign {
		if len(r.Header.Values(h)) > 0 && !signed[h] {
			return "", "SIGNATURE_INVALID", "header " + h + " is present but not signed"
		}
	}
	ss, err := signingString(r, p.Headers)
	if err != nil {
		return "", "SIGNATURE_INVALID", err.Error()
	}
	if err := verifySignature(cert.PublicKey, p.Algorithm, []byte(ss), p.Signature); err != nil {
		return "", "SIGNATURE_INVALID", err.Error()
	}
	return p.KeyID, "", ""
}

// checkDateSkew refuses a Date header further than WithDateSkew from the
// bank's clock and from the host's (a test may have moved the bank's clock
// while the TPP's follows the host's); "" when it is near either, absent,
// or the check is off. It runs after checkHeaderFormats, so Date parses.
func (s *Server) checkDateSkew(h http.Header) string {
	v := h.Get("Date")
	if s.cfg.dateSkew <= 0 || v == "" {
		return ""
	}
	d, err := time.Parse(http.TimeFormat, v)
	if err != nil {
		return ""
	}
	bank, host := s.now(), time.Now()
	if within(d, bank, s.cfg.dateSkew) || within(d, host, s.cfg.dateSkew) {
		return ""
	}
	return "Date is " + d.Sub(bank).Round(time.Second).String() + " from the bank's clock (" +
		bank.UTC().Format(http.TimeFormat) + "); at most " + s.cfg.dateSkew.String() +
		" is accepted: check the TPP's clock (xs2a fakebank -date-skew relaxes it)"
}

// within reports whether a and b are at most d apart.
func within(a, b time.Time, d time.Duration) bool {
	diff := a.Sub(b)
	return diff <= d && diff >= -d
}

// signingString builds the lines "<name>: <value>" joined by "\n".
func signingString(r *http.Request, headers []string) (string, error) {
	lines := make([]string, 0, len(headers))
	for _, h := range headers {
		var v string
		switch h {
		case "(request-target)":
			// the path as sent, base path included (r.URL has it cut off)
			target := r.RequestURI
			if target == "" {
				target = r.URL.RequestURI()
			}
			v = strings.ToLower(r.Method) + " " + target
		case "host":
			v = r.Host
		default:
			vals := r.Header.Values(h)
			if len(vals) == 0 {
				return "", errors.New("signed header " + h + " is missing from the request")
			}
			for i := range vals {
				vals[i] = strings.TrimSpace(vals[i])
			}
			v = strings.Join(vals, ", ")
		}
		lines = append(lines, h+": "+v)
	}
	return strings.Join(lines, "\n"), nil
}

// verifySignature checks rsa-sha256 (PKCS#1 v1.5) and ecdsa-sha256 (ASN.1 DER, P-256).
func verifySignature(pub crypto.PublicKey, algorithm string, msg, sig []byte) error {
	sum := sha256.Sum256(msg)
	switch strings.ToLower(algorithm) {
	case "rsa-sha256":
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return errors.New("algorithm rsa-sha256 does not match the certificate's key")
		}
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) != nil {
			return errors.New("signature does not verify")
		}
	case "ecdsa-sha256":
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok || k.Curve != elliptic.P256() {
			return errors.New("algorithm ecdsa-sha256 needs a P-256 certificate key")
		}
		if !ecdsa.VerifyASN1(k, sum[:], sig) {
			return errors.New("signature does not verify")
		}
	default:
		return errors.New("unsupported signature algorithm")
	}
	return nil
}

// parseCertificateHeader reads base64 DER, PEM, or base64 of PEM.
func parseCertificateHeader(v string) (*x509.Certificate, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "-----BEGIN") {
		// a PEM block folded into one header line: spaces stand for newlines
		blk, _ := pem.Decode([]byte(foldPEM(v)))
		if blk == nil {
			return nil, errors.New("bad PEM")
		}
		return x509.ParseCertificate(blk.Bytes)
	}
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, v)
	der, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		if der, err = base64.RawStdEncoding.DecodeString(clean); err != nil {
			return nil, err
		}
	}
	if blk, _ := pem.Decode(der); blk != nil {
		der = blk.Bytes
	}
	return x509.ParseCertificate(der)
}

func foldPEM(v string) string {
	i := strings.Index(v[5:], "-----")
	endAt := strings.LastIndex(v, "-----END")
	if i < 0 || endAt < i+10 {
		return v
	}
	head := v[:i+10]
	body := strings.ReplaceAll(strings.TrimSpace(v[i+10:endAt]), " ", "\n")
	return head + "\n" + body + "\n" + v[endAt:]
}

// issuerString is the certificate issuer in strict RFC 2253 form
// (strictRFC2253), or Go's form when the issuer cannot be parsed.
func issuerString(cert *x509.Certificate) string {
	if s, err := strictRFC2253(cert.RawIssuer); err == nil {
		return s
	}
	return cert.Issuer.String()
}

// goIssuerStrings are the issuer as Go's crypto/x509/pkix writes it
// (RDNSequence.String of the raw issuer, and pkix.Name.String): not strict
// RFC 2253 (SERIALNUMBER=, POSTALCODE= keywords, other types as #hex of a
// re-encoded value), but what some TPP libraries put in the keyId.
func goIssuerStrings(cert *x509.Certificate) []string {
	out := []string{cert.Issuer.String()}
	var rdn pkix.RDNSequence
	if rest, err := asn1.Unmarshal(cert.RawIssuer, &rdn); err == nil && len(rest) == 0 {
		out = append(out, rdn.String())
	}
	return out
}

// checkKeyID compares keyId "SN=<hex>,CA=<issuer>" with the certificate
// (docs/interface.md, Authentication 4: the serial in upper-case hex, the issuer
// as RFC 2253). The serial compares as a number; the CA must be the issuer
// in strict RFC 2253 form or in Go's pkix form, with escapes compared by
// the character they stand for (normalizeDN: "\22" and "\"" are the same).
// With variants (WithKeyIDVariants) the serial may be lower-case hex and
// "%20" in the CA counts as a space; without, both are refused with a text
// that names the variant.
func checkKeyID(keyID string, cert *x509.Certificate, variants bool) error {
	if !strings.HasPrefix(keyID, "SN=") {
		return errors.New("keyId must start with SN=")
	}
	i := strings.Index(keyID, ",CA=")
	if i < 0 {
		return errors.New("keyId must be SN=<serial>,CA=<issuer>")
	}
	sn, ca := keyID[3:i], keyID[i+4:]
	if sn == "" || strings.Trim(sn, "0123456789ABCDEFabcdef") != "" {
		return errors.New("keyId serial number must be hexadecimal")
	}
	serial, _ := new(big.Int).SetString(sn, 16)
	if serial.Cmp(cert.SerialNumber) != 0 {
		return errors.New("keyId serial number does not match the certificate")
	}
	if !variants && sn != strings.ToUpper(sn) {
		return errors.New("keyId serial number must be upper-case hex (a lower-case serial is a variant the bank does not accept)")
	}
	if variants {
		ca = strings.ReplaceAll(ca, "%20", " ")
	}
	if issuerMatches(ca, cert) {
		return nil
	}
	if !variants && strings.Contains(ca, "%20") && issuerMatches(strings.ReplaceAll(ca, "%20", " "), cert) {
		return errors.New("keyId CA must be the issuer as RFC 2253, with spaces as they are (%20 for a space is a variant the bank does not accept)")
	}
	return errors.New("keyId CA does not match the certificate issuer")
}

// issuerMatches reports whether ca names the certificate's issuer, in
// strict RFC 2253 form or Go's pkix form, escapes compared by meaning.
func issuerMatches(ca string, cert *x509.Certificate) bool {
	got, gotOK := normalizeDN(ca)
	for _, w := range append([]string{issuerString(cert)}, goIssuerStrings(cert)...) {
		if ca == w {
			return true
		}
		if nw, ok := normalizeDN(w); ok && gotOK && nw == got {
			return true
		}
	}
	return false
}

// verifyDigest checks "SHA-256=<b64>" / "SHA-512=<b64>" (several may be
// listed, comma separated; each known one must match, one must be known).
func verifyDigest(header string, body []byte) error {
	known := 0
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		alg, val, ok := strings.Cut(part, "=")
		if !ok {
			return errors.New("malformed Digest header")
		}
		var h hash.Hash
		switch strings.ToUpper(alg) {
		case "SHA-256":
			h = sha256.New()
		case "SHA-512":
			h = sha512.New()
		default:
			continue
		}
		known++
		h.Write(body)
		want, err := base64.StdEncoding.DecodeString(val)
		if err != nil || subtle.ConstantTimeCompare(want, h.Sum(nil)) != 1 {
			return errors.New("digest does not match the body")
		}
	}
	if known == 0 {
		return errors.New("digest must use SHA-256 or SHA-512")
	}
	return nil
}

// signResponse adds Date, Digest and Signature (headers "date digest
// x-request-id") with the bank's test certificate.
func (s *Server) signResponse(h http.Header, body []byte, requestID string) {
	sum := sha256.Sum256(body)
	h.Set("Date", s.now().UTC().Format(http.TimeFormat))
	h.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
	names := []string{"date", "digest"}
	if requestID != "" {
		names = append(names, "x-request-id")
	}
	lines := make([]string, len(names))
	for i, n := range names {
		lines[i] = n + ": " + h.Get(n)
	}
	digest := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.respKey, crypto.SHA256, digest[:])
	if err != nil {
		return
	}
	h.Set("Signature", `keyId="`+keyIDOf(s.respCert)+`",algorithm="rsa-sha256",headers="`+strings.Join(names, " ")+
		`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
}

// keyIDOf is SN=<serial, upper-case hex>,CA=<issuer, RFC 2253>.
func keyIDOf(cert *x509.Certificate) string {
	return "SN=" + strings.ToUpper(cert.SerialNumber.Text(16)) + ",CA=" + issuerString(cert)
}

// newTestCertificate makes an RSA 2048 key and a self-signed certificate
// whose subject says it is for tests only.
func newTestCertificate(cn string) (*rsa.PrivateKey, *x509.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{CommonName: cn, Organization: []string{"xs2atest (TEST ONLY, NOT A REAL TPP)"},
			Country: []string{"NO"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(5, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, err
}

// isASCII reports whether s holds only 7-bit characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
