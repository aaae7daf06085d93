package xs2a

import "bytes"

// Decoding a large answer of unknown length from the pieces it was read in,
// without joining them: the reader of the fast decoders reads it through a
// window that holds the elements of its arrays a few at a time, so that the
// body is held once (TestLargeAnswerAllocationIsBoundedByItsSize).

// minPieces is the smallest body decoded in pieces; a smaller one is joined,
// which costs less than a window.
const minPieces = 2 * maxChunk

// decodePieces decodes a body in pieces into f in one pass, without joining
// them (see fastDecoder), seeing them through a window of at least first
// bytes.
func decodePieces(f fastDecoder, p pieces, first int) bool {
	var r reader
	r.win = newWindow(&r, p, first)
	return f.read(&r)
}

// window shows a reader a body in pieces: r.data is a buffer of the
// window's own holding the bytes from where the reader is to the end of the
// pieces taken so far. The pieces are never written to.
//
// Outside the arrays read through it (readListIn), the reader sees only the
// bytes taken: where a value goes past them, the reader fails as at the end
// of a cut document, and the body is joined and decoded again. An array's
// elements are taken as they are read, an element at least whole at a time;
// only an array that no member of Extra came before in the objects holding
// it (r.found is empty), as those members point into the window.
type window struct {
	r     *reader
	p     pieces
	next  int    // the first piece not taken
	first int    // how much to take at the start and after an array
	buf   []byte // r.data's storage
	// ends holds, while an array is read through the window (nil
	// otherwise), for each piece the index of the last ',' or ']' of the
	// array's own level in it (-1: none), as the count over the pieces
	// found them.
	ends []int
	// limit is the index in r.data of the last such ',' or ']' taken so
	// far (-1: none): the elements before it are whole.
	limit int
}

// newWindow points r at the first pieces of p, at least first bytes.
func newWindow(r *reader, p pieces, first int) *window {
	w := &window{r: r, p: p, first: first, limit: -1}
	w.buf = make([]byte, 0, 2*first)
	r.data = w.buf
	w.takeBytes(first)
	return w
}

// takeBytes takes pieces until at least n bytes lie past the reader, or
// none are left.
func (w *window) takeBytes(n int) {
	end, have := w.next, len(w.r.data)-w.r.i
	for end < len(w.p) && have < n {
		have += len(w.p[end])
		end++
	}
	w.take(end)
}

// take moves the bytes the reader is past out of the window and appends
// the pieces up to (not including) piece end, moving limit with them.
func (w *window) take(end int) {
	r := w.r
	n := len(r.data) - r.i + w.p[w.next:end].len()
	if cap(w.buf) < n {
		w.buf = make([]byte, 0, max(n, 2*cap(w.buf)))
	}
	w.buf = append(w.buf[:0], r.data[r.i:]...) // copy moves overlapping bytes right
	if w.limit -= r.i; w.limit < 0 {
		w.limit = -1
	}
	for ; w.next < end; w.next++ {
		if w.ends != nil && w.ends[w.next] >= 0 {
			w.limit = len(w.buf) + w.ends[w.next]
		}
		w.buf = append(w.buf, w.p[w.next]...)
	}
	r.data, r.i = w.buf, 0
}

// whole makes sure the window holds the next element of the array being
// read whole (or the array's end), taking pieces as needed; when the pieces
// end first, the reader fails on what it has.
func (w *window) whole() bool {
	for {
		c := w.r.ws() // past white space, as reading the element goes
		if c == ']' || c != 0 && w.limit > w.r.i || w.next == len(w.p) {
			return true
		}
		w.take(w.next + 1)
	}
}

// readListIn is readList through a window, the reader just past the
// array's '[': its elements are read as the pieces come, into a list sized
// once by a count over all the pieces.
func readListIn[T any](w *window, list *[]T, item func(*reader, *T) bool) bool {
	r := w.r
	count := listScan{next: true} // over the bytes taken, then the pieces not
	if w.limit = count.scan(r.data[r.i:]); w.limit >= 0 {
		w.limit += r.i
	}
	w.ends = make([]int, len(w.p))
	defer func() { w.ends = nil }()
	for k := w.next; k < len(w.p); k++ {
		w.ends[k] = count.scan(w.p[k])
	}
	if count.notObject {
		return false // before making the list: a refused element ([0,0,...])
	}
	s := make([]T, 0, listCap[T](count.count(), len(r.data)-r.i+w.p[w.next:].len()))
	if !readElements(r, list, s, item, w.whole) {
		return false
	}
	w.takeBytes(w.first) // what follows the array
	return true
}

// listScan follows the content of a JSON array (the bytes after its '['),
// in as many pieces as it comes: where its elements end and how many there
// are. Made for valid JSON: on anything else what it finds is wrong, which
// costs a copy or some room, never a wrong value (the reader checks).
type listScan struct {
	depth    int  // containers open inside the array
	inString bool // in a string
	escaped  bool // in a string, after a backslash
	commas   int  // at the array's own level
	nonEmpty bool // something but white space seen
	closed   bool // the array's ']' seen: scan takes nothing more
	// next is set where an element starts (after '[' or a ',' of the
	// array's level); notObject when one began with neither '{' nor 'n':
	// a list of structs the reader, and encoding/json, refuse.
	next, notObject bool
}

// scan follows b, the bytes after those scanned so far, and returns the
// index in b of the last ',' or ']' at the array's own level (-1: none).
func (s *listScan) scan(b []byte) int {
	if s.closed {
		return -1
	}
	i, last := 0, -1
	if s.inString {
		i = s.stringEnd(b, 0)
	}
	depth, commas, nonEmpty, next := s.depth, s.commas, s.nonEmpty, s.next
	defer func() { s.depth, s.commas, s.nonEmpty, s.next = depth, commas, nonEmpty, next }()
	for ; i < len(b); i++ {
		c := b[i]
		if next && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			next = false
			s.notObject = s.notObject || c != '{' && c != 'n' && c != ']'
		}
		switch c {
		case '"':
			s.inString, nonEmpty = true, true
			i = s.stringEnd(b, i+1) - 1
		case '{', '[':
			depth++
			nonEmpty = true
		case '}', ']':
			if depth == 0 {
				s.closed = true
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				commas++
				last, next = i, true
			}
		case ' ', '\t', '\r', '\n':
		default:
			nonEmpty = true
		}
	}
	return last
}

// stringEnd follows the string s is in from b[i] and returns the index
// after its closing quote, or len(b) when b ends first.
func (s *listScan) stringEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b) // nothing here: the string and its escape go on
	}
	if s.escaped {
		s.escaped = false
		i++ // the byte a backslash at the end of the last piece escapes
	}
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			s.escaped = oddBackslashes(b, i, len(b))
			return len(b)
		}
		j := i + k
		if !oddBackslashes(b, i, j) {
			s.inString = false
			return j + 1
		}
		i = j + 1
	}
}

// oddBackslashes reports whether b[from:to] ends in an odd number of
// backslashes: whether the byte at to is escaped (a run that starts before
// from was an even one, or the escape was already taken).
func oddBackslashes(b []byte, from, to int) bool {
	n := 0
	for p := to - 1; p >= from && b[p] == '\\'; p-- {
		n++
	}
	return n%2 == 1
}

// count is the number of elements of the array scanned: the commas at its
// level, plus one once it closed unless empty.
func (s *listScan) count() int {
	if s.closed && s.nonEmpty {
		return s.commas + 1
	}
	return s.commas
}
