package xs2a

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2"
)

// Version is the SDK's version, sent in User-Agent.
const Version = "0.1.0"

// maxBody caps how much of a successful response is read (a 499-entry
// transaction page is well under 1 MiB).
const maxBody = 64 << 20

// Client calls the bank's interface for a TPP. Create it with NewClient; it is
// safe for concurrent use and should be shared. The services group the
// endpoints of service.md:
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

// Option configures a Client. Options are checked by NewClient; a bad one
// makes it fail.
type Option func(*config) error

type config struct {
	redirectURI  string
	hc           *http.Client
	fixes        []AcceptFix
	logger       *slog.Logger
	retry        RetryPolicy
	tokens       oauth2.TokenSource
	budgetStore  Store
	budgetSet    bool
	now          func() time.Time
	aspspID      string
	verifyCert   *x509.Certificate
	verifyStrict bool
	userAgent    string
}

// WithRedirectURI sets the TPP-Redirect-URI sent on every request: the TPP's
// callback after SCA (service.md, TPP redirect). Required.
func WithRedirectURI(uri string) Option {
	return func(c *config) error {
		u, err := url.Parse(uri)
		if err != nil || !u.IsAbs() || u.Host == "" || !headerSafe(uri, 2048) {
			return invalid("RedirectURI", "must be an absolute http(s) URL without control characters")
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			return invalid("RedirectURI", "must use https (or http for local testing)")
		}
		c.redirectURI = uri
		return nil
	}
}

// WithHTTPClient sends requests through a copy of hc (hc itself is never
// modified): its Transport becomes the Base of the signing Transport, so
// mutual TLS with a QWAC, proxies and timeouts are configured there. Its
// CheckRedirect is replaced by one that refuses other origins.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return invalid("HTTPClient", "is nil")
		}
		c.hc = hc
		return nil
	}
}

// WithAcceptFixes sends these x-accept-fix values on every request (service.md,
// Versioning). Per call, ContextWithAcceptFixes and ContextWithoutAcceptFixes
// add and remove values.
func WithAcceptFixes(fixes ...AcceptFix) Option {
	return func(c *config) error {
		for _, f := range fixes {
			if !f.valid() {
				return invalid("AcceptFix", "%q cannot be sent in x-accept-fix", string(f))
			}
		}
		c.fixes = append(c.fixes, fixes...)
		return nil
	}
}

// WithLogger logs each attempt at debug level and each failed call at warn
// level: operation, method, status, X-Request-ID, attempt and duration.
// Never PSU ids, paths with resource ids, keys or bodies.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithRetry replaces DefaultRetryPolicy.
func WithRetry(p RetryPolicy) Option {
	return func(c *config) error {
		if p.MaxAttempts < 0 || p.MinDelay < 0 || p.MaxDelay < 0 || p.MaxRetryAfter < 0 {
			return invalid("RetryPolicy", "values must not be negative")
		}
		c.retry = p
		return nil
	}
}

// WithTokenSource adds "Authorization: Bearer <token>" to every request, for
// deployments that put an OAuth2 gateway in front of the interface. The
// header is not part of the signature.
func WithTokenSource(ts oauth2.TokenSource) Option {
	return func(c *config) error { c.tokens = ts; return nil }
}

// WithAccessBudget counts PSU-not-present calls in store (see Store). The
// default is an in-memory store; share one (for example in Redis) between
// replicas of a TPP. WithAccessBudget(nil) turns the local guard off, leaving
// the limit to the bank (429).
func WithAccessBudget(store Store) Option {
	return func(c *config) error { c.budgetStore, c.budgetSet = store, true; return nil }
}

// WithClock sets the clock used for Date headers, the access budget and
// Retry-After dates. For tests.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return invalid("Clock", "is nil")
		}
		c.now = now
		return nil
	}
}

// WithASPSPID sends the ASPSP-ID header, for gateways that serve several banks.
func WithASPSPID(id string) Option {
	return func(c *config) error {
		if !headerSafe(id, 200) {
			return invalid("ASPSPID", "must be 1 to 200 printable ASCII characters")
		}
		c.aspspID = id
		return nil
	}
}

// WithResponseVerification verifies the Signature and Digest of the bank's
// responses with bankCert (service.md, Authentication, item 3). A response
// without a Signature passes unless require is true; then a successful (2xx)
// response without one fails. A failure is a *SignatureError.
func WithResponseVerification(bankCert *x509.Certificate, require bool) Option {
	return func(c *config) error {
		if bankCert == nil {
			return invalid("bankCert", "is nil")
		}
		c.verifyCert, c.verifyStrict = bankCert, require
		return nil
	}
}

// WithUserAgent replaces the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *config) error {
		if !headerSafe(ua, 200) {
			return invalid("UserAgent", "must be 1 to 200 printable ASCII characters")
		}
		c.userAgent = ua
		return nil
	}
}

// RetryPolicy says when a call is tried again. Only methods in Methods are
// retried (GET by default). A POST is never re-sent once it may have reached
// the bank, whatever the policy: with POST in Methods it is retried only when
// the connection failed before the request was written.
type RetryPolicy struct {
	MaxAttempts   int           // attempts in all, the first included; 1: no retries
	MinDelay      time.Duration // first backoff; doubles per attempt, with jitter
	MaxDelay      time.Duration // longest backoff
	MaxRetryAfter time.Duration // a longer Retry-After ends the retries at once
	Methods       []string      // retried methods
}

// DefaultRetryPolicy: 3 attempts for GET, backoff 200 ms doubling to 5 s with
// jitter, Retry-After honoured up to 30 s. Retried: connection errors and the
// statuses 500, 502, 503 and 504, and 429 with a Retry-After other than
// ACCESS_EXCEEDED (which lasts for hours).
var DefaultRetryPolicy = RetryPolicy{
	MaxAttempts:   3,
	MinDelay:      200 * time.Millisecond,
	MaxDelay:      5 * time.Second,
	MaxRetryAfter: 30 * time.Second,
	Methods:       []string{http.MethodGet},
}

// NewClient returns a Client for the bank at baseURL (for example
// "https://psd2.bank.no/api"; paths /v1/... are resolved below it), signing
// with signer. WithRedirectURI is required.
func NewClient(baseURL string, signer *Signer, opts ...Option) (*Client, error) {
	if signer == nil {
		return nil, invalid("signer", "is nil")
	}
	base, err := url.Parse(baseURL)
	if err != nil || !base.IsAbs() || base.Host == "" || (base.Scheme != "https" && base.Scheme != "http") {
		return nil, invalid("baseURL", "must be an absolute http(s) URL")
	}
	if base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, invalid("baseURL", "must have no query, fragment or user info")
	}
	cfg := config{retry: DefaultRetryPolicy, now: time.Now}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.redirectURI == "" {
		return nil, invalid("RedirectURI", "is required: use WithRedirectURI (service.md: TPP-Redirect-URI on every request)")
	}
	c := &Client{cfg: cfg, base: base, basePath: strings.TrimSuffix(base.EscapedPath(), "/"), sleep: sleepCtx}
	c.transport = &Transport{Signer: signer, RedirectURI: cfg.redirectURI, Now: cfg.now}
	var hc http.Client
	if cfg.hc != nil {
		hc = *cfg.hc
	} else {
		hc = http.Client{Timeout: 60 * time.Second}
		c.transport.Base = defaultTransport()
	}
	if hc.Transport != nil {
		c.transport.Base = hc.Transport
	}
	hc.Transport = c.transport
	hc.CheckRedirect = c.checkRedirect
	c.hc = &hc
	if !cfg.budgetSet {
		cfg.budgetStore = NewMemoryStore()
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

// defaultTransport is http.DefaultTransport's settings with TLS 1.2 as the
// minimum (service.md, General conventions 7) and bounded handshakes.
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
	c.hc.CloseIdleConnections()
	return nil
}

// checkRedirect follows redirects only within the base address.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("xs2a: stopped after 5 redirects")
	}
	if !c.sameOrigin(req.URL) {
		return ErrCrossOrigin
	}
	return nil
}

func (c *Client) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.base.Scheme) && strings.EqualFold(u.Host, c.base.Host)
}

// resolve turns a path or a _links href into an absolute URL under the base
// address. A relative href is taken relative to the base address, path
// included ("/v1/x" under "https://h/api" is "https://h/api/v1/x"); an href
// that already starts with the base path is not prefixed twice. An absolute
// href must be on the base origin and under the base path.
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
		if !c.sameOrigin(u) || (c.basePath != "" && p != c.basePath && !strings.HasPrefix(p, c.basePath+"/")) {
			return nil, ErrCrossOrigin
		}
	} else {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if c.basePath == "" || (p != c.basePath && !strings.HasPrefix(p, c.basePath+"/")) {
			p = c.basePath + p
		}
	}
	path, err := url.PathUnescape(p)
	if err != nil {
		return nil, invalid("link", "has a malformed path")
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
	RequestID   string      // X-Request-ID sent (and kept across retries)
	Attempts    int         // 1 unless retried
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
	// PSU-not-present guard (budget.go): the endpoint and account counted.
	budgetEndpoint BudgetEndpoint
	accountID      string
}

// do runs the pipeline of DESIGN.md for r and decodes a 2xx body into into
// (when non-nil). It returns the *Response whenever the bank answered.
func (c *Client) do(ctx context.Context, r *request, into any) (*Response, error) {
	if r.psu != nil {
		if err := r.psu.validate(); err != nil {
			return nil, err
		}
	}
	u, err := c.resolve(r.href)
	if err != nil {
		return nil, err
	}
	if len(r.query) > 0 {
		q := u.Query()
		for k, vs := range r.query {
			q[k] = append(q[k], vs...)
		}
		u.RawQuery = q.Encode()
	}
	body := r.rawBody
	if r.body != nil {
		if body, err = marshalCompact(r.body); err != nil {
			return nil, fmt.Errorf("xs2a: %s: encoding the request: %w", r.op, err)
		}
	}
	fixes := acceptFixes(ctx, c.cfg.fixes, r.fixes)
	requestID := uuid.NewString()
	if r.budgetEndpoint != "" && r.psu != nil && !r.psu.Present() && r.psu.ID != "" {
		if err := c.budget.take(ctx, r.psu.ID, r.accountID, r.budgetEndpoint); err != nil {
			return nil, err
		}
	}

	policy := c.cfg.retry
	attempts := max(policy.MaxAttempts, 1)
	retryable := slices.Contains(policy.Methods, r.method)
	for attempt := 1; ; attempt++ {
		req, err := c.newHTTPRequest(ctx, r, u, body, requestID, fixes)
		if err != nil {
			return nil, err
		}
		var sent atomic.Bool
		if r.method != http.MethodGet && r.method != http.MethodHead {
			req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
				WroteHeaders: func() { sent.Store(true) },
			}))
		}
		start := time.Now()
		resp, err := c.hc.Do(req)
		if err != nil {
			terr := &TransportError{Method: r.method, Op: r.op, RequestID: requestID, Sent: sent.Load(), Err: err}
			c.log(ctx, slog.LevelDebug, r, requestID, attempt, 0, start, err)
			// A request that may have reached the bank is retried only when
			// idempotent; a context that ended is never retried.
			if retryable && attempt < attempts && ctx.Err() == nil && !errors.Is(err, ErrCrossOrigin) &&
				(!sent.Load() || r.method == http.MethodGet || r.method == http.MethodHead) {
				if werr := c.sleep(ctx, backoff(policy, attempt)); werr != nil {
					return nil, terr
				}
				continue
			}
			c.log(ctx, slog.LevelWarn, r, requestID, attempt, 0, start, err)
			return nil, terr
		}
		out := &Response{Response: resp, RequestID: requestID, Attempts: attempt, AcceptFixes: fixes}
		c.log(ctx, slog.LevelDebug, r, requestID, attempt, resp.StatusCode, start, nil)
		if resp.StatusCode >= 400 {
			errBody, _ := readCapped(resp.Body, maxErrorBody)
			resp.Body.Close()
			resp.Body = http.NoBody
			if delay, ok := c.shouldRetry(policy, resp, errBody, retryable && !sent.Load() || retryable && r.method == http.MethodGet, attempt, attempts); ok {
				if werr := c.sleep(ctx, delay); werr != nil {
					return out, &TransportError{Method: r.method, Op: r.op, RequestID: requestID, Err: werr}
				}
				continue
			}
			err := c.answerError(r, resp, errBody, requestID)
			c.log(ctx, slog.LevelWarn, r, requestID, attempt, resp.StatusCode, start, err)
			return out, err
		}
		return out, c.decode(r, resp, requestID, into)
	}
}

// newHTTPRequest builds one attempt's request (each attempt is signed afresh
// by the Transport, with the same X-Request-ID).
func (c *Client) newHTTPRequest(ctx context.Context, r *request, u *url.URL, body []byte, requestID string, fixes []AcceptFix) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), rd)
	if err != nil {
		return nil, fmt.Errorf("xs2a: %s: %w", r.op, err)
	}
	if body != nil && len(body) == 0 {
		req.Body, req.GetBody = http.NoBody, nil
		req.ContentLength = 0
	}
	h := req.Header
	h.Set("Accept", "application/json")
	if len(body) > 0 {
		h.Set("Content-Type", "application/json")
	}
	ua := c.cfg.userAgent
	if ua == "" {
		ua = "tppkit-xs2a-go/" + Version
	}
	h.Set("User-Agent", ua)
	h.Set("X-Request-ID", requestID)
	if v := acceptFixHeader(fixes); v != "" {
		h.Set("x-accept-fix", v)
	}
	if c.cfg.aspspID != "" {
		h.Set("ASPSP-ID", c.cfg.aspspID)
	}
	if r.psu != nil {
		r.psu.setHeaders(h)
	}
	if c.cfg.tokens != nil {
		tok, err := c.cfg.tokens.Token()
		if err != nil {
			return nil, fmt.Errorf("xs2a: %s: getting the OAuth2 token: %w", r.op, err)
		}
		tok.SetAuthHeader(req)
	}
	return req, nil
}

// shouldRetry decides whether an error answer is tried again, and after how long.
func (c *Client) shouldRetry(p RetryPolicy, resp *http.Response, body []byte, retryable bool, attempt, attempts int) (time.Duration, bool) {
	if !retryable || attempt >= attempts {
		return 0, false
	}
	ra := retryAfter(resp.Header, c.cfg.now())
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if ra == 0 {
			return 0, false
		}
		for _, m := range parseErrorBody(resp.Header.Get("Content-Type"), body) {
			if m.Code == CodeAccessExceeded {
				return 0, false
			}
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return 0, false
	}
	if ra > 0 {
		if p.MaxRetryAfter > 0 && ra > p.MaxRetryAfter {
			return 0, false
		}
		return ra, true
	}
	return backoff(p, attempt), true
}

// backoff is the exponential wait before attempt+1, with jitter in [d/2, d].
func backoff(p RetryPolicy, attempt int) time.Duration {
	d := p.MinDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// answerError turns a >= 400 answer into *SCARequiredError or *Error.
func (c *Client) answerError(r *request, resp *http.Response, body []byte, requestID string) error {
	if c.verifier != nil {
		if err := c.verifier.verify(resp, body, requestID, false); err != nil {
			return err
		}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		if link, msgs, ok := scaRedirectOf(body); ok {
			return &SCARequiredError{Redirect: link, StatusCode: resp.StatusCode, RequestID: requestID, Messages: msgs}
		}
	}
	e := newError(resp, body, requestID, c.cfg.now())
	e.Method, e.Op = r.method, r.op
	return e
}

// decode reads a 2xx body, verifies it if asked, turns an unexpected
// scaRedirect into *SCARequiredError and unmarshals into into.
func (c *Client) decode(r *request, resp *http.Response, requestID string, into any) error {
	body, err := readCapped(resp.Body, maxBody)
	resp.Body.Close()
	resp.Body = http.NoBody
	if err != nil {
		return &TransportError{Method: r.method, Op: r.op, RequestID: requestID, Sent: true, Err: fmt.Errorf("reading the response: %w", err)}
	}
	if c.verifier != nil {
		if err := c.verifier.verify(resp, body, requestID, true); err != nil {
			return err
		}
	}
	if !r.scaResult && bytes.Contains(body, []byte(`"scaRedirect"`)) {
		if link, msgs, ok := scaRedirectOf(body); ok {
			return &SCARequiredError{Redirect: link, StatusCode: resp.StatusCode, RequestID: requestID, Messages: msgs}
		}
	}
	if into == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("xs2a: %s: decoding the response (X-Request-ID %s): %w", r.op, requestID, err)
	}
	return nil
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

// readCapped reads at most limit bytes of r.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, limit))
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

func (c *Client) log(ctx context.Context, level slog.Level, r *request, requestID string, attempt, status int, start time.Time, err error) {
	if c.cfg.logger == nil || !c.cfg.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", r.op),
		slog.String("method", r.method),
		slog.String("request_id", requestID),
		slog.Int("attempt", attempt),
		slog.Duration("duration", time.Since(start)),
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.cfg.logger.LogAttrs(ctx, level, "xs2a call", attrs...)
}

// Link is one entry of a response's _links: {"href": "...", "verbs": ["GET"]}.
// Href is usually relative to the client's base address; pass the Link back to
// the service method that follows it. A link given as a bare string decodes too.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitempty"`
}

// UnmarshalJSON accepts {"href": "..."} and a bare "..." string.
func (l *Link) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*l = Link{}
		return json.Unmarshal(b, &l.Href)
	}
	type plain Link
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = Link(p)
	return nil
}

// IsZero reports whether the link is absent.
func (l Link) IsZero() bool { return l.Href == "" }

// retryAfter reads Retry-After as delay-seconds or an HTTP date; 0 when absent
// or unparsable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// SCALinks is an answer that starts an SCA: consent creation, user
// registration, payment authorisation. Send the PSU's browser to
// Links.SCARedirect; the bank returns it to the TPP-Redirect-URI (see
// ParseCallback).
type SCALinks struct {
	ConsentStatus   string       `json:"consentStatus,omitempty"`
	ConsentID       string       `json:"consentId,omitempty"`
	SCAStatus       string       `json:"scaStatus,omitempty"`
	AuthorisationID string       `json:"authorisationId,omitempty"`
	Links           SCALinkSet   `json:"_links"`
	Messages        []TPPMessage `json:"tppMessages,omitempty"`
}

// SCALinkSet holds the _links of an SCALinks answer.
type SCALinkSet struct {
	SCARedirect        Link `json:"scaRedirect,omitzero"`
	Self               Link `json:"self,omitzero"`
	Status             Link `json:"status,omitzero"`
	SCAStatus          Link `json:"scaStatus,omitzero"`
	StartAuthorisation Link `json:"startAuthorisation,omitzero"`
}
