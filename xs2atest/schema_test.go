package xs2atest_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a/internal/schemacheck"
	"github.com/tppkit/xs2a/xs2atest"
)

// newCheckedServer is xs2atest.NewServer whose every answer is checked
// against the Berlin Group 1.3.12 schemas (docs/interface.md BG1), where
// docs/interface.md lists no deviation, and against docs/openapi.yaml, the
// description of the platform's dialect (OA2): an answer that breaks either
// fails the test. The SDK flow tests start their banks with it. Answers a
// Fault wrote are the test's own, and are not checked.
func newCheckedServer(t *testing.T, opts ...xs2atest.Option) *xs2atest.Server {
	t.Helper()
	bg, err := schemacheck.Load(filepath.Join("..", "testdata", "openapi", "berlin-group-psd2-api-1.3.12.yaml"),
		filepath.Join("..", "docs", "interface.md"))
	if err != nil {
		t.Fatal(err)
	}
	dialect, err := schemacheck.LoadDialect(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hook := xs2atest.WithAnswerHook(func(x xs2atest.Exchange) {
		if x.Fault {
			return
		}
		for _, c := range []*schemacheck.Checker{bg, dialect} {
			if _, err := c.Check(x.Method, x.Path, x.RawQuery, x.Status, x.Header, x.Body); err != nil {
				t.Error(err)
			}
		}
	})
	return xs2atest.NewServer(t, append([]xs2atest.Option{hook}, opts...)...)
}

// TestAnswerHook: the hook sees each answer under the base path as it goes
// out (path as sent, query, status, headers with the X-Request-ID, body),
// marks a Fault's answer, and does not see requests outside the base path.
func TestAnswerHook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []xs2atest.Exchange
	s := xs2atest.NewServer(t, xs2atest.WithFaults(xs2atest.Fault{Path: "/v1/card-accounts", Status: 503, Times: 1}),
		xs2atest.WithAnswerHook(func(x xs2atest.Exchange) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, x)
		}))
	hc := s.HTTPClient()
	for _, p := range []string{"/v1/card-accounts?x=1", "/v1/accounts/a%2Fb/balances"} {
		resp, err := hc.Get(s.URL() + p)
		require.NoError(t, err)
		resp.Body.Close()
	}
	resp, err := hc.Get(strings.TrimSuffix(s.URL(), xs2atest.DefaultBasePath) + "/elsewhere")
	require.NoError(t, err)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	assert.Equal(t, "/v1/card-accounts", seen[0].Path)
	assert.Equal(t, "x=1", seen[0].RawQuery)
	assert.Equal(t, 503, seen[0].Status)
	assert.True(t, seen[0].Fault)
	assert.Equal(t, "/v1/accounts/a%2Fb/balances", seen[1].Path, "as sent")
	assert.False(t, seen[1].Fault)
	assert.Equal(t, 400, seen[1].Status, "unsigned")
	assert.Contains(t, string(seen[1].Body), "tppMessages")
	assert.Len(t, seen[1].Header.Get("X-Request-ID"), 36, "a request without X-Request-ID gets one of the bank's (Berlin Group: required)")
}
