package xs2a

import (
	"bytes"
	"errors"
	"io"
	"net/http"
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
// computed from the exact bytes that are sent. Transport does not check where
// a request goes; Client does (it refuses other origins).
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
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	r2 := req.Clone(req.Context())
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	if r2.Header == nil {
		r2.Header = make(http.Header)
	}
	h := r2.Header
	h.Set("Date", now().UTC().Format(http.TimeFormat))
	if h.Get("X-Request-ID") == "" {
		h.Set("X-Request-ID", uuid.NewString())
	}
	if t.RedirectURI != "" && h.Get("TPP-Redirect-URI") == "" {
		h.Set("TPP-Redirect-URI", t.RedirectURI)
	}
	h.Set("TPP-Signature-Certificate", t.Signer.certHeader)
	if len(body) > 0 || t.Signer.digestGET || hasBodySemantics(r2.Method) {
		h.Set("Digest", Digest(body))
	} else {
		h.Del("Digest")
	}
	host := r2.Host
	if host == "" {
		host = r2.URL.Host // what net/http sends
	}
	sig, err := t.Signer.sign(headerSource{h: h, method: r2.Method, target: r2.URL.RequestURI(), host: host})
	if err != nil {
		return nil, err
	}
	h.Set("Signature", sig)
	switch {
	case body == nil:
	case len(body) == 0:
		r2.Body, r2.GetBody, r2.ContentLength = http.NoBody, nil, 0
	default:
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r2.ContentLength = int64(len(body))
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

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
