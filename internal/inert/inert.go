// Package inert makes text that came from outside (a bank's answer, a
// callback's query, a certificate) safe to show to a person or write to a
// log: it is the one sanitiser of the module. Text passed through Text holds
// no character that can forge a line, reorder what a terminal shows, hide
// itself, or be invalid UTF-8; such characters are escaped in a visible form
// ("\u202e"), white-space controls become a space.
package inert

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports a character that must not reach a person or a log as it is:
//   - C0 and C1 controls (U+0000 to U+001F, U+007F to U+009F);
//   - format characters (category Cf), the bidi controls U+200E, U+200F,
//     U+202A to U+202E and U+2066 to U+2069 among them, and U+FEFF;
//   - the line and paragraph separators U+2028 and U+2029;
//   - U+FFFD, which stands for invalid UTF-8.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0xad:
		return false
	case r == 0x2028, r == 0x2029, r == utf8.RuneError:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Space reports a character that a browser or a URL parser may read as
// white space: the ASCII space, white-space controls and every Unicode
// space separator (category Zs, U+00A0 and U+3000 among them).
func Space(r rune) bool { return r == ' ' || unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) }

// Clean reports whether s is valid UTF-8 without an Unsafe character.
func Clean(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, Unsafe)
}

// Text returns s made inert, cut after its first max characters with "…"
// (max 0: no limit). White-space controls (tab, line feed, carriage
// return, vertical tab, form feed, U+0085, U+2028, U+2029) become a space;
// every other Unsafe character, and each byte of invalid UTF-8, becomes a
// visible escape: "\u202e", "\x00", "\xff". Text that is already clean and
// short enough is returned as it is, without allocating.
func Text(s string, max int) string {
	if Clean(s) && (max <= 0 || len(s) <= max || utf8.RuneCountInString(s) <= max) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	n := 0
	for i := 0; i < len(s); {
		if max > 0 && n == max {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case Unsafe(r):
			b.WriteString(`\u`)
			b.WriteString(hex4(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
		n++
	}
	return b.String()
}

// JSON rewrites a JSON text so that no Unsafe character stands in it raw:
// each is written as its \u escape, which a JSON reader decodes to the same
// text. encoding/json escapes C0 controls, U+2028 and U+2029 itself, but
// writes C1 controls and format characters as they are. Outside strings,
// valid JSON holds none of these, so the rewrite only touches strings.
func JSON(b []byte) []byte {
	clean := true
	for _, r := range string(b) {
		if r >= 0x80 && Unsafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && Unsafe(r) && !(r == utf8.RuneError && size <= 1) {
			out = append(out, `\u`...)
			out = append(out, hex4(r)...)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// hex4 is r as a \u escape's digits; a rune above U+FFFF is written as its
// UTF-16 surrogate pair ("d800\udc00"), as JSON spells it.
func hex4(r rune) string {
	if r > 0xffff {
		r -= 0x10000
		return pad4(0xd800+(r>>10)) + `\u` + pad4(0xdc00+(r&0x3ff))
	}
	return pad4(r)
}

func pad4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
