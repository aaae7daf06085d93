package xs2a

import (
	"bytes"
	"io"
	"sync"
)

// maxPrealloc bounds the buffer made ahead for a body from its
// Content-Length, so that a false length cannot make the client allocate
// much before the bytes arrive; once they have filled it, one buffer of the
// announced length takes them all.
const maxPrealloc = 4 << 20

// maxChunk is the largest piece a body of unknown length is read in.
const maxChunk = 1 << 20

// readCapped reads at most limit bytes of r into a buffer of its own
// (readUpTo), joined into one slice.
func readCapped(r io.Reader, limit, size int64) ([]byte, error) {
	p, err := readUpTo(nil, r, limit, size, false)
	return p.join(), err
}

// readAnswer reads a successful answer into buf when it has room (see
// readUpTo), leaving a body of unknown length in the pieces it was read in.
// One longer than maxBody is errBodyTooLarge: refused by its Content-Length
// before anything is read, or as soon as more than maxBody bytes arrived.
func readAnswer(buf []byte, r io.Reader, size int64) (pieces, error) {
	if size > maxBody {
		return nil, errBodyTooLarge
	}
	p, err := readUpTo(buf, r, maxBody+1, size, true) // one byte more: to tell a body over the cap
	if err == nil && p.len() > maxBody {
		err = errBodyTooLarge // never cut a body and decode what is left
	}
	return p, err
}

// readUpTo reads at most limit bytes of r, into buf when it has room: in
// one piece when it fit the first buffer, else in the pieces it was read
// in. size is the length announced (Content-Length, -1 when unknown); the
// bytes returned do not depend on it. What it allocates is bounded by the
// body, never by a buffer grown by copies: for an announced length, one
// buffer of it (at most maxPrealloc ahead of the bytes); otherwise pieces
// of at most maxChunk, never past limit. With refuse, a body of unknown
// length that reaches limit is errBodyTooLarge.
func readUpTo(buf []byte, r io.Reader, limit, size int64, refuse bool) (pieces, error) {
	lr := &io.LimitedReader{R: r, N: limit}
	b := buf[:0]
	if size > 0 {
		if n := min(size, limit, maxPrealloc) + 1; int64(cap(b)) < n { // + 1: room to read the end
			b = make([]byte, 0, n)
		}
	}
	if cap(b) == 0 {
		b = make([]byte, 0, 512)
	}
	b, done, err := fill(b, lr)
	if done {
		return pieces{b}, err
	}
	if size > int64(len(b)) {
		whole := make([]byte, len(b), min(size, limit)+1)
		copy(whole, b)
		if b, done, err = fill(whole, lr); done {
			return pieces{b}, err
		}
	}
	return readChunks(b, lr, refuse)
}

// fill reads r into b until b is full (done false) or r ends (done true;
// err nil at io.EOF).
func fill(b []byte, r io.Reader) (_ []byte, done bool, err error) {
	for len(b) < cap(b) {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, true, nil
		}
		if err != nil {
			return b, true, err
		}
	}
	return b, false, nil
}

// readChunks reads the rest of lr after head, in pieces of at most
// maxChunk and never more than lr may still give (with refuse, not when lr
// reached its limit: errBodyTooLarge).
func readChunks(head []byte, lr *io.LimitedReader, refuse bool) (pieces, error) {
	p := pieces{head}
	next := max(2*cap(head), 4<<10)
	var err error
	for lr.N > 0 {
		c := make([]byte, 0, min(int64(next), lr.N))
		var done bool
		c, done, err = fill(c, lr)
		p = append(p, c)
		if done {
			break
		}
		next = min(2*next, maxChunk)
	}
	if refuse && lr.N == 0 {
		return nil, errBodyTooLarge
	}
	return p, err
}

// pieces is a body as read: its bytes in order, in one slice or more.
type pieces [][]byte

// len is the length of the body.
func (p pieces) len() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// join returns the body in one slice: the piece itself when there is one,
// else a new slice of the exact length (plus one byte of room, as a buffer
// read at once has).
func (p pieces) join() []byte {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return p[0]
	}
	out := make([]byte, 0, p.len()+1)
	for _, b := range p {
		out = append(out, b...)
	}
	return out
}

// reader reads the pieces in turn.
func (p pieces) reader() io.Reader { return &piecesReader{p: p} }

// piecesReader is pieces.reader: at byte at of piece i. The pieces are
// never written to.
type piecesReader struct {
	p     pieces
	i, at int
}

func (r *piecesReader) Read(b []byte) (int, error) {
	for r.i < len(r.p) && r.at == len(r.p[r.i]) {
		r.i, r.at = r.i+1, 0
	}
	if r.i == len(r.p) {
		return 0, io.EOF
	}
	n := copy(b, r.p[r.i][r.at:])
	r.at += n
	return n, nil
}

// head is the first piece, the buffer the body was read into (nil when
// nothing was read).
func (p pieces) head() []byte {
	if len(p) == 0 {
		return nil
	}
	return p[0]
}

// blank reports a body of nothing but white space.
func (p pieces) blank() bool {
	for _, b := range p {
		if len(bytes.TrimSpace(b)) > 0 {
			return false
		}
	}
	return true
}

// bodyBuffers recycles the buffers that successful answers are read into
// (as *[]byte). Such a body is garbage once decoded: the decoding copies
// what it keeps (and a model's UnmarshalJSONFrom must copy too), and nothing else in
// decode keeps it (BenchmarkDecodeTransactions measures what the reuse
// saves). Error bodies, which *Error keeps, are read with readCapped into
// buffers of their own.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// walkBuffer is the read buffer of a walk over pages (request.readBuf),
// taken from bodyBuffers; the walk hands it back with recycleBody when it
// ends.
func walkBuffer() *[]byte {
	buf := bodyBuffers.Get().(*[]byte)
	if *buf == nil {
		*buf = []byte{} // not nil: recycleBody takes nil for "nothing read"
	}
	return buf
}

// maxPooledBody is the largest buffer kept for reuse; larger ones are left
// to the garbage collector.
const maxPooledBody = 1 << 20

// recycleBody returns body's buffer to bodyBuffers in buf.
func recycleBody(buf *[]byte, body []byte) {
	if body == nil { // nothing was read: buf holds what it held
		bodyBuffers.Put(buf)
		return
	}
	if cap(body) <= maxPooledBody {
		*buf = body[:0]
		bodyBuffers.Put(buf)
	}
}
