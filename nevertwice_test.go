package xs2a

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Never twice: no request other than a GET is sent again by anything below
// the caller, empty-body POSTs included: not by net/http following a
// redirect, not by its HTTP/1 transport (Idempotency-Key), not by its
// HTTP/2 transport after REFUSED_STREAM or GOAWAY, whether the Transport
// serves a Client or a caller's own http.Client.

// TestTransportHandsBaseNothingNetHTTPReplays: every request but a GET of a
// Transport on its own reaches Base with a body net/http cannot send again
// (set, not http.NoBody, GetBody nil): net/http's HTTP/1 transport replays
// a request with a nil or NoBody body, or with GetBody, whose header holds
// Idempotency-Key (Request.isReplayable); its HTTP/2 transport one with a
// nil or NoBody body or with GetBody after GOAWAY or REFUSED_STREAM.
func TestTransportHandsBaseNothingNetHTTPReplays(t *testing.T) {
	t.Parallel()
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}
	bodies := map[string]func() io.Reader{
		"nil body":   func() io.Reader { return nil },
		"empty body": func() io.Reader { return http.NoBody },
		"a body":     func() io.Reader { return strings.NewReader(testPaymentBody) },
	}
	for _, once := range []bool{false, true} {
		for _, method := range methods {
			for name, body := range bodies {
				for _, key := range []string{"", "Idempotency-Key", "X-Idempotency-Key"} {
					capt := &captureRT{}
					tr := &Transport{Base: capt, Signer: testSigner(t), RedirectURI: testRedirectURI, Now: fixedNow, once: once}
					req, err := http.NewRequest(method, testBankURL+"/v1/x", body())
					require.NoError(t, err)
					if key != "" {
						req.Header.Set(key, "k-1")
					}
					resp, err := tr.RoundTrip(req)
					require.NoError(t, err)
					resp.Body.Close()
					sent := capt.last(t)
					what := []any{"once %v, %s, %s, %q", once, method, name, key}
					if method == http.MethodGet && !once {
						continue // net/http may send a GET again
					}
					assert.NotNil(t, sent.Body, what...)
					assert.NotEqual(t, http.NoBody, sent.Body, what...)
					assert.Nil(t, sent.GetBody, what...)
					if name == "a body" {
						assert.Equal(t, testPaymentBody, string(capt.lastBody(t)), what...)
					} else {
						assert.Empty(t, capt.lastBody(t), what...)
					}
				}
			}
		}
	}
}

// TestRedirectOfWriteIsNeverFollowed: a redirect answering anything but a
// GET ends the call unfollowed, whatever the code (307 and 308 would send
// the request and its body again, 301, 302 and 303 turn it into a GET) and
// whoever holds the Transport: a Client whose caller's http.Client follows
// every redirect, a caller's http.Client with the default CheckRedirect, or
// with one that follows everything. The bank saw one request; the error
// answers ErrOutcomeUnknown. A GET's redirect is followed.
func TestRedirectOfWriteIsNeverFollowed(t *testing.T) {
	t.Parallel()
	followAll := func(*http.Request, []*http.Request) error { return nil }
	type sender func(t *testing.T, srvURL, method string, body []byte) error
	standalone := func(check func(*http.Request, []*http.Request) error) sender {
		return func(t *testing.T, srvURL, method string, body []byte) error {
			hc := &http.Client{CheckRedirect: check, Transport: &Transport{Signer: testSigner(t), RedirectURI: testRedirectURI}}
			var rd io.Reader
			if body != nil {
				rd = bytes.NewReader(body)
			}
			req, err := http.NewRequest(method, srvURL+testBasePath+"/v1/x", rd)
			require.NoError(t, err)
			resp, err := hc.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		}
	}
	viaClient := func(t *testing.T, srvURL, method string, body []byte) error {
		c, err := NewClient(srvURL+testBasePath, testSigner(t), WithRedirectURI(testRedirectURI),
			WithHTTPClient(&http.Client{CheckRedirect: followAll}))
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = c.do(context.Background(), &request{op: "test", method: method, href: "/v1/x", rawBody: body}, nil)
		return err
	}
	senders := map[string]sender{
		"Client, caller's CheckRedirect follows all":  viaClient,
		"caller's http.Client, default CheckRedirect": standalone(nil),
		"caller's http.Client, follows all":           standalone(followAll),
	}
	writes := []struct {
		method string
		body   []byte
	}{
		{http.MethodPost, []byte(testPaymentBody)}, {http.MethodPost, []byte{}}, {http.MethodPut, []byte(`{"a":1}`)},
		{http.MethodPatch, []byte(`{"a":1}`)}, {http.MethodDelete, nil},
	}
	codes := []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}
	for name, send := range senders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, code := range codes {
				for _, w := range writes {
					bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
						if n == 1 {
							http.Redirect(w, r, testBasePath+"/v1/again", code)
							return
						}
						answer(http.StatusOK, "application/json", `{}`)(w, r, n)
					}}
					srv := httptest.NewServer(bank)
					err := send(t, srv.URL, w.method, w.body)
					srv.Close()
					assert.ErrorIs(t, err, ErrOutcomeUnknown, "%d to %s (%d bytes)", code, w.method, len(w.body))
					assert.Equal(t, 1, bank.count(), "%d to %s (%d bytes): the bank saw one request", code, w.method, len(w.body))
				}
				bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
					if n == 1 {
						http.Redirect(w, r, testBasePath+"/v1/again", code)
						return
					}
					answer(http.StatusOK, "application/json", `{}`)(w, r, n)
				}}
				srv := httptest.NewServer(bank)
				err := send(t, srv.URL, http.MethodGet, nil)
				srv.Close()
				assert.NoError(t, err, "a GET's redirect (%d) is followed", code)
				assert.Equal(t, 2, bank.count())
			}
		})
	}
}

// TestNothingButGETResentByHTTP2: a bank on HTTP/2 over TLS (a raw server
// speaking frames, so that it can refuse a stream) answers the first
// request's HEADERS with RST_STREAM(REFUSED_STREAM) or with GOAWAY naming
// no stream as processed: net/http's HTTP/2 transport then sends the
// request again when it can get its body again (nil, http.NoBody or
// GetBody). The bank counts the HEADERS frames it got: one, for an empty
// POST (starting an authorisation), a payment with an Idempotency-Key, a
// PUT and a DELETE, sent by a Client or by a caller's http.Client over the
// Transport. The GET of a Transport on its own is sent again: the bank
// does exercise the replay.
func TestNothingButGETResentByHTTP2(t *testing.T) {
	t.Parallel()
	type sender func(t *testing.T, url string, tr *http.Transport, method string, body []byte, header http.Header) error
	viaClient := func(t *testing.T, url string, tr *http.Transport, method string, body []byte, header http.Header) error {
		c, err := NewClient(url+testBasePath, testSigner(t), WithRedirectURI(testRedirectURI), WithHTTPClient(&http.Client{Transport: tr}))
		require.NoError(t, err)
		r := &request{op: "test", method: method, href: "/v1/x", rawBody: body}
		_, err = c.do(context.Background(), r, nil)
		return err
	}
	standalone := func(t *testing.T, url string, tr *http.Transport, method string, body []byte, header http.Header) error {
		hc := &http.Client{Transport: &Transport{Base: tr, Signer: testSigner(t), RedirectURI: testRedirectURI}}
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, url+testBasePath+"/v1/x", rd)
		require.NoError(t, err)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	idem := http.Header{"Idempotency-Key": {"k-1"}}
	for _, tt := range []struct {
		name   string
		goAway bool
		method string
		body   []byte
		header http.Header
		sends  int // HEADERS frames the bank gets
		only   bool
	}{
		{name: "empty POST, REFUSED_STREAM", method: http.MethodPost, body: []byte{}, sends: 1},
		{name: "empty POST, GOAWAY", goAway: true, method: http.MethodPost, body: []byte{}, sends: 1},
		{name: "empty POST with Idempotency-Key, REFUSED_STREAM", method: http.MethodPost, body: []byte{}, header: idem, sends: 1, only: true},
		{name: "payment with Idempotency-Key, GOAWAY", goAway: true, method: http.MethodPost, body: []byte(testPaymentBody), header: idem, sends: 1, only: true},
		{name: "payment, REFUSED_STREAM", method: http.MethodPost, body: []byte(testPaymentBody), sends: 1},
		{name: "PUT, REFUSED_STREAM", method: http.MethodPut, body: []byte(`{"a":1}`), sends: 1},
		{name: "DELETE, REFUSED_STREAM", method: http.MethodDelete, sends: 1},
		{name: "DELETE, GOAWAY", goAway: true, method: http.MethodDelete, sends: 1},
		{name: "GET of a Transport on its own, REFUSED_STREAM", method: http.MethodGet, sends: 2, only: true},
	} {
		senders := map[string]sender{"caller's http.Client": standalone}
		if !tt.only {
			senders["Client"] = viaClient
		}
		for by, send := range senders {
			t.Run(tt.name+", "+by, func(t *testing.T) {
				t.Parallel()
				bank := startRefusingH2Bank(t, tt.goAway)
				err := send(t, bank.url, bank.transport, tt.method, tt.body, tt.header)
				assert.Equal(t, tt.sends, bank.count(), "requests the bank got")
				if tt.sends == 1 {
					assert.Error(t, err, "the request was refused and not sent again")
				}
			})
		}
	}
}

// refusingH2Bank is an HTTP/2 server over TLS on loopback, written with
// frames: it refuses the first request it gets (RST_STREAM REFUSED_STREAM,
// or GOAWAY with last stream 0) and answers 201 to the others.
type refusingH2Bank struct {
	url       string
	transport *http.Transport // trusts the bank's certificate, speaks HTTP/2
	mu        sync.Mutex
	headers   int // HEADERS frames received: requests
}

func (b *refusingH2Bank) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.headers
}

func startRefusingH2Bank(t *testing.T, goAway bool) *refusingH2Bank {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	cfg := ts.TLS.Clone()
	cfg.NextProtos = []string{"h2"}
	tr := ts.Client().Transport.(*http.Transport).Clone()
	tr.ForceAttemptHTTP2 = true
	ts.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln = tls.NewListener(ln, cfg)
	b := &refusingH2Bank{url: "https://" + ln.Addr().String(), transport: tr}
	var conns sync.WaitGroup
	t.Cleanup(func() { ln.Close(); tr.CloseIdleConnections(); conns.Wait() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() { defer conns.Done(); b.serve(conn, goAway) }()
		}
	}()
	return b
}

func (b *refusingH2Bank) serve(conn net.Conn, goAway bool) {
	defer conn.Close()
	frame := func(typ, flags byte, stream uint32, payload []byte) {
		h := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(h[5:], stream)
		conn.Write(append(h, payload...))
	}
	if _, err := io.ReadFull(conn, make([]byte, 24)); err != nil { // the client preface
		return
	}
	frame(4, 0, 0, nil) // SETTINGS
	for {
		hdr := make([]byte, 9)
		if _, err := io.ReadFull(conn, hdr); err != nil {
			return
		}
		n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags := hdr[3], hdr[4]
		stream := binary.BigEndian.Uint32(hdr[5:]) & 0x7fffffff
		if _, err := io.ReadFull(conn, make([]byte, n)); err != nil {
			return
		}
		switch {
		case typ == 4 && flags&1 == 0: // SETTINGS, not an ACK
			frame(4, 1, 0, nil)
		case typ == 1: // HEADERS: a request
			b.mu.Lock()
			b.headers++
			first := b.headers == 1
			b.mu.Unlock()
			switch {
			case first && goAway:
				frame(7, 0, 0, make([]byte, 8)) // GOAWAY, last stream 0, NO_ERROR
			case first:
				frame(3, 0, stream, []byte{0, 0, 0, 7}) // RST_STREAM REFUSED_STREAM
			default:
				// :status 201: a literal without indexing, name index 8.
				frame(1, 0x4|0x1, stream, []byte{0x08, 0x03, '2', '0', '1'})
			}
		}
	}
}

// TestRedirectRefusalUnderURLError: the standalone Transport's refusal
// reaches the caller of http.Client wrapped in a *url.Error, still telling
// the outcome is unknown, and saying what happened.
func TestRedirectRefusalUnderURLError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/again", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: &Transport{Signer: testSigner(t), RedirectURI: testRedirectURI}}
	_, err := hc.Post(srv.URL+"/api/v1/consents/c1/authorisations", "application/json", http.NoBody)
	require.Error(t, err)
	var rr *redirectRefusal
	require.True(t, errors.As(err, &rr))
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), "xs2a: the bank answered a POST with a redirect (307)")
}
