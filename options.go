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
// (docs/interface.md, TPP redirect). Required.
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
// mutual TLS with a QWAC, proxies and timeouts are configured there (a nil
// Transport: the SDK's own). An *http.Transport that allows TLS below 1.2
// is used as a clone raised to 1.2 (docs/interface.md G7); for a base
// address on loopback, the only one allowed in plain http, as a clone
// without its proxy. Any other RoundTripper is used as it is, and every
// connection it gets is checked before a request is written on it: one
// below TLS 1.2, or in plain http one that is not straight to the loopback
// host (a proxy), is closed unused and the call fails. Its CheckRedirect is
// replaced by one that follows only a GET, within the base address: a
// redirect answering anything else ends the call, its outcome unknown.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return invalid("HTTPClient", "is nil")
		}
		c.hc = hc
		return nil
	}
}

// WithAcceptFixes sends these x-accept-fix values on every request
// (ContextWithAcceptFixes changes them).
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

// WithLogger logs each call that reached the wire once, when it ends: at
// warn level when the bank could not be reached, refused it or redirected
// it, at debug level otherwise. A line holds the operation, method, last
// status, X-Request-ID, attempts, the call's duration (retries included)
// and for a failure the error's code or message. Never PSU ids, paths with
// resource ids, keys or bodies.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithRetry replaces DefaultRetryPolicy() with a copy of p.
func WithRetry(p RetryPolicy) Option {
	return func(c *config) error {
		if p.MaxAttempts < 0 || p.MinDelay < 0 || p.MaxDelay < 0 || p.MaxRetryAfter < 0 {
			return invalid("RetryPolicy", "values must not be negative")
		}
		p.Methods = slices.Clone(p.Methods)
		c.retry = p
		return nil
	}
}

// WithTokenSource adds "Authorization: Bearer <token>" to every request, for
// deployments that put an OAuth2 gateway in front of the interface. The
// header is not part of the signature. Token takes no context: the call's
// context bounds it all the same, and a Token that never returns keeps only
// the goroutine it runs in.
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
// responses with bankCert (docs/interface.md SIG3) and requires them: a
// successful (2xx) response without a Signature fails, and so does a 401
// whose scaRedirect the PSU would be sent to; an error answer is verified
// when signed. A signature that covers x-request-id must name the request's
// own X-Request-ID, so a signed answer cannot be replayed as the answer to
// another call; a bank that signs neither x-request-id nor the body gives
// no such protection. A failure is a *SignatureError. For a bank that signs
// only some answers, use WithResponseVerificationIfSigned.
func WithResponseVerification(bankCert *x509.Certificate) Option {
	return responseVerification(bankCert, true)
}

// WithResponseVerificationIfSigned verifies, as WithResponseVerification
// does, the responses that carry a Signature, and lets a response without
// one through: for a bank that signs only some answers (the interface says
// the bank may sign). Whoever can remove the header can then remove the
// protection too. Of the two options the last one given applies.
func WithResponseVerificationIfSigned(bankCert *x509.Certificate) Option {
	return responseVerification(bankCert, false)
}

func responseVerification(bankCert *x509.Certificate, require bool) Option {
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

// WithTimeout sets the deadline of a call whose context has none (default
// 30 s): the call, its retries and the waits between them, and the reading
// of the answer end within d, so a bank that stalls cannot hold a call, a
// payment either, for ever. A context with a deadline of its own keeps it,
// shorter or longer; that is also the way to allow one call more time.
// There is no call without a deadline: d must be positive.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return invalid("Timeout", "must be positive; to allow a call more time, give its context a deadline of its own")
		}
		c.timeout = d
		return nil
	}
}
