package xs2a

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Defaults of PollOptions, as the platform's public clients poll
// (docs/interface.md PP4): 100 reads span about 47 minutes.
const (
	DefaultPollMinDelay    = 2 * time.Second
	DefaultPollMaxDelay    = 30 * time.Second
	DefaultPollBackoff     = 1.5
	DefaultPollNotYetFor   = 2 * time.Minute
	DefaultPollMaxAttempts = 100
)

// PollOptions tune PaymentsService.PollStatus; the zero value (or nil) takes
// the defaults.
type PollOptions struct {
	MinDelay    time.Duration        // the first wait between two reads (default 2 s)
	MaxDelay    time.Duration        // caps every wait, the bank's Retry-After included (default 30 s)
	Backoff     float64              // multiplies the wait after each read (default 1.5; below 1 refused)
	MaxAttempts int                  // the number of status reads (default 100); used up, the poll ends with ErrPollAttempts
	OnStatus    func(*PaymentStatus) // when set, called with every status read
	// OnPATC, when set, is called each time the status becomes PATC (signers
	// missing, docs/interface.md PS4): send the next signer through
	// StartAuthorisation with the status answer's Links.StartAuthorisation.
	OnPATC func(*PaymentStatus)
	Strict bool // an unknown status ends the poll with ErrUnknownStatus; otherwise polling goes on
	// NotYetFor is how long, from the start of the poll, a 404, or a 4xx
	// (not 401 or 429) whose code is RESOURCE_UNKNOWN, counts as a status
	// that does not exist yet (docs/interface.md PS7); any other 4xx ends the
	// poll. Default 2 minutes; negative: none.
	NotYetFor time.Duration
	Bulk      bool // PART is final, as it is for bulk payments (PS3)
	// UntilSettled polls past an accepted status until a final one (PS3),
	// which may take days: bound it with MaxAttempts or a context deadline.
	UntilSettled bool
}

// withDefaults checks o and fills in the defaults.
func (o *PollOptions) withDefaults() (PollOptions, error) {
	p := *cmp.Or(o, &PollOptions{})
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
	p.MinDelay = cmp.Or(p.MinDelay, DefaultPollMinDelay)
	p.MaxDelay = cmp.Or(p.MaxDelay, max(DefaultPollMaxDelay, p.MinDelay))
	if p.MaxDelay < p.MinDelay {
		return p, invalid("PollOptions.MaxDelay", "must not be less than MinDelay")
	}
	p.Backoff = cmp.Or(p.Backoff, DefaultPollBackoff)
	p.NotYetFor = cmp.Or(p.NotYetFor, DefaultPollNotYetFor)
	p.MaxAttempts = cmp.Or(p.MaxAttempts, DefaultPollMaxAttempts)
	return p, nil
}

// PollStatus reads the payment status behind link (Initiation.Links.Status)
// until the bank has decided (docs/interface.md PS9; with UntilSettled, PS3),
// waiting as opts says (nil: the defaults). A nil error says the bank
// decided; the status says what: accepted when TransactionStatus.Accepted
// and not PaymentStatus.InsufficientFunds. After opts.MaxAttempts reads the
// error answers errors.Is(err, ErrPollAttempts); any other error, or the end
// of ctx, ends the poll at once. It returns the last status read and the
// *Response of the last answer, each nil when there was none.
func (s *PaymentsService) PollStatus(ctx context.Context, psu PSU, link Link, opts *PollOptions) (*PaymentStatus, *Response, error) {
	if err := checkContext(ctx); err != nil {
		return nil, nil, err
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	if link.IsZero() {
		return nil, nil, invalid("link", "is empty: pass Initiation.Links.Status")
	}
	p := &poll{s: s, psu: psu, link: link, o: o, start: s.client.cfg.now(), delay: o.MinDelay}
	err = p.run(ctx)
	return p.last, p.resp, err
}

// poll is one PollStatus: what it reads, and what it has read so far.
type poll struct {
	s     *PaymentsService
	psu   PSU
	link  Link
	o     PollOptions
	start time.Time
	delay time.Duration // the next wait before the bank's Retry-After

	last *PaymentStatus // the last status read
	resp *Response      // the last answer
}

// run reads until the status settles, the reads are used up or a read fails
// for good; a "not yet" or a 429/503 to wait out is read again.
func (p *poll) run(ctx context.Context) error {
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return pollContextError(err)
		}
		st, resp, err := p.s.Status(ctx, p.psu, p.link)
		p.resp = cmp.Or(resp, p.resp)
		wait := p.delay
		switch {
		case err != nil && ctx.Err() != nil:
			return pollContextError(ctx.Err())
		case err != nil:
			ra, ok := p.o.transient(err, p.s.client.cfg.now().Sub(p.start))
			if !ok {
				return err
			}
			if attempt >= p.o.MaxAttempts { // the "not yet" or 429/503 kept in the chain
				return fmt.Errorf("%w (%d reads; the last one failed): %w", ErrPollAttempts, attempt, err)
			}
			wait = max(wait, ra)
		default:
			if done, err := p.settled(st); done {
				return err
			}
			if attempt >= p.o.MaxAttempts {
				return fmt.Errorf("%w (%d reads, last status %s)", ErrPollAttempts, attempt,
					idsOfCall(&p.psu, p.link.Href, "").text(string(st.TransactionStatus), 35))
			}
			wait = max(wait, retryAfter(p.resp.Header, p.s.client.cfg.now()))
		}
		if err := p.s.client.sleep(ctx, min(wait, p.o.MaxDelay)); err != nil {
			return pollContextError(err)
		}
		if next := float64(p.delay) * p.o.Backoff; next < float64(p.o.MaxDelay) {
			p.delay = time.Duration(next)
		} else {
			p.delay = p.o.MaxDelay // also when next is beyond what a Duration holds
		}
	}
}

// settled records the status st, tells the callbacks, and reports whether
// the poll ends: on an accepted status (UntilSettled: a final one), a
// refusal, missing funds or (Strict, with an error) an unknown code.
func (p *poll) settled(st *PaymentStatus) (bool, error) {
	prev := p.last
	p.last = st
	if p.o.OnStatus != nil {
		p.o.OnStatus(st)
	}
	if st.TransactionStatus == TransactionStatusPATC && p.o.OnPATC != nil &&
		(prev == nil || prev.TransactionStatus != TransactionStatusPATC) {
		p.o.OnPATC(st)
	}
	switch {
	case st.TransactionStatus.Final(), p.o.Bulk && st.TransactionStatus == TransactionStatusPART,
		st.InsufficientFunds(), !p.o.UntilSettled && st.TransactionStatus.Accepted():
		return true, nil
	case p.o.Strict && !st.TransactionStatus.Known():
		return true, fmt.Errorf("%w %q (X-Request-ID %s)", ErrUnknownStatus, idsOfCall(&p.psu, p.link.Href, "").text(string(st.TransactionStatus), 35), p.resp.RequestID)
	}
	return false, nil
}

// transient reports whether a failed status read is worth another one, and
// the wait the bank asked for.
func (o *PollOptions) transient(err error, elapsed time.Duration) (time.Duration, bool) {
	e, ok := errors.AsType[*Error](err)
	switch {
	case !ok || e.StatusCode == http.StatusUnauthorized:
		return 0, false
	case e.StatusCode == http.StatusServiceUnavailable:
		return e.RetryAfter, true
	case e.StatusCode == http.StatusTooManyRequests:
		return e.RetryAfter, !e.HasCode(CodeAccessExceeded)
	case IsNotYet(err):
		return 0, o.NotYetFor > 0 && elapsed < o.NotYetFor
	}
	return 0, false
}

// IsNotYet reports an answer that may mean a payment's status or details do
// not exist yet (docs/interface.md PS7): a 404, or a 4xx other than 401 and
// 429 whose code is RESOURCE_UNKNOWN, without FUNDS_NOT_AVAILABLE. Right
// after the initiation, until the PSU approved it, Payments.Status of a
// domestic-norway-credit-transfers payment answers so; PollStatus waits it
// out for PollOptions.NotYetFor.
func IsNotYet(err error) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && !e.HasCode(CodeFundsNotAvailable) && (e.StatusCode == http.StatusNotFound ||
		e.StatusCode >= 400 && e.StatusCode < 500 && e.StatusCode != http.StatusUnauthorized &&
			e.StatusCode != http.StatusTooManyRequests && e.HasCode(CodeResourceUnknown))
}

// pollContextError wraps the error of an ended context.
func pollContextError(err error) error {
	return fmt.Errorf("xs2a: payments.poll: %w", err)
}
