package xs2a

import (
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/xs2a/internal/inert"
	"software.sslmate.com/src/go-pkcs12"
)

// DefaultSignedHeaders are signed in this order when present (docs/interface.md
// SIG5).
var DefaultSignedHeaders = []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// Signer signs requests with the TPP's eIDAS key (QSealC) as the interface
// demands (docs/interface.md SIG1 to SIG7): the Signature header with keyId,
// algorithm, headers and signature, and the certificate for the
// TPP-Signature-Certificate header. The key is any crypto.Signer, so an HSM
// or KMS key works. A Signer is immutable and safe for concurrent use.
type Signer struct {
	key        crypto.Signer
	cert       *x509.Certificate
	algorithm  string
	keyID      string
	tppID      string   // from the subject's organizationIdentifier; "" when none
	certHeader string   // base64 of the DER certificate
	headers    []string // lower-case names signed when present, in order
	keys       []string // headers' canonical MIME forms, made once, in the order of headers
	digestGET  bool     // digest the empty body of requests without one
	paramsHead string   // `keyId="...",algorithm="...",headers="`
	valueLen   int      // room for a Signature value (unless RFC 2047 encoded)
	encode2047 bool     // RFC 2047 encode the value: non-ASCII keyId or RFC2047Signature
}

// SignerOptions adjust a Signer for a bank's variant of the signing rules
// (docs/interface.md SIG4 to SIG7), and say where NewSigner's check of the
// certificate's dates logs (Logger, Now). The zero value, like a nil
// *SignerOptions, signs as the interface writes. NewSigner checks them; a
// bad one is a *ValidationError naming the field.
type SignerOptions struct {
	// KeyID replaces the keyId: non-empty, no quote or line break. It overrides
	// the options below.
	KeyID             string
	LowerCaseSerial   bool // write the keyId's serial number in lower-case hex
	EscapedSpacesInCA bool // write the keyId issuer's spaces as %20
	// RFC2047Signature sends every Signature value as one RFC 2047 encoded
	// word, =?utf-8?B?...?=, as the platform's public clients do; without it
	// only a keyId with text other than ASCII is so wrapped (docs/interface.md
	// SIG7). The signed content is the same either way.
	RFC2047Signature bool
	// SignedHeaders are signed after DefaultSignedHeaders when present; names are
	// case-insensitive, "(request-target)" included.
	SignedHeaders []string
	// DigestOnEmptyBody sends a Digest of the empty byte string on requests
	// without a body (the Berlin Group rule); by default only a body gets one,
	// as the bank's reference client does.
	DigestOnEmptyBody bool
	// Logger receives NewSigner's record of a certificate that expires
	// within CertificateExpiryWarning, has expired or is not valid yet;
	// nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock of that check; nil: time.Now.
	Now func() time.Time
}

// CertificateExpiryWarning is how long before its certificate expires
// NewSigner (and the xs2a command's doctor) warns: 30 days.
const CertificateExpiryWarning = 30 * 24 * time.Hour

// apply checks o and sets on s the keyId (o.KeyID, else the certificate's),
// the headers to sign, and how to digest and send them.
func (o *SignerOptions) apply(s *Signer) (err error) {
	if strings.ContainsAny(o.KeyID, "\"\r\n") {
		return invalid("SignerOptions.KeyID", "must hold no quote or line break")
	}
	headers := slices.Clone(DefaultSignedHeaders)
	for _, n := range o.SignedHeaders {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" || strings.ContainsAny(n, " \",\r\n:") && n != "(request-target)" {
			return invalid("SignerOptions.SignedHeaders", "%q is not a header name", n)
		}
		if !slices.Contains(headers, n) {
			headers = append(headers, n)
		}
	}
	s.setHeaders(headers)
	s.digestGET = o.DigestOnEmptyBody
	if s.keyID = o.KeyID; s.keyID == "" {
		s.keyID, err = certKeyID(s.cert, o.LowerCaseSerial, o.EscapedSpacesInCA)
	}
	s.encode2047 = o.RFC2047Signature || strings.ContainsFunc(s.keyID, func(r rune) bool { return r >= utf8.RuneSelf })
	return err
}

// NewSigner returns a Signer for key and its certificate. RSA keys sign
// rsa-sha256 (PKCS#1 v1.5 with SHA-256, RFC 3447 section 8.2.1); ECDSA P-256
// keys sign ecdsa-sha256 (ASN.1 DER signature). The key's public half must
// match the certificate. opts may be nil.
//
// NewSigner checks the certificate's dates at opts.Now and logs to
// opts.Logger: a warning when it expires within CertificateExpiryWarning,
// an error-level record when it has expired or is not valid yet. It does
// not refuse such a certificate (a sandbox may take it, and the bank is the
// judge): a Signer is made, and a bank refuses what it signs. The record
// names the subject's organisation, tppId, serial number and dates, never
// key material. A running Client switches to a renewed certificate with
// Client.SetSigner.
func NewSigner(key crypto.Signer, cert *x509.Certificate, opts *SignerOptions) (*Signer, error) {
	// A nil key, or a typed nil such as (*rsa.PrivateKey)(nil).
	if rv := reflect.ValueOf(key); key == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, invalid("key", "is nil")
	}
	if cert == nil {
		return nil, invalid("cert", "is nil")
	}
	s := &Signer{key: key, cert: cert}
	maxSig := 72 // an ASN.1 DER ECDSA P-256 signature
	switch pub := key.Public().(type) {
	case *rsa.PublicKey:
		s.algorithm, maxSig = "rsa-sha256", pub.Size()
	case *ecdsa.PublicKey:
		if pub.Curve != elliptic.P256() {
			return nil, invalid("key", "ECDSA keys must be P-256")
		}
		s.algorithm = "ecdsa-sha256"
	default:
		return nil, invalid("key", "must be RSA or ECDSA P-256, not %T", pub)
	}
	if pk, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pk.Equal(key.Public()) {
		return nil, invalid("key", "does not match the certificate's public key")
	}
	if err := cmp.Or(opts, &SignerOptions{}).apply(s); err != nil {
		return nil, err
	}
	s.tppID = certTPPID(cert)
	s.certHeader = base64.StdEncoding.EncodeToString(cert.Raw)
	s.paramsHead = `keyId="` + s.keyID + `",algorithm="` + s.algorithm + `",headers="`
	s.valueLen = len(s.paramsHead) + len(strings.Join(s.headers, " ")) + len(`",signature="`) + base64.StdEncoding.EncodedLen(maxSig) + len(`"`)
	checkValidity(cert, s.tppID, cmp.Or(opts, &SignerOptions{}))
	return s, nil
}

// checkValidity logs, as NewSigner says, a certificate that expires within
// CertificateExpiryWarning of o.Now, has expired or is not valid yet.
func checkValidity(cert *x509.Certificate, tppID string, o *SignerOptions) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	t := now()
	level, msg := slog.LevelWarn, "xs2a: the TPP certificate expires soon: renew it and switch to the new one (Client.SetSigner) before a bank refuses it"
	switch left := cert.NotAfter.Sub(t); {
	case t.Before(cert.NotBefore):
		level, msg = slog.LevelError, "xs2a: the TPP certificate is not valid yet: a bank refuses requests signed with it until then"
	case left < 0:
		level, msg = slog.LevelError, "xs2a: the TPP certificate has expired: a bank refuses every request signed with it"
	case left >= CertificateExpiryWarning:
		return
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	org := strings.Join(cert.Subject.Organization, ", ")
	if org == "" {
		org = cert.Subject.CommonName
	}
	logger.LogAttrs(context.Background(), level, msg,
		slog.String("organization", inert.Text(org, 200)),
		slog.String("tpp_id", tppID),
		slog.String("serial", strings.ToUpper(cert.SerialNumber.Text(16))),
		slog.String("not_before", cert.NotBefore.UTC().Format(time.RFC3339)),
		slog.String("not_after", cert.NotAfter.UTC().Format(time.RFC3339)),
		slog.Int("days_left", daysLeft(cert.NotAfter.Sub(t))))
}

// daysLeft is d in whole days, rounded down (-1 a day after expiry).
func daysLeft(d time.Duration) int {
	const day = 24 * time.Hour
	n := d / day
	if d < 0 && d%day != 0 {
		n--
	}
	return int(n)
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier (2.5.4.97),
// which holds a PSD2 certificate's "PSD<country>-<authority>-<number>".
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// certTPPID is the tppId of a PSD2 certificate: its subject's
// organizationIdentifier without "PSD", if that is a valid tppId; else "".
func certTPPID(cert *x509.Certificate) string {
	for _, atv := range cert.Subject.Names {
		v, _ := atv.Value.(string)
		if id, ok := strings.CutPrefix(v, "PSD"); ok && atv.Type.Equal(oidOrganizationIdentifier) && checkTPPID(id) == nil {
			return id
		}
	}
	return ""
}

// certKeyID builds SN=<hex serial>,CA=<issuer, RFC 2253> for cert.
func certKeyID(cert *x509.Certificate, lowerSerial, escapeSpaces bool) (string, error) {
	issuer, err := rfc2253(cert.RawIssuer)
	if err != nil {
		return "", fmt.Errorf("xs2a: reading the certificate issuer: %w", err)
	}
	if escapeSpaces {
		issuer = strings.ReplaceAll(issuer, " ", "%20")
	}
	serial := cert.SerialNumber.Text(16)
	if !lowerSerial {
		serial = strings.ToUpper(serial)
	}
	return "SN=" + serial + ",CA=" + issuer, nil
}

// setHeaders sets the lower-case names of the headers to sign, and their
// canonical forms, looked up on every request.
func (s *Signer) setHeaders(names []string) {
	s.headers = names
	s.keys = make([]string, len(names))
	for i, n := range names {
		s.keys[i] = textproto.CanonicalMIMEHeaderKey(n)
	}
}

// KeyID returns the keyId: SN=<serial, upper-case hex>,CA=<issuer DN, RFC 2253>.
func (s *Signer) KeyID() string { return s.keyID }

// Algorithm returns "rsa-sha256" for RSA keys, "ecdsa-sha256" for P-256 keys.
func (s *Signer) Algorithm() string { return s.algorithm }

// TPPID returns the tppId of TPPService's calls: the certificate subject's
// organizationIdentifier without "PSD" ("PSDNO-FSA-987654321" gives
// "NO-FSA-987654321"); "" when it has none in that form.
func (s *Signer) TPPID() string { return s.tppID }

// Certificate returns the TPP certificate sent in TPP-Signature-Certificate.
func (s *Signer) Certificate() *x509.Certificate { return s.cert }

// SignedHeaders returns the lower-case names this Signer signs when present.
func (s *Signer) SignedHeaders() []string { return append([]string(nil), s.headers...) }

// LoadSigner reads a PEM certificate and a PKCS#1, PKCS#8 or SEC 1 key from files.
func LoadSigner(certPEMFile, keyPEMFile string, opts *SignerOptions) (*Signer, error) {
	certPEM, err := os.ReadFile(certPEMFile)
	if err != nil {
		return nil, fmt.Errorf("xs2a: reading certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPEMFile)
	if err != nil {
		return nil, fmt.Errorf("xs2a: reading key: %w", err)
	}
	return ParseSigner(certPEM, keyPEM, opts)
}

// ParseSigner is LoadSigner for PEM bytes; the first CERTIFICATE is the TPP's.
func ParseSigner(certPEM, keyPEM []byte, opts *SignerOptions) (*Signer, error) {
	block, rest := pem.Decode(certPEM)
	for block != nil && block.Type != "CERTIFICATE" {
		block, rest = pem.Decode(rest)
	}
	if block == nil {
		return nil, errors.New("xs2a: no CERTIFICATE block in the certificate PEM")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("xs2a: parsing certificate: %w", err)
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	return NewSigner(key, cert, opts)
}

// LoadPKCS12 reads an eIDAS certificate and key from a PKCS#12 (.p12, .pfx) file.
func LoadPKCS12(file, password string, opts *SignerOptions) (*Signer, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("xs2a: reading PKCS#12: %w", err)
	}
	return ParsePKCS12(data, password, opts)
}

// ParsePKCS12 is LoadPKCS12 for bytes already in memory.
func ParsePKCS12(data []byte, password string, opts *SignerOptions) (*Signer, error) {
	key, cert, _, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return nil, fmt.Errorf("xs2a: decoding PKCS#12: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, invalid("key", "PKCS#12 key of type %T cannot sign", key)
	}
	return NewSigner(signer, cert, opts)
}

// parseKeyPEM reads the first key block of data; an encrypted block before it
// is refused.
func parseKeyPEM(data []byte) (crypto.Signer, error) {
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
			return nil, errors.New("xs2a: encrypted PEM keys are not supported: decrypt the key or use PKCS#12")
		}
		var key any
		var err error
		switch block.Type {
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("xs2a: parsing %s: %w", block.Type, err)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("xs2a: key of type %T cannot sign", key)
		}
		return signer, nil
	}
	return nil, errors.New("xs2a: no private key block in the key PEM")
}

// headerSource gives the values to sign: the request's headers plus the
// pseudo-headers (request-target) and host.
type headerSource struct {
	h      http.Header
	method string
	target string   // path and query; "" : url.RequestURI(), computed only when signed
	url    *url.URL // may be nil
	host   string
}

// appendSigningString appends the signing string (docs/interface.md SIG6) of
// the names present in src to str, and those names, space-separated, to the
// empty used; keys holds their canonical forms, in order (nil: computed).
// A header's values are joined by ", ", each trimmed of spaces. missing is
// the first name src lacks, "" if none.
func appendSigningString(str, used []byte, names, keys []string, src headerSource) (_, _ []byte, missing string) {
	for i, n := range names {
		mark := len(str)
		if len(used) > 0 {
			str = append(str, '\n')
		}
		str = append(append(str, n...), ": "...)
		ok := true
		switch {
		case n == "(request-target)":
			if ok = src.method != ""; ok {
				target := src.target
				if target == "" && src.url != nil {
					target = src.url.RequestURI()
				}
				str = append(append(append(str, strings.ToLower(src.method)...), ' '), target...)
			}
		case n == "host" && src.host != "":
			str = append(str, src.host...)
		default:
			var vs []string
			if keys != nil {
				vs = src.h[keys[i]]
			} else {
				vs = src.h[textproto.CanonicalMIMEHeaderKey(n)]
			}
			ok = len(vs) > 0
			for j, v := range vs {
				if j > 0 {
					str = append(str, ", "...)
				}
				str = append(str, strings.TrimSpace(v)...)
			}
		}
		if !ok {
			str, missing = str[:mark], cmp.Or(missing, n)
			continue
		}
		if len(used) > 0 {
			used = append(used, ' ')
		}
		used = append(used, n...)
	}
	return str, used, missing
}

// writeSignature writes the Signature header value for the request
// described by src to b, sized by the caller (valueLen): keyId, algorithm,
// headers (the names signed) and signature. It allocates nothing but the
// key's: the caller provides sum, whose address escapes into the
// crypto.Signer.
func (s *Signer) writeSignature(b *strings.Builder, src headerSource, sum *[sha256.Size]byte) error {
	var buf [1024]byte
	var names [256]byte
	str, used, _ := appendSigningString(buf[:0], names[:0], s.headers, s.keys, src)
	*sum = sha256.Sum256(str)
	sig, err := s.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return fmt.Errorf("xs2a: signing: %w", err)
	}
	var plain strings.Builder
	w := b
	if s.encode2047 {
		w = &plain
	}
	w.WriteString(s.paramsHead)
	w.Write(used)
	w.WriteString(`",signature="`)
	// buf is free again (the signing string is hashed): room for the base64.
	w.Write(base64.StdEncoding.AppendEncode(buf[:0], sig))
	w.WriteByte('"')
	if s.encode2047 {
		b.WriteString(encodeRFC2047([]byte(plain.String())))
	}
	return nil
}

// encodeRFC2047 wraps a value in the RFC 2047 encoded-word form
// =?utf-8?B?<base64>?= (docs/interface.md SIG7).
func encodeRFC2047(v []byte) string {
	return "=?utf-8?B?" + base64.StdEncoding.EncodeToString(v) + "?="
}

// decodeRFC2047 decodes a value sent as one RFC 2047 encoded word
// (docs/interface.md SIG7): charset utf-8, iso-8859-1 or latin1, encoding B or
// Q. A value that is no encoded word is returned unchanged.
func decodeRFC2047(v string) (string, error) {
	if len(v) < len("=??=") || !strings.HasPrefix(v, "=?") || !strings.HasSuffix(v, "?=") {
		return v, nil // not an encoded word ("=?=" has both markers, overlapping)
	}
	charset, _, _ := strings.Cut(v[2:], "?")
	switch strings.ToLower(charset) {
	case "latin1":
		v = "=?iso-8859-1" + v[2+len(charset):]
	case "utf-8", "iso-8859-1":
	default:
		return "", errors.New("unknown RFC 2047 charset")
	}
	dec, err := new(mime.WordDecoder).Decode(v)
	if err != nil || !utf8.ValidString(dec) {
		return "", errors.New("malformed RFC 2047 word")
	}
	return dec, nil
}
