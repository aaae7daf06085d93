package xs2a

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Transport is an http.RoundTripper that stamps and signs every request as the
// interface demands (docs/interface.md H1, H5 to H8, SIG1 to SIG7): on a clone
// of the request it sets Date, X-Request-ID and TPP-Redirect-URI (the last two
// only when absent), TPP-Signature-Certificate, Digest and Signature. A request
// body must be replayable (GetBody set): the Digest covers the exact bytes
// sent. It hands Base a request net/http may replay only for idempotent
// methods, and refuses to sign a redirect to another origin (PRQ6). It works on
// its own:
//
//	hc := &http.Client{Transport: &xs2a.Transport{Signer: signer, RedirectURI: "https://tpp.example/cb"}}
type Transport struct {
	Base        http.RoundTripper // nil: http.DefaultTransport
	Signer      *Signer
	RedirectURI string           // TPP-Redirect-URI, set when the request has none
	Now         func() time.Time // nil: time.Now

	// once makes every request handed to Base one that net/http cannot
	// send again by itself (see oneWrite); set by NewClient, whose retry
	// loop is then the only thing that re-sends.
	once bool
}

var (
	errNoSigner       = errors.New("xs2a: Transport has no Signer")
	errBodyNotReplay  = errors.New("xs2a: request body cannot be replayed: create the request with a bytes.Reader, bytes.Buffer or strings.Reader, or set GetBody")
	errBodyLengthDiff = errors.New("xs2a: request body length differs from ContentLength")
	errNoURL          = errors.New("xs2a: request has no URL")
)

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.refuse(req); err != nil {
		closeBody(req)
		return nil, err
	}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	o := new(outgoing)
	r2 := o.clone(req)
	if err := t.stamp(o, r2, body); err != nil {
		return nil, err
	}
	t.setBody(o, r2, body)
	return t.base().RoundTrip(r2)
}

// refuse is the error of a request RoundTrip does not sign: with no Signer
// or URL, or following a redirect to another origin.
func (t *Transport) refuse(req *http.Request) error {
	switch {
	case t.Signer == nil:
		return errNoSigner
	case req.URL == nil:
		return errNoURL
	case crossOriginRedirect(req):
		return ErrCrossOrigin
	}
	return nil
}

// stamp sets on r2, o's copy of the request, the headers RoundTrip adds,
// Signature last.
func (t *Transport) stamp(o *outgoing, r2 *http.Request, body []byte) error {
	h := r2.Header
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	o.set(h, "Date", httpDate(now()))
	// X-Request-ID, Digest and Signature share one string: one allocation.
	var sb strings.Builder
	sb.Grow(36 + digestLen + t.Signer.valueLen)
	var scratch [64]byte
	if id := h["X-Request-Id"]; len(id) == 0 || id[0] == "" {
		sb.Write(appendRequestID(scratch[:0]))
		o.set(h, "X-Request-Id", sb.String())
	}
	if uri := h["Tpp-Redirect-Uri"]; t.RedirectURI != "" && (len(uri) == 0 || uri[0] == "") {
		o.set(h, "Tpp-Redirect-Uri", t.RedirectURI)
	}
	o.set(h, "Tpp-Signature-Certificate", t.Signer.certHeader)
	if len(body) > 0 || t.Signer.digestGET || hasBodySemantics(r2.Method) {
		n := sb.Len()
		sb.Write(appendDigest(scratch[:0], body))
		o.set(h, "Digest", sb.String()[n:])
	} else {
		delete(h, "Digest")
	}
	host := r2.Host
	if host == "" {
		host = r2.URL.Host // what net/http sends
	}
	n := sb.Len()
	if err := t.Signer.writeSignature(&sb, headerSource{h: h, method: r2.Method, url: r2.URL, host: host}, &o.sum); err != nil {
		return err
	}
	o.set(h, "Signature", sb.String()[n:])
	return nil
}

// setBody gives r2 the body that was digested, in a form net/http cannot
// send twice by itself where that matters.
func (t *Transport) setBody(o *outgoing, r2 *http.Request, body []byte) {
	switch {
	case body == nil:
		if t.once {
			oneWrite(r2)
		}
	case len(body) == 0:
		r2.Body, r2.GetBody, r2.ContentLength = http.NoBody, nil, 0
	default:
		o.body = replayBody{data: body}
		o.body.Reset(body)
		r2.Body, r2.GetBody, r2.ContentLength = &o.body, nil, int64(len(body))
		// Without GetBody net/http cannot send a POST's body again by
		// itself: its HTTP/2 transport would, after a stream reset by the
		// peer, even when the bank had read and acted on it
		// (golang/go#47635). A payment is never sent twice.
		if idempotent(r2.Method) && !t.once {
			r2.GetBody = o.body.replay
		}
	}
}

// base is Base, or http.DefaultTransport.
func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// outgoing holds, in one allocation, what RoundTrip needs for every request
// besides the header map and the strings: the copy of the request, the body
// reader, the values of the headers it adds and the hash
// handed to the crypto.Signer (whose address escapes). Allocations are
// most of what signing costs besides the private-key operation
// (BenchmarkSignOverhead).
type outgoing struct {
	req  http.Request
	body replayBody
	vals [newHeaders]string
	used int // vals taken
	sum  [sha256.Size]byte
}

// set sets header key (in canonical form) of h to v, the value held in o.
func (o *outgoing) set(h http.Header, key, v string) {
	o.vals[o.used] = v
	h[key] = o.vals[o.used : o.used+1 : o.used+1]
	o.used++
}

// lastDate is the last Date value made. It changes once a second, and
// formatting it was about 7% of the SDK's work per request
// (BenchmarkSignOverhead); the value depends on the second alone, so one
// cache serves every Transport and clock.
var lastDate atomic.Pointer[dateValue]

type dateValue struct {
	unix int64
	text string
}

// httpDate returns t as a Date header value (RFC 7231 IMF-fixdate, UTC).
func httpDate(t time.Time) string {
	sec := t.Unix()
	if d := lastDate.Load(); d != nil && d.unix == sec {
		return d.text
	}
	d := &dateValue{unix: sec, text: t.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.text
}

// appendRequestID appends a new X-Request-ID to dst: a random (version 4)
// UUID in its canonical form. It is the one source of request IDs: a
// Client's calls and a Transport's requests without one.
func appendRequestID(dst []byte) []byte { return appendUUID(dst, newUUID()) }

// newRequestID returns a new X-Request-ID (appendRequestID).
func newRequestID() string {
	var b [36]byte
	return string(appendRequestID(b[:0]))
}

// newUUID returns a random (version 4) UUID, as uuid.New does but without
// its allocation, and without a getrandom system call each time: the random
// bytes come from crypto/rand in blocks of uuidBlock UUIDs, each byte used
// once and cleared (request IDs are not secret, but need not linger).
func newUUID() uuid.UUID {
	var u uuid.UUID
	b := uuidBlocks.Get().(*randomBlock)
	if b.used == len(b.buf) {
		rand.Read(b.buf[:]) // never fails (Go 1.24)
		b.used = 0
	}
	next := b.buf[b.used : b.used+len(u)]
	copy(u[:], next)
	clear(next)
	b.used += len(u)
	uuidBlocks.Put(b)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// uuidBlock is how many UUIDs one read of crypto/rand serves.
const uuidBlock = 32

type randomBlock struct {
	buf  [uuidBlock * 16]byte
	used int
}

var uuidBlocks = sync.Pool{New: func() any { return &randomBlock{used: uuidBlock * 16} }}

// readBody reads and closes the request body. It returns nil for a request
// without one, and refuses a body that could not be sent again.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	if req.GetBody == nil {
		return nil, errBodyNotReplay
	}
	// A body made by Client is used where it lies, unread, not copied
	// (BenchmarkBulkPayment10k).
	if rb, ok := req.Body.(*replayBody); ok && rb.Len() == len(rb.data) && req.ContentLength == int64(len(rb.data)) {
		return rb.data, nil
	}
	var b []byte
	var err error
	if n := req.ContentLength; n > 0 {
		// One byte more than announced, to see that the body ends there
		// (without an allocation of its own for that byte).
		b = make([]byte, n+1)
		_, err = io.ReadFull(req.Body, b[:n])
		if err == nil {
			if m, _ := req.Body.Read(b[n:]); m > 0 {
				err = errBodyLengthDiff
			}
			b = b[:n]
		} else if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errBodyLengthDiff
		}
	} else {
		b, err = io.ReadAll(req.Body)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// oneWrite makes a request without a body one that net/http writes once:
// its HTTP/1 transport silently sends a request again on a new connection
// when a reused one fails (shouldRetryRequest), and its HTTP/2 transport
// after some stream errors, but neither can for a request whose Body is set
// and cannot be replayed (GetBody nil). So Body is an empty reader, and the
// Transfer-Encoding "identity" keeps HTTP/1 from sending Content-Length,
// chunked encoding or a body, the wire staying as for a nil Body; HTTP/2
// ends the stream with an empty DATA frame instead of on the headers.
// POST, PUT and PATCH keep their http.NoBody, which sends "Content-Length:
// 0": HTTP/1 never replays those methods, and HTTP/2 only after the peer
// reset the stream, a replay Client still counts (see Client.do).
func oneWrite(r *http.Request) {
	if hasBodySemantics(r.Method) {
		return
	}
	r.Body, r.GetBody, r.ContentLength, r.TransferEncoding = emptyBody{}, nil, 0, identityEncoding
}

// identityEncoding is the Transfer-Encoding of oneWrite (never written to).
var identityEncoding = []string{"identity"}

// emptyBody is a body with nothing in it; being a zero-size value, it costs
// no allocation in an interface.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error)         { return 0, io.EOF }
func (emptyBody) WriteTo(io.Writer) (int64, error) { return 0, nil }
func (emptyBody) Close() error                     { return nil }

// hasBodySemantics reports whether a method carries a body, if only an empty
// one (an authorisation POST): such requests always carry a Digest.
func hasBodySemantics(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// newHeaders is how many headers RoundTrip may add.
const newHeaders = 6

// clone copies req into o for signing: a shallow copy of the request (as
// req.WithContext makes) with its own header map, sized for the newHeaders
// that RoundTrip adds. The map's values are the caller's slices: RoundTrip
// and net/http replace or read values, never write into them, so the
// caller's request and header map are never written. The fields left shared
// (URL, Body, Trailer, Form...) are only read, by RoundTrip and by net/http.
func (o *outgoing) clone(req *http.Request) *http.Request {
	o.req = *req
	r2 := &o.req
	h := make(http.Header, len(req.Header)+newHeaders)
	for k, vs := range req.Header {
		h[k] = vs
	}
	r2.Header = h
	return r2
}

// appendUUID appends u in its canonical 8-4-4-4-12 form.
func appendUUID(dst []byte, u uuid.UUID) []byte {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return append(dst, b[:]...)
}

// replayBody is the body sent: the bytes digested, readable again through
// GetBody.
type replayBody struct {
	bytes.Reader
	data []byte
}

func (*replayBody) Close() error { return nil }

func (b *replayBody) replay() (io.ReadCloser, error) {
	return newReplayBody(b.data), nil
}

func newReplayBody(data []byte) *replayBody {
	rb := &replayBody{data: data}
	rb.Reset(data)
	return rb
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// crossOriginRedirect reports a request that net/http created to follow a
// redirect (req.Response is then the redirect answer) to another scheme, host
// or port than the request it follows.
func crossOriginRedirect(req *http.Request) bool {
	if req.Response == nil || req.Response.Request == nil || req.Response.Request.URL == nil {
		return false
	}
	from := req.Response.Request.URL
	return !strings.EqualFold(from.Scheme, req.URL.Scheme) || !strings.EqualFold(from.Host, req.URL.Host)
}

// CloseIdleConnections closes the idle connections of Base (or of
// http.DefaultTransport), so that http.Client.CloseIdleConnections and
// Client.Close reach them.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
