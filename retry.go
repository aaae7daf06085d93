package xs2a

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says when a call is tried again. Only methods in Methods are
// retried (GET by default). Nothing but a GET is re-sent once it may have
// reached the bank, whatever the policy: with POST, PUT or DELETE in Methods
// such a request is retried only when the connection failed before it was
// written. (Payments.Authorise alone sends a lost startAuthorisation again,
// which starts an SCA, never a payment.)
type RetryPolicy struct {
	MaxAttempts   int           // attempts in all, the first included; 1: no retries
	MinDelay      time.Duration // first backoff; doubles per attempt, with jitter
	MaxDelay      time.Duration // longest backoff
	MaxRetryAfter time.Duration // a longer Retry-After ends the retries at once
	Methods       []string      // retried methods
}

// DefaultRetryPolicy returns the policy of a Client without WithRetry: 3
// attempts for GET, backoff 200 ms doubling to 5 s with jitter, Retry-After
// honoured up to 30 s. Retried: connection errors and the statuses 500, 502,
// 503 and 504, and 429 with a Retry-After other than ACCESS_EXCEEDED (which
// lasts for hours). Each call returns a fresh copy (Methods included): a
// caller may change it and pass it to WithRetry without changing anyone
// else's default.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:   3,
		MinDelay:      200 * time.Millisecond,
		MaxDelay:      5 * time.Second,
		MaxRetryAfter: 30 * time.Second,
		Methods:       []string{http.MethodGet},
	}
}

// try is an attempt as decide sees it.
type try struct {
	method   string
	n        int         // the attempt's number, from 1
	attempts int         // attempts reported so far: n, or the requests written if more
	status   int         // the answer's status; 0 when none came
	header   http.Header // the answer's header
	body     []byte      // an error answer's body
	err      error       // the error of a request that got no answer
	sent     bool        // that request was written, in part at least
	ctxErr   error       // the call's context's error after the attempt
}

// verdict is what decide makes of an attempt: another after wait, or the
// end of the call.
type verdict struct {
	retry bool
	wait  time.Duration
}

// decide says what follows an attempt. Only a method in p.Methods is tried
// again, up to p.MaxAttempts attempts in all. A request that got no answer
// is tried again unless the context ended or a link left the base address,
// and once it may have reached the bank only when a GET. An answer is tried
// again only when a GET and 500, 502, 503 or 504, or 429 with a
// Retry-After and without ACCESS_EXCEEDED: after the Retry-After (none
// beyond p.MaxRetryAfter) or the backoff. now is read only for a
// Retry-After date.
func decide(p RetryPolicy, t try, now func() time.Time) verdict {
	if !slices.Contains(p.Methods, t.method) || t.attempts >= max(p.MaxAttempts, 1) {
		return verdict{}
	}
	idem := isGET(t.method) // only a GET is ever sent twice
	if t.status == 0 {
		if t.err == nil || t.ctxErr != nil || errors.Is(t.err, ErrCrossOrigin) || (t.sent && !idem) {
			return verdict{}
		}
		return verdict{retry: true, wait: backoff(p, t.n)}
	}
	if !idem {
		return verdict{}
	}
	switch t.status {
	case http.StatusTooManyRequests:
		for _, m := range parseErrorBody(t.header.Get("Content-Type"), t.body) {
			if m.Code == CodeAccessExceeded {
				return verdict{}
			}
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return verdict{}
	}
	ra := retryAfter(t.header, now())
	if ra == 0 && t.status == http.StatusTooManyRequests {
		return verdict{}
	}
	if ra > 0 {
		if p.MaxRetryAfter > 0 && ra > p.MaxRetryAfter {
			return verdict{}
		}
		return verdict{retry: true, wait: ra}
	}
	return verdict{retry: true, wait: backoff(p, t.attempts)}
}

// again waits before the attempt after o, an outcome of cl. It reports
// false, with the outcome the call ends with, when the context ended
// during the wait. The next attempt takes its call from the access budget
// in run, once its request is made.
func (c *Client) again(ctx context.Context, o outcome, cl *call, wait time.Duration) (outcome, bool) {
	if err := c.sleep(ctx, wait); err != nil {
		if o.resp != nil {
			te := cl.r.transportError(cl.requestID, false, err)
			te.Attempts = o.resp.Attempts
			o.err = te
		}
		return o, false
	}
	return o, true
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

// retryAfter reads Retry-After as delay-seconds or an HTTP date; 0 when absent
// or unparsable. Delay-seconds beyond what a Duration holds give the longest
// Duration, never a wrapped (negative) one.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case s < 0:
			return 0
		case s > int64(math.MaxInt64/time.Second):
			return math.MaxInt64 // longer than a Duration holds: the longest wait there is
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// idempotent reports whether sending method twice has the effect of sending
// it once (RFC 9110, section 9.2.2).
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}
