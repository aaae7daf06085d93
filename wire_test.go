package xs2a

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What reaches the wire: every request written counts as an attempt and
// against the access budget, and net/http never sends a request of the
// Client again by itself (it would on a reused connection that fails).

const dropBankBalances = `{"balances":[{"balanceAmount":{"amount":"1.00","currency":"NOK"},"balanceType":"expected"}]}`

// dropBank is a bank under /api that answers balances. While dropping, it
// reads every request that comes on a connection that served one before,
// then closes that connection without an answer: the failure of a reused
// connection that net/http replays silently. With hold > 0, the first hold
// requests wait until hold are in flight, so the client opens hold
// connections (and keeps them idle).
type dropBank struct {
	seen     atomic.Int64
	dropped  atomic.Int64
	dropping atomic.Bool
	hold     int
	arrived  atomic.Int64
	gate     chan struct{}
}

type connOrdinal struct{}

func newDropBank(t *testing.T, hold int, opts ...Option) (*dropBank, *Client) {
	t.Helper()
	b := &dropBank{hold: hold, gate: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.StripPrefix(testBasePath, b))
	srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connOrdinal{}, new(atomic.Int64))
	}
	srv.Start()
	t.Cleanup(srv.Close)
	opts = append([]Option{WithRedirectURI("https://tpp.example/cb"),
		WithRetry(RetryPolicy{MaxAttempts: 3, Methods: []string{http.MethodGet}})}, opts...)
	c, err := NewClient(srv.URL+testBasePath, testSigner(t), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	fakeSleep(c)
	return b, c
}

func (b *dropBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	b.seen.Add(1)
	nth := r.Context().Value(connOrdinal{}).(*atomic.Int64).Add(1)
	if n := b.arrived.Add(1); n <= int64(b.hold) {
		if n == int64(b.hold) {
			close(b.gate)
		}
		select {
		case <-b.gate:
		case <-r.Context().Done():
		}
	}
	if b.dropping.Load() && nth > 1 {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			b.dropped.Add(1)
			conn.Close()
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, dropBankBalances)
}

// warm makes b.hold balance reads at once with the PSU present (not
// counted by the budget), leaving as many idle connections.
func (b *dropBank) warm(t *testing.T, c *Client) {
	t.Helper()
	var wg sync.WaitGroup
	for range b.hold {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := c.Accounts.Balances(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"}, "acc-1")
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	b.seen.Store(0)
	b.dropping.Store(true)
}

// attemptsOf is the attempts a call reports: in its Response, or in its
// *TransportError when it got no answer.
func attemptsOf(t *testing.T, resp *Response, err error) int {
	t.Helper()
	if resp != nil {
		return resp.Attempts
	}
	var te *TransportError
	if errors.As(err, &te) {
		return te.Attempts
	}
	var ae *AccessExceededError
	require.ErrorAs(t, err, &ae, "a call with neither an answer nor a transport error")
	return 0
}

func TestAttemptsCountEveryRequestWritten(t *testing.T) {
	t.Parallel()
	b, c := newDropBank(t, 4)
	b.warm(t, c)
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.1"}
	var mu sync.Mutex
	attempts, failed := 0, 0
	var wg sync.WaitGroup
	for range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, resp, err := c.Accounts.Balances(context.Background(), psu, "acc-1")
			n := attemptsOf(t, resp, err)
			mu.Lock()
			defer mu.Unlock()
			attempts += n
			if err != nil {
				failed++
			}
		}()
	}
	wg.Wait()
	require.Positive(t, b.dropped.Load(), "the bank dropped reused connections")
	assert.EqualValues(t, b.seen.Load(), attempts, "requests the bank read = attempts reported (%d calls failed)", failed)
}

func TestMaxAttemptsIsTheNumberOfWrites(t *testing.T) {
	t.Parallel()
	// Four idle connections, each dropped at its next request: net/http
	// would send one attempt on every one of them, then on a new one.
	b, c := newDropBank(t, 4)
	b.warm(t, c)
	_, resp, err := c.Accounts.Balances(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"}, "acc-1")
	require.Error(t, err)
	assert.Nil(t, resp)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3, te.Attempts)
	assert.EqualValues(t, 3, b.seen.Load(), "MaxAttempts 3: the read reached the bank 3 times")
}

func TestAccessBudgetCountsEveryRequestWritten(t *testing.T) {
	t.Parallel()
	b, c := newDropBank(t, 4)
	b.warm(t, c)
	psu := PSU{ID: testPSUID} // not present: at most AccessLimit calls a day
	var wg sync.WaitGroup
	var attempts atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, resp, err := c.Accounts.Balances(context.Background(), psu, "acc-1")
			attempts.Add(int64(attemptsOf(t, resp, err)))
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, b.seen.Load(), int64(AccessLimit), "the bank got at most %d requests without the PSU", AccessLimit)
	assert.Equal(t, b.seen.Load(), attempts.Load())
}

// A request of the Client without a body goes on the wire as it would with
// a nil Body (no Content-Length but on POST, no chunked encoding, no body),
// over HTTP/1.1 and HTTP/2.
func TestRequestsWithoutBodyLookTheSameOnTheWire(t *testing.T) {
	t.Parallel()
	type seen struct {
		proto, te, cl string
		n             int64
		body          int
	}
	for _, h2 := range []bool{false, true} {
		got := make(chan seen, 1)
		srv := httptest.NewUnstartedServer(http.StripPrefix(testBasePath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			got <- seen{proto: r.Proto, te: r.Header.Get("Transfer-Encoding") + strings.Join(r.TransferEncoding, ","),
				cl: r.Header.Get("Content-Length"), n: r.ContentLength, body: len(body)}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
		})))
		srv.EnableHTTP2 = h2
		srv.StartTLS()
		t.Cleanup(srv.Close)
		c, err := NewClient(srv.URL+testBasePath, testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithHTTPClient(srv.Client()))
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		for _, tt := range []struct {
			method string
			raw    []byte
			cl     string
		}{{http.MethodGet, nil, ""}, {http.MethodDelete, nil, ""}, {http.MethodPost, []byte{}, "0"}} {
			_, err := c.do(context.Background(), &request{op: "test", method: tt.method, href: "/v1/x", rawBody: tt.raw}, nil)
			require.NoError(t, err)
			s := <-got
			t.Logf("%s %s: Content-Length %q, ContentLength %d, Transfer-Encoding %q", s.proto, tt.method, s.cl, s.n, s.te)
			assert.Equal(t, map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[h2], s.proto)
			assert.Empty(t, s.te, "%s %s: no chunked encoding", s.proto, tt.method)
			assert.Zero(t, s.body, "%s %s: no body", s.proto, tt.method)
			if !h2 {
				assert.Equal(t, tt.cl, s.cl, "%s %s: Content-Length", s.proto, tt.method)
				assert.Zero(t, s.n)
			}
		}
	}
}
