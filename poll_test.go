package xs2a

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollClock is a fake clock whose waits advance it: the client's Date
// headers, NotYetFor and Retry-After dates all read it, and no test sleeps.
type pollClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *pollClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *pollClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *pollClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// answers replies with the n-th of steps (the last one repeats).
func answers(steps ...func(http.ResponseWriter, *http.Request, int)) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		steps[min(n, len(steps))-1](w, r, n)
	}
}

func status(s string) func(http.ResponseWriter, *http.Request, int) {
	return reply(http.StatusOK, `{"transactionStatus":"`+s+`"}`)
}

// newPollBank is a test bank whose client waits on a pollClock. The
// client's own retries are off so that every answer reaches PollStatus.
func newPollBank(t *testing.T, fn func(http.ResponseWriter, *http.Request, int)) (*testBank, *Client, *pollClock) {
	t.Helper()
	clk := &pollClock{now: fixedNow()}
	b, c := newBank(t, fn, WithClock(clk.Now), WithRetry(RetryPolicy{MaxAttempts: 1}))
	c.sleep = clk.sleep
	return b, c, clk
}

var statusLink = Link{Href: "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status", Verbs: []string{"GET"}}

// With UntilSettled the poll goes past the accepted statuses to a final one.
func TestPollStopsOnFinalStatuses(t *testing.T) {
	t.Parallel()
	for _, final := range []string{"ACSC", "ACCC", "RJCT", "CANC"} {
		t.Run(final, func(t *testing.T) {
			t.Parallel()
			b, c, clk := newPollBank(t, answers(status("RCVD"), status("ACTC"), status("ACSP"), status(final), status("WRONG")))
			var seenStatuses []TransactionStatus
			st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{
				UntilSettled: true,
				OnStatus:     func(s *PaymentStatus) { seenStatuses = append(seenStatuses, s.TransactionStatus) },
			})
			require.NoError(t, err)
			assert.Equal(t, TransactionStatus(final), st.TransactionStatus)
			assert.Equal(t, 4, b.count())
			assert.Equal(t, []TransactionStatus{"RCVD", "ACTC", "ACSP", TransactionStatus(final)}, seenStatuses)
			assert.Equal(t, []time.Duration{2 * time.Second, 3 * time.Second, 4500 * time.Millisecond}, clk.Waits(), "2 s growing by 1.5")
			assert.Equal(t, http.MethodGet, b.last().Method)
			assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status", b.last().Path)
		})
	}
}

// By default the poll ends at the first read that shows the PSU signed and
// the bank accepted the payment (PDNG, as production answers until it
// executes the payment, and the other accepted codes), or refused it: RCVD
// and PATC poll on. With UntilSettled it goes on to the final status.
func TestPollEndsWhenAccepted(t *testing.T) {
	t.Parallel()
	noFunds := reply(http.StatusOK, `{"transactionStatus":"ACCP","fundsAvailable":false}`)
	tests := []struct {
		name    string
		answer  func(http.ResponseWriter, *http.Request, int)
		settled bool              // UntilSettled
		want    TransactionStatus // the status PollStatus returns
		reads   int
		funds   bool // the status says fundsAvailable false
	}{
		{"PDNG", status("PDNG"), false, TransactionStatusPDNG, 3, false},
		{"ACTC", status("ACTC"), false, TransactionStatusACTC, 3, false},
		{"ACCP", status("ACCP"), false, TransactionStatusACCP, 3, false},
		{"ACSP", status("ACSP"), false, TransactionStatusACSP, 3, false},
		{"ACWC", status("ACWC"), false, TransactionStatusACWC, 3, false},
		{"ACWP", status("ACWP"), false, TransactionStatusACWP, 3, false},
		{"ACCC", status("ACCC"), false, TransactionStatusACCC, 3, false},
		{"ACSC", status("ACSC"), false, TransactionStatusACSC, 3, false},
		{"RJCT", status("RJCT"), false, TransactionStatusRJCT, 3, false},
		{"CANC", status("CANC"), false, TransactionStatusCANC, 3, false},
		{"fundsAvailable false", noFunds, false, TransactionStatusACCP, 3, true},
		{"PDNG until settled", status("PDNG"), true, TransactionStatusACSC, 4, false},
		{"ACTC until settled", status("ACTC"), true, TransactionStatusACSC, 4, false},
		{"fundsAvailable false until settled", noFunds, true, TransactionStatusACCP, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, c, _ := newPollBank(t, answers(status("RCVD"), status("PATC"), tt.answer, status("ACSC")))
			st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{UntilSettled: tt.settled})
			require.NoError(t, err, "a decision is a status, not an error")
			assert.Equal(t, tt.funds, st.InsufficientFunds())
			assert.Equal(t, tt.want, st.TransactionStatus)
			assert.Equal(t, tt.reads, b.count())
		})
	}
	t.Run("nil options", func(t *testing.T) {
		t.Parallel()
		b, c, _ := newPollBank(t, answers(status("RCVD"), status("PDNG"), status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
		require.NoError(t, err)
		assert.Equal(t, TransactionStatusPDNG, st.TransactionStatus)
		assert.Equal(t, 2, b.count())
	})
}

// Accepted is exactly the set PollStatus ends at by default.
func TestTransactionStatusAccepted(t *testing.T) {
	t.Parallel()
	accepted := []TransactionStatus{TransactionStatusPDNG, TransactionStatusACTC, TransactionStatusACCP,
		TransactionStatusACSP, TransactionStatusACWC, TransactionStatusACWP, TransactionStatusACCC, TransactionStatusACSC}
	for _, st := range []TransactionStatus{TransactionStatusACCC, TransactionStatusACCP, TransactionStatusACSC,
		TransactionStatusACSP, TransactionStatusACTC, TransactionStatusACWC, TransactionStatusACWP, TransactionStatusRCVD,
		TransactionStatusPDNG, TransactionStatusRJCT, TransactionStatusCANC, TransactionStatusACFC, TransactionStatusPATC,
		TransactionStatusPART, "pdng", "NEWCODE", ""} {
		assert.Equal(t, slices.Contains(accepted, st), st.Accepted(), "%q", st)
	}
}

func TestPollDelaysAreCapped(t *testing.T) {
	t.Parallel()
	_, c, clk := newPollBank(t, answers(status("RCVD"), status("RCVD"), status("RCVD"), status("RCVD"), status("RCVD"), status("PDNG")))
	_, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MinDelay: time.Second, MaxDelay: 3 * time.Second, Backoff: 2})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second}, clk.Waits())
}

func TestPollReportsPATCOnce(t *testing.T) {
	t.Parallel()
	b, c, _ := newPollBank(t, answers(status("RCVD"), status("PATC"), status("PATC"), status("PATC"), status("ACSC")))
	var patc int
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{
		OnPATC: func(s *PaymentStatus) {
			patc++
			assert.Equal(t, TransactionStatusPATC, s.TransactionStatus)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, TransactionStatusACSC, st.TransactionStatus)
	assert.Equal(t, 1, patc, "OnPATC is called once when the status becomes PATC")
	assert.Equal(t, 5, b.count())
}

func TestPollReportsPATCAgainAfterLeavingIt(t *testing.T) {
	t.Parallel()
	_, c, _ := newPollBank(t, answers(status("PATC"), status("ACTC"), status("PATC"), status("RJCT")))
	var patc int
	_, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{UntilSettled: true, OnPATC: func(*PaymentStatus) { patc++ }})
	require.NoError(t, err)
	assert.Equal(t, 2, patc)
}

func TestPollInsufficientFundsIsNotFinal(t *testing.T) {
	t.Parallel()
	b, c, _ := newPollBank(t, answers(
		status("RCVD"),
		reply(http.StatusOK, `{"transactionStatus":"ACCP","fundsAvailable":true}`),
		reply(http.StatusOK, `{"transactionStatus":"ACCP","fundsAvailable":false}`),
		status("ACSC"),
	))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{UntilSettled: true})
	require.NoError(t, err, "the bank decided: the status says what")
	assert.Equal(t, TransactionStatusACCP, st.TransactionStatus)
	assert.True(t, st.InsufficientFunds(), "ACCP without funds waits for them: the caller cancels it")
	assert.Equal(t, 3, b.count(), "ACCP with funds available goes on until settled; without funds it stops")
}

func TestPollFinalStatusWithoutFunds(t *testing.T) {
	t.Parallel()
	// A final status is the result, whatever fundsAvailable says.
	b, c, _ := newPollBank(t, answers(status("RCVD"), reply(http.StatusOK, `{"transactionStatus":"RJCT","fundsAvailable":false}`)))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
	require.NoError(t, err)
	assert.Equal(t, TransactionStatusRJCT, st.TransactionStatus)
	assert.True(t, st.InsufficientFunds(), "the reason of the rejection")
	assert.Equal(t, 2, b.count())
}

func TestPollBulkPART(t *testing.T) {
	t.Parallel()
	t.Run("bulk", func(t *testing.T) {
		t.Parallel()
		b, c, _ := newPollBank(t, answers(status("RCVD"), status("PART"), status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{Bulk: true})
		require.NoError(t, err)
		assert.Equal(t, TransactionStatusPART, st.TransactionStatus)
		assert.Equal(t, 2, b.count())
	})
	t.Run("single", func(t *testing.T) {
		t.Parallel()
		b, c, _ := newPollBank(t, answers(status("RCVD"), status("PART"), status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
		require.NoError(t, err)
		assert.Equal(t, TransactionStatusACSC, st.TransactionStatus)
		assert.Equal(t, 3, b.count())
	})
}

func TestPollHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	b, c, clk := newPollBank(t, answers(
		status("RCVD"),
		reply(http.StatusServiceUnavailable, `{"tppMessages":[{"category":"ERROR","code":"SERVICE_UNAVAILABLE"}]}`, "Retry-After", "7"),
		reply(http.StatusTooManyRequests, `{}`, "Retry-After", "120"),
		reply(http.StatusOK, `{"transactionStatus":"PATC"}`, "Retry-After", "5"),
		reply(http.StatusTooManyRequests, `{}`, "Retry-After", fixedNow().Add(time.Hour).Format(http.TimeFormat)),
		status("ACSC"),
	))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MinDelay: time.Second, Backoff: 1, MaxDelay: 20 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, TransactionStatusACSC, st.TransactionStatus)
	assert.Equal(t, 6, b.count())
	assert.Equal(t, []time.Duration{
		time.Second,      // after RCVD
		7 * time.Second,  // 503 Retry-After: 7
		20 * time.Second, // 429 Retry-After: 120, capped at MaxDelay
		5 * time.Second,  // a status answer may carry Retry-After too
		20 * time.Second, // an HTTP date an hour ahead, capped
	}, clk.Waits())
}

func TestPollReturnsAccessExceeded(t *testing.T) {
	t.Parallel()
	b, c, _ := newPollBank(t, answers(status("RCVD"),
		reply(http.StatusTooManyRequests, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`, "Retry-After", "3600")))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
	require.ErrorIs(t, err, ErrAccessExceeded)
	assert.Equal(t, TransactionStatusRCVD, st.TransactionStatus, "the last status read comes with the error")
	assert.Equal(t, 2, b.count())
}

func TestPollEndsWithTheContext(t *testing.T) {
	t.Parallel()
	// The real timer: a wait of an hour that only the context can end.
	b, c := newBank(t, status("RCVD"))
	ctx, cancel := context.WithCancel(context.Background())
	read := make(chan struct{}, 1)
	go func() {
		<-read
		cancel()
	}()
	st, _, err := c.Payments.PollStatus(ctx, presentPSU, statusLink, &PollOptions{
		MinDelay: time.Hour,
		OnStatus: func(*PaymentStatus) { read <- struct{}{} },
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "xs2a: ")
	assert.Equal(t, TransactionStatusRCVD, st.TransactionStatus)
	assert.Equal(t, 1, b.count())
}

func TestPollEndedContextSendsNothing(t *testing.T) {
	t.Parallel()
	b, c, _ := newPollBank(t, status("RCVD"))
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	st, _, err := c.Payments.PollStatus(ctx, presentPSU, statusLink, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Nil(t, st)
	assert.Zero(t, b.count())
}

func TestPollContextEndsDuringTheRead(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	b, c, _ := newPollBank(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		cancel()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	_, _, err := c.Payments.PollStatus(ctx, presentPSU, statusLink, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, b.count())
}

func TestPollToleratesNotYet(t *testing.T) {
	t.Parallel()
	notFound := reply(http.StatusNotFound, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`)
	t.Run("then found", func(t *testing.T) {
		t.Parallel()
		b, c, _ := newPollBank(t, answers(notFound,
			reply(http.StatusNotFound, ``),
			reply(http.StatusBadRequest, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`),
			reply(http.StatusForbidden, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`),
			status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
		require.NoError(t, err)
		assert.Equal(t, TransactionStatusACSC, st.TransactionStatus)
		assert.Equal(t, 5, b.count())
	})
	t.Run("surfaced after NotYetFor", func(t *testing.T) {
		t.Parallel()
		b, c, clk := newPollBank(t, notFound)
		start := clk.Now()
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MinDelay: 10 * time.Second, Backoff: 1, NotYetFor: time.Minute})
		require.ErrorIs(t, err, ErrNotFound)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeResourceUnknown, e.Code)
		assert.Nil(t, st)
		assert.Equal(t, 7, b.count(), "reads at 0, 10, ..., 60 s; the one at 60 s is no longer tolerated")
		assert.Equal(t, time.Minute, clk.Now().Sub(start))
	})
	t.Run("default two minutes", func(t *testing.T) {
		t.Parallel()
		_, c, clk := newPollBank(t, notFound)
		start := clk.Now()
		_, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
		require.ErrorIs(t, err, ErrNotFound)
		elapsed := clk.Now().Sub(start)
		assert.GreaterOrEqual(t, elapsed, 2*time.Minute)
		assert.Less(t, elapsed, 2*time.Minute+DefaultPollMaxDelay)
	})
	for name, tc := range map[string]struct {
		answer func(http.ResponseWriter, *http.Request, int)
		opts   *PollOptions
		is     error
	}{
		"401":                {reply(http.StatusUnauthorized, `{"tppMessages":[{"code":"TOKEN_INVALID"}]}`), nil, nil},
		"403":                {reply(http.StatusForbidden, `{}`), nil, ErrConsentInvalid},
		"funds":              {reply(http.StatusBadRequest, `{"tppMessages":[{"code":"FUNDS_NOT_AVAILABLE"}]}`), nil, ErrInsufficientFunds},
		"500":                {reply(http.StatusInternalServerError, `{}`), nil, nil},
		"400 FORMAT_ERROR":   {reply(http.StatusBadRequest, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`), nil, nil},
		"400 without code":   {reply(http.StatusBadRequest, `{}`), nil, nil},
		"409":                {reply(http.StatusConflict, `{"tppMessages":[{"code":"STATUS_INVALID"}]}`), nil, nil},
		"404 funds":          {reply(http.StatusNotFound, `{"tppMessages":[{"code":"FUNDS_NOT_AVAILABLE"}]}`), nil, ErrInsufficientFunds},
		"SCA":                {reply(http.StatusUnauthorized, `{"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`), nil, ErrSCARequired},
		"NotYetFor negative": {notFound, &PollOptions{NotYetFor: -1}, ErrNotFound},
	} {
		t.Run("not tolerated "+name, func(t *testing.T) {
			t.Parallel()
			b, c, _ := newPollBank(t, answers(tc.answer, status("ACSC")))
			_, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, tc.opts)
			require.Error(t, err)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			assert.Equal(t, 1, b.count())
		})
	}
}

func TestPollStrictUnknownStatus(t *testing.T) {
	t.Parallel()
	t.Run("strict", func(t *testing.T) {
		t.Parallel()
		b, c, _ := newPollBank(t, answers(status("RCVD"), status("NEWCODE"), status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{Strict: true})
		require.ErrorIs(t, err, ErrUnknownStatus)
		assert.Contains(t, err.Error(), "NEWCODE")
		assert.Equal(t, TransactionStatus("NEWCODE"), st.TransactionStatus)
		assert.Equal(t, 2, b.count())
	})
	t.Run("lenient", func(t *testing.T) {
		t.Parallel()
		var seenStatuses []TransactionStatus
		b, c, _ := newPollBank(t, answers(status("RCVD"), status("NEWCODE"), status("ACSC")))
		st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{
			OnStatus: func(s *PaymentStatus) { seenStatuses = append(seenStatuses, s.TransactionStatus) },
		})
		require.NoError(t, err)
		assert.Equal(t, TransactionStatusACSC, st.TransactionStatus)
		assert.Equal(t, []TransactionStatus{"RCVD", "NEWCODE", "ACSC"}, seenStatuses, "an unknown code stays visible")
		assert.Equal(t, 3, b.count())
	})
}

func TestPollMaxAttempts(t *testing.T) {
	t.Parallel()
	b, c, clk := newPollBank(t, status("PDNG"))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MaxAttempts: 3, UntilSettled: true})
	require.ErrorIs(t, err, ErrPollAttempts)
	assert.Equal(t, TransactionStatusPDNG, st.TransactionStatus)
	assert.Equal(t, 3, b.count())
	assert.Len(t, clk.Waits(), 2, "no wait after the last read")
}

func TestPollDefaultMaxAttempts(t *testing.T) {
	t.Parallel()
	// A PSU who abandons SCA leaves the payment RCVD for good.
	b, c, clk := newPollBank(t, status("RCVD"))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, nil)
	require.ErrorIs(t, err, ErrPollAttempts)
	assert.Contains(t, err.Error(), "100 reads")
	assert.Equal(t, TransactionStatusRCVD, st.TransactionStatus)
	assert.Equal(t, DefaultPollMaxAttempts, b.count())
	var total time.Duration
	for _, w := range clk.Waits() {
		total += w
	}
	assert.Len(t, clk.Waits(), DefaultPollMaxAttempts-1)
	assert.Equal(t, 64343750*time.Microsecond+92*DefaultPollMaxDelay, total, "2 s growing by 1.5 to 30 s: about 47 minutes")
}

// TestPollMaxAttemptsEndingOnAnError: when the last read is an answer that
// would be waited out (503), the reads are used up all the same: the error
// answers ErrPollAttempts, as documented, and keeps the bank's *Error.
func TestPollMaxAttemptsEndingOnAnError(t *testing.T) {
	t.Parallel()
	b, c, _ := newPollBank(t, answers(status("RCVD"), reply(http.StatusServiceUnavailable, `{}`)))
	st, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MaxAttempts: 2})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.ErrorIs(t, err, ErrPollAttempts)
	assert.Equal(t, TransactionStatusRCVD, st.TransactionStatus)
	assert.Equal(t, 2, b.count())
}

func TestPollOptionsDefaults(t *testing.T) {
	t.Parallel()
	o, err := (*PollOptions)(nil).withDefaults()
	require.NoError(t, err)
	assert.Equal(t, PollOptions{MinDelay: 2 * time.Second, MaxDelay: 30 * time.Second, Backoff: 1.5, NotYetFor: 2 * time.Minute, MaxAttempts: 100}, o)
	o, err = (&PollOptions{MinDelay: time.Minute}).withDefaults()
	require.NoError(t, err)
	assert.Equal(t, time.Minute, o.MaxDelay, "MaxDelay defaults to at least MinDelay")
	for _, bad := range []PollOptions{{MinDelay: -1}, {MaxDelay: -1}, {Backoff: 0.99}, {Backoff: -2}, {MaxAttempts: -1}} {
		_, err := bad.withDefaults()
		var ve *ValidationError
		assert.ErrorAs(t, err, &ve, "%+v", bad)
	}
}

func TestPollHugeBackoffStaysAtMaxDelay(t *testing.T) {
	t.Parallel()
	_, c, clk := newPollBank(t, answers(status("RCVD"), status("RCVD"), status("RCVD"), status("ACSC")))
	_, _, err := c.Payments.PollStatus(context.Background(), presentPSU, statusLink, &PollOptions{MinDelay: time.Second, MaxDelay: time.Minute, Backoff: 1e300})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, time.Minute, time.Minute}, clk.Waits())
}

// PollStatus hands back the Response of the last read that got an answer,
// whatever ends the poll, and nil when no read got one.
func TestPollReturnsLastResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		bank     func(http.ResponseWriter, *http.Request, int)
		opts     *PollOptions
		link     Link
		cancel   bool
		wantCode int   // 0: no Response
		wantErr  error // nil: see bankErr
		bankErr  bool  // the error is the bank's *Error
	}{
		{name: "final", bank: answers(status("RCVD"), status("ACSC")), link: statusLink, wantCode: http.StatusOK},
		{name: "failed for good", bank: answers(status("RCVD"), reply(http.StatusBadRequest, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`)),
			link: statusLink, wantCode: http.StatusBadRequest, bankErr: true},
		{name: "reads used up on a 503", bank: answers(status("RCVD"), reply(http.StatusServiceUnavailable, `{}`)),
			opts: &PollOptions{MaxAttempts: 2}, link: statusLink, wantCode: http.StatusServiceUnavailable, wantErr: ErrPollAttempts},
		{name: "funds missing", bank: answers(reply(http.StatusOK, `{"transactionStatus":"ACCP","fundsAvailable":false}`)),
			link: statusLink, wantCode: http.StatusOK}, // a decision: the status, no error
		{name: "no link", bank: answers(status("ACSC"))},
		{name: "ended before the first read", bank: answers(status("ACSC")), link: statusLink, cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, c, _ := newPollBank(t, tt.bank)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			_, resp, err := c.Payments.PollStatus(ctx, presentPSU, tt.link, tt.opts)
			switch {
			case tt.link.IsZero():
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
			case tt.bankErr:
				var e *Error
				require.ErrorAs(t, err, &e)
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
			default:
				require.NoError(t, err)
			}
			if tt.wantCode == 0 {
				assert.Nil(t, resp)
				assert.Zero(t, b.count())
				return
			}
			require.NotNil(t, resp)
			assert.Equal(t, tt.wantCode, resp.StatusCode)
			assert.Equal(t, b.last().Header.Get("X-Request-ID"), resp.RequestID, "the last read's answer")
		})
	}
}

// TestIsNotYet: the answers a status read gives before the payment exists
// for it (PS7) and none other: not a 401 or 429 with RESOURCE_UNKNOWN, not
// FUNDS_NOT_AVAILABLE, not a 5xx, not another error type.
func TestIsNotYet(t *testing.T) {
	t.Parallel()
	codes := func(cs ...string) []TPPMessage {
		var m []TPPMessage
		for _, c := range cs {
			m = append(m, TPPMessage{Code: c})
		}
		return m
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&Error{StatusCode: 404}, true},
		{errors.Join(errors.New("wrapped"), &Error{StatusCode: 404}), true},
		{&Error{StatusCode: 400, Messages: codes(CodeResourceUnknown)}, true},
		{&Error{StatusCode: 403, Messages: codes(CodeFormatError, CodeResourceUnknown)}, true},
		{&Error{StatusCode: 401, Messages: codes(CodeResourceUnknown)}, false},
		{&Error{StatusCode: 429, Messages: codes(CodeResourceUnknown)}, false},
		{&Error{StatusCode: 404, Messages: codes(CodeFundsNotAvailable)}, false},
		{&Error{StatusCode: 400}, false},
		{&Error{StatusCode: 500, Messages: codes(CodeResourceUnknown)}, false},
		{&SCARequiredError{StatusCode: 404}, false},
		{ErrNotFound, false},
		{nil, false},
	} {
		assert.Equal(t, c.want, IsNotYet(c.err), "%#v", c.err)
	}
}

// TestPaymentOutcome: every status code has its outcome for people; funds
// lacking wins over the code (ACCP is accepted otherwise), and a nil status
// or a code not of the Berlin Group is unknown.
func TestPaymentOutcome(t *testing.T) {
	t.Parallel()
	no := false
	for _, c := range []struct {
		st   *PaymentStatus
		want PaymentOutcome
	}{
		{nil, OutcomeUnknown},
		{&PaymentStatus{TransactionStatus: TransactionStatusRCVD}, OutcomeWaitingForSignature},
		{&PaymentStatus{TransactionStatus: TransactionStatusPATC}, OutcomeWaitingForSignature},
		{&PaymentStatus{TransactionStatus: TransactionStatusPDNG}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACTC}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACCP}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACCP, FundsAvailable: &no}, OutcomeOnHoldForFunds},
		{&PaymentStatus{TransactionStatus: TransactionStatusACWC}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACWP}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACSP}, OutcomeAccepted},
		{&PaymentStatus{TransactionStatus: TransactionStatusACSC}, OutcomeSettled},
		{&PaymentStatus{TransactionStatus: TransactionStatusACCC}, OutcomeSettled},
		{&PaymentStatus{TransactionStatus: TransactionStatusRJCT}, OutcomeRejected},
		{&PaymentStatus{TransactionStatus: TransactionStatusCANC}, OutcomeCancelled},
		{&PaymentStatus{TransactionStatus: TransactionStatusACFC}, OutcomeUnknown},
		{&PaymentStatus{TransactionStatus: TransactionStatusPART}, OutcomeUnknown},
		{&PaymentStatus{TransactionStatus: "acsc"}, OutcomeUnknown},
		{&PaymentStatus{}, OutcomeUnknown},
	} {
		name := "nil"
		if c.st != nil {
			name = string(c.st.TransactionStatus)
		}
		assert.Equal(t, c.want, c.st.Outcome(), name)
	}
}
