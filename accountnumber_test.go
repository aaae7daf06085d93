package xs2a

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// kidVectors is testdata/vectors/kid.json.
type kidVectors struct {
	MOD11 struct {
		Valid []string `json:"valid"`
	} `json:"mod11"`
	MOD10 struct {
		Valid []string `json:"valid"`
	} `json:"mod10"`
	InvalidUnderBoth []string `json:"invalid_under_both"`
}

// bbanVectors is testdata/vectors/bban.json.
type bbanVectors struct {
	Valid   []string          `json:"valid"`
	Invalid []string          `json:"invalid"`
	IBAN    map[string]string `json:"iban"`
}

// ibanVectors is testdata/vectors/iban.json.
type ibanVectors struct {
	Valid   []string          `json:"valid"`
	Invalid map[string]string `json:"invalid"`
}

func loadVectors(t testing.TB, name string, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "vectors", name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}

func TestValidKIDVectors(t *testing.T) {
	t.Parallel()
	var v kidVectors
	loadVectors(t, "kid.json", &v)
	require.NotEmpty(t, v.MOD11.Valid)
	require.NotEmpty(t, v.MOD10.Valid)
	require.NotEmpty(t, v.InvalidUnderBoth)
	for _, kid := range v.MOD11.Valid {
		t.Run("mod11/"+kid, func(t *testing.T) {
			if !ValidKID(kid) {
				t.Errorf("ValidKID(%q) = false", kid)
			}
			if got := refMOD11(kid[:len(kid)-1]); got != kid[len(kid)-1] {
				t.Errorf("reference MOD11 control of %q = %c", kid, got)
			}
		})
	}
	for _, kid := range v.MOD10.Valid {
		t.Run("mod10/"+kid, func(t *testing.T) {
			if !ValidKID(kid) {
				t.Errorf("ValidKID(%q) = false", kid)
			}
			if got := refLuhn(kid[:len(kid)-1]); got != kid[len(kid)-1] {
				t.Errorf("reference Luhn control of %q = %c", kid, got)
			}
		})
	}
	for _, kid := range v.InvalidUnderBoth {
		t.Run("invalid/"+kid, func(t *testing.T) {
			if ValidKID(kid) {
				t.Errorf("ValidKID(%q) = true", kid)
			}
		})
	}
}

func TestValidKID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kid  string
		want bool
	}{
		{"00", true},  // MOD10 and MOD11 of "0" are both 0
		{"18", true},  // MOD10 of "1": 1*2 = 2, control 8
		{"19", true},  // MOD11 of "1": 1*2 = 2, control 11-2 = 9
		{"17", false}, // neither
		{"59", true},  // MOD10 of "5": 5*2 = 10 -> 1, control 9
		{"51", true},  // MOD11 of "5": 10, control 1
		{"5-", false}, // '-' only when the MOD11 remainder is 1
		{"6-", true},  // MOD11 of "6": 12 mod 11 = 1 -> '-'
		{"67", true},  // MOD10 of "6": 12 -> 3, control 7
		{"60", false},
		{"1-", false},
		{"0-", false},
		{"-5", false},
		{"1", false},
		{"24409970", false},
		{" 2440997", false},
		{"2440997 ", false},
		{"２４４０９９７", false}, // full-width digits
		{"2440-997", false},
		{"2440997--", false},
		{"--", false},
		{"+2440997", false},
	}
	for _, tc := range tests {
		t.Run(tc.kid, func(t *testing.T) {
			t.Parallel()
			if got := ValidKID(tc.kid); got != tc.want {
				t.Errorf("ValidKID(%q) = %v, want %v", tc.kid, got, tc.want)
			}
		})
	}
}

func TestValidKIDLength(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 27; n++ {
		payload := strings.Repeat("7", n-1)
		var kid string
		if n > 1 {
			kid = payload + string(refLuhn(payload))
		} else {
			kid = "7"
		}
		want := n >= 2 && n <= 25
		if got := ValidKID(kid); got != want {
			t.Errorf("ValidKID of %d characters = %v, want %v", n, got, want)
		}
	}
}

func TestValidKIDDashControl(t *testing.T) {
	t.Parallel()
	// Find payloads whose MOD11 control is '-' and check that only '-' (or the
	// Luhn digit) is accepted for them.
	found := 0
	for i := 10; i < 2000 && found < 20; i++ {
		payload := itoa(i)
		if refMOD11(payload) != '-' {
			continue
		}
		found++
		if !ValidKID(payload + "-") {
			t.Errorf("ValidKID(%q) = false", payload+"-")
		}
		for c := byte('0'); c <= '9'; c++ {
			want := c == refLuhn(payload)
			if got := ValidKID(payload + string(c)); got != want {
				t.Errorf("ValidKID(%q) = %v, want %v", payload+string(c), got, want)
			}
		}
	}
	require.Positive(t, found)
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// refLuhn is an independent Luhn control: it doubles every second digit
// counting from the right end of the payload by string reversal.
func refLuhn(payload string) byte {
	sum := 0
	for k := 0; k < len(payload); k++ {
		d := int(payload[len(payload)-1-k] - '0')
		if k%2 == 0 {
			d = d*2/10 + d*2%10
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

// refMOD11 is an independent MOD11 KID control.
func refMOD11(payload string) byte {
	weights := []int{2, 3, 4, 5, 6, 7}
	sum := 0
	for k := 0; k < len(payload); k++ {
		sum += int(payload[len(payload)-1-k]-'0') * weights[k%6]
	}
	c := 11 - sum%11
	switch c {
	case 11:
		return '0'
	case 10:
		return '-'
	}
	return byte('0' + c)
}

func TestValidBBANVectors(t *testing.T) {
	t.Parallel()
	var v bbanVectors
	loadVectors(t, "bban.json", &v)
	require.NotEmpty(t, v.Valid)
	require.NotEmpty(t, v.Invalid)
	for _, b := range v.Valid {
		if !ValidBBAN(b) {
			t.Errorf("ValidBBAN(%q) = false", b)
		}
	}
	for _, b := range v.Invalid {
		if ValidBBAN(b) {
			t.Errorf("ValidBBAN(%q) = true", b)
		}
	}
	for iban, bban := range v.IBAN {
		if !ValidIBAN(iban) {
			t.Errorf("ValidIBAN(%q) = false", iban)
		}
		got, ok := BBANFromIBAN(iban)
		if !ok || got != bban {
			t.Errorf("BBANFromIBAN(%q) = %q, %v; want %q", iban, got, ok, bban)
		}
	}
}

func TestValidBBAN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bban string
		want bool
	}{
		{"86011117947", true},
		{"8601.11.17947", false}, // callers normalise first
		{"8601 11 17947", false},
		{"86011117940", false},
		{"", false},
		{"-8601111794", false},
		{"00000000000", true}, // r = 0 -> control 0
	}
	// Every payload of the form 1234567890x has exactly one control digit, or
	// none when r = 1.
	for c := byte('0'); c <= '9'; c++ {
		b := "1234567890" + string(c)
		tests = append(tests, struct {
			bban string
			want bool
		}{b, refBBANControl(b[:10]) == c})
	}
	for _, tc := range tests {
		t.Run(tc.bban, func(t *testing.T) {
			t.Parallel()
			if got := ValidBBAN(tc.bban); got != tc.want {
				t.Errorf("ValidBBAN(%q) = %v, want %v", tc.bban, got, tc.want)
			}
		})
	}
}

// refBBANControl is an independent MOD11 control of a 10-digit payload; 0
// when there is none.
func refBBANControl(p string) byte {
	w := []int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	sum := 0
	for i := range 10 {
		sum += int(p[i]-'0') * w[i]
	}
	switch c := 11 - sum%11; c {
	case 11:
		return '0'
	case 10:
		return 0
	default:
		return byte('0' + c)
	}
}

func TestNormalizeBBAN(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"8601.11.17947", "86011117947"},
		{"8601 11 17947", "86011117947"},
		{"8601\u00a011\u00a017947", "86011117947"},
		{"86011117947", "86011117947"},
		{" 8601. 11 .17947 ", "86011117947"},
		{"8601-11-17947", "8601-11-17947"}, // only spaces and dots go
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			if got := NormalizeBBAN(tc.in); got != tc.want {
				t.Errorf("NormalizeBBAN(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if !ValidBBAN(NormalizeBBAN("8601.11.17947")) {
		t.Error("normalised formatted account number is not valid")
	}
}

func TestValidIBANVectors(t *testing.T) {
	t.Parallel()
	var v ibanVectors
	loadVectors(t, "iban.json", &v)
	require.NotEmpty(t, v.Valid)
	require.NotEmpty(t, v.Invalid)
	for _, iban := range v.Valid {
		t.Run("valid/"+iban, func(t *testing.T) {
			if !refIBANChecksum(iban) {
				t.Fatalf("vector %q fails the reference checksum", iban)
			}
			if !ValidIBAN(iban) {
				t.Errorf("ValidIBAN(%q) = false", iban)
			}
		})
	}
	for iban, why := range v.Invalid {
		t.Run("invalid/"+iban, func(t *testing.T) {
			if ValidIBAN(iban) {
				t.Errorf("ValidIBAN(%q) = true (%s)", iban, why)
			}
		})
	}
}

func TestValidIBANNorwegianBBAN(t *testing.T) {
	t.Parallel()
	// A Norwegian IBAN built with correct check digits around an account
	// number whose MOD11 fails is still refused.
	bad := "86011117948"
	require.False(t, ValidBBAN(bad))
	iban := refNOIBAN(bad)
	require.True(t, refIBANChecksum(iban))
	if ValidIBAN(iban) {
		t.Errorf("ValidIBAN(%q) = true for an invalid embedded account number", iban)
	}
	if _, ok := BBANFromIBAN(iban); ok {
		t.Errorf("BBANFromIBAN(%q) ok", iban)
	}
	good := refNOIBAN("86011117947")
	if good != "NO9386011117947" {
		t.Fatalf("reference NO IBAN = %q", good)
	}
}

func TestBBANFromIBAN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		iban   string
		want   string
		wantOK bool
	}{
		{"NO9386011117947", "86011117947", true},
		{"NO9386011117948", "", false},
		{"DE89370400440532013000", "", false}, // valid, not Norwegian
		{"no9386011117947", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.iban, func(t *testing.T) {
			t.Parallel()
			got, ok := BBANFromIBAN(tc.iban)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("BBANFromIBAN(%q) = %q, %v; want %q, %v", tc.iban, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// refIBANChecksum checks MOD 97-10 with math/big, independently of ValidIBAN.
func refIBANChecksum(iban string) bool {
	if len(iban) < 5 {
		return false
	}
	var digits strings.Builder
	for _, c := range iban[4:] + iban[:4] {
		switch {
		case c >= '0' && c <= '9':
			digits.WriteRune(c)
		case c >= 'A' && c <= 'Z':
			digits.WriteString(itoa(int(c-'A') + 10))
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// refNOIBAN builds the Norwegian IBAN of bban with math/big.
func refNOIBAN(bban string) string {
	n, _ := new(big.Int).SetString(bban+"2324"+"00", 10) // N=23, O=24
	check := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	s := itoa(int(check))
	if len(s) == 1 {
		s = "0" + s
	}
	return "NO" + s + bban
}

func TestValidCreditorReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref  string
		want bool
	}{
		{"RF18539007547034", true}, // ISO 11649's example, RF18 5390 0754 7034
		{"RF18000000000539007547034", true},
		{"RF712348231", true},
		{"RF741", true}, // one character: the shortest
		{"RF25A", true},
		{"RF95ABCDEFGHIJKLMNOPQRSTU", true},   // 21 letters: the longest
		{"RF40123456789012345678901", true},   // 21 digits
		{"RF15INV2026X17", true},              // letters and digits
		{"RF9772", true},                      // check digits 97
		{"RF9854", true},                      // and 98
		{"RF0072", false},                     // 00 has the checksum of 97, but is not a check value
		{"RF0154", false},                     // 01 likewise for 98
		{"RF19539007547034", false},           // check digits
		{"RF18539007547035", false},           // one digit changed
		{"RF18539007547043", false},           // two digits swapped
		{"RF18 5390 0754 7034", false},        // the paper form: remove the spaces first
		{"rf18539007547034", false},           // electronic form is upper case
		{"RF15inv2026x17", false},             // likewise the reference
		{"RF401234567890123456789012", false}, // 22 characters after the check digits
		{"RF74", false},                       // no reference
		{"RF", false},                         // nothing
		{"", false},                           // empty
		{"XX18539007547034", false},           // not RF
		{"RFAB539007547034", false},           // check digits not digits
		{"RF18539007547034\n", false},         // control character
		{"RF18539007547-34", false},           // separator
		{"RF185390075470\u00e834", false},     // not ASCII
		{"NO9386011117947", false},            // an IBAN
		{"0365327", false},                    // a KID
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, ValidCreditorReference(tc.ref))
			if tc.want {
				require.True(t, refRFChecksum(tc.ref), "the table agrees with the reference implementation")
			}
		})
	}
}

// refRFChecksum is ISO 11649's check, written independently of the SDK:
// move "RFcc" to the end, letters to 10..35, and the number mod 97 is 1.
func refRFChecksum(ref string) bool {
	if len(ref) < 5 {
		return false
	}
	var digits strings.Builder
	for _, r := range ref[4:] + ref[:4] {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			digits.WriteString(itoa(int(r-'A') + 10))
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

func FuzzValidCreditorReference(f *testing.F) {
	for _, s := range []string{"RF18539007547034", "RF712348231", "RF741", "RF95ABCDEFGHIJKLMNOPQRSTU", "RF0072", "RF18 5390 0754 7034", "rf18539007547034", "", "RF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := ValidCreditorReference(s)
		if !ok {
			return
		}
		if len(s) < 5 || len(s) > 25 || s[:2] != "RF" {
			t.Fatalf("accepted %q: not RF and 1 to 21 characters", s)
		}
		if cd := s[2:4]; cd < "02" || cd > "98" || !allDigits(cd) {
			t.Fatalf("accepted %q with check digits %q", s, cd)
		}
		for i := range len(s) {
			if c := s[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
				t.Fatalf("accepted %q with %q", s, c)
			}
		}
		if !refRFChecksum(s) {
			t.Fatalf("accepted %q, whose MOD 97-10 checksum is wrong", s)
		}
		// Exactly one pair of check digits fits a reference.
		accepted := 0
		for cd := range 100 {
			if ValidCreditorReference("RF" + string(rune('0'+cd/10)) + string(rune('0'+cd%10)) + s[4:]) {
				accepted++
			}
		}
		if accepted != 1 {
			t.Fatalf("reference %q accepts %d pairs of check digits", s[4:], accepted)
		}
	})
}

func FuzzValidKID(f *testing.F) {
	var v kidVectors
	loadVectors(f, "kid.json", &v)
	for _, s := range append(append(v.MOD11.Valid, v.MOD10.Valid...), v.InvalidUnderBoth...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kid string) {
		if !ValidKID(kid) {
			return
		}
		if len(kid) < 2 || len(kid) > 25 {
			t.Fatalf("accepted %q of length %d", kid, len(kid))
		}
		payload, last := kid[:len(kid)-1], kid[len(kid)-1]
		for i := range len(payload) {
			if payload[i] < '0' || payload[i] > '9' {
				t.Fatalf("accepted %q with a non-digit before the control", kid)
			}
		}
		if last != '-' && (last < '0' || last > '9') {
			t.Fatalf("accepted control %q", last)
		}
		// It fits one of the two schemes, checked independently.
		if last != refLuhn(payload) && last != refMOD11(payload) {
			t.Fatalf("accepted %q, which fits neither MOD10 nor MOD11", kid)
		}
		// Of the eleven possible controls, one or two (the MOD10 digit and the
		// MOD11 character, which may coincide) are accepted.
		accepted := 0
		for _, c := range "0123456789-" {
			if ValidKID(payload + string(c)) {
				accepted++
			}
		}
		if accepted < 1 || accepted > 2 {
			t.Fatalf("payload %q accepts %d controls", payload, accepted)
		}
		// Separators are never part of a KID.
		if ValidKID(" "+kid) || ValidKID(kid+" ") {
			t.Fatalf("accepted %q with a space", kid)
		}
	})
}

func FuzzValidBBAN(f *testing.F) {
	var v bbanVectors
	loadVectors(f, "bban.json", &v)
	for _, s := range append(v.Valid, v.Invalid...) {
		f.Add(s)
	}
	f.Add("8601.11.17947")
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeBBAN(s)
		if NormalizeBBAN(n) != n {
			t.Fatalf("NormalizeBBAN not idempotent on %q", s)
		}
		if strings.ContainsAny(n, " .\u00a0") {
			t.Fatalf("NormalizeBBAN(%q) = %q keeps a separator", s, n)
		}
		if ValidBBAN(s) && n != s {
			t.Fatalf("NormalizeBBAN changed the valid %q", s)
		}
		if !ValidBBAN(s) {
			return
		}
		if len(s) != 11 || !allDigits(s) {
			t.Fatalf("accepted %q", s)
		}
		if refBBANControl(s[:10]) != s[10] {
			t.Fatalf("accepted %q against the reference MOD11", s)
		}
		// Exactly one control digit fits a payload.
		for c := byte('0'); c <= '9'; c++ {
			if c != s[10] && ValidBBAN(s[:10]+string(c)) {
				t.Fatalf("%q and control %c both accepted", s, c)
			}
		}
		// Its IBAN is valid and gives it back.
		iban := refNOIBAN(s)
		if b, ok := BBANFromIBAN(iban); !ok || b != s {
			t.Fatalf("BBANFromIBAN(%q) = %q, %v", iban, b, ok)
		}
		// Formatted as people write it, it normalises back.
		if NormalizeBBAN(s[:4]+"."+s[4:6]+"."+s[6:]) != s {
			t.Fatalf("formatted %q does not normalise", s)
		}
	})
}

func FuzzValidIBAN(f *testing.F) {
	var v ibanVectors
	loadVectors(f, "iban.json", &v)
	for _, s := range v.Valid {
		f.Add(s)
	}
	for s := range v.Invalid {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidIBAN(s) {
			if b, ok := BBANFromIBAN(s); ok || b != "" {
				t.Fatalf("BBANFromIBAN(%q) ok for an invalid IBAN", s)
			}
			return
		}
		if want, ok := ibanLengths[s[:2]]; !ok || len(s) != want {
			t.Fatalf("accepted %q with a wrong length or country", s)
		}
		if !refIBANChecksum(s) {
			t.Fatalf("accepted %q against the reference checksum", s)
		}
		// MOD 97-10 catches every single-digit substitution.
		for i := 2; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				continue
			}
			for c := byte('0'); c <= '9'; c++ {
				if c == s[i] {
					continue
				}
				m := s[:i] + string(c) + s[i+1:]
				if ValidIBAN(m) {
					t.Fatalf("both %q and %q accepted", s, m)
				}
			}
		}
		if s[:2] == "NO" {
			b, ok := BBANFromIBAN(s)
			if !ok || !ValidBBAN(b) || "NO"+s[2:4]+b != s {
				t.Fatalf("BBANFromIBAN(%q) = %q, %v", s, b, ok)
			}
		}
	})
}
