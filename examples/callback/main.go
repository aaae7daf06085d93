// Command callback shows the TPP's side of SCA by redirect: a small web
// backend that sends the PSU's browser to the bank, receives the browser back
// on its TPP-Redirect-URI, stores the psu-id, and uses it for the next call.
//
// The backend is an ordinary http.Handler:
//
//   - GET /xs2a/callback is SessionManager.CallbackHandler. The SCA's state
//     (the xs2a-state parameter the SDK added to the TPP-Redirect-URI) names
//     the TPP's user and the purpose, on success and on failure alike; the
//     manager has already completed or dropped the session. On success the
//     backend stores the psu-id for that user in a tiny in-memory store; on
//     failure (the bank's status, code and message: an *xs2a.SCAFailedError)
//     the earlier session stays valid (docs/interface.md, "Consent and SCA
//     session"). Either way it redirects the browser to a page without the
//     query, which holds the psu-id.
//   - GET /accounts lists the PSU's accounts with xs2a.CallPresent: the
//     active session, or a new one when the bank asks for SCA, whose
//     scaRedirect the browser is sent to.
//   - GET /consent asks for new consent under a new session (Begin, then
//     POST /v1/consents) and redirects the browser to the bank.
//
// The TPP knows its own user by its own login cookie, never by the psu-id
// (which arrives only with the first callback); the callback checks that a
// logged-in browser is the user the SCA was begun for.
//
// The program starts the backend on a loopback port, sets the client's
// redirect URI to it, and plays the PSU's browser: it follows the backend's
// redirects, walks the embedded fake bank's SCA pages (xs2atest's
// CompleteSCA), and then GETs the callback URL from the backend as the
// browser would. A second SCA is cancelled at the bank (xs2atest.Cancel) to
// show the failure reaching the callback with its user and purpose.
//
//	go run ./examples/callback
//
// No certificate and no network are needed; the program exits non-zero when
// a step does not go as described.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "callback:", err)
		os.Exit(1)
	}
}

// userCookie names the TPP's own login cookie. A real TPP signs or encrypts
// its session cookie; the example keeps the user name in clear.
const userCookie = "tpp-user"

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("callback", flag.ContinueOnError)
	fs.SetOutput(out)
	customer := fs.String("customer", xs2atest.PrivateCustomer1, "national id the fake bank's customer logs in with")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	p := &printer{w: out}

	bank, err := xs2atest.Start()
	if err != nil {
		return err
	}
	defer bank.Close()
	site, b, stop, err := startBackend(bank, p)
	if err != nil {
		return err
	}
	defer stop()

	br, err := newBrowser(site, "alice", p)
	if err != nil {
		return err
	}
	psu := &psuBrowser{browser: br, bank: bank, customer: *customer, p: p}
	if err := playSteps(ctx, psu, site); err != nil {
		return err
	}
	p.heading("Done: %d successful and %d failed callback(s) handled", b.successes(), b.failures())
	return nil
}

// startBackend starts the TPP's backend on a loopback port, with a client
// of the fake bank whose TPP-Redirect-URI is the backend's callback path.
// stop shuts both down.
func startBackend(bank *xs2atest.Server, p *printer) (site string, b *backend, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	site = "http://" + ln.Addr().String()
	redirectURI := site + "/xs2a/callback"

	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		ln.Close()
		return "", nil, nil, err
	}
	hc := bank.HTTPClient()
	hc.Transport = &transcript{base: hc.Transport, p: p}
	client, err := bank.Client(signer, xs2a.WithHTTPClient(hc), xs2a.WithRedirectURI(redirectURI))
	if err != nil {
		ln.Close()
		return "", nil, nil, err
	}

	b = newBackend(client, p)
	server := &http.Server{Handler: b.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go server.Serve(ln)

	p.say("xs2a callback: the fake bank at %s, the TPP backend at %s", bank.URL(), site)
	p.say("TPP-Redirect-URI: %s", redirectURI)
	return site, b, func() { server.Close(); client.Close() }, nil
}

// playSteps plays Alice's visits to the backend and checks each page.
func playSteps(ctx context.Context, psu *psuBrowser, site string) error {
	steps := []struct {
		heading, path, what string
		opts                []xs2atest.SCAOption
		want                string // the page starts with it
	}{
		{"1. Alice (logged in to the TPP) opens her accounts; the TPP has no psu-id for her yet",
			"/accounts", "signs in and ticks the accounts to share", nil, "2 accounts"},
		{"2. Later: the next call uses the stored psu-id and the active session, no SCA",
			"/accounts", "", nil, "2 accounts"},
		{"3. Alice asks to renew her consent under a new session, and cancels the SCA at the bank",
			"/consent", "presses Cancel on the bank's page", []xs2atest.SCAOption{xs2atest.Cancel()}, "SCA failed"},
		{"4. The aborted SCA left the earlier session valid: the accounts still load without SCA",
			"/accounts", "", nil, "2 accounts"},
	}
	for _, s := range steps {
		psu.p.heading("%s", s.heading)
		page, err := psu.visit(ctx, site+s.path, s.what, s.opts...)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(page, s.want) {
			return fmt.Errorf("the page %s says %q, want %q", s.path, page, s.want)
		}
	}
	return nil
}

// ---- the TPP's backend ----

// backend is the TPP's web backend: the SCA callback, two pages that call
// the bank, a SessionManager for TPP-Session-IDs and SCAs, and a store for
// psu-ids.
type backend struct {
	client   *xs2a.Client
	sessions *xs2a.SessionManager
	psuIDs   *psuStore
	p        *printer

	mu                  sync.Mutex
	succeeded, rejected int
}

func newBackend(client *xs2a.Client, p *printer) *backend {
	return &backend{client: client, sessions: xs2a.NewSessionManager(nil, nil), psuIDs: newPSUStore(), p: p}
}

// Handler routes the backend's pages.
func (b *backend) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/xs2a/callback", b.sessions.CallbackHandler(b.onCallback))
	mux.HandleFunc("GET /accounts", b.accountsPage)
	mux.HandleFunc("GET /consent", b.consentPage)
	mux.HandleFunc("GET /sca-failed", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "SCA failed or was cancelled: nothing changed, your earlier access stays as it was.\n")
	})
	return mux
}

// onCallback: the bank sent the browser back. The SCA's state names the
// TPP's user and the purpose, after a success or a failure alike; the
// SessionManager has already completed or dropped the session it began.
func (b *backend) onCallback(w http.ResponseWriter, r *http.Request, res *xs2a.SCAResult, err error) {
	var failure *xs2a.SCAFailedError
	switch {
	case res == nil: // forged, replayed, expired, or no callback at all: never act on it
		b.p.backend("invalid callback: %v", err)
		http.Error(w, "unknown or outdated SCA callback", http.StatusBadRequest)
		return
	case errors.As(err, &failure): // the user needs not be logged in to learn of it
		b.p.backend("SCA for %s (%s) failed: status=%d code=%s message=%q; the earlier session stays valid",
			res.User, res.Purpose, failure.Status, failure.Code, failure.Message)
		b.count(false)
		http.Redirect(w, r, "/sca-failed", http.StatusSeeOther)
		return
	case err != nil:
		b.p.backend("SCA for %s (%s): %v", res.User, res.Purpose, err)
		http.Error(w, "outdated SCA: please start again", http.StatusBadRequest)
		return
	case userOf(r) != res.User: // a psu-id only for the browser that began the SCA (login CSRF)
		http.Error(w, "this SCA was started in another browser or by another user", http.StatusForbidden)
		return
	}
	cb := res.Callback
	b.psuIDs.put(res.User, storedPSU{ID: cb.PSUID, CorporateID: cb.PSUCorporateID})
	b.count(true)
	b.p.backend("SCA for %s (%s) completed (context %s): session active, psu-id %s… stored",
		res.User, res.Purpose, cb.Context, cb.PSUID[:8])
	http.Redirect(w, r, "/accounts", http.StatusSeeOther) // drop the query: it holds the psu-id
}

// accountsPage lists the accounts with the stored psu-id, with the customer
// present; when the bank asks for SCA it sends the browser there.
func (b *backend) accountsPage(w http.ResponseWriter, r *http.Request) {
	user := userOf(r)
	if user == "" {
		http.Error(w, "please log in", http.StatusUnauthorized)
		return
	}
	ctx := r.Context()
	stored := b.psuIDs.get(user)
	psu := xs2a.PSU{ID: stored.ID, CorporateID: stored.CorporateID, IPAddress: clientIP(r)}
	b.p.backend("%s: listing accounts with the customer present (psu-id stored: %v)", user, stored.ID != "")
	accounts, sca, err := xs2a.CallPresent(ctx, b.sessions, user, "accounts", psu,
		func(psu xs2a.PSU) ([]xs2a.Account, *xs2a.Response, error) { return b.client.Accounts.List(ctx, psu) })
	switch {
	case err != nil:
		b.p.backend("%s: %v", user, err)
		http.Error(w, "the bank could not be reached", http.StatusBadGateway)
	case sca != nil:
		http.Redirect(w, r, sca.Href, http.StatusSeeOther)
	default:
		fmt.Fprintf(w, "%d accounts:", len(accounts))
		for _, a := range accounts {
			fmt.Fprintf(w, " %s", a.BBAN)
		}
		io.WriteString(w, "\n")
	}
}

// consentPage asks for new consent under a new TPP-Session-ID.
func (b *backend) consentPage(w http.ResponseWriter, r *http.Request) {
	user := userOf(r)
	if user == "" {
		http.Error(w, "please log in", http.StatusUnauthorized)
		return
	}
	start, err := b.sessions.Begin(r.Context(), user, "consent")
	if err != nil {
		http.Error(w, "session store unavailable", http.StatusInternalServerError)
		return
	}
	stored := b.psuIDs.get(user)
	psu := start.PSU(xs2a.PSU{ID: stored.ID, CorporateID: stored.CorporateID, IPAddress: clientIP(r)})
	b.p.backend("%s: new session for a new consent; the active one stays valid until its SCA completes", user)
	links, _, err := b.client.Consents.Create(r.Context(), psu)
	if err != nil {
		b.p.backend("%s: %v", user, err)
		http.Error(w, "the bank could not be reached", http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, links.Links.SCARedirect.Href, http.StatusSeeOther)
}

func (b *backend) count(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		b.succeeded++
	} else {
		b.rejected++
	}
}

func (b *backend) successes() int { b.mu.Lock(); defer b.mu.Unlock(); return b.succeeded }
func (b *backend) failures() int  { b.mu.Lock(); defer b.mu.Unlock(); return b.rejected }

// userOf is the TPP's own user, from its login cookie.
func userOf(r *http.Request) string {
	c, err := r.Cookie(userCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// clientIP is the PSU's device address for PSU-IP-Address: the PSU is
// present while the browser is on the TPP's page.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return ""
	}
	return host
}

// storedPSU is what the TPP persists per user after SCA.
type storedPSU struct{ ID, CorporateID string }

// psuStore is a tiny in-memory store of psu-ids by the TPP's user. A real TPP
// keeps them in its database: the psu-id is stable for this TPP and bank.
type psuStore struct {
	mu sync.Mutex
	m  map[string]storedPSU
}

func newPSUStore() *psuStore { return &psuStore{m: map[string]storedPSU{}} }

func (s *psuStore) put(user string, p storedPSU) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[user] = p
}

func (s *psuStore) get(user string) storedPSU {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[user]
}

// ---- the PSU's browser ----

// browser is the PSU's browser on the TPP's site: it keeps the TPP's login
// cookie and does not follow redirects on its own, so each step shows.
type browser struct {
	hc   *http.Client
	site *url.URL
	p    *printer
}

func newBrowser(site, user string, p *printer) (*browser, error) {
	u, err := url.Parse(site)
	if err != nil {
		return nil, err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	jar.SetCookies(u, []*http.Cookie{{Name: userCookie, Value: user, Path: "/"}}) // logged in to the TPP
	return &browser{
		hc: &http.Client{
			Jar:           jar,
			Timeout:       10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		site: u,
		p:    p,
	}, nil
}

// get loads a page of the TPP's site and returns the redirect target (if
// any) and the body's first line.
func (b *browser) get(ctx context.Context, target string) (location, body string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", "", err
	}
	u := *req.URL
	if q := u.Query(); q.Has("xs2a-state") {
		u.RawQuery = "xs2a-state=…&" + strings.Join(otherParams(q), "&")
	}
	b.p.say("  browser → GET %s", u.RequestURI())
	resp, err := b.hc.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", "", err
	}
	body, _, _ = strings.Cut(string(raw), "\n")
	switch {
	case resp.StatusCode == http.StatusSeeOther:
		location = resp.Header.Get("Location")
		var shown string
		if strings.HasPrefix(location, "/") || strings.HasPrefix(location, b.site.String()) {
			shown = strings.TrimPrefix(location, b.site.String())
		} else {
			shown = "the bank's SCA page"
		}
		extra := ""
		if cc := resp.Header.Get("Cache-Control"); cc != "" {
			extra = fmt.Sprintf("  (Cache-Control: %s, Referrer-Policy: %s)", cc, resp.Header.Get("Referrer-Policy"))
		}
		b.p.say("  browser ← %d %s → %s%s", resp.StatusCode, http.StatusText(resp.StatusCode), shown, extra)
		if loc, err := req.URL.Parse(location); err == nil {
			location = loc.String()
		}
	case resp.StatusCode >= 400:
		b.p.say("  browser ← %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), body)
		return "", body, fmt.Errorf("the TPP's page %s answered %d: %s", req.URL.Path, resp.StatusCode, body)
	default:
		b.p.say("  browser ← %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), body)
	}
	return location, body, nil
}

func otherParams(q url.Values) []string {
	var out []string
	for _, k := range []string{"psu-id", "context", "tpp-session-id", "psu-corporate-id", "status", "code", "message"} {
		if q.Has(k) {
			v := q.Get(k)
			switch {
			case k == "psu-id":
				v = "…"
			case k == "tpp-session-id" && len(v) > 8:
				v = v[:8] + "…"
			}
			out = append(out, k+"="+v) // shown as the browser's address bar would
		}
	}
	return out
}

// psuBrowser is the PSU at the browser: it follows the TPP's redirects, and
// completes SCA on the fake bank's pages when sent there.
type psuBrowser struct {
	*browser
	bank     *xs2atest.Server
	customer string
	p        *printer
}

// visit opens target and follows redirects until a page shows. At the bank
// the PSU does what says (with opts).
func (b *psuBrowser) visit(ctx context.Context, target, what string, opts ...xs2atest.SCAOption) (string, error) {
	for range 6 {
		location, body, err := b.get(ctx, target)
		if err != nil {
			return "", err
		}
		if location == "" {
			return body, nil
		}
		if strings.HasPrefix(location, b.bank.URL()+"/") {
			if what == "" {
				return "", errors.New("the TPP sent the browser to the bank unexpectedly")
			}
			b.p.note("at the bank, the PSU (national id %s) %s", b.customer, what)
			callback, err := b.bank.CompleteSCA(ctx, location, b.customer, opts...)
			if err != nil {
				return "", err
			}
			b.p.note("the bank redirects the browser to the TPP-Redirect-URI")
			location = callback.String()
		}
		target = location
	}
	return "", errors.New("too many redirects")
}

// ---- transcript ----

// printer writes the transcript; the backend prints from its own goroutines.
type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) say(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", a...)
}
func (p *printer) heading(format string, a ...any) { p.say("\n"+format, a...) }
func (p *printer) note(format string, a ...any)    { p.say("    … "+format, a...) }
func (p *printer) backend(format string, a ...any) { p.say("      backend: "+format, a...) }

// transcript prints each request the SDK sends to the bank and the status
// that answers it.
type transcript struct {
	base http.RoundTripper
	p    *printer
}

func (t *transcript) RoundTrip(r *http.Request) (*http.Response, error) {
	path := r.URL.Path
	if i := strings.Index(path, "/v1/"); i >= 0 {
		path = path[i:]
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.p.say("        SDK → %-6s %s ← %v", r.Method, path, err)
		return nil, err
	}
	t.p.say("        SDK → %-6s %s ← %d %s", r.Method, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	return resp, nil
}
