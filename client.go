package xs2a

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Version is the SDK's version, sent in User-Agent.
const Version = "0.1.0"

// maxBody caps how much of a successful response is read (a 499-entry
// transaction page is well under 1 MiB). A larger body is an error.
const maxBody = 64 << 20

var errBodyTooLarge = fmt.Errorf("the body is larger than %d MiB", maxBody>>20)

// Client calls the bank's interface for a TPP. Create it with NewClient; it is
// safe for concurrent use and should be shared. The services group the
// endpoints of docs/interface.md:
//
//	client.Accounts.List(ctx, psu)                 // GET /v1/accounts
//	client.Payments.Initiate(ctx, psu, product, p, nil) // POST /v1/payments/{product}
type Client struct {
	Accounts       *AccountsService
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
// with signer. WithRedirectURI is required.
func NewClient(baseURL string, signer *Signer, opts ...Option) (*Client, error) {
	if signer == nil {
		return nil, invalid("signer", "is nil")
	}
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	cfg := config{retry: DefaultRetryPolicy, now: time.Now, timeout: defaultTimeout}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.redirectURI == "" {
		return nil, invalid("RedirectURI", "is required: use WithRedirectURI (docs/interface.md: TPP-Redirect-URI on every request)")
	}
	c := &Client{cfg: cfg, base: base, basePath: strings.TrimSuffix(base.EscapedPath(), "/"), sleep: sleepCtx}
	c.transport = &Transport{Signer: signer, RedirectURI: cfg.redirectURI, Now: cfg.now, once: true}
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
// transport (raised to TLS 1.2) or the default one.
func (c *Client) httpClient(from *http.Client) *http.Client {
	var hc http.Client
	if from != nil {
		hc = *from
	} else {
		// No http.Client.Timeout: every call has a deadline (WithTimeout),
		// its retries included.
		c.transport.Base = defaultTransport()
	}
	if hc.Transport != nil {
		c.transport.Base = withTLS12(hc.Transport)
	}
	hc.Transport = c.transport
	hc.CheckRedirect = c.checkRedirect
	return &hc
}

// defaultTransport is http.DefaultTransport's settings with TLS 1.2 as the
// minimum (docs/interface.md, General conventions 7) and bounded handshakes.
func defaultTransport() *http.Transport {
	return &http.Transport{
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
}

// BaseURL returns the base address the client was created with.
func (c *Client) BaseURL() string { return c.base.String() }

// Close releases idle connections. The Client must not be used afterwards.
func (c *Client) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}

// errRedirectNotIdempotent: a redirect answering a POST or PATCH is not
// followed. net/http would send the request again (307, 308), or turn it
// into a GET (301, 302, 303) whose answer says nothing of the POST's outcome.
var errRedirectNotIdempotent = errors.New("xs2a: the bank answered with a redirect, which is not followed for a request that may have created something")

// checkRedirect follows redirects only within the base address (its origin
// and its path, as resolve keeps links), and only for idempotent requests:
// a POST is never sent twice, and the outcome of one answered
// by a redirect is unknown (ErrOutcomeUnknown).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("xs2a: stopped after 5 redirects")
	}
	if !c.sameOrigin(req.URL) || !c.underBasePath(req.URL.EscapedPath()) {
		return ErrCrossOrigin
	}
	if !idempotent(via[0].Method) {
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
	return err == nil && c.inBasePath(p) && !hasDotSegment(path)
}

// inBasePath reports whether an escaped path starts with the base path.
func (c *Client) inBasePath(p string) bool {
	return c.basePath == "" || p == c.basePath || strings.HasPrefix(p, c.basePath+"/")
}

// hasDotSegment reports a "." or ".." segment in an unescaped path ("..",
// also as %2e%2e before unescaping), which would take the path out of the
// base path at the server, which resolves it.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// resolve turns a path or a _links href into an absolute URL under the base
// address. A relative href is taken relative to the base address, path
// included ("/v1/x" under "https://h/api" is "https://h/api/v1/x"); an href
// that already starts with the base path is not prefixed twice. An absolute
// href must be on the base origin and under the base path; no href may hold a
// dot segment (ErrCrossOrigin).
func (c *Client) resolve(href string) (*url.URL, error) {
	u, err := url.Parse(href)
	if err != nil {
		return nil, invalid("link", "is not a URL")
	}
	if u.Fragment != "" || u.User != nil {
		return nil, invalid("link", "must have no fragment or user info")
	}
	p := u.EscapedPath()
	if u.IsAbs() || u.Host != "" {
		if !c.sameOrigin(u) || !c.inBasePath(p) {
			return nil, ErrCrossOrigin
		}
	} else {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if !c.inBasePath(p) {
			p = c.basePath + p
		}
	}
	path, err := url.PathUnescape(p)
	if err != nil {
		return nil, invalid("link", "has a malformed path")
	}
	if hasDotSegment(path) {
		return nil, ErrCrossOrigin
	}
	out := &url.URL{Scheme: c.base.Scheme, Host: c.base.Host, Path: path, RawPath: p, RawQuery: u.RawQuery}
	if out.EscapedPath() != p {
		out.RawPath = ""
	}
	return out, nil
}

// Response is the bank's answer to a successful call. Its body has been read,
// decoded and closed.
type Response struct {
	*http.Response
	RequestID string // X-Request-ID sent (and kept across retries)
	// Attempts is how many times the call was tried: 1 unless retried.
	// Each try writes the request to the bank at most once (net/http does
	// not send it again by itself), so it is also how many requests may
	// have reached the bank, never fewer; RetryPolicy.MaxAttempts bounds it.
	Attempts    int
	AcceptFixes []AcceptFix // the x-accept-fix values sent
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
	// PSU-not-present guard (budget.go): the endpoint and account counted.
	budgetEndpoint BudgetEndpoint
	accountID      string
	// readBuf, when set, is the buffer a successful answer is read into
	// instead of one from bodyBuffers: a walk over pages reads all of them
	// into one buffer of its own, which a pool shared by the processors
	// would sometimes double.
	readBuf *[]byte
}

// answerError turns a >= 400 answer into *SCARequiredError or *Error.
func (c *Client) answerError(r *request, resp *http.Response, body []byte, requestID string) error {
	if c.verifier != nil {
		// An answer whose scaRedirect the PSU's browser will be sent to
		// must be signed when signatures are required, as a success must:
		// it decides where the PSU logs in.
		sca := resp.StatusCode == http.StatusUnauthorized && bytes.Contains(body, []byte(`"scaRedirect"`))
		if err := c.verifier.verify(resp, pieces{body}, requestID, sca); err != nil {
			return err
		}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		if link, msgs, ok := scaRedirectOf(body); ok {
			return c.scaRequired(r, resp, requestID, link, msgs)
		}
	}
	e := newError(resp, body, requestID, c.cfg.now())
	e.Method, e.Op, e.ids = r.method, r.op, r.ids()
	return e
}

// decode reads a 2xx body, verifies it if asked, turns an unexpected
// scaRedirect into *SCARequiredError and unmarshals into into.
func (c *Client) decode(r *request, resp *http.Response, requestID string, into any) error {
	buf := r.readBuf
	if buf == nil {
		buf = bodyBuffers.Get().(*[]byte)
	}
	body, err := readAnswer(*buf, resp.Body, resp.ContentLength)
	if r.readBuf == nil {
		defer recycleBody(buf, body.head())
	} else if body != nil {
		*buf = body.head()[:0]
	}
	closeAnswer(resp)
	if err != nil {
		return r.transportError(requestID, true, fmt.Errorf("reading the response: %w", err))
	}
	if c.verifier != nil {
		if err := c.verifier.verify(resp, body, requestID, true); err != nil {
			return outcomeUnknown(r, requestID, err)
		}
	}
	if !r.scaResult && body.contains(`"scaRedirect"`) {
		if link, msgs, ok := scaRedirectOf(body.join()); ok {
			return c.scaRequired(r, resp, requestID, link, msgs)
		}
	}
	if into == nil {
		return nil
	}
	return c.decodeInto(r, resp, requestID, body, into)
}

// outcomeUnknown is err of an accepted request that created something (a
// payment) whose answer cannot be trusted or read: its outcome is unknown
// to the caller. It is err itself for an idempotent request.
func outcomeUnknown(r *request, requestID string, err error) error {
	if idempotent(r.method) {
		return err
	}
	return r.transportError(requestID, true, err)
}

// transportError is the *TransportError of r (sent: it may have reached the
// bank) wrapping err; the caller sets Attempts where it knows them.
func (r *request) transportError(requestID string, sent bool, err error) *TransportError {
	return &TransportError{Method: r.method, Op: r.op, RequestID: requestID, ids: r.ids(), Sent: sent, Err: err}
}

// decodeInto unmarshals a 2xx body into into and checks the redirect a
// result holds.
func (c *Client) decodeInto(r *request, resp *http.Response, requestID string, body pieces, into any) error {
	if body.blank() {
		if idempotent(r.method) {
			return nil // an empty list or nothing to say
		}
		// A POST whose answer should say what was created, but is empty.
		return outcomeUnknown(r, requestID, errors.New("the answer has no body"))
	}
	if err := unmarshal(body, into); err != nil {
		if !idempotent(r.method) {
			return outcomeUnknown(r, requestID, fmt.Errorf("decoding the answer: %w", err))
		}
		return &redactedError{err: err, ids: r.ids(),
			msg: fmt.Sprintf("xs2a: %s: decoding the response (X-Request-ID %s)", r.op, requestID)}
	}
	if err := c.checkResultRedirect(r, resp, requestID, into); err != nil {
		return outcomeUnknown(r, requestID, err)
	}
	return nil
}

// unmarshal decodes body into into: in one pass when into is a
// fastDecoder that takes the body (through a window when it is large and in
// pieces), with json.Unmarshal otherwise.
func unmarshal(body pieces, into any) error {
	f, fast := into.(fastDecoder)
	if fast && len(body) > 1 && body.len() >= minPieces && decodePieces(f, body, maxChunk) {
		return nil
	}
	data := body.join()
	if fast && decodeFast(f, data) {
		return nil
	}
	return json.Unmarshal(data, into)
}

// scaRequired is the *SCARequiredError of an answer carrying link, or a
// *SCARedirectError when link is no address to send the PSU to.
func (c *Client) scaRequired(r *request, resp *http.Response, requestID string, link Link, msgs []TPPMessage) error {
	link, err := c.checkSCARedirect(r, resp.StatusCode, requestID, link)
	if err != nil {
		return err
	}
	return &SCARequiredError{Redirect: link, StatusCode: resp.StatusCode, RequestID: requestID, Messages: msgs}
}

// scaRedirectOf finds _links.scaRedirect in a body.
func scaRedirectOf(body []byte) (Link, []TPPMessage, bool) {
	var doc struct {
		Links struct {
			SCARedirect Link `json:"scaRedirect"`
		} `json:"_links"`
		TPPMessages []TPPMessage `json:"tppMessages"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.Links.SCARedirect.Href == "" {
		return Link{}, nil, false
	}
	return doc.Links.SCARedirect, doc.TPPMessages, true
}

// marshalCompact encodes v as JSON without whitespace and without HTML
// escaping (the body is digested; the bytes sent are the bytes signed).
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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

// isLoopback reports a host name or address on this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// withTLS12 returns rt, or for an *http.Transport whose TLS configuration
// allows versions below 1.2, a clone that does not (docs/interface.md, General
// conventions 7). The caller's transport is never modified.
func withTLS12(rt http.RoundTripper) http.RoundTripper {
	t, ok := rt.(*http.Transport)
	if !ok || t.TLSClientConfig == nil || t.TLSClientConfig.MinVersion == 0 || t.TLSClientConfig.MinVersion >= tls.VersionTLS12 {
		return rt // MinVersion 0 is Go's client default: TLS 1.2
	}
	t = t.Clone()
	t.TLSClientConfig.MinVersion = tls.VersionTLS12
	return t
}
