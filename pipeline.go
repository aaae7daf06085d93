package xs2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// defaultTimeout is the deadline of a call whose context has none (see
// WithTimeout).
const defaultTimeout = 30 * time.Second

// call is one logical call of Client.do: what each of its attempts sends,
// and how many requests reached the wire.
type call struct {
	r           *request
	u           *url.URL
	body        []byte
	fixes       []AcceptFix
	requestID   string
	maxAttempts int
	retryable   bool // the policy retries r.method
	idem        bool
	budgeted    bool // a PSU-not-present call to a counted endpoint
	spent       int  // calls taken from the access budget
	// writes counts the requests written (httptrace WroteHeaders): one per
	// attempt, as the Transport of a Client makes requests net/http cannot
	// send again by itself, plus any a caller's RoundTripper or a followed
	// redirect wrote.
	writes atomic.Int64
	trace  httptrace.ClientTrace
}

func (cl *call) wrote() { cl.writes.Add(1) }

// attempts is the number reported after attempt tries: the tries, or the
// requests written if more were.
func (cl *call) attempts(attempt int) int { return max(attempt, int(cl.writes.Load())) }

// outcome is how one attempt ended: the call's result, or a retry after
// wait. warn asks for the call's failure to be logged.
type outcome struct {
	resp   *Response
	err    error
	retry  bool
	wait   time.Duration
	warn   bool
	status int
	start  time.Time
}

// do runs the pipeline for r (prepare; then per attempt send and decide;
// then interpret the answer) and decodes a 2xx body into into (when
// non-nil). It returns the *Response whenever the bank answered. The call,
// its retries and the reading of the answer end by the context's deadline,
// or by the client's timeout when the context has none.
func (c *Client) do(ctx context.Context, r *request, into any) (*Response, error) {
	cl, err := c.prepare(ctx, r)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.timeout)
		defer cancel()
	}
	ctx = httptrace.WithClientTrace(ctx, &cl.trace)
	// A PSU-not-present call to a limited endpoint spends one of the
	// day's calls on every request that may reach the bank, before it is
	// written; a retry the budget no longer allows is not made.
	if err := c.spend(ctx, cl, 1); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		o := c.send(ctx, cl, attempt, into)
		if o.retry {
			if werr := c.sleep(ctx, o.wait); werr != nil {
				if o.resp != nil {
					return o.resp, &TransportError{Method: r.method, Op: r.op, RequestID: cl.requestID, ids: idsOf(r.psu), Attempts: o.resp.Attempts, Err: werr}
				}
				return nil, o.err
			}
			if c.spend(ctx, cl, cl.attempts(attempt)+1) == nil {
				continue
			}
		}
		if o.warn || o.retry {
			c.log(ctx, slog.LevelWarn, r, cl.requestID, cl.attempts(attempt), o.status, o.start, o.err)
		}
		return o.resp, o.err
	}
}

// prepare checks r and builds what each of its attempts sends.
func (c *Client) prepare(ctx context.Context, r *request) (*call, error) {
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
	for _, f := range fixes {
		if !f.valid() {
			return nil, invalid("AcceptFix", "a value from the context cannot be sent in x-accept-fix")
		}
	}
	p := c.cfg.retry
	cl := &call{r: r, u: u, body: body, fixes: fixes, requestID: uuid.NewString(),
		maxAttempts: max(p.MaxAttempts, 1), retryable: slices.Contains(p.Methods, r.method), idem: idempotent(r.method),
		budgeted: r.budgetEndpoint != "" && r.psu != nil && !r.psu.Present() && r.psu.ID != ""}
	cl.trace.WroteHeaders = cl.wrote
	return cl, nil
}

// spend takes calls from the access budget until cl has taken n (nothing
// for a call the budget does not count). It returns the budget's refusal.
func (c *Client) spend(ctx context.Context, cl *call, n int) error {
	for cl.budgeted && cl.spent < n {
		if err := c.budget.take(ctx, cl.r.psu.ID, cl.r.accountID, cl.r.budgetEndpoint); err != nil {
			return err
		}
		cl.spent++
	}
	return nil
}

// send makes attempt number attempt of cl and decides what follows it.
func (c *Client) send(ctx context.Context, cl *call, attempt int, into any) outcome {
	r := cl.r
	req, err := c.newHTTPRequest(ctx, r, cl.u, cl.body, cl.requestID, cl.fixes)
	if err != nil {
		return outcome{err: err}
	}
	before := cl.writes.Load()
	start := time.Now()
	resp, err := c.hc.Do(req)
	// Requests written below the Client beyond this attempt's own were
	// seen by the bank too: the budget counts them, after the fact.
	_ = c.spend(ctx, cl, int(cl.writes.Load()))
	if err != nil {
		return c.failed(ctx, cl, attempt, cl.writes.Load() > before, start, err)
	}
	out := &Response{Response: resp, RequestID: cl.requestID, Attempts: cl.attempts(attempt), AcceptFixes: cl.fixes}
	c.log(ctx, slog.LevelDebug, r, cl.requestID, out.Attempts, resp.StatusCode, start, nil)
	switch {
	case resp.StatusCode >= 400:
		return c.refused(cl, out, start)
	case resp.StatusCode >= 300:
		// A redirect that was not followed (no Location): no answer
		// to decode, and for a POST no telling what the bank did.
		resp.Body.Close()
		resp.Body = http.NoBody
		err := &TransportError{Method: r.method, Op: r.op, RequestID: cl.requestID, ids: idsOf(r.psu), Sent: true, Attempts: out.Attempts,
			Err: fmt.Errorf("unexpected answer %s, a redirect that is not followed", resp.Status)}
		return outcome{resp: out, err: err, warn: true, status: resp.StatusCode, start: start}
	}
	err = c.decode(r, resp, cl.requestID, into)
	if te, ok := err.(*TransportError); ok {
		te.Attempts = out.Attempts
	}
	return outcome{resp: out, err: err}
}

// failed decides what follows an attempt that got no answer. A request that
// may have reached the bank is retried only when idempotent; a context that
// ended is never retried.
func (c *Client) failed(ctx context.Context, cl *call, attempt int, sent bool, start time.Time, err error) outcome {
	r := cl.r
	terr := &TransportError{Method: r.method, Op: r.op, RequestID: cl.requestID, ids: idsOf(r.psu), Sent: sent, Attempts: cl.attempts(attempt), Err: err}
	// The log gets terr, whose text leaves out the URL (it holds resource
	// ids), as the error returned does.
	c.log(ctx, slog.LevelDebug, r, cl.requestID, terr.Attempts, 0, start, terr)
	o := outcome{err: terr, warn: true, start: start}
	if cl.retryable && terr.Attempts < cl.maxAttempts && ctx.Err() == nil && !errors.Is(err, ErrCrossOrigin) && (cl.idem || !sent) {
		o.retry, o.wait = true, backoff(c.cfg.retry, attempt)
	}
	return o
}

// refused reads an error answer (status >= 400) and decides whether the
// call is tried again.
func (c *Client) refused(cl *call, out *Response, start time.Time) outcome {
	resp := out.Response
	body, _ := readCapped(resp.Body, maxErrorBody, resp.ContentLength)
	resp.Body.Close()
	resp.Body = http.NoBody
	o := outcome{resp: out, err: c.answerError(cl.r, resp, body, cl.requestID), warn: true, status: resp.StatusCode, start: start}
	o.wait, o.retry = c.shouldRetry(c.cfg.retry, resp, body, cl.retryable && cl.idem, out.Attempts, cl.maxAttempts)
	return o
}
