package xs2a

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// update rewrites golden files: go test -run Golden -update
var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// checkGolden compares got with testdata/golden/name, or writes it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run go test -run %s -update", t.Name())
	require.Equal(t, string(want), string(got), "golden %s differs (go test -update rewrites it)", name)
}

// testSigner loads the fixed TEST-ONLY RSA certificate and key.
func testSigner(t testing.TB) *Signer {
	t.Helper()
	return testSignerWith(t, nil)
}

// testSignerWith is testSigner with opts.
func testSignerWith(t testing.TB, opts *SignerOptions) *Signer {
	t.Helper()
	s, err := LoadSigner(filepath.Join("testdata", "certs", "tpp-rsa.cert.pem"), filepath.Join("testdata", "certs", "tpp-rsa.key.pem"), opts)
	require.NoError(t, err)
	return s
}

// testClock is a settable clock, safe for concurrent use; it never sleeps.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(t time.Time) *testClock { return &testClock{t: t} }

// Now reads the clock.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Advance moves the clock on by d.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixedNow is the clock of golden tests.
func fixedNow() time.Time { return time.Date(2026, 3, 2, 10, 4, 5, 0, time.UTC) }

// seenRequest is what a test bank received of one request.
type seenRequest struct {
	Method        string
	Path          string // as sent (escaped), below the base path
	RequestURI    string // the request line's target as the server read it, base path included
	Query         string // raw query
	Header        http.Header
	Body          []byte
	ContentLength int64
}

// testBank is an http.Handler that records every request and answers with
// fn (n counts the requests from 1). Tests mount it with newTestServer.
type testBank struct {
	mu   sync.Mutex
	reqs []seenRequest
	fn   func(w http.ResponseWriter, r *http.Request, n int)
}

func (b *testBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	b.mu.Lock()
	b.reqs = append(b.reqs, seenRequest{Method: r.Method, Path: r.URL.EscapedPath(), RequestURI: r.RequestURI, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, ContentLength: r.ContentLength})
	n := len(b.reqs)
	b.mu.Unlock()
	b.fn(w, r, n)
}

// requests returns a copy of what the bank saw.
func (b *testBank) requests() []seenRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]seenRequest(nil), b.reqs...)
}

func (b *testBank) count() int { return len(b.requests()) }

func (b *testBank) request(i int) seenRequest { return b.requests()[i] }

func (b *testBank) last() seenRequest {
	reqs := b.requests()
	return reqs[len(reqs)-1]
}

// only returns the single request the bank saw.
func (b *testBank) only(t *testing.T) seenRequest {
	t.Helper()
	reqs := b.requests()
	require.Len(t, reqs, 1)
	return reqs[0]
}

// testBasePath is where newTestServer mounts the handler, so that a client
// that drops the base path is caught.
const testBasePath = "/api"

// newTestServer serves h under /api on loopback and returns a client for it.
// Requests outside /api answer 599.
func newTestServer(t testing.TB, h http.Handler, opts ...Option) (*httptest.Server, *Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(testBasePath+"/", http.StripPrefix(testBasePath, h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "outside the base path: "+r.URL.Path, 599)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	opts = append([]Option{WithRedirectURI("https://tpp.example/cb"), WithRetry(RetryPolicy{MaxAttempts: 3, MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Second, Methods: []string{http.MethodGet}})}, opts...)
	c, err := NewClient(srv.URL+testBasePath, testSigner(t), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return srv, c
}
