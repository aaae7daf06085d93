package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// stateParam is the query parameter of the redirect URI that carries the
// state the command generated for its SCA. ParseCallback ignores it
// (docs/interface.md CB3: the TPP's own parameters are ignored).
const stateParam = "state"

// callback listens on the redirect URI's port for the bank's redirect after
// the one SCA a run of the command starts. It takes only that SCA's
// callback: a GET on the redirect URI's path whose state is the one this
// listener generated and put into the redirect URI the bank was given, and
// whose tpp-session-id is the TPP-Session-ID of the request that started the
// SCA (see sessionMatches). It takes it once. Anything else (a forged
// callback, another site's page making the browser send one, a replay)
// gets a short fixed error page and the command goes on waiting.
type callback struct {
	path  string // the redirect URI's path
	state string // random; in the redirect URI the bank was given
	ru    url.URL

	mu      sync.Mutex
	armed   bool   // an SCA is under way (expect was called)
	session string // its TPP-Session-ID
	taken   bool   // its callback arrived

	got   chan *url.URL // cap 1; receives the one callback taken
	close func()
}

// listenCallback listens on the host and port of redirectURI (port 0: a
// free one) and returns the redirect URI to give the bank: the one given,
// with the port it listens on and a new random state in its query.
func listenCallback(redirectURI string) (*callback, string, error) {
	ru, err := url.Parse(redirectURI)
	if err != nil || ru.Scheme != "http" || ru.Hostname() == "" {
		return nil, "", usagef("-redirect-uri %q: want http://HOST:PORT/PATH on this machine", redirectURI)
	}
	if ru.Query().Has(stateParam) {
		return nil, "", usagef("-redirect-uri %q: its query must not hold %q: the command adds its own", redirectURI, stateParam)
	}
	port := ru.Port()
	if port == "" {
		port = "80"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ru.Hostname(), port))
	if err != nil {
		return nil, "", fmt.Errorf("listening for the SCA callback on %s: %w", ru.Host, err)
	}
	ru.Host = net.JoinHostPort(ru.Hostname(), fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	cb := &callback{path: ru.Path, state: rand.Text(), ru: *ru, got: make(chan *url.URL, 1)}
	if cb.path == "" {
		cb.path = "/"
	}
	with := *ru
	if with.RawQuery != "" {
		with.RawQuery += "&"
	}
	with.RawQuery += stateParam + "=" + cb.state
	srv := &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	cb.close = func() { srv.Close() }
	return cb, with.String(), nil
}

// expect arms the listener for the SCA that the request with TPP-Session-ID
// session started; until then no callback is taken.
func (cb *callback) expect(session string) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.armed, cb.session = true, session
}

// ServeHTTP answers the redirect URI. Every answer is a fixed text that
// repeats nothing of the request, and is neither cached nor referred. The
// callback taken is handed to wait only once its page is written, so that
// the browser gets it even when the command then ends at once.
func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status, text, u := cb.take(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(text)+1))
	if status == http.StatusMethodNotAllowed {
		h.Set("Allow", http.MethodGet)
	}
	w.WriteHeader(status)
	io.WriteString(w, text+"\n")
	if u != nil {
		http.NewResponseController(w).Flush()
		cb.got <- u // cap 1, and taken only once
	}
}

// take decides on a request to the listener: the status and text of the
// answer, and the callback URL when it is the one expected.
func (cb *callback) take(r *http.Request) (int, string, *url.URL) {
	const notOurs = "Refused: this is not the callback of the SCA the xs2a command started."
	// The path is compared, not given to a ServeMux: a path such as
	// "/cb{x}" or "/a b" is no valid ServeMux pattern.
	switch {
	case r.URL.Path != cb.path:
		return http.StatusNotFound, "Not found.", nil
	case r.Method != http.MethodGet:
		return http.StatusMethodNotAllowed, "Method not allowed.", nil
	case crossSite(r.Header):
		return http.StatusForbidden, "Refused: another site's page sent this request.", nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(q[stateParam]) != 1 || !equal(q.Get(stateParam), cb.state) {
		return http.StatusForbidden, notOurs, nil
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch {
	case !cb.armed:
		return http.StatusConflict, "Refused: the xs2a command is not waiting for an SCA.", nil
	case cb.taken:
		return http.StatusConflict, "Refused: this SCA's callback was already used.", nil
	case !cb.sessionMatches(q):
		return http.StatusForbidden, notOurs, nil
	}
	cb.taken = true
	u := cb.ru
	u.RawQuery = r.URL.RawQuery
	return http.StatusOK, "Done: you can close this window and return to the terminal.", &u
}

// sessionMatches reports whether the tpp-session-id of q is the session
// the SCA started with. A success (with psu-id) must carry it; a failure
// may carry none, since docs/interface.md CB2 lists no tpp-session-id among
// a failure's parameters (the state still ties it to this SCA).
func (cb *callback) sessionMatches(q url.Values) bool {
	ids := q["tpp-session-id"]
	switch {
	case len(ids) > 1:
		return false
	case len(ids) == 1 && ids[0] != "":
		return equal(ids[0], cb.session)
	default:
		return cb.session == "" || q.Get("psu-id") == ""
	}
}

// crossSite reports a request that another site's page made the browser
// send, by its fetch metadata or Origin, unless it is a top-level
// navigation. The bank's redirect is itself a cross-site top-level
// navigation (a browser sends Sec-Fetch-Site: cross-site with it), so a
// navigation is not refused here: the state refuses a forged one. What is
// refused is any other request from another site (an image, a frame, a
// fetch, a form post), and an Origin outside a navigation.
func crossSite(h http.Header) bool {
	navigation := h.Get("Sec-Fetch-Mode") == "navigate" && h.Get("Sec-Fetch-Dest") == "document"
	if navigation {
		return false
	}
	if _, ok := h["Origin"]; ok {
		return true
	}
	switch h.Get("Sec-Fetch-Site") {
	case "", "none", "same-origin":
		return false
	}
	return true
}

// equal compares a and b in time that does not depend on where they differ.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// wait returns the callback taken, or an error when ctx ends first.
func (cb *callback) wait(ctx context.Context) (*url.URL, error) {
	select {
	case u := <-cb.got:
		return u, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no SCA callback arrived: %w", ctx.Err())
	}
}

// listening is the redirect URI the listener serves, without the state.
func (cb *callback) listening() string { return cb.ru.String() }
