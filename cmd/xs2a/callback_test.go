package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// answer is what the callback listener answered a request.
type answer struct {
	status int
	body   string
}

// taken is nil when a is the answer to a callback the listener took; an
// error otherwise, which ends the command instead of letting it wait.
func (a answer) taken() error {
	if a.status != http.StatusOK {
		return fmt.Errorf("the real callback was refused: %d %s", a.status, a.body)
	}
	return nil
}

// visit sends a request to the callback listener as a browser (or a page
// another site serves) would: method, URL and headers.
func visit(method, u string, h http.Header) (answer, error) {
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		return answer{}, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b)}, err
}

// withQuery is u with the query parameter k set to vs (none: removed).
func withQuery(u *url.URL, k string, vs ...string) string {
	q := u.Query()
	delete(q, k)
	if len(vs) > 0 {
		q[k] = vs
	}
	v := *u
	v.RawQuery = q.Encode()
	return v.String()
}

// runSCA runs `xs2a accounts` against srv as a real bank (-base-url
// baseURL; srv.URL() when empty), listening for the callback on a free
// port. browse plays the customer's browser: it gets the callback URL the
// bank redirected to after the SCA (opts steer it) and sends requests to
// the listener; an error it returns ends the command.
func runSCA(t *testing.T, srv *xs2atest.Server, baseURL string, browse func(cb *url.URL) error, opts ...xs2atest.SCAOption) (int, string, string) {
	t.Helper()
	c := ecCerts(t)
	if baseURL == "" {
		baseURL = srv.URL()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var opened atomic.Bool
	setup := func(e *env) {
		e.open = func(href string) error {
			opened.Store(true)
			go func() {
				u, err := srv.CompleteSCA(context.Background(), href, xs2atest.PrivateCustomer1, opts...)
				if err == nil {
					err = browse(u)
				}
				if err != nil {
					cancel()
				}
				done <- err
			}()
			return nil
		}
	}
	code, stdout, stderr := runCmdContext(t, ctx, setup, "accounts", "-cert", c.cert, "-key", c.key,
		"-base-url", baseURL, "-redirect-uri", "http://127.0.0.1:0/callback", "-open")
	require.True(t, opened.Load(), "the command never showed the SCA page: %s", stderr)
	require.NoError(t, <-done)
	return code, stdout, stderr
}

// TestCallbackTakesOnlyItsSCA: the listener acts only on the callback of
// the SCA the command started: its state and its tpp-session-id, by a GET
// that is no other site's subresource or script request. A forged or
// cross-site request first gets an error page that repeats nothing of it,
// and the command goes on waiting and completes with the real callback.
func TestCallbackTakesOnlyItsSCA(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	// browser is what a browser sends on the bank's redirect: a cross-site
	// top-level navigation.
	browser := http.Header{"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"navigate"},
		"Sec-Fetch-Dest": {"document"}, "Sec-Fetch-User": {"?1"}}
	type try struct {
		method string
		url    func(real *url.URL) string
		header http.Header
		status int
	}
	realURL := func(real *url.URL) string { return real.String() }
	for _, tc := range []struct {
		name  string
		tries []try
		real  http.Header // the real callback's headers
	}{
		{"real callback as a browser sends it", nil, browser},
		{"no state", []try{{"GET", func(u *url.URL) string { return withQuery(u, "state") }, nil, 403}}, nil},
		{"wrong state", []try{{"GET", func(u *url.URL) string { return withQuery(u, "state", rand.Text()) }, browser, 403}}, nil},
		{"state twice", []try{{"GET", func(u *url.URL) string { return withQuery(u, "state", u.Query().Get("state"), "x") }, nil, 403}}, nil},
		{"login CSRF: another psu-id, no state", []try{{"GET", func(u *url.URL) string {
			return withQuery(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawQuery: "context=PRIVATE&tpp-session-id=" + u.Query().Get("tpp-session-id")}, "psu-id", attackerUUID)
		}, browser, 403}}, nil},
		{"forged failure, no state", []try{{"GET", func(u *url.URL) string {
			return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawQuery: "status=401&code=SCA_INVALID&message=x"}).String()
		}, nil, 403}}, nil},
		{"wrong session", []try{{"GET", func(u *url.URL) string { return withQuery(u, "tpp-session-id", xs2a.NewSessionID()) }, nil, 403}}, nil},
		{"success without session", []try{{"GET", func(u *url.URL) string { return withQuery(u, "tpp-session-id") }, nil, 403}}, nil},
		{"session twice", []try{{"GET", func(u *url.URL) string {
			return withQuery(u, "tpp-session-id", u.Query().Get("tpp-session-id"), u.Query().Get("tpp-session-id"))
		}, nil, 403}}, nil},
		{"another path", []try{{"GET", func(u *url.URL) string { v := *u; v.Path += "x"; return v.String() }, nil, 404}}, nil},
		{"POST", []try{{"POST", realURL, nil, 405}}, nil},
		{"cross-site image", []try{{"GET", realURL, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"no-cors"}, "Sec-Fetch-Dest": {"image"}}, 403}}, nil},
		{"cross-site frame", []try{{"GET", realURL, http.Header{"Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"navigate"}, "Sec-Fetch-Dest": {"iframe"}}, 403}}, nil},
		{"same-site fetch", []try{{"GET", realURL, http.Header{"Sec-Fetch-Site": {"same-site"}, "Sec-Fetch-Mode": {"cors"}, "Sec-Fetch-Dest": {"empty"}}, 403}}, nil},
		{"fetch with Origin", []try{{"GET", realURL, http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}, "Sec-Fetch-Mode": {"cors"}, "Sec-Fetch-Dest": {"empty"}}, 403}}, nil},
		{"Origin, no fetch metadata", []try{{"GET", realURL, http.Header{"Origin": {"null"}}, 403}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runSCA(t, srv, "", func(real *url.URL) error {
				for _, tr := range tc.tries {
					u := tr.url(real)
					a, err := visit(tr.method, u, tr.header)
					if err != nil {
						return err
					}
					assert.Equal(t, tr.status, a.status, "%s %s", tr.method, u)
					assert.Less(t, len(a.body), 100, "a short text")
					for _, vs := range real.Query() {
						assert.NotContains(t, a.body, vs[0], "the answer repeats nothing of the request")
					}
					assert.NotContains(t, a.body, "evil")
				}
				a, err := visit("GET", real.String(), tc.real)
				if err != nil {
					return err
				}
				return a.taken()
			})
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "Brukskonto", "the real callback's customer")
		})
	}
}

// TestCallbackReplay: a callback that was taken is not taken again; a
// replay while the command still runs gets an error page.
func TestCallbackReplay(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	// gate holds the command's requests with a PSU-ID (those after the
	// callback was taken) until the replay was answered.
	gate := make(chan struct{})
	root, err := url.Parse(strings.TrimSuffix(srv.URL(), "/api"))
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(root)
	proxy.Transport = srv.HTTPClient().Transport
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PSU-ID") != "" {
			<-gate
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	code, stdout, stderr := runSCA(t, srv, front.URL+"/api", func(real *url.URL) error {
		defer close(gate)
		first, err := visit("GET", real.String(), nil)
		if err != nil {
			return err
		}
		if err := first.taken(); err != nil {
			return err
		}
		again, err := visit("GET", real.String(), nil)
		if err != nil {
			return err
		}
		assert.Equal(t, http.StatusConflict, again.status, again.body)
		assert.Contains(t, again.body, "already used")
		return nil
	})
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Brukskonto")
}

// TestCallbackFailure: a failed SCA's redirect carries no tpp-session-id
// (docs/interface.md CB2); with the state it is taken, and the command
// reports the failure.
func TestCallbackFailure(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	code, _, stderr := runSCA(t, srv, "", func(real *url.URL) error {
		if real.Query().Has("tpp-session-id") || !real.Query().Has("state") {
			t.Errorf("the fake bank's failure redirect: %s", real.RawQuery)
		}
		a, err := visit("GET", real.String(), nil)
		if err != nil {
			return err
		}
		return a.taken()
	}, xs2atest.Cancel())
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "SCA did not succeed: xs2a: SCA failed: 401 SCA_INVALID")
}

// TestCallbackBeforeSCA: before the command starts an SCA, its listener
// takes nothing, even with the state; a redirect URI that holds a state
// of its own is refused.
func TestCallbackBeforeSCA(t *testing.T) {
	t.Parallel()
	cb, redirectURI, err := listenCallback("http://127.0.0.1:0/cb?tpp=1")
	require.NoError(t, err)
	defer cb.close()
	u, err := url.Parse(redirectURI)
	require.NoError(t, err)
	assert.Equal(t, "1", u.Query().Get("tpp"), "the redirect URI's own query stays")
	assert.Len(t, u.Query().Get("state"), 26, "128 random bits")
	assert.NotContains(t, cb.listening(), "state", "the state is not shown")
	a, err := visit("GET", redirectURI+"&psu-id="+attackerUUID+"&context=PRIVATE&tpp-session-id=", nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusConflict, a.status)
	select {
	case <-cb.got:
		t.Fatal("a callback was taken before any SCA")
	default:
	}

	other, _, err := listenCallback("http://127.0.0.1:0/cb")
	require.NoError(t, err)
	defer other.close()
	assert.NotEqual(t, cb.state, other.state, "a new state for every listener")

	_, _, err = listenCallback("http://127.0.0.1:0/cb?state=mine")
	var ue *usageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.Error(), "must not hold")
}

// attackerUUID is a well-formed psu-id that is not the customer's.
const attackerUUID = "3f0c2a8e-5b1d-4c7e-9a2f-6d8b1e4c7a90"

// FuzzCallbackTake: whatever query and fetch metadata a request brings, the
// listener takes it only with the state and the session of its SCA, by a
// GET that is no other site's subresource, and answers one of its fixed
// texts.
func FuzzCallbackTake(f *testing.F) {
	const state, session = "STATESTATESTATESTATESTATE2", "5d1f0e36-2f3c-4a55-8b0e-3b8f8e1f0a11"
	f.Add("GET", "state="+state+"&psu-id="+attackerUUID+"&tpp-session-id="+session+"&context=PRIVATE", "", "")
	f.Add("GET", "state="+state+"&status=401&code=SCA_INVALID", "cross-site", "navigate")
	f.Add("GET", "state="+state+"&state="+state+"&psu-id=x", "same-site", "no-cors")
	f.Add("POST", "state=%zz&tpp-session-id="+session, "none", "cors")
	f.Fuzz(func(t *testing.T, method, rawQuery, site, mode string) {
		cb := &callback{path: "/cb", state: state, got: make(chan *url.URL, 1)}
		cb.expect(session)
		r := &http.Request{Method: method, URL: &url.URL{Path: "/cb", RawQuery: rawQuery},
			Header: http.Header{"Sec-Fetch-Site": {site}, "Sec-Fetch-Mode": {mode}, "Sec-Fetch-Dest": {"document"}}}
		status, text, u := cb.take(r)
		assert.Less(t, len(text), 100)
		if len(rawQuery) >= 8 {
			assert.NotContains(t, text, rawQuery, "a fixed text, not the request's")
		}
		if u == nil {
			assert.NotEqual(t, http.StatusOK, status)
			return
		}
		q, err := url.ParseQuery(rawQuery)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, status)
		assert.Equal(t, http.MethodGet, method)
		assert.Equal(t, []string{state}, q["state"])
		assert.False(t, mode != "navigate" && site != "" && site != "none" && site != "same-origin", "site %q mode %q", site, mode)
		if q.Get("psu-id") != "" {
			assert.Equal(t, []string{session}, q["tpp-session-id"])
		} else {
			assert.Contains(t, []string{"", session}, q.Get("tpp-session-id"))
		}
		assert.Equal(t, rawQuery, u.RawQuery)
		_, _, again := cb.take(r)
		assert.Nil(t, again, "taken once")
	})
}
