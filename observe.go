package xs2a

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Observer watches a Client's calls, for telemetry (WithObserver; the
// module github.com/tppkit/xs2a/xs2aotel implements it for OpenTelemetry).
// For every call that passed its checks, StartCall is called once before
// anything is sent, Attempt once per attempt, and EndCall once when the call
// ends, all in the call's goroutine; they must not block. No argument holds
// a PSU id, corporate id, session id, account or resource id, URL with ids,
// header value or body (docs/interface.md T1).
type Observer interface {
	// StartCall returns the context the call runs in from then on (a
	// span's, say; nil keeps the call's own); the same context is handed
	// to Attempt and EndCall.
	StartCall(ctx context.Context, call *CallInfo) context.Context
	Attempt(ctx context.Context, attempt AttemptInfo)
	EndCall(ctx context.Context, end CallEnd)
}

// CallInfo describes a call as it starts.
type CallInfo struct {
	Operation     string // "accounts.balances": the service, a dot, the method
	Method        string // the HTTP method
	ServerAddress string // the base address's host, without its port
	ServerPort    int    // the base address's port (443 for https without one)
	// URLTemplate is the path below the base path with every segment that
	// is not a fixed word of the interface replaced by "{id}":
	// "/v1/accounts/{id}/balances".
	URLTemplate string
	// Budget is the access budget's endpoint when the call is counted
	// (PSU not present), else "".
	Budget BudgetEndpoint

	trace *traceHeaders // nil once the call started
}

// traceHeaders is where SetTraceHeader writes: the call's header, behind a
// pointer so that printing a CallInfo prints none of it.
type traceHeaders struct{ h http.Header }

// SetTraceHeader adds a header to every attempt of the call, for trace
// propagation (a W3C traceparent, say). It sets only a header the request
// does not have, so nothing the SDK sends can be changed, and only a
// header-safe name and value. The SDK sends no such header of its own.
func (c *CallInfo) SetTraceHeader(key, value string) {
	if c.trace == nil || !headerSafe(key, 64) || !headerSafe(value, 512) || strings.ContainsAny(key, " :") {
		return
	}
	key = http.CanonicalHeaderKey(key)
	if _, ok := c.trace.h[key]; !ok {
		c.trace.h[key] = []string{value}
	}
}

// AttemptInfo is one attempt of a call, as it ended.
type AttemptInfo struct {
	N          int           // the attempt's number, from 1
	StatusCode int           // the answer's status; 0 when none came
	ErrorType  string        // ErrorType of the attempt's error; "" when it succeeded
	Duration   time.Duration // from making the request to the end of reading the answer
}

// CallEnd is a call as it ended.
type CallEnd struct {
	Attempts   int           // attempts that may have reached the bank (Response.Attempts)
	StatusCode int           // the last answer's status; 0 when none came
	ErrorType  string        // ErrorType of the call's error; "" when it succeeded
	Duration   time.Duration // from StartCall to EndCall
	// Budget is the access budget after a counted call (Response.Budget),
	// nil for a call the budget does not count.
	Budget *BudgetStatus
}

// WithObserver has the Client report its calls to o (nil: none).
func WithObserver(o Observer) Option {
	return func(c *config) error { c.observer = o; return nil }
}

// ErrorType names the kind of an error the SDK returned, in a few fixed
// words fit for a metric's attribute: "" for nil, "budget_exceeded",
// "sca_required", "sca_redirect_refused", "outcome_unknown",
// "consent_invalid", "timeout", "canceled", "validation", "transport", the
// status code of any other refusal of the bank ("404"), or "_OTHER".
func ErrorType(err error) string {
	var status *Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrOutcomeUnknown):
		return "outcome_unknown"
	case errors.As(err, new(*AccessExceededError)):
		return "budget_exceeded"
	case errors.As(err, new(*SCARequiredError)):
		return "sca_required"
	case errors.As(err, new(*SCARedirectError)):
		return "sca_redirect_refused"
	case errors.Is(err, ErrConsentInvalid):
		return "consent_invalid"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, new(*ValidationError)):
		return "validation"
	case errors.As(err, &status):
		return strconv.Itoa(status.StatusCode)
	case errors.As(err, new(*TransportError)):
		return "transport"
	}
	return "_OTHER"
}

// templateWords are the path segments URLTemplate keeps: the interface's
// fixed words and the payment products the SDK names. Any other segment
// may be an id.
var templateWords = []string{
	"v1", "accounts", "card-accounts", "balances", "transactions", "consents", "bank-offered-consents", "users",
	"user", "agreements", "payments", "bulk-payments", "periodic-payments", "signing-baskets", "authorisations",
	"cancellation-authorisations", "status", "sandbox", "customers", "initialize", "engagements", "tpps",
	"contact-information", NorwegianDomesticCreditTransfers, InstantNorwegianDomesticCreditTransfersStraks,
	DomesticNorwayCreditTransfers, SEPACreditTransfers, CrossBorderCreditTransfers,
}

// urlTemplate is CallInfo.URLTemplate of p, an escaped path below the base
// path.
func urlTemplate(p string) string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		if !slices.Contains(templateWords, s) {
			segs[i] = "{id}"
		}
	}
	return "/" + strings.Join(segs, "/")
}
