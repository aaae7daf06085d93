package xs2a

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says when a call is tried again. Only methods in Methods are
// retried (GET by default). A POST or PATCH is never re-sent once it may have
// reached the bank, whatever the policy: with POST in Methods it is retried
// only when the connection failed before the request was written.
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
