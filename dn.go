package xs2a

import (
	"encoding/asn1"
	"encoding/hex"
	"errors"
	"strings"
)

// rfc2253Keywords are the attribute type keywords of RFC 2253 section 2.3.
var rfc2253Keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.6":                    "C",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

// rawATV is pkix.AttributeTypeAndValue with the value's DER kept as it is
// in the certificate, for the #hex form. rawRDNSET is a multi-valued RDN
// (encoding/asn1 reads a slice type whose name ends in SET as a SET OF).
type rawATV struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

type rawRDNSET []rawATV

// rfc2253 writes a DER-encoded distinguished name in the string form of
// RFC 2253 (docs/interface.md SIG4), as Java's X500Principal does: an
// attribute without a keyword, or whose value is not a string, as its dotted
// OID and "#" with the hex of the value's BER as the certificate holds it.
func rfc2253(rawDN []byte) (string, error) {
	var seq []rawRDNSET
	rest, err := asn1.Unmarshal(rawDN, &seq)
	if err != nil {
		return "", err
	}
	if len(rest) > 0 {
		return "", errors.New("trailing data after the distinguished name")
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if i < len(seq)-1 {
			b.WriteByte(',')
		}
		for j, tv := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			oid := tv.Type.String()
			kw, known := rfc2253Keywords[oid]
			var value any
			_, err := asn1.Unmarshal(tv.Value.FullBytes, &value)
			str, isString := value.(string)
			if !known || !isString || err != nil {
				b.WriteString(oid + "=#" + hex.EncodeToString(tv.Value.FullBytes))
				continue
			}
			b.WriteString(kw + "=")
			escapeRFC2253(&b, str)
		}
	}
	return b.String(), nil
}

// escapeRFC2253 writes an attribute value with the escapes of RFC 2253
// section 2.4; a double quote as the hex pair \22, so that the keyId can
// stand inside the Signature header's keyId="...".
func escapeRFC2253(b *strings.Builder, v string) {
	for i, c := range v {
		switch {
		case c == '"':
			b.WriteString(`\22`)
			continue
		case strings.ContainsRune(`,+\<>;`, c), c == ' ' && (i == 0 || i == len(v)-1), c == '#' && i == 0:
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
}
