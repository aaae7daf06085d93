package xs2a

import (
	"flag"
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
func testSigner(t testing.TB, opts ...SignerOption) *Signer {
	t.Helper()
	s, err := LoadSigner(filepath.Join("testdata", "certs", "tpp-rsa.cert.pem"), filepath.Join("testdata", "certs", "tpp-rsa.key.pem"), opts...)
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
