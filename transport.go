package xs2a

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
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
	Base http.RoundTripper // nil: http.DefaultTransport
	// Signer signs every request; it is read as each request is signed, so
	// do not change it while the Transport is in use (a Client's signer is
	// switched with Client.SetSigner).
	Signer      *Signer
	RedirectURI string           // TPP-Redirect-URI, set when the request has none
	Now         func() time.Time // nil: time.Now

	// signer, set by NewClient and Client.SetSigner, is used instead of
	// Signer: RoundTrip loads it once per request, so that a request is
	// signed, and its certificate sent, by one Signer.
	signer atomic.Pointer[Signer]

	// once and direct are set by NewClient, whose requests all go to its
	// base address. once makes every request handed to Base one that
	// net/http cannot send again by itself, GETs included (see stamp): its
	// retry loop is then the only thing that re-sends. direct: Base cannot
	// make a connection unfit for the base address (checksConns, decided
	// once), so none is checked. Without once, checksConns decides per request.
	once, direct bool
}

var (
	errNoSigner       = errors.New("xs2a: Transport has no Signer")
	errBodyNotReplay  = errors.New("xs2a: request body cannot be replayed: create the request with a bytes.Reader, bytes.Buffer or strings.Reader, or set GetBody")
	errBodyLengthDiff = errors.New("xs2a: request body length differs from ContentLength")
	errNoURL          = errors.New("xs2a: request has no URL")
)

// RoundTrip implements http.RoundTripper: it refuses what it must not sign
// (refuse), reads and closes the body, and sends the stamped copy (stamp)
// through Base, on connections it checks unless Base cannot make an unfit
// one (checksConns).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	signer := t.currentSigner()
	body, err := []byte(nil), t.refuse(req, signer)
	if req.Body != nil && req.Body != http.NoBody {
		rb, ours := req.Body.(*replayBody)
		switch {
		case err != nil: // refused: closed unread
		case req.GetBody == nil:
			err = errBodyNotReplay
		case ours && rb.Len() == len(rb.data) && req.ContentLength == int64(len(rb.data)):
			body = rb.data // made by Client: used where it lies, not copied (BenchmarkBulkPayment10k)
		default:
			body, err = io.ReadAll(req.Body)
			if err == nil && req.ContentLength > 0 && int64(len(body)) != req.ContentLength {
				err = errBodyLengthDiff
			}
		}
		req.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	o := new(outgoing)
	r2, err := t.stamp(o, req, body, signer)
	if err != nil {
		return nil, err
	}
	base := cmp.Or(t.Base, http.DefaultTransport)
	checks := !t.direct
	if !t.once {
		checks = checksConns(base, r2.URL)
	}
	if !checks {
		return base.RoundTrip(r2)
	}
	// A trace (composed with any the caller's context holds) sees every
	// connection net/http gets for r2, new or reused, before anything is
	// written on it, and closes one that is unfit (gotConn): net/http then
	// fails the request, with the error of the refusal. Headers "written" on
	// a closed connection never reach the wire, so the caller's WroteHeaders
	// (Client counts writes with it) does not hear of them.
	o.trace.GotConn = o.gotConn
	o.req = *r2.WithContext(httptrace.WithClientTrace(r2.Context(), &o.trace))
	if o.wrote = o.trace.WroteHeaders; o.wrote != nil {
		o.trace.WroteHeaders = o.wroteHeaders
	}
	resp, err := base.RoundTrip(&o.req)
	if why := o.refused.Load(); err != nil && why != 0 {
		return nil, &connRefusedError{why: why, err: err}
	}
	return resp, err
}

// currentSigner is the Signer of the request RoundTrip starts: the
// Client's (signer), else Signer.
func (t *Transport) currentSigner() *Signer {
	if s := t.signer.Load(); s != nil {
		return s
	}
	return t.Signer
}

// refuse is the error of a request RoundTrip does not sign: with no signer
// or URL; or made by net/http to follow a redirect answer (req.Response)
// to anything but a GET, anywhere in the chain (a 307 or 308 would send it
// again, a 301 to 303 turn it into a GET whose answer says nothing of what
// the bank did), or to another origin (PRQ6).
func (t *Transport) refuse(req *http.Request, signer *Signer) error {
	switch {
	case signer == nil:
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

// stamp makes r2, o's copy of req as it is sent, signed by signer: its own
// header map over the caller's slices, which are replaced or read, never
// written into (the caller's request and header map are never written);
// the headers RoundTrip adds, Signature last; and body, the bytes
// digested, without GetBody unless r2 is a GET of a Transport on its own.
//
// net/http sends a request again by itself (HTTP/1 on a new connection when
// a reused one fails, for any method whose header holds Idempotency-Key;
// HTTP/2 after GOAWAY and some stream resets, golang/go#47635) only with
// GetBody or a nil or NoBody body. So an empty body is an emptyBody with
// Transfer-Encoding "identity" (the wire stays as for no body), and POST,
// PUT and PATCH keep HTTP/1's "Content-Length: 0" through the lower-case
// header key, which HTTP/1 writes as it is and HTTP/2 leaves out.
func (t *Transport) stamp(o *outgoing, req *http.Request, body []byte, signer *Signer) (*http.Request, error) {
	o.req = *req
	r2 := &o.req
	h := make(http.Header, len(req.Header)+newHeaders)
	maps.Copy(h, req.Header)
	r2.Header = h
	used := 0 // o.vals taken
	set := func(key, v string) {
		o.vals[used] = v
		h[key] = o.vals[used : used+1 : used+1]
		used++
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	set("Date", now().UTC().Format(http.TimeFormat))
	if id := h["X-Request-Id"]; len(id) == 0 || id[0] == "" {
		set("X-Request-Id", uuid.NewString())
	}
	if uri := h["Tpp-Redirect-Uri"]; t.RedirectURI != "" && (len(uri) == 0 || uri[0] == "") {
		set("Tpp-Redirect-Uri", t.RedirectURI)
	}
	set("Tpp-Signature-Certificate", signer.certHeader)
	// Digest and Signature share one string: one allocation.
	var sb strings.Builder
	sb.Grow(digestLen + signer.valueLen)
	var scratch [64]byte
	withBody := r2.Method == http.MethodPost || r2.Method == http.MethodPut || r2.Method == http.MethodPatch
	if len(body) > 0 || signer.digestGET || withBody {
		sb.Write(appendDigest(scratch[:0], body))
		set("Digest", sb.String())
	} else {
		delete(h, "Digest")
	}
	n := sb.Len()
	src := headerSource{h: h, method: cmp.Or(r2.Method, http.MethodGet), url: r2.URL, host: cmp.Or(r2.Host, r2.URL.Host)} // the host net/http sends
	if err := signer.writeSignature(&sb, src, &o.sum); err != nil {
		return nil, err
	}
	set("Signature", sb.String()[n:])
	resend := (r2.Method == http.MethodGet || r2.Method == "") && !t.once // net/http may send it again
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
		if withBody {
			r2.Header[zeroLengthKey] = zeroLength
		}
	case body != nil:
		r2.Body, r2.GetBody, r2.ContentLength = http.NoBody, nil, 0
	}
	return r2, nil
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
	sum  [sha256.Size]byte
	// trace and the rest serve the checked send of RoundTrip: refused is why a
	// connection was closed unused (a refusal), 0 if none was; unfit is
	// set while the connection is one closed; wrote is the WroteHeaders
	// of the caller's trace.
	trace   httptrace.ClientTrace
	refused atomic.Uint32
	unfit   atomic.Bool
	wrote   func()
}

// identityEncoding is the Transfer-Encoding of stamp (never written to).
var identityEncoding = []string{"identity"}

// zeroLengthKey and zeroLength are stamp's Content-Length of an empty
// body (the value is never written to: its capacity is its length).
const zeroLengthKey = "content-length"

var zeroLength = []string{"0"}[:1:1]

// emptyBody is a body with nothing in it (stamp); being a zero-size
// value, it costs no allocation in an interface.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error)         { return 0, io.EOF }
func (emptyBody) WriteTo(io.Writer) (int64, error) { return 0, nil }
func (emptyBody) Close() error                     { return nil }

// newHeaders is how many headers RoundTrip may add.
const newHeaders = 7

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
// must be checked (RoundTrip): not for an *http.Transport that cannot make
// them unfit (over https with its own TLS at 1.2 at least; in plain http,
// straight to a loopback host).
func checksConns(base http.RoundTripper, u *url.URL) bool {
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
// RoundTrip closed before writing it: err is what net/http made of
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
	if c, ok := cmp.Or(t.Base, http.DefaultTransport).(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
