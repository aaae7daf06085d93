package xs2a

import (
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"golang.org/x/oauth2"
)

// Option configures a Client. Options are checked by NewClient; a bad one
// makes it fail.
type Option func(*config) error

type config struct {
	redirectURI  string
	hc           *http.Client
	fixes        []AcceptFix
	logger       *slog.Logger
	observer     Observer
	retry        RetryPolicy
	tokens       oauth2.TokenSource
	budgetStore  BudgetStore
	budgetSet    bool
	now          func() time.Time
	aspspID      string
	verifyCert   *x509.Certificate
	verifyStrict bool
	userAgent    string
	timeout      time.Duration
}

// WithRedirectURI sets TPP-Redirect-URI, the callback after SCA
// (docs/interface.md, TPP redirect). Required. A call whose PSU carries an
// SCAState sends it with xs2a-state added (CB7), so uri holds no xs2a-state.
func WithRedirectURI(uri string) Option {
	return func(c *config) error {
		u, err := url.Parse(uri)
		if err != nil || !u.IsAbs() || u.Host == "" || !headerSafe(uri, 2048) {
			return invalid("RedirectURI", "must be an absolute http(s) URL without control characters")
		}
		if u.Scheme != "https" && u.Scheme != "http" {
			return invalid("RedirectURI", "must use https (or http for local testing)")
		}
		if q, err := url.ParseQuery(u.RawQuery); err != nil || q.Has(paramState) {
			return invalid("RedirectURI", "must have a well-formed query without %s (the SDK adds it)", paramState)
		}
		c.redirectURI = uri
		return nil
	}
}

// WithHTTPClient sends requests through a copy of hc (hc itself is never
// modified), whose Transport becomes the Base of the signing Transport: mutual
// TLS with a QWAC, proxies and timeouts are configured there (nil: the SDK's
// own). An *http.Transport below TLS 1.2 is used as a clone raised to 1.2, any
// other RoundTripper has each connection checked before use (docs/interface.md
// G7). Its CheckRedirect follows only a GET within the base address (E18, PRQ6).
func WithHTTPClient(hc *http.Client) Option {
	return option(hc != nil, "HTTPClient", "is nil", func(c *config) { c.hc = hc })
}

// WithAcceptFixes sends these x-accept-fix values on every request
// (ContextWithAcceptFixes changes them).
func WithAcceptFixes(fixes ...AcceptFix) Option {
	return func(c *config) error {
		if i := slices.IndexFunc(fixes, func(f AcceptFix) bool { return !f.valid() }); i >= 0 {
			return invalid("AcceptFix", "%q cannot be sent in x-accept-fix", string(fixes[i]))
		}
		c.fixes = append(c.fixes, fixes...)
		return nil
	}
}

// WithLogger logs each call that reached the wire once, when it ends: at warn
// level when the bank could not be reached, refused it or redirected it, else
// at debug. A line holds the operation, method, last status, X-Request-ID,
// attempts, duration and a failure's code or message; never an id, a path with
// resource ids, a key or a body.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithRetry replaces DefaultRetryPolicy() with a copy of p.
func WithRetry(p RetryPolicy) Option {
	ok := p.MaxAttempts >= 0 && p.MinDelay >= 0 && p.MaxDelay >= 0 && p.MaxRetryAfter >= 0
	return option(ok, "RetryPolicy", "values must not be negative", func(c *config) {
		c.retry = p
		c.retry.Methods = slices.Clone(p.Methods)
	})
}

// WithTokenSource adds "Authorization: Bearer <token>" to every request, for
// deployments that put an OAuth2 gateway in front of the interface; the header
// is not signed. The call's context bounds Token, which takes none: a Token
// that never returns keeps only the goroutine it runs in.
func WithTokenSource(ts oauth2.TokenSource) Option {
	return func(c *config) error { c.tokens = ts; return nil }
}

// WithBudgetStore counts PSU-not-present calls in store (see BudgetStore). The
// default is an in-memory store; share one (for example in Redis) between
// replicas of a TPP. WithBudgetStore(nil) turns the local guard off, leaving
// the limit to the bank (429).
func WithBudgetStore(store BudgetStore) Option {
	return func(c *config) error { c.budgetStore, c.budgetSet = store, true; return nil }
}

// WithClock sets the clock of Date headers, the budget and Retry-After.
func WithClock(now func() time.Time) Option {
	return option(now != nil, "Clock", "is nil", func(c *config) { c.now = now })
}

// WithASPSPID sends the ASPSP-ID header, for gateways that serve several banks.
func WithASPSPID(id string) Option {
	return option(headerSafe(id, 200), "ASPSPID", printable200, func(c *config) { c.aspspID = id })
}

// WithResponseVerification verifies the Signature and Digest of the bank's
// responses with bankCert and requires them on a 2xx and on a 401 with an
// scaRedirect (docs/interface.md SIG3); an error answer is verified when
// signed. A signature over x-request-id must name the request's own, so a
// signed answer cannot be replayed for another call. A failure is a
// *SignatureError.
func WithResponseVerification(bankCert *x509.Certificate) Option {
	return option(bankCert != nil, "bankCert", "is nil",
		func(c *config) { c.verifyCert, c.verifyStrict = bankCert, true })
}

// WithResponseVerificationIfSigned verifies, as WithResponseVerification
// does, the responses that carry a Signature, and lets one without through,
// for a bank that signs only some answers: whoever can remove the header can
// then remove the protection too. Of the two options the last one applies.
func WithResponseVerificationIfSigned(bankCert *x509.Certificate) Option {
	return option(bankCert != nil, "bankCert", "is nil",
		func(c *config) { c.verifyCert, c.verifyStrict = bankCert, false })
}

// WithUserAgent replaces the User-Agent header.
func WithUserAgent(ua string) Option {
	return option(headerSafe(ua, 200), "UserAgent", printable200, func(c *config) { c.userAgent = ua })
}

// WithTimeout sets the deadline, default 30 s, of a call whose context has
// none: the call, its retries and waits, and the reading of the answer end
// within d, so a stalling bank cannot hold a call, a payment either, for ever.
// A context's own deadline is kept, shorter or longer. d must be positive.
func WithTimeout(d time.Duration) Option {
	return option(d > 0, "Timeout", "must be positive; to allow a call more time, give its context a deadline of its own",
		func(c *config) { c.timeout = d })
}

// printable200 is the reason a header value option gives.
const printable200 = "must be 1 to 200 printable ASCII characters"

// option is an Option that fails with a *ValidationError of field and reason
// unless ok, and otherwise sets the value.
func option(ok bool, field, reason string, set func(*config)) Option {
	return func(c *config) error {
		if !ok {
			return &ValidationError{Field: field, Reason: reason}
		}
		set(c)
		return nil
	}
}
