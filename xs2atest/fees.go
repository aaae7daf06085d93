package xs2atest

// validIBAN checks an IBAN's shape (country, check digits, 11 to 30
// letters and digits) and its ISO 7064 MOD 97-10 check.
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !countryRE.MatchString(s[:2]) || !allDigits(s[2:4]) {
		return false
	}
	r, ok := mod97(s[4:] + s[:4])
	return ok && r == 1
}

// validRF checks an ISO 11649 creditor reference: RF, two check digits,
// 1 to 21 upper-case letters and digits, MOD 97-10.
func validRF(s string) bool {
	if len(s) < 5 || len(s) > 25 || s[:2] != "RF" || !allDigits(s[2:4]) {
		return false
	}
	r, ok := mod97(s[4:] + s[:4])
	return ok && r == 1
}

// mod97 is s modulo 97 with each letter A..Z read as the number 10..35;
// false when s holds anything but upper-case letters and digits.
func mod97(s string) (int, bool) {
	r := 0
	for i := range len(s) {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case 'A' <= c && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return 0, false
		}
	}
	return r, true
}
