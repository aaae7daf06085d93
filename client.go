package xs2a

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Version is the SDK's version, sent in User-Agent.
const Version = "0.1.0"

// maxBody caps how much of a successful response is read (a 499-entry
// transaction page is well under 1 MiB). A larger body is an error.
const maxBody = 64 << 20

var errBodyTooLarge = fmt.Errorf("the body is larger than %d MiB", maxBody>>20)

// Client calls the bank's interface for a TPP. Create it with NewClient; it is
// safe for concurrent use and should be shared. A renewed TPP certificate
// takes over while it runs (SetSigner). The services group the endpoints of
// docs/interface.md:
//
//	client.Accounts.List(ctx, psu)                 // GET /v1/accounts
//	client.Payments.Initiate(ctx, psu, product, p, nil) // POST /v1/payments/{product}
type Client struct {
	Accounts       *AccountsService
	CardAccounts   *CardAccountsService
	Consents       *ConsentsService
	Users          *UsersService
	Payments       *PaymentsService
	SigningBaskets *SigningBasketsService
	Sandbox        *SandboxService
	TPP            *TPPService

	cfg       config
	base      *url.URL
	basePath  string // base.EscapedPath() without a trailing slash
	hc        *http.Client
	transport *Transport
	budget    *accessBudget
	verifier  *responseVerifier
	sleep     func(ctx context.Context, d time.Duration) error // waits between attempts; tests replace it
}

// service is embedded by every service type (go-github's pattern).
type service struct{ client *Client }

// NewClient returns a Client for the bank at baseURL (for example
// "https://psd2.bank.no/api"; paths /v1/... are resolved below it), signing
// with signer. WithRedirectURI is required. Plain http is accepted only for
// a loopback host ("localhost" in any case, or a loopback address, as
// isLoopback decides), and such a base is never sent through a proxy.
func NewClient(baseURL string, signer *Signer, opts ...Option) (*Client, error) {
	if signer == nil {
		return nil, invalid("signer", "is nil")
	}
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	cfg := config{retry: DefaultRetryPolicy(), now: time.Now, timeout: defaultTimeout}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.redirectURI == "" {
		return nil, invalid("RedirectURI", "is required: use WithRedirectURI (docs/interface.md: TPP-Redirect-URI on every request)")
	}
	c := &Client{cfg: cfg, base: base, basePath: strings.TrimSuffix(base.EscapedPath(), "/"), sleep: sleepCtx}
	c.transport = &Transport{RedirectURI: cfg.redirectURI, Now: cfg.now, once: true}
	c.transport.signer.Store(signer)
	c.hc = c.httpClient(cfg.hc)
	if !cfg.budgetSet {
		cfg.budgetStore = NewMemoryBudgetStore()
	}
	c.budget = newAccessBudget(cfg.budgetStore, cfg.now)
	if cfg.verifyCert != nil {
		c.verifier = &responseVerifier{cert: cfg.verifyCert, require: cfg.verifyStrict}
	}
	c.cfg = cfg
	s := service{client: c}
	c.Accounts = (*AccountsService)(&s)
	c.CardAccounts = (*CardAccountsService)(&s)
	c.Consents = (*ConsentsService)(&s)
	c.Users = (*UsersService)(&s)
	c.Payments = (*PaymentsService)(&s)
	c.SigningBaskets = (*SigningBasketsService)(&s)
	c.Sandbox = (*SandboxService)(&s)
	c.TPP = (*TPPService)(&s)
	return c, nil
}

// parseBaseURL checks NewClient's baseURL: an absolute http(s) URL without
// query, fragment or user info, https unless on a loopback host.
func parseBaseURL(baseURL string) (*url.URL, error) {
	base, err := url.Parse(baseURL)
	if err != nil || !base.IsAbs() || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") {
		return nil, invalid("baseURL", "must be an absolute http(s) URL")
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, invalid("baseURL", "must have no query, fragment or user info")
	}
	if base.Scheme == "http" && !isLoopback(base.Hostname()) {
		return nil, invalid("baseURL", "must use https (docs/interface.md: TLS 1.2 or higher); plain http is for loopback test servers only")
	}
	return base, nil
}

// httpClient is the client's copy of from (WithHTTPClient; nil: a client of
// its own) sending through c.transport, which sends through from's
// transport or the SDK's own (defaultTransport; also for a from without a
// Transport). An *http.Transport of the caller's is used as it is, or as a
// clone when it allows TLS below 1.2 (raised) or has a proxy and the base
// address is on loopback (none then: a loopback base is never sent through
// a proxy, as parseBaseURL decides with isLoopback). Any other RoundTripper
// is used as it is, its connections checked per request (Transport).
func (c *Client) httpClient(from *http.Client) *http.Client {
	var hc http.Client
	if from != nil {
		hc = *from
	}
	loopback := isLoopback(c.base.Hostname())
	switch rt := hc.Transport.(type) {
	case nil:
		// No http.Client.Timeout: every call has a deadline (WithTimeout),
		// its retries included.
		c.transport.Base = defaultTransport(loopback)
	case *http.Transport:
		c.transport.Base = ownTransport(rt, loopback)
	default:
		c.transport.Base = rt
	}
	c.transport.direct = !checksConns(c.transport.Base, c.base) // the one address it sends to
	hc.Transport = c.transport
	hc.CheckRedirect = c.checkRedirect
	return &hc
}

// defaultTransport is http.DefaultTransport's settings with TLS 1.2 as the
// minimum (docs/interface.md, General conventions 7) and bounded handshakes,
// and with the proxies of the environment only for a base address that is
// not on loopback.
func defaultTransport(loopback bool) *http.Transport {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 45 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	if loopback {
		t.Proxy = nil
	}
	return t
}

// SetSigner makes s the Signer of every request that starts being signed
// after it returns, the next attempt of a call in flight included; a
// request already being signed finishes with the Signer it started with,
// whose certificate it sends. It is safe to call while the Client is in
// use: to renew the TPP certificate, load the new key and certificate
// (LoadSigner, LoadPKCS12) and call SetSigner; no call is dropped. A nil s
// is refused with a *ValidationError. The bank's certificate that answers
// are checked against (WithResponseVerification) is not changed.
func (c *Client) SetSigner(s *Signer) error {
	if s == nil {
		return invalid("signer", "is nil")
	}
	c.transport.signer.Store(s)
	return nil
}

// BaseURL returns the base address the client was created with.
func (c *Client) BaseURL() string { return c.base.String() }

// Close releases idle connections. The Client must not be used afterwards.
func (c *Client) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}

// errRedirectNotIdempotent: a redirect answering anything but a GET is not
// followed. net/http would send the request again (307, 308), or turn it
// into a GET (301, 302, 303) whose answer says nothing of the POST's outcome.
var errRedirectNotIdempotent = errors.New("xs2a: the bank answered with a redirect, which is not followed for a request that may have created something")

// checkRedirect follows redirects only within the base address (its origin
// and its path, as resolve keeps links), and only for GETs: nothing else is
// ever sent twice, and the outcome of a request answered by a redirect is
// unknown (ErrOutcomeUnknown). It replaces the CheckRedirect of the caller's
// http.Client (WithHTTPClient).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("xs2a: stopped after 5 redirects")
	}
	if !c.sameOrigin(req.URL) || !c.underBasePath(req.URL.EscapedPath()) {
		return ErrCrossOrigin
	}
	if !isGET(via[0].Method) {
		return errRedirectNotIdempotent
	}
	return nil
}

func (c *Client) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.base.Scheme) && strings.EqualFold(u.Host, c.base.Host)
}

// underBasePath reports whether an escaped path lies under the base path,
// with no dot segment that would take it out at the server.
func (c *Client) underBasePath(p string) bool {
	path, err := url.PathUnescape(p)
	in := c.basePath == "" || p == c.basePath || strings.HasPrefix(p, c.basePath+"/")
	return err == nil && in && !hasDotSegment(path)
}

// Response is the bank's answer to a successful call; its body is read and closed.
type Response struct {
	*http.Response
	RequestID string // X-Request-ID sent (and kept across retries)
	// Attempts is how many times the call was tried: 1 unless retried.
	// Each try writes the request to the bank at most once (net/http does
	// not send it again by itself), so it is also how many requests may
	// have reached the bank, never fewer; RetryPolicy.MaxAttempts bounds it.
	Attempts    int
	AcceptFixes []AcceptFix // the x-accept-fix values sent
	// Budget is the access budget after a call it counts (PSU not present,
	// a counted endpoint, docs/interface.md L8), as go-github's Rate: the
	// calls left in the window after every request of this call (retries
	// included) and when the oldest counted one leaves it, on the client's
	// clock. It is nil for a call the budget does not count (the PSU
	// present, another endpoint) and when WithBudgetStore(nil) turned
	// counting off. The store's view when the call ran: other replicas may
	// have spent since.
	Budget *BudgetStatus
}

// request describes one call for Client.do.
type request struct {
	op        string // operation name for logs and errors, e.g. "accounts.list"
	method    string
	href      string // path below the base address, or a _links href
	query     url.Values
	body      any         // encoded as compact JSON when non-nil
	rawBody   []byte      // sent as it is when non-nil (an empty POST: []byte{})
	psu       *PSU        // nil: no PSU headers
	fixes     []AcceptFix // x-accept-fix values this endpoint adds
	scaResult bool        // a scaRedirect in a 2xx answer is the result, not an error
	// psuContext: the call starts a consent or registration SCA and sends
	// PSU.Context as PSU-Context.
	psuContext bool
	// PSU-not-present guard (budget.go): the endpoint and account counted,
	// set from the bank's view of the path (admit).
	budgetEndpoint BudgetEndpoint
	accountID      string
	rule           routeRule // what the path may route to (paths.go)
	// readBuf, when set, is the buffer a successful answer is read into
	// instead of one from bodyBuffers: a walk over pages reads all of them
	// into one buffer of its own, which a pool shared by the processors
	// would sometimes double.
	readBuf *[]byte
}

// transportError is the *TransportError of r (sent: it may have reached the
// bank) wrapping err; the caller sets Attempts where it knows them.
func (r *request) transportError(requestID string, sent bool, err error) *TransportError {
	return &TransportError{Method: r.method, Op: r.op, RequestID: requestID, ids: r.ids(), Sent: sent, Err: err}
}

// marshalCompact encodes a request body as compact JSON with json/v2, as
// encoding/json would but without HTML escaping (the bytes sent are the
// bytes signed).
func marshalCompact(v any) ([]byte, error) {
	return jsonv2.Marshal(v, jsonOptions, jsontext.EscapeForHTML(false))
}

// errorAttr describes err for a log without the bank's free text: the code of
// an answer, or the message of another failure (which names no path). The
// code, and the message of an error the package did not make, are made
// inert with the call's ids and anything shaped like an identifier
// redacted; the package's own errors are so already.
func errorAttr(err error, ids callIDs) slog.Attr {
	var e *Error
	if errors.As(err, &e) {
		return slog.String("error_code", ids.text(e.Code, 100))
	}
	if _, ours := err.(formatter); ours {
		return slog.String("error", err.Error())
	}
	return slog.String("error", ids.text(err.Error(), maxCauseText))
}

// isLoopback reports a host name or address on this machine: "localhost" in
// any case, or a loopback address. It is the one decision that allows plain
// http (parseBaseURL) and keeps a base address from proxies (httpClient,
// Transport).
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// ownTransport returns t, or a clone of t with TLS 1.2 as its minimum when
// it allows less (docs/interface.md, General conventions 7) and without a
// proxy when loopback (the base address is on loopback). The caller's
// transport is never modified.
func ownTransport(t *http.Transport, loopback bool) *http.Transport {
	weak, proxied := belowTLS12(t.TLSClientConfig), loopback && t.Proxy != nil
	if !weak && !proxied {
		return t // MinVersion 0 is Go's client default: TLS 1.2
	}
	t = t.Clone()
	if weak {
		t.TLSClientConfig.MinVersion = tls.VersionTLS12
	}
	if proxied {
		t.Proxy = nil
	}
	return t
}
