package xs2a

import "unicode/utf8"

// checkText enforces docs/interface.md G2 ("if the downstream
// system cannot process a UTF-8 character (for instance an emoji), the request
// is rejected with 400") and the Errors row "Request text contains a character
// the bank backend cannot process": the SDK lets through only what the
// backend is known to process, printable Latin-1 (U+0020..U+007E and
// U+00A0..U+00FF). Control characters (CR and LF included), U+007F..U+009F,
// everything above U+00FF and invalid UTF-8 are refused.
//
// maxRunes 0 means no length limit; otherwise s may hold at most maxRunes
// characters. The error is a *ValidationError naming field and the rune index
// (0-based) of the first bad character; it never repeats the text. The empty
// string is accepted: whether a field is required is the caller's rule.
func checkText(field, s string, maxRunes int) error {
	n := 0
	for i := 0; i < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return invalid(field, "is not valid UTF-8 at character index %d", n)
		}
		if !latin1Printable(r) {
			return invalid(field, "has a character the bank cannot process at character index %d (only printable Latin-1 text is accepted)", n)
		}
		i += size
	}
	if maxRunes > 0 && n > maxRunes {
		return invalid(field, "is longer than %d characters", maxRunes)
	}
	return nil
}

// latin1Printable reports whether r is a printable ISO 8859-1 character.
func latin1Printable(r rune) bool {
	return (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff)
}
