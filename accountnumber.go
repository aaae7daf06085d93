package xs2a

import "strings"

// ValidKID reports whether kid is a well-formed Norwegian KID, the SCOR
// reference of an electronic invoice payment (docs/interface.md PIS6, PIS8):
// 2 to 25 digits, the last a control character over the digits before it by
// MOD10 (Luhn) or by MOD11 (0 when the remainder is 0, '-' when it is 1, else
// 11 minus it). Either is accepted, since the creditor's agreement with its bank
// decides which applies. Spaces and other separators are not.
func ValidKID(kid string) bool {
	n := len(kid)
	if n < 2 || n > 25 {
		return false
	}
	payload, control := kid[:n-1], kid[n-1]
	if !allDigits(payload) {
		return false
	}
	if control == '-' {
		return mod11KIDControl(payload) == '-'
	}
	if control < '0' || control > '9' {
		return false
	}
	return mod10Control(payload) == control || mod11KIDControl(payload) == control
}

// mod10Control is the Luhn control digit of the decimal digits in payload.
func mod10Control(payload string) byte {
	sum := 0
	double := true // the rightmost payload digit has weight 2
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9 // the sum of the product's two digits
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

// mod11KIDControl is the MOD11 control character of a KID payload: '0'..'9'
// or '-'.
func mod11KIDControl(payload string) byte {
	sum, w := 0, 2
	for i := len(payload) - 1; i >= 0; i-- {
		sum += int(payload[i]-'0') * w
		if w++; w > 7 {
			w = 2
		}
	}
	switch r := sum % 11; r {
	case 0:
		return '0'
	case 1:
		return '-'
	default:
		return byte('0' + 11 - r)
	}
}

// ValidCreditorReference reports whether ref is an ISO 11649 creditor
// reference (RF reference) in electronic form, the structured creditor
// reference (SCOR) of SEPA and cross-border payments where a Norwegian KID
// is not used: "RF", two check digits 02..98, and 1 to 21 upper-case letters
// A-Z and digits, 5 to 25 characters in all, with the ISO 7064 MOD 97-10
// checksum of IBANs (moved to the end, letters as 10..35, the number mod 97
// is 1). The printed form's spaces ("RF18 5390 0754 7034") and lower case
// are not accepted: remove the spaces and upper-case it first.
func ValidCreditorReference(ref string) bool {
	if len(ref) < 5 || len(ref) > 25 || ref[:2] != "RF" || !allDigits(ref[2:4]) {
		return false
	}
	if cd := ref[2:4]; cd == "00" || cd == "01" || cd == "99" {
		return false // MOD 97-10 check digits are always 02..98
	}
	rem, ok := mod97Rotated(ref)
	return ok && rem == 1
}

// mod97Rotated is the ISO 7064 MOD 97-10 remainder of s with its first four
// characters moved to the end and letters A..Z counted as 10..35, as IBANs
// and RF creditor references are checked; ok is false when s holds anything
// but digits and upper-case letters. The remainder is built up one digit at
// a time.
func mod97Rotated(s string) (rem int, ok bool) {
	for i := range len(s) {
		c := s[(i+4)%len(s)]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return 0, false
		}
	}
	return rem, true
}

// bbanWeights are the MOD11 weights of the first ten digits of a Norwegian
// account number.
var bbanWeights = [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}

// ValidBBAN reports whether bban is a Norwegian account number (kontonummer),
// the form of debtorAccount.bban and creditorAccount.bban in docs/interface.md's
// payment initiation request: exactly 11 digits, bank code (4), account group
// (2) and 5 digits, the last one a MOD11 control digit over the first ten with
// weights 5,4,3,2,7,6,5,4,3,2 (r = sum mod 11; control 0 when r = 0, none when
// r = 1, else 11 - r). Only digits are accepted; pass a formatted number such
// as "8601.11.17947" through NormalizeBBAN first.
func ValidBBAN(bban string) bool {
	if len(bban) != 11 || !allDigits(bban) {
		return false
	}
	sum := 0
	for i, w := range bbanWeights {
		sum += int(bban[i]-'0') * w
	}
	var control int
	switch r := sum % 11; r {
	case 0:
		control = 0
	case 1:
		return false // no account number has this payload
	default:
		control = 11 - r
	}
	return int(bban[10]-'0') == control
}

// NormalizeBBAN removes the separators people write in Norwegian account
// numbers (spaces, no-break spaces and dots: "8601 11 17947", "8601.11.17947"),
// so that the result can be checked with ValidBBAN and sent as the bban of an
// account reference (docs/interface.md, payment initiation request). It changes
// nothing else and does not validate.
func NormalizeBBAN(s string) string {
	if !strings.ContainsAny(s, " .\u00a0") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == ' ' || r == '.' || r == '\u00a0' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ibanLengths is the IBAN length of every country in the SWIFT IBAN registry
// (ISO 13616).
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
// spaces, upper case), as carried in the iban of an account reference
// (Berlin Group AccountReference, which docs/interface.md's interface is based on):
// a country of the IBAN registry, that country's length, upper-case letters
// and digits only, check digits 02..98 and the ISO 7064 MOD 97-10 checksum.
// A Norwegian IBAN (NO, 15 characters) must also embed an account number that
// passes ValidBBAN.
func ValidIBAN(iban string) bool {
	if len(iban) < 5 {
		return false
	}
	want, ok := ibanLengths[iban[:2]]
	if !ok || len(iban) != want {
		return false
	}
	if !allDigits(iban[2:4]) || iban[2:4] == "00" || iban[2:4] == "01" || iban[2:4] == "99" {
		return false // MOD 97-10 check digits are always 02..98
	}
	// Rearranged: BBAN, then country code and check digits.
	if rem, ok := mod97Rotated(iban); !ok || rem != 1 {
		return false
	}
	if iban[:2] == "NO" {
		return ValidBBAN(iban[4:])
	}
	return true
}

// BBANFromIBAN returns the Norwegian account number inside a Norwegian IBAN
// ("NO9386011117947" -> "86011117947"), so an account known by its IBAN can be
// given as the bban that docs/interface.md's payment initiation request carries. ok
// is false when iban is not a valid (ValidIBAN) Norwegian IBAN.
func BBANFromIBAN(iban string) (bban string, ok bool) {
	if len(iban) != 15 || iban[:2] != "NO" || !ValidIBAN(iban) {
		return "", false
	}
	return iban[4:], true
}

// allDigits reports whether s is non-empty and holds only ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
