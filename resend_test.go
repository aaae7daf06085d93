package xs2a

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A payment is never sent twice by the SDK on its own, also not
// by net/http underneath it: these tests come from a review that found
// three ways it was.

// TestPOSTNotReplayedByHTTP2: net/http's HTTP/2 transport replays a request
// whose stream the peer reset with PROTOCOL_ERROR (golang/go#47635) when it
// can get the body again. The bank here reads the whole POST, then resets
// the stream: the call must end as outcome unknown, the bank having seen one
// POST. A raw HTTP/2 server, with and without TLS.
func TestPOSTNotReplayedByHTTP2(t *testing.T) {
	t.Parallel()
	t.Run("h2c", func(t *testing.T) { t.Parallel(); postOverResetHTTP2(t, false) })
	t.Run("h2 over TLS", func(t *testing.T) { t.Parallel(); postOverResetHTTP2(t, true) })
}

func postOverResetHTTP2(t *testing.T, useTLS bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	scheme := "http"
	var tr *http.Transport
	if useTLS {
		ts := httptest.NewUnstartedServer(nil)
		ts.EnableHTTP2 = true
		ts.StartTLS()
		cfg := ts.TLS.Clone()
		cfg.NextProtos = []string{"h2"}
		tr = ts.Client().Transport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true // as defaultTransport (client.go)
		ts.Close()
		ln = tls.NewListener(ln, cfg)
		scheme = "https"
	} else {
		var protos http.Protocols
		protos.SetUnencryptedHTTP2(true)
		tr = &http.Transport{Protocols: &protos}
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var posts []string // body of each complete request the bank received
	frame := func(typ, flags byte, stream uint32, payload []byte) []byte {
		h := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(h[5:], stream)
		return append(h, payload...)
	}
	serve := func(conn net.Conn) {
		defer conn.Close()
		pre := make([]byte, 24)
		if _, err := io.ReadFull(conn, pre); err != nil {
			return
		}
		conn.Write(frame(4, 0, 0, nil)) // SETTINGS
		bodies := map[uint32][]byte{}
		for {
			hdr := make([]byte, 9)
			if _, err := io.ReadFull(conn, hdr); err != nil {
				return
			}
			n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
			typ, flags := hdr[3], hdr[4]
			stream := binary.BigEndian.Uint32(hdr[5:]) & 0x7fffffff
			payload := make([]byte, n)
			if _, err := io.ReadFull(conn, payload); err != nil {
				return
			}
			switch typ {
			case 4: // SETTINGS
				if flags&1 == 0 {
					conn.Write(frame(4, 1, 0, nil))
				}
				continue
			case 1: // HEADERS
				bodies[stream] = []byte{}
			case 0: // DATA
				bodies[stream] = append(bodies[stream], payload...)
			default:
				continue
			}
			if flags&1 == 0 { // not END_STREAM
				continue
			}
			mu.Lock()
			posts = append(posts, string(bodies[stream]))
			first := len(posts) == 1
			mu.Unlock()
			if first { // the bank got the payment, then the stream is reset
				conn.Write(frame(3, 0, stream, []byte{0, 0, 0, 1})) // RST_STREAM PROTOCOL_ERROR
				continue
			}
			// :status 201, literal without indexing, indexed name 8 (:status)
			conn.Write(frame(1, 0x4|0x1, stream, []byte{0x08, 0x03, '2', '0', '1'}))
		}
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(conn)
		}
	}()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := NewClient(scheme+"://"+ln.Addr().String()+"/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"),
		WithHTTPClient(&http.Client{Transport: tr, Timeout: 5 * time.Second}))
	require.NoError(t, err)
	resp, err := c.do(context.Background(), &request{op: "payments.initiate", method: http.MethodPost,
		href: "/v1/payments/norwegian-domestic-credit-transfers", body: map[string]string{"instructedAmount": "100"},
		psu: &PSU{ID: testPSUID, IPAddress: "192.0.2.1"}, scaResult: true}, nil)
	_ = resp
	assert.ErrorIs(t, err, ErrOutcomeUnknown, "the bank read the POST; its answer was lost")
	mu.Lock()
	defer mu.Unlock()
	assert.Len(t, posts, 1, "a payment initiation is never re-sent automatically")
}

// TestRedirectAnswersToPOST: a redirect answering a POST is not followed
// (307 and 308 would send the payment again, 303 would turn it into a GET
// that says nothing of it), nor is a POST answered with an unfollowed
// redirect, an empty body or no paymentId taken as success: each is outcome
// unknown, and the bank saw one request.
func TestRedirectAnswersToPOST(t *testing.T) {
	t.Parallel()
	redirect := func(code int, location string) func(w http.ResponseWriter, r *http.Request, n int) {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			if n > 1 {
				answer(http.StatusCreated, "application/json", `{"paymentId":"p1","transactionStatus":"RCVD"}`)(w, r, n)
				return
			}
			if location != "" {
				w.Header().Set("Location", location)
			}
			w.WriteHeader(code)
		}
	}
	const again = "/api/v1/payments/norwegian-domestic-credit-transfers/p1"
	for _, tt := range []struct {
		name string
		fn   func(w http.ResponseWriter, r *http.Request, n int)
	}{
		{"307", redirect(http.StatusTemporaryRedirect, again)},
		{"308", redirect(http.StatusPermanentRedirect, again)},
		{"303", redirect(http.StatusSeeOther, again)},
		{"302 without Location", redirect(http.StatusFound, "")},
		{"201 without a body", func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusCreated) }},
		{"201 without paymentId", answer(http.StatusCreated, "application/json", `{"transactionStatus":"RCVD"}`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &testBank{fn: tt.fn}
			_, c := newTestServer(t, rec)
			p := simplePayment()
			_, _, err := c.Payments.Initiate(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"},
				NorwegianDomesticCreditTransfers, &p, nil)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.Equal(t, 1, rec.count(), "the bank saw the payment once")
		})
	}
}

// TestRedirectStaysUnderTheBasePath: a redirect on the bank's host that
// leaves the base path (another bank on one gateway) is not followed, as a
// link there is not, so PSU-ID and a signature never reach it.
func TestRedirectStaysUnderTheBasePath(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var elsewhere int
	mux := http.NewServeMux()
	mux.HandleFunc("/bankA/v1/accounts", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/bankB/v1/accounts", http.StatusFound)
	})
	mux.HandleFunc("/bankB/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere++
		mu.Unlock()
		io.WriteString(w, `{"accounts":[]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL+"/bankA", testSigner(t), WithRedirectURI(testRedirectURI))
	require.NoError(t, err)
	_, _, err = c.Accounts.List(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"})
	assert.ErrorIs(t, err, ErrCrossOrigin)
	mu.Lock()
	defer mu.Unlock()
	assert.Zero(t, elsewhere, "a signed request with PSU-ID left the base address")
}

// TestLoggerTransportErrorHasNoPath: a failed connection is logged without
// the request's URL, which holds resource ids (WithLogger's promise), as
// the error returned is.
func TestLoggerTransportErrorHasNoPath(t *testing.T) {
	t.Parallel()
	logger, logged := recordingLogger()
	rec := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}}
	_, c := newTestServer(t, rec, WithLogger(logger))
	fakeSleep(c)
	_, _, err := c.Accounts.Balances(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.7"}, "enc!!SECRET-ACCOUNT-42")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "SECRET-ACCOUNT-42")
	assert.Contains(t, logged(), "xs2a call")
	assert.NotContains(t, logged(), "SECRET-ACCOUNT-42")
}
