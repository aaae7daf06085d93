package xs2a

import "unicode/utf8"

// checkText lets through only the text the bank's backend is known to process
// (docs/interface.md G2, E2): valid UTF-8 of printable Latin-1 (U+0020..U+007E,
// U+00A0..U+00FF), at most maxRunes characters (0: no limit); "" passes. The
// *ValidationError names field and the index of the first bad character, never
// the text.
func checkText(field, s string, maxRunes int) error {
	n := 0
	for i := 0; i < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return invalid(field, "is not valid UTF-8 at character index %d", n)
		}
		if !(r >= 0x20 && r <= 0x7e || r >= 0xa0 && r <= 0xff) {
			return invalid(field, "has a character the bank cannot process at character index %d (only printable Latin-1 text is accepted)", n)
		}
		i += size
	}
	if maxRunes > 0 && n > maxRunes {
		return invalid(field, "is longer than %d characters", maxRunes)
	}
	return nil
}
