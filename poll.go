package xs2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Defaults of PollOptions.
const (
	DefaultPollMinDelay  = 2 * time.Second // public clients of the platform poll every 2 s
	DefaultPollMaxDelay  = 30 * time.Second
	DefaultPollBackoff   = 1.5
	DefaultPollNotYetFor = 2 * time.Minute
	// DefaultPollMaxAttempts bounds a poll whose status never settles, as
	// when the PSU abandons SCA and the payment stays RCVD; public clients
	// of the platform stop at about 100 reads. With the default delays the
	// 100 reads span about 47 minutes.
	DefaultPollMaxAttempts = 100
)

// PollOptions tune PaymentsService.PollStatus. The zero value (or nil) polls
// after 2 s, then 1.5 times longer each time up to 30 s, until the status is
// final, the bank reports fundsAvailable false (a *FundsError), 100 reads
// were made (about 47 minutes; ErrPollAttempts), or the context ends.
type PollOptions struct {
	// MinDelay is the first wait between two reads (default 2 s).
	MinDelay time.Duration
	// MaxDelay caps every wait, a Retry-After of the bank included
	// (default 30 s).
	MaxDelay time.Duration
	// Backoff multiplies the wait after each read (default 1.5; 1 keeps it
	// at MinDelay). Less than 1 is refused.
	Backoff float64
	// MaxAttempts is the number of status reads; 0 means
	// DefaultPollMaxAttempts (100: with the default delays about 47
	// minutes, the last 92 waits being 30 s). When it is used up
	// PollStatus returns the last status and an error that answers
	// errors.Is(err, ErrPollAttempts). A context with a deadline bounds the
	// poll too, whichever ends first.
	MaxAttempts int
	// OnStatus, when set, is called with every status read.
	OnStatus func(*PaymentStatus)
	// OnPATC, when set, is called once each time the status becomes PATC:
	// the payment needs several signatures and some are still missing
	// (docs/interface.md, Payment status). Send the next signer through
	// StartAuthorisation with the status answer's
	// Links.StartAuthorisation (or the initiation's, the same link). It is
	// not called again while the status stays PATC.
	OnPATC func(*PaymentStatus)
	// Strict makes a status that is not a Berlin Group code an error
	// (ErrUnknownStatus). Otherwise such a status is reported to OnStatus
	// and polling goes on.
	Strict bool
	// NotYetFor is how long, from the start of the poll, an answer that
	// the status does not exist yet counts as "not yet": a 404, or a 4xx
	// (not 401 or 429) whose code is RESOURCE_UNKNOWN. Some products
	// (DomesticNorwayCreditTransfers) have no status before the PSU has
	// approved the payment (docs/interface.md, Endpoints: "details and status are
	// unavailable before the payment is approved"). Any other 4xx (a 400
	// FORMAT_ERROR, say) ends the poll at once. Default 2 minutes;
	// negative: no such tolerance. After it the error is returned.
	NotYetFor time.Duration
	// Bulk makes PART (partially accepted) final, as it is for bulk
	// payments (docs/interface.md, Production, Payments).
	Bulk bool
}

// withDefaults checks o and fills in the defaults.
func (o *PollOptions) withDefaults() (PollOptions, error) {
	var p PollOptions
	if o != nil {
		p = *o
	}
	switch {
	case p.MinDelay < 0:
		return p, invalid("PollOptions.MinDelay", "must not be negative")
	case p.MaxDelay < 0:
		return p, invalid("PollOptions.MaxDelay", "must not be negative")
	case p.MaxAttempts < 0:
		return p, invalid("PollOptions.MaxAttempts", "must not be negative")
	case p.Backoff != 0 && !(p.Backoff >= 1): // NaN too
		return p, invalid("PollOptions.Backoff", "must be at least 1")
	}
	if p.MinDelay == 0 {
		p.MinDelay = DefaultPollMinDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = max(DefaultPollMaxDelay, p.MinDelay)
	}
	if p.MaxDelay < p.MinDelay {
		return p, invalid("PollOptions.MaxDelay", "must not be less than MinDelay")
	}
	if p.Backoff == 0 {
		p.Backoff = DefaultPollBackoff
	}
	if p.NotYetFor == 0 {
		p.NotYetFor = DefaultPollNotYetFor
	}
	if p.MaxAttempts == 0 {
		p.MaxAttempts = DefaultPollMaxAttempts
	}
	return p, nil
}

// PollStatus reads the payment status behind link (the status link of the
// initiation) until it settles, as docs/interface.md asks ("statuses are updated
// asynchronously, so the TPP polls the status link after PSU approval"). It
// returns:
//
//   - with a nil error, a final status: ACSC, ACCC, RJCT, CANC (and PART
//     with opts.Bulk). A RJCT may carry fundsAvailable false
//     (PaymentStatus.InsufficientFunds): refused for lack of funds, for good.
//   - with a *FundsError (errors.Is(err, ErrInsufficientFunds)), a status
//     that is not final and whose fundsAvailable is false: the bank reports
//     a payment it could not execute for lack of funds as ACCP with
//     fundsAvailable false (docs/interface.md, Payment status), and may still
//     execute it at a later batch run when funds arrive. Cancel it
//     (Cancel) before initiating it again or telling the PSU it failed.
//
// Between reads it waits opts.MinDelay, growing by opts.Backoff up to
// opts.MaxDelay, on a timer that ends with ctx. After opts.MaxAttempts reads
// (default 100) without a final status it returns the last status and an
// error that answers errors.Is(err, ErrPollAttempts). A 429 or 503 answer is
// waited out, its Retry-After honoured up to MaxDelay (a 429
// ACCESS_EXCEEDED is returned). Early 404 and RESOURCE_UNKNOWN answers count
// as "not yet" (opts.NotYetFor). Any other error ends the poll. When ctx
// ends the poll returns at once with an error that wraps ctx.Err().
//
// On error the returned status is the last one read, nil when none was.
// opts may be nil.
func (s *PaymentsService) PollStatus(ctx context.Context, psu PSU, link Link, opts *PollOptions) (*PaymentStatus, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if link.IsZero() {
		return nil, invalid("link", "is empty: pass Initiation.Links.Status")
	}
	c := s.client
	start := c.cfg.now()
	delay := o.MinDelay
	var last *PaymentStatus
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return last, pollContextError(err)
		}
		st, resp, err := s.Status(ctx, psu, link)
		wait := delay
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return last, pollContextError(cerr)
			}
			ra, ok := o.transient(err, c.cfg.now().Sub(start))
			if !ok {
				return last, err
			}
			wait = max(wait, ra)
		} else {
			prev := last
			last = st
			if o.OnStatus != nil {
				o.OnStatus(st)
			}
			if st.TransactionStatus == TransactionStatusPATC && o.OnPATC != nil &&
				(prev == nil || prev.TransactionStatus != TransactionStatusPATC) {
				o.OnPATC(st)
			}
			if st.TransactionStatus.Final() || (o.Bulk && st.TransactionStatus == TransactionStatusPART) {
				return st, nil
			}
			if st.InsufficientFunds() {
				return st, &FundsError{Status: st}
			}
			if o.Strict && !st.TransactionStatus.Known() {
				return st, fmt.Errorf("%w %q (X-Request-ID %s)", ErrUnknownStatus, safeText(string(st.TransactionStatus), 35), resp.RequestID)
			}
			wait = max(wait, retryAfter(resp.Header, c.cfg.now()))
		}
		if attempt >= o.MaxAttempts {
			if err != nil {
				// The last read was a "not yet" or a 429/503 to wait out:
				// the reads are used up all the same, and the bank's
				// answer is kept in the chain.
				return last, fmt.Errorf("%w (%d reads; the last one failed): %w", ErrPollAttempts, attempt, err)
			}
			return last, fmt.Errorf("%w (%d reads, last status %s)", ErrPollAttempts, attempt, safeText(string(last.TransactionStatus), 35))
		}
		if err := c.sleep(ctx, min(wait, o.MaxDelay)); err != nil {
			return last, pollContextError(err)
		}
		if next := float64(delay) * o.Backoff; next < float64(o.MaxDelay) {
			delay = time.Duration(next)
		} else {
			delay = o.MaxDelay // also when next is beyond what a Duration holds
		}
	}
}

// transient reports whether a failed status read is worth another one, and
// the wait the bank asked for.
func (o *PollOptions) transient(err error, elapsed time.Duration) (time.Duration, bool) {
	var e *Error
	if !errors.As(err, &e) {
		return 0, false
	}
	switch {
	case e.StatusCode == http.StatusServiceUnavailable:
		return e.RetryAfter, true
	case e.StatusCode == http.StatusTooManyRequests:
		return e.RetryAfter, !e.HasCode(CodeAccessExceeded)
	case e.StatusCode == http.StatusUnauthorized:
		return 0, false
	case e.StatusCode == http.StatusNotFound || (e.StatusCode >= 400 && e.StatusCode < 500 && e.HasCode(CodeResourceUnknown)):
		// The status of a payment not yet approved (docs/interface.md, Endpoints).
		return 0, o.NotYetFor > 0 && elapsed < o.NotYetFor && !e.HasCode(CodeFundsNotAvailable)
	}
	return 0, false
}

// pollContextError wraps the error of an ended context.
func pollContextError(err error) error {
	return fmt.Errorf("xs2a: payments.poll: %w", err)
}
