package xs2a

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Transport is an http.RoundTripper that stamps and signs every request as
// the interface demands (service.md, Request headers and Authentication). On a
// clone of the request it sets Date (RFC 7231, from Now), X-Request-ID (a
// UUID, only if absent), TPP-Redirect-URI (only if absent),
// TPP-Signature-Certificate, Digest (on POST, PUT and PATCH and any request
// with a body; on every request with WithDigestOnEmptyBody) and Signature.
// The caller's request is never modified. It works on its own:
//
//	hc := &http.Client{Transport: &xs2a.Transport{Signer: signer, RedirectURI: "https://tpp.example/cb"}}
//
// A request body must be replayable (its GetBody set, as http.NewRequest
// does for bytes.Reader, bytes.Buffer and strings.Reader): the Digest is
// computed from the exact bytes that are sent.
//
// Transport refuses to sign a redirect that leaves the origin (scheme, host
// and port) of the request that was redirected, since net/http would carry
// PSU-ID and the signature along; Client also refuses links to other origins
// before anything is sent.
type Transport struct {
	Base        http.RoundTripper // nil: http.DefaultTransport
	Signer      *Signer
	RedirectURI string           // TPP-Redirect-URI, set when the request has none
	Now         func() time.Time // nil: time.Now
}

var (
	errNoSigner       = errors.New("xs2a: Transport has no Signer")
	errBodyNotReplay  = errors.New("xs2a: request body cannot be replayed: create the request with a bytes.Reader, bytes.Buffer or strings.Reader, or set GetBody")
	errBodyLengthDiff = errors.New("xs2a: request body length differs from ContentLength")
	errNoURL          = errors.New("xs2a: request has no URL")
)

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Signer == nil {
		closeBody(req)
		return nil, errNoSigner
	}
	if req.URL == nil {
		closeBody(req)
		return nil, errNoURL
	}
	if crossOriginRedirect(req) {
		closeBody(req)
		return nil, ErrCrossOrigin
	}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	r2, vals := cloneRequest(req, newHeaders)
	h := r2.Header
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	set := func(key, v string) { // key in canonical form
		vals[0] = v
		h[key] = vals[:1:1]
		vals = vals[1:]
	}
	// Date, X-Request-ID and Digest share one string: one allocation.
	var sb strings.Builder
	sb.Grow(len(http.TimeFormat) + 36 + digestLen)
	var scratch [64]byte
	sb.Write(now().UTC().AppendFormat(scratch[:0], http.TimeFormat))
	date := sb.String()
	set("Date", date)
	if len(h["X-Request-Id"]) == 0 || h["X-Request-Id"][0] == "" {
		sb.Write(appendUUID(scratch[:0], uuid.New()))
		set("X-Request-Id", sb.String()[len(date):])
	}
	if t.RedirectURI != "" && (len(h["Tpp-Redirect-Uri"]) == 0 || h["Tpp-Redirect-Uri"][0] == "") {
		set("Tpp-Redirect-Uri", t.RedirectURI)
	}
	set("Tpp-Signature-Certificate", t.Signer.certHeader)
	if len(body) > 0 || t.Signer.digestGET || hasBodySemantics(r2.Method) {
		n := sb.Len()
		sb.Write(appendDigest(scratch[:0], body))
		set("Digest", sb.String()[n:])
	} else {
		delete(h, "Digest")
	}
	host := r2.Host
	if host == "" {
		host = r2.URL.Host // what net/http sends
	}
	sig, err := t.Signer.sign(headerSource{h: h, method: r2.Method, url: r2.URL, host: host})
	if err != nil {
		return nil, err
	}
	set("Signature", sig)
	switch {
	case body == nil:
	case len(body) == 0:
		r2.Body, r2.GetBody, r2.ContentLength = http.NoBody, nil, 0
	default:
		rb := &replayBody{data: body}
		rb.Reset(body)
		r2.Body, r2.GetBody, r2.ContentLength = rb, rb.replay, int64(len(body))
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r2)
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
	var b []byte
	var err error
	if n := req.ContentLength; n > 0 {
		b = make([]byte, n)
		_, err = io.ReadFull(req.Body, b)
		if err == nil {
			var one [1]byte
			if m, _ := req.Body.Read(one[:]); m > 0 {
				err = errBodyLengthDiff
			}
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

// hasBodySemantics reports whether a method carries a body, if only an empty
// one (an authorisation POST): such requests always carry a Digest.
func hasBodySemantics(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// newHeaders is how many headers RoundTrip may add.
const newHeaders = 6

// cloneRequest copies req for signing in a few allocations (this runs on
// every request): a shallow copy (req.WithContext) with its own URL and its
// own header map, sized for extra more headers, whose values share one
// backing array. It returns the unused tail of that array for the headers
// to add. The caller's request, header map and URL are never written; the
// fields left shared (Body, Trailer, Form...) are not written either.
func cloneRequest(req *http.Request, extra int) (*http.Request, []string) {
	r2 := req.WithContext(req.Context())
	u := *req.URL
	r2.URL = &u
	n := 0
	for _, vs := range req.Header {
		n += len(vs)
	}
	vals := make([]string, n+extra)
	h := make(http.Header, len(req.Header)+extra)
	for k, vs := range req.Header {
		if vs == nil {
			h[k] = nil
			continue
		}
		m := copy(vals, vs)
		h[k] = vals[:m:m]
		vals = vals[m:]
	}
	r2.Header = h
	return r2, vals
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
	rb := &replayBody{data: b.data}
	rb.Reset(b.data)
	return rb, nil
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
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if c, ok := base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
