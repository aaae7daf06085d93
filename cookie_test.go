package xs2a

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// cookieRT answers 503 and then 200 with an accounts list, recording the
// Cookie header of each attempt.
type cookieRT struct {
	mu      sync.Mutex
	cookies []string
}

func (rt *cookieRT) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	n := len(rt.cookies)
	rt.cookies = append(rt.cookies, r.Header.Get("Cookie"))
	rt.mu.Unlock()
	status, body := http.StatusServiceUnavailable, `{}`
	if n > 0 {
		status, body = http.StatusOK, `{"accounts":[]}`
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

// TestRetrySendsTheJarsCookiesOnce: with a cookie jar, whose cookies
// http.Client adds to a request's header, a retry sends the header the
// first attempt sent, not that plus the cookies again.
func TestRetrySendsTheJarsCookiesOnce(t *testing.T) {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse("https://bank.example/api/")
	jar.SetCookies(u, []*http.Cookie{{Name: "lb", Value: "node1", Path: "/"}})
	rt := &cookieRT{}
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"),
		WithHTTPClient(&http.Client{Transport: rt, Jar: jar}),
		WithRetry(RetryPolicy{MaxAttempts: 3, Methods: []string{http.MethodGet}}))
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(context.Context, time.Duration) error { return nil }
	_, _, err = c.Accounts.List(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.cookies) != 2 || rt.cookies[0] != rt.cookies[1] {
		t.Fatalf("Cookie per attempt: %q", rt.cookies)
	}
}
