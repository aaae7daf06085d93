package xs2atest

import (
	"encoding/asn1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The keyId's CA part (docs/interface.md "Authentication": "CA=<issuer, RFC 2253>")
// in the strict string form of RFC 2253, written here independently of the
// SDK's Signer, and a normaliser for the CA a TPP sends.

// dnKeywords are the attribute type keywords of RFC 2253 section 2.3, the
// only ones a strict writer uses; every other type is written as its dotted
// OID with the value as "#" and the hex of its DER (section 2.4).
var dnKeywords = map[string]string{
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

// dnAttribute is one AttributeTypeAndValue with its value's DER as the
// certificate holds it (the tag, e.g. UTF8String or PrintableString, is
// part of the #hex form). dnRDNSET is one RelativeDistinguishedName
// (encoding/asn1 reads a slice type whose name ends in SET as a SET OF).
type dnAttribute struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

type dnRDNSET []dnAttribute

// strictRFC2253 formats a DER Name in the strict form of RFC 2253: RDNs in
// reverse order joined by ",", the attributes of a multi-valued RDN joined
// by "+", keyword types with their string value escaped (section 2.4),
// other types (and keyword types whose value is not a string) as
// <dotted OID>=#<hex of the value's DER>. This is what Java's
// X500Principal.getName(RFC2253) writes.
func strictRFC2253(der []byte) (string, error) {
	var name []dnRDNSET
	rest, err := asn1.Unmarshal(der, &name)
	if err != nil {
		return "", err
	}
	if len(rest) != 0 {
		return "", errors.New("trailing bytes after the distinguished name")
	}
	var b strings.Builder
	for i := len(name) - 1; i >= 0; i-- {
		if i != len(name)-1 {
			b.WriteByte(',')
		}
		for j, atv := range name[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			oid := atv.Type.String()
			if kw, ok := dnKeywords[oid]; ok {
				if s, ok := directoryString(atv.Value); ok {
					b.WriteString(kw)
					b.WriteByte('=')
					b.WriteString(escapeDNValue(s))
					continue
				}
			}
			b.WriteString(oid)
			b.WriteString("=#")
			b.WriteString(hex.EncodeToString(atv.Value.FullBytes))
		}
	}
	return b.String(), nil
}

// directoryString decodes a string-typed attribute value: UTF8String,
// PrintableString, IA5String, NumericString, TeletexString (read as
// Latin-1), BMPString (UTF-16BE) or UniversalString (UTF-32BE).
func directoryString(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal || v.IsCompound {
		return "", false
	}
	b := v.Bytes
	switch v.Tag {
	case asn1.TagUTF8String:
		return string(b), utf8.Valid(b)
	case asn1.TagPrintableString, asn1.TagIA5String, asn1.TagNumericString:
		for _, c := range b {
			if c >= utf8.RuneSelf {
				return "", false
			}
		}
		return string(b), true
	case asn1.TagT61String:
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), true
	case asn1.TagBMPString:
		if len(b)%2 != 0 {
			return "", false
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.BigEndian.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u)), true
	case 28: // UniversalString
		if len(b)%4 != 0 {
			return "", false
		}
		r := make([]rune, len(b)/4)
		for i := range r {
			r[i] = rune(binary.BigEndian.Uint32(b[4*i:]))
			if !utf8.ValidRune(r[i]) {
				return "", false
			}
		}
		return string(r), true
	}
	return "", false
}

// escapeDNValue escapes a string value as RFC 2253 section 2.4 requires:
// `,` `+` `"` `\` `<` `>` `;` anywhere, "#" or a space at the start, a space
// at the end, each with a backslash before it.
func escapeDNValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(`,+"\<>;`, c) >= 0,
			i == 0 && (c == '#' || c == ' '),
			i == len(s)-1 && c == ' ':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// normalizeDN rewrites an RFC 2253 string so that equivalent spellings
// compare equal: every value is unescaped (`\c` and `\XX` hex pairs, so
// `\22` and `\"` are the same) and escaped again as escapeDNValue does, and
// #hex values are lower-cased. Types, separators and order stay as they
// are. It fails on text that is not an RFC 2253 name.
func normalizeDN(s string) (string, bool) {
	var b strings.Builder
	i := 0
	for {
		start := i
		for i < len(s) && isDNTypeChar(s[i]) {
			i++
		}
		if i == start || i >= len(s) || s[i] != '=' {
			return "", false
		}
		b.WriteString(s[start : i+1])
		i++
		var ok bool
		if i < len(s) && s[i] == '#' {
			i, ok = normalizeHexValue(&b, s, i)
		} else {
			i, ok = normalizeStringValue(&b, s, i)
		}
		if !ok {
			return "", false
		}
		if i == len(s) {
			return b.String(), true
		}
		b.WriteByte(s[i]) // ',' or '+'
		i++
	}
}

// normalizeHexValue writes the #hex value at s[i:] lower-cased and returns
// where it ends; false when it is no even number of hex digits.
func normalizeHexValue(b *strings.Builder, s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && s[j] != ',' && s[j] != '+' {
		j++
	}
	h := s[i+1 : j]
	if len(h) == 0 || len(h)%2 != 0 {
		return j, false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return j, false
	}
	b.WriteByte('#')
	b.WriteString(strings.ToLower(h))
	return j, true
}

// normalizeStringValue unescapes the string value at s[i:] (`\c` and `\XX`),
// writes it escaped as escapeDNValue does and returns where it ends; false
// for a dangling escape or a value that is not UTF-8.
func normalizeStringValue(b *strings.Builder, s string, i int) (int, bool) {
	var raw []byte
	for i < len(s) && s[i] != ',' && s[i] != '+' {
		switch {
		case s[i] != '\\':
			raw = append(raw, s[i])
			i++
		case i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			v, _ := hex.DecodeString(s[i+1 : i+3])
			raw = append(raw, v[0])
			i += 3
		case i+1 >= len(s):
			return i, false
		default:
			raw = append(raw, s[i+1])
			i += 2
		}
	}
	if !utf8.Valid(raw) {
		return i, false
	}
	b.WriteString(escapeDNValue(string(raw)))
	return i, true
}

// isDNTypeChar: keywords (letters, digits, "-") and dotted OIDs.
func isDNTypeChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
