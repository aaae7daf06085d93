package xs2a

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// reader is a one-pass JSON reader over a whole document, for the hand-made
// decoders of the large answers (transaction pages, card transaction pages,
// account lists). It checks the JSON as it reads it. It only understands
// what those decoders need; whenever it meets anything else (a syntax error,
// a key with escapes, nesting deeper than maxReadDepth) it fails, and the
// caller decodes the document again with encoding/json, whose result (and
// error) is then the answer. So a failure is never an error of its own:
// every method returns ok false and the caller gives up.
type reader struct {
	data []byte
	i    int
	// found holds the members of the objects being read that go to
	// their Extra (see collect).
	found []extraSpan
	// block holds the text of the short strings read, and recent the
	// strings last made from it, by a hash of their text (see text).
	block  strings.Builder
	recent [64]string
	// win, when set, is the window the reader sees a body in pieces
	// through (see window).
	win *window
}

// maxReadDepth bounds the nesting the reader follows; deeper documents go
// to encoding/json.
const maxReadDepth = 200

// ws moves past JSON white space and returns the next byte (0 at the end).
func (r *reader) ws() byte {
	for r.i < len(r.data) {
		switch c := r.data[r.i]; c {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return c
		}
	}
	return 0
}

// open consumes the byte c ('{' or '[') that must come next.
func (r *reader) open(c byte) bool {
	if r.ws() != c {
		return false
	}
	r.i++
	return true
}

// null consumes a null when it comes next.
func (r *reader) null() bool {
	if r.ws() == 'n' && len(r.data)-r.i >= 4 && string(r.data[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// next moves to the n-th member (0-based) of the object being read and
// returns its key, the bytes between the quotes, with the reader at its
// value; end when the object closed instead. A key with escapes or bytes
// that are not UTF-8 fails.
func (r *reader) next(n int) (key []byte, end, ok bool) {
	c := r.ws()
	if c == '}' {
		r.i++
		return nil, true, true
	}
	if n > 0 {
		if c != ',' {
			return nil, false, false
		}
		r.i++
		c = r.ws()
	}
	if c != '"' {
		return nil, false, false
	}
	start := r.i
	content, simple, ok := r.stringSpan()
	if !ok || !simple || r.ws() != ':' {
		return nil, false, false
	}
	r.i++
	r.ws()
	return r.data[start+1 : start+1+len(content)], false, true
}

// elem moves to the n-th element (0-based) of the array being read; end
// when the array closed instead.
func (r *reader) elem(n int) (end, ok bool) {
	c := r.ws()
	if c == ']' {
		r.i++
		return true, true
	}
	if n > 0 {
		if c != ',' {
			return false, false
		}
		r.i++
		r.ws()
	}
	return false, true
}

// stringSpan reads the string that starts at r.i (a '"') and returns its
// content as it lies in the input; simple when that is its value (no
// escapes, valid UTF-8).
func (r *reader) stringSpan() (content []byte, simple, ok bool) {
	d := r.data
	start := r.i + 1
	escaped, ascii := false, true
	for j := start; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			r.i = j + 1
			content = d[start:j]
			return content, !escaped && (ascii || utf8.Valid(content)), true
		case c == '\\':
			n := escapeLen(d[j+1:])
			if n == 0 {
				return nil, false, false
			}
			escaped = true
			j += n
		case c < 0x20:
			return nil, false, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, false
}

// escapeLen is the length of the valid escape after a '\' at the start of
// b, 0 when it is not one.
func escapeLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) < 5 {
			return 0
		}
		for _, c := range b[1:5] {
			if !isHex(c) {
				return 0
			}
		}
		return 5
	}
	return 0
}

// str reads a string value into *s, as encoding/json does: null leaves *s
// as it is. Another kind of value fails.
func (r *reader) str(s *string) bool {
	if r.null() {
		return true
	}
	if r.ws() != '"' {
		return false
	}
	start := r.i
	content, simple, ok := r.stringSpan()
	switch {
	case !ok:
		return false
	case simple:
		*s = r.text(content)
		return true
	}
	var v string // not s: s would escape, and cost every caller's variable an allocation
	if json.Unmarshal(r.data[start:r.i], &v) != nil {
		return false
	}
	*s = v
	return true
}

// Strings of at most maxBlockText bytes are copied into blocks of
// textBlock bytes shared by the strings that follow them in the document,
// instead of one allocation each, and a text met again (a counterparty's
// name, a code, an account number repeated in a page) is the same string:
// a value kept from a decoded page keeps a few blocks of text alive, not
// the page.
const (
	textBlock    = 512
	maxBlockText = 64
)

// text returns the string of b (see textBlock); the currency codes most
// answers repeat in every entry cost nothing.
func (r *reader) text(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "NOK":
		return "NOK"
	case "EUR":
		return "EUR"
	}
	if len(b) > maxBlockText {
		return string(b)
	}
	h := uint(len(b))
	for _, c := range b {
		h = h*31 + uint(c)
	}
	seen := &r.recent[h%uint(len(r.recent))]
	if *seen == string(b) {
		return *seen
	}
	if r.block.Cap()-r.block.Len() < len(b) {
		r.block = strings.Builder{}
		r.block.Grow(max(min(textBlock, (len(r.data)-r.i)/2), len(b)))
	}
	start := r.block.Len()
	r.block.Write(b)
	// The bytes written so far are never written again: a new block
	// starts when this one is full.
	*seen = r.block.String()[start:]
	return *seen
}

// skip reads any value and returns it as it lies in the input.
func (r *reader) skip() ([]byte, bool) {
	start := r.i
	if !r.skipValue(0) {
		return nil, false
	}
	return r.data[start:r.i], true
}

// skipValue reads the value at r.i (white space before it skipped),
// checking it.
func (r *reader) skipValue(depth int) bool {
	switch c := r.ws(); {
	case c == '"':
		_, _, ok := r.stringSpan()
		return ok
	case c == '{' || c == '[':
		if depth >= maxReadDepth {
			return false
		}
		return r.skipContainer(c, depth+1)
	case c == 't':
		return r.literal("true")
	case c == 'f':
		return r.literal("false")
	case c == 'n':
		return r.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	return false
}

// members reads an object, calling member with each key and the reader at
// its value, which member reads; it fails when member or the object does.
func (r *reader) members(member func(key []byte) bool) bool {
	if !r.open('{') {
		return false
	}
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		if !ok || end {
			return ok
		}
		if !member(key) {
			return false
		}
	}
}

// skipContainer reads the object or array opened by c at r.i.
func (r *reader) skipContainer(c byte, depth int) bool {
	r.i++
	for n := 0; ; n++ {
		var end, ok bool
		if c == '{' {
			_, end, ok = r.next(n)
			if !ok {
				// a key next cannot take (escapes, not UTF-8) is checked
				// by encoding/json's second reading instead
				return false
			}
		} else {
			end, ok = r.elem(n)
		}
		switch {
		case !ok:
			return false
		case end:
			return true
		case !r.skipValue(depth):
			return false
		}
	}
}

// literal consumes the literal lit.
func (r *reader) literal(lit string) bool {
	if len(r.data)-r.i < len(lit) || string(r.data[r.i:r.i+len(lit)]) != lit {
		return false
	}
	r.i += len(lit)
	return true
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *reader) number() bool {
	d, i := r.data, r.i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return false
		}
		i = j
	}
	r.i = i
	return true
}

// digits returns the index after the digits at d[i:].
func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// end reports whether nothing but white space is left.
func (r *reader) end() bool {
	if r.win != nil {
		r.win.take(len(r.win.p)) // all of the body, to see it end
	}
	return r.ws() == 0 && r.i == len(r.data)
}

// into decodes the next value with encoding/json into v (a pointer to the
// field it belongs to), as encoding/json decodes a member into a field that
// may already hold a value.
func (r *reader) into(v any) bool {
	raw, ok := r.skip()
	return ok && json.Unmarshal(raw, v) == nil
}
