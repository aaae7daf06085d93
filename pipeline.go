package xs2a

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// defaultTimeout is the deadline of a call whose context has none (see
// WithTimeout).
const defaultTimeout = 30 * time.Second

// Client.do runs a call in stages (docs/architecture.md): prepare once; per
// attempt make the request, spend the budget, send, interpret (decode.go)
// and decide (retry.go); then log the call.

// call is one logical call of Client.do: what each of its attempts sends,
// and how many requests reached the wire.
type call struct {
	r         *request
	u         *url.URL
	body      []byte
	fixes     []AcceptFix
	requestID string
	// header is every attempt's request header but the OAuth2 token: the
	// Transport signs a copy of it, and each attempt sets its token anew,
	// so the attempts share it.
	header   http.Header
	budgeted bool          // a PSU-not-present call to a counted endpoint
	spent    int           // calls taken from the access budget
	budget   *BudgetStatus // the budget after the last Take, nil before (Response.Budget)
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

// attempt is what one attempt on the wire gave: the bank's answer, or the
// error of a request that got none.
type attempt struct {
	n    int // the attempt's number, from 1
	resp *http.Response
	err  error
	sent bool // the request was written, in part at least
}

// outcome is what interpret makes of an attempt: the call's result if it
// ends there. warn asks for the call to be logged as failed.
type outcome struct {
	resp     *Response
	err      error
	warn     bool
	status   int    // the answer's status; 0 when none came
	body     []byte // an error answer's body, for decide
	attempts int    // attempts reported (call.attempts); 0: nothing was sent
}

// do runs the pipeline for r (prepare; then per attempt send, interpret and
// decide) and decodes a 2xx body into into (when non-nil). It returns the
// *Response whenever the bank answered. The call, its retries and the
// reading of the answer end by the context's deadline, or by the client's
// timeout when the context has none. A nil ctx is refused (checkContext).
// A call that sent something is logged once when it ends (WithLogger): at
// warn level when it failed (no answer, a refusal, a redirect not
// followed), at debug level otherwise.
func (c *Client) do(ctx context.Context, r *request, into any) (*Response, error) {
	if ctx == nil {
		return nil, checkContext(ctx)
	}
	cl, err := c.prepare(ctx, r)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.timeout)
		defer cancel()
	}
	start := time.Now()
	if c.cfg.observer != nil {
		ctx = c.startCall(ctx, cl)
	}
	ctx = httptrace.WithClientTrace(ctx, &cl.trace) // counts the requests written
	o := c.run(ctx, cl, into)
	if o.resp != nil {
		o.resp.Budget = cl.budget
	}
	if c.cfg.observer != nil {
		c.cfg.observer.EndCall(ctx, CallEnd{Attempts: o.attempts, StatusCode: o.status, ErrorType: ErrorType(o.err),
			Duration: time.Since(start), Budget: cl.budget})
	}
	level := slog.LevelDebug
	if o.warn {
		level = slog.LevelWarn
	}
	if o.attempts > 0 && c.cfg.logger != nil && c.cfg.logger.Enabled(ctx, level) {
		attrs := []slog.Attr{
			slog.String("op", r.op),
			slog.String("method", r.method),
			slog.String("request_id", cl.requestID),
			slog.Int("attempt", o.attempts),
			slog.Duration("duration", time.Since(start)),
		}
		if o.status != 0 {
			attrs = append(attrs, slog.Int("status", o.status))
		}
		if o.warn && o.err != nil {
			attrs = append(attrs, errorAttr(o.err, r.ids()))
		}
		c.cfg.logger.LogAttrs(ctx, level, "xs2a call", attrs...)
	}
	return o.resp, o.err
}

// checkContext refuses a nil context with a *ValidationError naming "ctx",
// before anything is sent or stored: every call, iterator and
// SessionManager method checks it first, instead of panicking when it
// reaches the context.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return invalid("ctx", "is nil: pass the call's context, or context.Background()")
	}
	return nil
}

// liveContext is checkContext, then the context's own error: what a store
// checks before it reads or writes anything.
func liveContext(ctx context.Context) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// run makes the attempts of cl, each sent, interpreted and decided, and
// returns the outcome the call ends with.
func (c *Client) run(ctx context.Context, cl *call, into any) outcome {
	var last outcome // the attempt before, which a retry the budget refuses ends with
	for n := 1; ; n++ {
		req, err := c.newHTTPRequest(ctx, cl)
		if err != nil {
			return outcome{err: err, attempts: cl.attempts(n - 1)}
		}
		// A PSU-not-present call to a limited endpoint spends one of the
		// day's calls on every request that may reach the bank, once the
		// request (its OAuth2 token included) is made and before it is
		// written: a request that is never written spends nothing, and a
		// retry the budget no longer allows is not made.
		if err := c.spend(ctx, cl, cl.attempts(n-1)+1); err != nil {
			if n == 1 {
				return outcome{err: err}
			}
			return last
		}
		before, began := cl.writes.Load(), time.Now()
		resp, err := c.hc.Do(req)
		a := attempt{n: n, resp: resp, err: err, sent: cl.writes.Load() > before}
		// Requests written below the Client beyond this attempt's own were
		// seen by the bank too: the budget counts them, after the fact.
		_ = c.spend(ctx, cl, int(cl.writes.Load()))
		o := c.interpret(cl, a, into)
		if c.cfg.observer != nil {
			c.cfg.observer.Attempt(ctx, AttemptInfo{N: n, StatusCode: o.status, ErrorType: ErrorType(o.err), Duration: time.Since(began)})
		}
		if o.err == nil {
			return o // an answer the call takes is never tried again
		}
		t := try{method: cl.r.method, n: n, attempts: o.attempts, status: o.status, body: o.body, err: err, sent: a.sent, ctxErr: ctx.Err()}
		if resp != nil {
			t.header = resp.Header
		}
		v := decide(c.cfg.retry, t, c.cfg.now)
		if !v.retry {
			return o
		}
		if o, ok := c.again(ctx, o, cl, v.wait); !ok {
			return o
		}
		last = o
	}
}

// prepare checks r and builds what each of its attempts sends: the URL,
// the body, the x-accept-fix values and the header (the Transport adds the
// signature and what goes with it; each attempt its OAuth2 token).
func (c *Client) prepare(ctx context.Context, r *request) (*call, error) {
	h := make(http.Header, 8)
	if r.psu != nil {
		if err := r.psu.writeHeaders(h, r.psuContext); err != nil {
			return nil, err
		}
		if r.psu.SCAState != "" {
			r.psu.writeRedirect(h, c.cfg.redirectURI)
		}
	}
	u, err := c.target(r)
	if err != nil {
		return nil, err
	}
	body := r.rawBody
	if r.body != nil {
		if body, err = marshalCompact(r.body); err != nil {
			return nil, fmt.Errorf("xs2a: %s: encoding the request: %w", r.op, err)
		}
	}
	fixes, fixHeader, err := acceptFixes(ctx, c.cfg.fixes, r.fixes)
	if err != nil {
		return nil, err
	}
	cl := &call{r: r, u: u, body: body, fixes: fixes, requestID: uuid.NewString(), header: h,
		budgeted: r.budgetEndpoint != "" && r.psu != nil && !r.psu.Present() && r.psu.ID != ""}
	cl.trace.WroteHeaders = cl.wrote
	vals := make([]string, 0, 6) // the values set here share one slice
	set := func(key, v string) { // key in canonical form
		vals = append(vals, v)
		h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	set("Accept", "application/json")
	if len(body) > 0 {
		set("Content-Type", "application/json")
	}
	set("User-Agent", cmp.Or(c.cfg.userAgent, "tppkit-xs2a-go/"+Version))
	set("X-Request-Id", cl.requestID)
	if fixHeader != "" {
		set("X-Accept-Fix", fixHeader)
	}
	if c.cfg.aspspID != "" {
		set("Aspsp-Id", c.cfg.aspspID)
	}
	return cl, nil
}

// acceptFixes returns the fixes a call sends and their x-accept-fix value:
// the client's, then the call's own (callFixes, added by the SDK for an
// endpoint), then the context's additions, less the context's removals,
// without duplicates. It refuses a fix that cannot be sent in the header.
func acceptFixes(ctx context.Context, client, callFixes []AcceptFix) (fixes []AcceptFix, header string, err error) {
	adj, _ := ctx.Value(acceptFixKey{}).(acceptFixCtx)
	for _, list := range [][]AcceptFix{client, callFixes, adj.add} {
		for _, f := range list {
			switch {
			case slices.Contains(fixes, f) || slices.Contains(adj.remove, f):
				continue
			case !f.valid():
				return nil, "", invalid("AcceptFix", "a value from the context cannot be sent in x-accept-fix")
			case header == "":
				header = string(f)
			default:
				header = header + "," + string(f)
			}
			fixes = append(fixes, f)
		}
	}
	return fixes, header, nil
}

// newHTTPRequest builds one attempt's request (each attempt is signed afresh
// by the Transport, with the same X-Request-ID).
func (c *Client) newHTTPRequest(ctx context.Context, cl *call) (*http.Request, error) {
	r := cl.r
	req, err := http.NewRequestWithContext(ctx, r.method, cl.u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("xs2a: %s: %w", r.op, err)
	}
	switch {
	case cl.body == nil:
	case len(cl.body) == 0:
		req.Body, req.ContentLength = http.NoBody, 0
	default:
		// A replayBody, which Transport digests and sends where it lies
		// instead of copying it (the bytes are never written).
		rb := newReplayBody(cl.body)
		req.Body, req.GetBody, req.ContentLength = rb, rb.replay, int64(len(cl.body))
	}
	req.Header = cl.header
	if c.hc.Jar != nil {
		// http.Client adds the jar's cookies to the request's header: each
		// attempt gets its own, or a retry would send them twice.
		req.Header = cl.header.Clone()
	}
	if c.cfg.tokens != nil {
		tok, err := c.token(ctx)
		if err != nil {
			return nil, fmt.Errorf("xs2a: %s: getting the OAuth2 token: %w", r.op, err)
		}
		tok.SetAuthHeader(req)
	}
	return req, nil
}

// token gets the OAuth2 token of one attempt from the caller's
// oauth2.TokenSource (WithTokenSource), bounded by ctx: Token takes no
// context, so it runs in a goroutine of its own and the attempt ends with
// ctx's error, nothing sent, when ctx ends first. A TokenSource that never
// returns keeps that one goroutine (per call it held), which ends when
// Token returns; nothing else is kept. A panic in Token goes on in the
// caller's goroutine, as it did without the bound.
func (c *Client) token(ctx context.Context) (*oauth2.Token, error) {
	type result struct {
		tok      *oauth2.Token
		err      error
		panicked any
	}
	done := make(chan result, 1) // never blocks the goroutine, read or not
	go func() {
		var r result
		defer func() {
			r.panicked = recover()
			done <- r
		}()
		r.tok, r.err = c.cfg.tokens.Token()
	}()
	select {
	case r := <-done:
		if r.panicked != nil {
			panic(r.panicked)
		}
		if r.err == nil && r.tok == nil {
			r.err = errors.New("the TokenSource gave no token")
		}
		return r.tok, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// spend takes calls from the access budget until cl has taken n (nothing
// for a call the budget does not count), keeping in cl.budget how the
// budget stands after the last (a refusal included). It returns the
// budget's refusal.
func (c *Client) spend(ctx context.Context, cl *call, n int) error {
	for cl.budgeted && cl.spent < n {
		st, err := c.budget.take(ctx, cl.r.psu.ID, cl.r.accountID, cl.r.budgetEndpoint)
		if st != nil {
			cl.budget = st
		}
		if err != nil {
			return err
		}
		cl.spent++
	}
	return nil
}

// startCall tells the observer that cl starts (Observer.StartCall) and
// returns the call's context from then on.
func (c *Client) startCall(ctx context.Context, cl *call) context.Context {
	port, _ := strconv.Atoi(c.base.Port())
	if port == 0 {
		port = 443
		if c.base.Scheme == "http" {
			port = 80
		}
	}
	info := &CallInfo{Operation: cl.r.op, Method: cl.r.method, ServerAddress: c.base.Hostname(), ServerPort: port,
		URLTemplate: urlTemplate(strings.TrimPrefix(cl.u.EscapedPath(), c.basePath)), trace: &traceHeaders{cl.header}}
	if cl.budgeted {
		info.Budget = cl.r.budgetEndpoint
	}
	if started := c.cfg.observer.StartCall(ctx, info); started != nil { // a nil context keeps the call's own
		ctx = started
	}
	info.trace = nil // trace headers are set while the call starts, not later
	return ctx
}
