package xs2a

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Transport is an http.RoundTripper that stamps and signs every request as the
// interface demands (docs/interface.md H1, H5 to H8, SIG1 to SIG7): on a clone
// of the request it sets Date, X-Request-ID and TPP-Redirect-URI (the last two
// only when absent), TPP-Signature-Certificate, Digest and Signature. A request
// body must be replayable (GetBody set): the Digest covers the exact bytes
// sent. It works on its own, under any http.Client:
//
//	hc := &http.Client{Transport: &xs2a.Transport{Signer: signer, RedirectURI: "https://tpp.example/cb"}}
//
// Whatever the client or Base, it guarantees:
//   - Never twice: a request other than a GET is handed to Base in a form
//     net/http cannot send again by itself (not on a new connection, not
//     after an HTTP/2 stream reset or GOAWAY, whatever Idempotency-Key
//     header it carries), and a request that follows a redirect answer to
//     anything but a GET is refused unsent: the error answers
//     errors.Is(err, ErrOutcomeUnknown), also inside the *url.Error of
//     http.Client. A redirect to another origin is refused (PRQ6).
//   - TLS 1.2 at least (G7): a request is never written on a connection
//     below TLS 1.2, nor in plain http other than straight to a loopback
//     address (no proxy); such a connection is closed before anything is
//     written and the request fails with an error saying so. Connections
//     are checked through net/http's httptrace (GotConn), so a Base that
//     does not hand the request's context to net/http (a mock) is not
//     checked.
type Transport struct {
	Base        http.RoundTripper // nil: http.DefaultTransport
	Signer      *Signer
	RedirectURI string           // TPP-Redirect-URI, set when the request has none
	Now         func() time.Time // nil: time.Now

	// once makes every request handed to Base one that net/http cannot
	// send again by itself, GETs included (see setBody); set by
	// NewClient, whose retry loop is then the only thing that re-sends.
	once bool
	// direct: Base is an *http.Transport NewClient configured itself (TLS
	// 1.2 at least, no proxy for a loopback base, no dialer of the
	// caller's own for TLS), so connections need no check per request.
	direct bool
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
	base := t.base()
	if !t.checksConns(base, r2.URL) {
		return base.RoundTrip(r2)
	}
	return o.roundTripChecked(base, r2)
}

// refuse is the error of a request RoundTrip does not sign: with no Signer
// or URL; or made by net/http to follow a redirect answer (req.Response)
// to anything but a GET, anywhere in the chain (a 307 or 308 would send it
// again, a 301 to 303 turn it into a GET whose answer says nothing of what
// the bank did), or to another origin (PRQ6).
func (t *Transport) refuse(req *http.Request) error {
	switch {
	case t.Signer == nil:
		return errNoSigner
	case req.URL == nil:
		return errNoURL
	case req.Response == nil || req.Response.Request == nil:
		return nil
	}
	for r := req; r.Response != nil && r.Response.Request != nil; {
		r = r.Response.Request
		if !isGET(r.Method) {
			return &redirectRefusal{method: r.Method, status: req.Response.StatusCode}
		}
	}
	from := req.Response.Request.URL
	if from != nil && (!strings.EqualFold(from.Scheme, req.URL.Scheme) || !strings.EqualFold(from.Host, req.URL.Host)) {
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
	o.set(h, "Date", now().UTC().Format(http.TimeFormat))
	if id := h["X-Request-Id"]; len(id) == 0 || id[0] == "" {
		o.set(h, "X-Request-Id", uuid.NewString())
	}
	// Digest and Signature share one string: one allocation.
	var sb strings.Builder
	sb.Grow(digestLen + t.Signer.valueLen)
	var scratch [64]byte
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

// setBody gives r2, o's copy of the request, the body that was digested,
// in a form net/http cannot send again by itself, unless r2 is a GET of a
// Transport on its own.
//
// Without GetBody net/http cannot send a body again: its HTTP/1 transport
// silently resends a request on a new connection when a reused one fails
// (for any method whose header holds Idempotency-Key), its HTTP/2 transport
// after GOAWAY and some stream resets (golang/go#47635), but neither for a
// Body that is set, is not http.NoBody and has no GetBody. So an empty body
// is an emptyBody with Transfer-Encoding "identity" (the wire stays as for
// no body; HTTP/2 ends the stream with an empty DATA frame), and POST, PUT
// and PATCH keep HTTP/1's "Content-Length: 0" through the header's
// lower-case key, which HTTP/1 writes as it is and HTTP/2 leaves out.
func (t *Transport) setBody(o *outgoing, r2 *http.Request, body []byte) {
	resend := isGET(r2.Method) && !t.once // net/http may send it again
	switch {
	case len(body) > 0:
		o.body = replayBody{data: body}
		o.body.Reset(body)
		r2.Body, r2.GetBody, r2.ContentLength = &o.body, nil, int64(len(body))
		if resend {
			r2.GetBody = o.body.replay
		}
	case !resend:
		r2.Body, r2.GetBody, r2.ContentLength, r2.TransferEncoding = emptyBody{}, nil, 0, identityEncoding
		if hasBodySemantics(r2.Method) {
			r2.Header[zeroLengthKey] = zeroLength
		}
	case body != nil:
		r2.Body, r2.GetBody, r2.ContentLength = http.NoBody, nil, 0
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
	// trace and the rest serve roundTripChecked: refused is why a
	// connection was closed unused (a refusal), 0 if none was; unfit is
	// set while the connection is one closed; wrote is the WroteHeaders
	// of the caller's trace.
	trace   httptrace.ClientTrace
	refused atomic.Uint32
	unfit   atomic.Bool
	wrote   func()
}

// set sets header key (in canonical form) of h to v, the value held in o.
func (o *outgoing) set(h http.Header, key, v string) {
	o.vals[o.used] = v
	h[key] = o.vals[o.used : o.used+1 : o.used+1]
	o.used++
}

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
	b, err := io.ReadAll(req.Body)
	if err == nil && req.ContentLength > 0 && int64(len(b)) != req.ContentLength {
		err = errBodyLengthDiff
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// identityEncoding is the Transfer-Encoding of setBody (never written to).
var identityEncoding = []string{"identity"}

// zeroLengthKey and zeroLength are setBody's Content-Length of an empty
// body (the value is never written to: its capacity is its length).
const zeroLengthKey = "content-length"

var zeroLength = []string{"0"}[:1:1]

// emptyBody is a body with nothing in it (setBody); being a zero-size
// value, it costs no allocation in an interface.
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
const newHeaders = 7

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

// isGET reports the method of a GET ("" is GET to net/http).
func isGET(method string) bool { return method == http.MethodGet || method == "" }

// redirectRefusal is refuse's error of a redirect answer to a write. The request it answered was
// sent and answered, so its outcome is unknown (ErrOutcomeUnknown).
type redirectRefusal struct {
	method string
	status int
}

func (e *redirectRefusal) Error() string {
	return "xs2a: the bank answered a " + e.method + " with a redirect (" + strconv.Itoa(e.status) +
		"), which is not followed: outcome unknown, the bank may have acted on the request"
}

// Is reports ErrOutcomeUnknown.
func (e *redirectRefusal) Is(target error) bool { return target == ErrOutcomeUnknown }

// GoString is the message: no fmt verb prints the fields.
func (e *redirectRefusal) GoString() string { return goString("redirectRefusal", e.Error()) }

// Format prints the message for every verb, GoString for %#v.
func (e *redirectRefusal) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// checksConns reports whether the connections a request to u is written on
// must be checked (roundTripChecked): not for a Base NewClient configured,
// nor for an *http.Transport that cannot make them unfit (over https with
// its own TLS at 1.2 at least; in plain http, straight to a loopback host).
func (t *Transport) checksConns(base http.RoundTripper, u *url.URL) bool {
	if t.direct {
		return false
	}
	tr, ok := base.(*http.Transport)
	if !ok {
		return true
	}
	if strings.EqualFold(u.Scheme, "https") {
		//lint:ignore SA1019 a caller's DialTLS makes the TLS connections.
		return tr.DialTLSContext != nil || tr.DialTLS != nil || belowTLS12(tr.TLSClientConfig)
	}
	return tr.Proxy != nil || !isLoopback(u.Hostname())
}

// belowTLS12 reports a client configuration that allows TLS below 1.2 (a
// MinVersion of 0 is TLS 1.2 for a client since Go 1.22, whatever GODEBUG
// says).
func belowTLS12(cfg *tls.Config) bool {
	return cfg != nil && cfg.MinVersion != 0 && cfg.MinVersion < tls.VersionTLS12
}

// roundTripChecked sends r2 through base with a trace (composed with any the
// caller's context holds) that sees every connection net/http gets for it,
// new or reused, before anything is written on it, and closes one that is
// unfit (connRefusal): net/http then fails the request, with the error of
// the refusal. Headers "written" on a closed connection never reach the
// wire, so the caller's WroteHeaders (Client counts writes with it) does not
// hear of them.
func (o *outgoing) roundTripChecked(base http.RoundTripper, r2 *http.Request) (*http.Response, error) {
	o.trace.GotConn = o.gotConn
	o.req = *r2.WithContext(httptrace.WithClientTrace(r2.Context(), &o.trace))
	if o.wrote = o.trace.WroteHeaders; o.wrote != nil {
		o.trace.WroteHeaders = o.wroteHeaders
	}
	resp, err := base.RoundTrip(&o.req)
	if err != nil {
		if why := o.refused.Load(); why != 0 {
			return nil, &connRefusedError{why: why, err: err}
		}
	}
	return resp, err
}

// gotConn closes a connection the request must not be written on.
func (o *outgoing) gotConn(info httptrace.GotConnInfo) {
	why := connRefusal(info.Conn, o.req.URL)
	o.unfit.Store(why != 0)
	if why != 0 {
		o.refused.Store(why)
		info.Conn.Close()
	}
}

// wroteHeaders passes WroteHeaders on unless the connection was closed.
func (o *outgoing) wroteHeaders() {
	if !o.unfit.Load() {
		o.wrote()
	}
}

// Reasons of connRefusal besides a TLS version below 1.2 (which is the
// version's own number).
const (
	refusedNoTLS    = 1 // https on a connection without crypto/tls's state
	refusedNotLocal = 2 // plain http not straight to a loopback address
)

// connRefusal is why conn is unfit for a request to u, 0 if it is fit: over
// https it must be TLS 1.2 or higher; in plain http it must go straight to
// the loopback host and port of u (isLoopback), not to a proxy.
func connRefusal(conn net.Conn, u *url.URL) uint32 {
	if strings.EqualFold(u.Scheme, "https") {
		c, ok := conn.(interface{ ConnectionState() tls.ConnectionState })
		if !ok {
			return refusedNoTLS
		}
		if v := c.ConnectionState().Version; v < tls.VersionTLS12 {
			return uint32(v)
		}
		return 0
	}
	if !directToLoopback(conn.RemoteAddr(), u) {
		return refusedNotLocal
	}
	return 0
}

// directToLoopback reports a connection to the loopback host of u itself:
// a loopback address (the one of u, if u names an address) and u's port.
func directToLoopback(remote net.Addr, u *url.URL) bool {
	host := u.Hostname()
	if remote == nil || !isLoopback(host) {
		return false
	}
	ap, err := netip.ParseAddrPort(remote.String())
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if strconv.Itoa(int(ap.Port())) != port {
		return false
	}
	want, err := netip.ParseAddr(host)
	return err != nil || want.Unmap() == ap.Addr().Unmap()
}

// connRefusedError is the error of a request whose connection
// roundTripChecked closed before writing it: err is what net/http made of
// that.
type connRefusedError struct {
	why uint32
	err error
}

func (e *connRefusedError) Error() string {
	switch e.why {
	case refusedNoTLS:
		return "xs2a: refused to send over a connection whose TLS version cannot be read (docs/interface.md G7: TLS 1.2 or higher)"
	case refusedNotLocal:
		return "xs2a: refused to send in plain http other than straight to a loopback address (not through a proxy)"
	}
	return "xs2a: refused to send over " + tls.VersionName(uint16(e.why)) + " (docs/interface.md G7: TLS 1.2 or higher)"
}

// GoString is the message: no fmt verb prints the fields.
func (e *connRefusedError) GoString() string { return goString("connRefusedError", e.Error()) }

// Format prints the message for every verb, GoString for %#v.
func (e *connRefusedError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

func (e *connRefusedError) Unwrap() error { return e.err }

// CloseIdleConnections closes the idle connections of Base (or
// http.DefaultTransport).
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
