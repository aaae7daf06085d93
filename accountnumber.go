package xs2a

import "strings"

// ValidKID reports whether kid is a well-formed Norwegian KID, the SCOR
// reference of an electronic invoice payment (docs/interface.md PIS6, PIS8):
// 2 to 25 digits, the last a MOD10 (Luhn) or MOD11 ('-' for 10) control
// character over the digits before it. Separators are not accepted.
func ValidKID(kid string) bool {
	n := len(kid)
	if n < 2 || n > 25 || !allDigits(kid[:n-1]) {
		return false
	}
	return mod10Control(kid[:n-1]) == kid[n-1] || mod11Control(kid[:n-1]) == kid[n-1]
}

// mod10Control is the Luhn control digit of the decimal digits in payload.
func mod10Control(payload string) byte {
	sum := 0
	for i := range len(payload) { // from the right: weights 2, 1, 2, ...
		d := int(payload[len(payload)-1-i] - '0')
		if i%2 == 0 {
			d = [...]int{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}[d] // the digits of 2d, summed
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

// mod11Control is the MOD11 control character of a KID or account number
// payload: weights 2..7 from the right, '0' for remainder 0, '-' for 1, else
// 11 minus it.
func mod11Control(payload string) byte {
	sum := 0
	for i := range len(payload) {
		sum += int(payload[len(payload)-1-i]-'0') * (2 + i%6)
	}
	return "0-987654321"[sum%11] // by remainder
}

// ValidCreditorReference reports whether ref is an ISO 11649 RF creditor
// reference in electronic form, the SCOR reference of SEPA and cross-border
// payments: "RF", two check digits and 1 to 21 upper-case letters and
// digits, with the MOD 97-10 checksum of IBANs. Remove the printed form's
// spaces ("RF18 5390 0754 7034") and upper-case it first.
func ValidCreditorReference(ref string) bool {
	return len(ref) >= 5 && len(ref) <= 25 && ref[:2] == "RF" && mod97Valid(ref)
}

// mod97Valid reports whether s passes the ISO 7064 MOD 97-10 check of IBANs
// and RF creditor references: check digits 02..98 at s[2:4], only digits and
// upper-case letters, and the number read with the first four characters
// moved to the end, letters A..Z as 10..35, is 1 mod 97.
func mod97Valid(s string) bool {
	if cd := s[2:4]; !allDigits(cd) || cd == "00" || cd == "01" || cd == "99" {
		return false
	}
	rem := 0
	for i := range len(s) {
		c := s[(i+4)%len(s)]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// ValidBBAN reports whether bban is a Norwegian account number (kontonummer),
// the bban of an account reference (docs/interface.md PIS1): 11 digits, the
// last a MOD11 control digit over the first ten. Pass a formatted number such
// as "8601.11.17947" through NormalizeBBAN first.
func ValidBBAN(bban string) bool {
	return len(bban) == 11 && allDigits(bban) && mod11Control(bban[:10]) == bban[10]
}

// NormalizeBBAN removes the spaces, no-break spaces and dots people write in
// Norwegian account numbers ("8601 11 17947", "8601.11.17947"). It changes
// nothing else and does not validate.
func NormalizeBBAN(s string) string {
	if !strings.ContainsAny(s, " .\u00a0") {
		return s // also invalid UTF-8, which strings.Map would replace
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '.' || r == '\u00a0' {
			return -1
		}
		return r
	}, s)
}

// ibanLengths is each country's IBAN length (SWIFT IBAN registry, ISO 13616).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28,
	"IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
	"LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
	"MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
	"PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
	"SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// ValidIBAN reports whether iban is an IBAN in electronic form (ISO 13616: no
// spaces, upper case): a country of the IBAN registry, that country's length
// and the MOD 97-10 checksum. A Norwegian IBAN must also embed an account
// number that passes ValidBBAN.
func ValidIBAN(iban string) bool {
	want, ok := ibanLengths[iban[:min(len(iban), 2)]] // every length is at least 15
	return ok && len(iban) == want && mod97Valid(iban) && (iban[:2] != "NO" || ValidBBAN(iban[4:]))
}

// BBANFromIBAN returns the Norwegian account number inside a Norwegian IBAN
// ("NO9386011117947" -> "86011117947"); ok is false when iban is not a valid
// (ValidIBAN) Norwegian IBAN.
func BBANFromIBAN(iban string) (bban string, ok bool) {
	if len(iban) != 15 || iban[:2] != "NO" || !ValidIBAN(iban) {
		return "", false
	}
	return iban[4:], true
}

// allDigits reports whether s is non-empty and holds only ASCII digits.
func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
