package xs2a

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Plain http only for loopback, decided once: the host that parseBaseURL
// accepts in plain http is the host whose requests never go through a
// proxy, in any spelling.

// recordingProxy is a forward proxy that records the requests it gets and
// answers them itself.
func recordingProxy(t *testing.T) (*url.URL, *atomic.Int64) {
	t.Helper()
	var got atomic.Int64
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"accounts":[]}`))
	}))
	t.Cleanup(p.Close)
	u, err := url.Parse(p.URL)
	require.NoError(t, err)
	return u, &got
}

// TestLoopbackDecidedOnce: for every spelling of a host, plain http is
// accepted exactly when the transports NewClient builds or adapts have no
// proxy: its own (which would otherwise take the environment's, and
// http.ProxyFromEnvironment proxies "LOCALHOST") and a caller's
// *http.Transport with a proxy, which is kept for a bank elsewhere.
func TestLoopbackDecidedOnce(t *testing.T) {
	t.Parallel()
	proxy, _ := recordingProxy(t)
	for _, host := range []string{"localhost", "LOCALHOST", "LocalHost", "127.0.0.1", "127.0.0.9", "[::1]", "[::ffff:127.0.0.1]",
		"localhost.", "127.1", "0.0.0.0", "bank.example", "localhost.bank.example", "[::2]"} {
		_, err := parseBaseURL("http://" + host + ":8080/api")
		plain := err == nil
		for _, scheme := range []string{"http", "https"} {
			base := scheme + "://" + host + ":8080/api"
			if scheme == "http" && !plain {
				continue
			}
			for name, opts := range map[string][]Option{
				"its own transport":                       nil,
				"a caller's *http.Transport with a proxy": {WithHTTPClient(&http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}})},
			} {
				c, err := NewClient(base, testSigner(t), append(opts, WithRedirectURI(testRedirectURI))...)
				require.NoError(t, err, base)
				tr, ok := c.transport.Base.(*http.Transport)
				require.True(t, ok)
				assert.Equal(t, plain, tr.Proxy == nil, "%s, %s: plain http accepted %v, so no proxy", base, name, plain)
				assert.True(t, c.transport.direct)
			}
		}
	}
}

// TestLoopbackBaseNeverThroughAProxy: a Client for a loopback bank, given
// an http.Client whose transport sends everything through a proxy, reaches
// the bank straight, in every spelling of the host; a caller's
// RoundTripper the SDK cannot adapt, or a Transport on its own over a
// transport with a proxy, is refused before anything is written. The proxy
// never gets a request.
func TestLoopbackBaseNeverThroughAProxy(t *testing.T) {
	t.Parallel()
	proxy, proxied := recordingProxy(t)
	bank := &testBank{fn: answer(http.StatusOK, "application/json", `{"accounts":[]}`)}
	srv := httptest.NewServer(bank)
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":"):]
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.1"}
	viaProxy := func() *http.Transport {
		tr := &http.Transport{Proxy: http.ProxyURL(proxy)}
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}
	for _, host := range []string{"LOCALHOST", "localhost", "LocalHost", "127.0.0.1"} {
		base := "http://" + host + port + testBasePath
		c, err := NewClient(base, testSigner(t), WithRedirectURI(testRedirectURI), WithHTTPClient(&http.Client{Transport: viaProxy()}))
		require.NoError(t, err)
		before := bank.count()
		_, _, err = c.Accounts.List(context.Background(), psu)
		require.NoError(t, err, base)
		assert.Equal(t, before+1, bank.count(), "%s: straight to the bank", base)

		before = bank.count()
		c, err = NewClient(base, testSigner(t), WithRedirectURI(testRedirectURI), WithHTTPClient(&http.Client{Transport: wrappedRT{viaProxy()}}))
		require.NoError(t, err)
		fakeSleep(c)
		_, _, err = c.Accounts.List(context.Background(), psu)
		require.Error(t, err, base)
		assert.Contains(t, err.Error(), "xs2a: refused to send in plain http other than straight to a loopback address")

		hc := &http.Client{Transport: &Transport{Base: viaProxy(), Signer: testSigner(t), RedirectURI: testRedirectURI}}
		req, err := http.NewRequest(http.MethodPost, base+"/v1/consents", strings.NewReader(`{}`))
		require.NoError(t, err)
		req.Header.Set("PSU-ID", testPSUID)
		_, err = hc.Do(req)
		require.Error(t, err, base)
		var refused *connRefusedError
		assert.ErrorAs(t, err, &refused)
		assert.Equal(t, before, bank.count(), "%s: nothing reached the bank through the proxy", base)
	}
	assert.Zero(t, proxied.Load(), "a request to a loopback bank went through the proxy")
}

// TestPlainHTTPOnlyStraightToLoopback: a Transport on its own does not
// write a request in plain http on a connection to anything but the
// loopback host and port of its URL.
func TestPlainHTTPOnlyStraightToLoopback(t *testing.T) {
	t.Parallel()
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		return u
	}
	for _, tt := range []struct {
		url, remote string
		ok          bool
	}{
		{"http://127.0.0.1:8080/x", "127.0.0.1:8080", true},
		{"http://LOCALHOST:8080/x", "127.0.0.1:8080", true},
		{"http://localhost:8080/x", "[::1]:8080", true},
		{"http://localhost/x", "127.0.0.1:80", true},
		{"http://[::1]:8080/x", "[::1]:8080", true},
		{"http://localhost:8080/x", "127.0.0.1:3128", false}, // a proxy on loopback
		{"http://127.0.0.1:8080/x", "127.0.0.2:8080", false},
		{"http://localhost:8080/x", "192.0.2.1:8080", false},
		{"http://bank.example:8080/x", "192.0.2.1:8080", false},
		{"http://bank.example:8080/x", "127.0.0.1:8080", false},
		{"http://localhost:8080/x", "pipe", false},
	} {
		assert.Equal(t, tt.ok, directToLoopback(fakeAddr(tt.remote), parse(tt.url)), "%s on %s", tt.url, tt.remote)
	}
}

type fakeAddr string

func (fakeAddr) Network() string  { return "tcp" }
func (a fakeAddr) String() string { return string(a) }
