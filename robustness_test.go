package xs2a_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Fault tolerance against the fake bank's fault injection (xs2atest.Fault):
// connections dropped after a payment reached the bank, gateways answering
// 503 with Retry-After, and a bank that never answers. Run with -v to see
// the counts: go test -v -run TestFault .

// countingTransport counts the requests that leave the SDK (retries
// included) and the answers by status, under the signing Transport.
type countingTransport struct {
	base     http.RoundTripper
	requests atomic.Int64
	errors   atomic.Int64 // no answer (dropped connection, ended context)
	mu       sync.Mutex
	statuses map[int]int
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		c.errors.Add(1)
		return nil, err
	}
	c.mu.Lock()
	if c.statuses == nil {
		c.statuses = map[int]int{}
	}
	c.statuses[resp.StatusCode]++
	c.mu.Unlock()
	return resp, nil
}

func (c *countingTransport) status(code int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statuses[code]
}

// ecTPPSigner is the TPP identity of the bulk fault tests: the TEST-ONLY
// P-256 certificate in testdata, since an ECDSA signature costs a fraction
// of an RSA one and these tests sign thousands of requests.
var ecTPPSigner = sync.OnceValues(func() (*xs2a.Signer, error) {
	return xs2a.LoadSigner(filepath.Join("testdata", "certs", "tpp-ec.cert.pem"), filepath.Join("testdata", "certs", "tpp-ec.key.pem"), nil)
})

// faultClient is a client of b, signing with ecTPPSigner, whose requests go
// through a counting transport with room for concurrent connections.
func faultClient(t *testing.T, b *bank, opts ...xs2a.Option) (*xs2a.Client, *countingTransport) {
	t.Helper()
	s, err := ecTPPSigner()
	require.NoError(t, err)
	base := b.HTTPClient().Transport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 128
	t.Cleanup(base.CloseIdleConnections)
	ct := &countingTransport{base: base}
	c, err := b.Client(s, append([]xs2a.Option{xs2a.WithHTTPClient(&http.Client{Transport: ct})}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c, ct
}

// faultPSU runs the SCA of customer for c's TPP and returns the PSU,
// present: through the account flow (Flow 1), or the PISP-only
// registration (Flow 3) when register is set.
func faultPSU(t *testing.T, b *bank, c *xs2a.Client, customer string, register bool) xs2a.PSU {
	t.Helper()
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	var href string
	if register {
		links, _, err := c.Users.Register(context.Background(), psu)
		require.NoError(t, err)
		href = links.Links.SCARedirect.Href
	} else {
		_, _, err := c.Accounts.List(context.Background(), psu)
		href = requireSCA(t, err).Redirect.Href
	}
	return b.sca(t, href, customer).PSU(psuIP)
}

// runConcurrently calls f(i) for i in [0, n) on workers goroutines.
func runConcurrently(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// 1 000 payment initiations while 30 % of the connections drop after the
// bank processed the POST: every POST is sent once, so the bank holds one
// payment per initiation; every lost answer is ErrOutcomeUnknown with the
// X-Request-ID to quote to the bank.
func TestFaultPaymentDropsNoDuplicates(t *testing.T) {
	t.Parallel()
	const n = 1000
	b := newBank(t, xs2atest.WithFaults(xs2atest.Fault{Method: http.MethodPost, Path: "/v1/payments/", Drop: true, Rate: 0.3}))
	c, ct := faultClient(t, b)
	psu := faultPSU(t, b, c, xs2atest.PrivateCustomer1, true)
	mark := ct.requests.Load()
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	p := b.payment(t, "1.00", debtor)
	before := b.PaymentCount()

	var mu sync.Mutex
	var succeeded, unknown int
	var otherErrs []error
	lost := map[string]bool{} // X-Request-IDs of the lost answers
	runConcurrently(n, 16, func(int) {
		ini, resp, err := c.Payments.Initiate(context.Background(), psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
		mu.Lock()
		defer mu.Unlock()
		var te *xs2a.TransportError
		switch {
		case err == nil && ini.PaymentID != "" && resp.Attempts == 1:
			succeeded++
		case errors.Is(err, xs2a.ErrOutcomeUnknown) && errors.As(err, &te) && te.RequestID != "" && te.Sent && resp == nil:
			unknown++
			lost[te.RequestID] = true
		default:
			otherErrs = append(otherErrs, err)
		}
	})

	require.Empty(t, otherErrs, "every call either succeeds or is ErrOutcomeUnknown")
	assert.Equal(t, n, succeeded+unknown)
	assert.Equal(t, n, b.PaymentCount()-before, "one payment per initiation: none sent twice, none lost before the bank")
	assert.Equal(t, n, b.RequestCount(http.MethodPost, "/v1/payments/"), "each POST reached the bank once")
	assert.EqualValues(t, n, ct.requests.Load()-mark, "the SDK sent each POST once")
	dropped := 0
	for _, r := range b.Requests() {
		if r.Dropped {
			dropped++
			assert.True(t, lost[r.RequestID], "a dropped request the caller was not told about: %s", r.RequestID)
		}
	}
	assert.Equal(t, unknown, dropped, "one ErrOutcomeUnknown per dropped connection")
	assert.Len(t, lost, unknown, "distinct X-Request-IDs")
	assert.InDelta(t, 0.3*n, unknown, 0.1*n, "about 30 %% dropped")
	t.Logf("payment initiations: %d attempted, %d succeeded, %d ErrOutcomeUnknown (%d connections dropped by the bank), "+
		"%d requests sent, %d payments at the bank", n, succeeded, unknown, dropped, ct.requests.Load()-mark, b.PaymentCount()-before)
}

// 300 concurrent balance reads while 30 % of the answers are 503 with
// Retry-After: 1: all succeed within the retry budget (10 attempts:
// 0.3^10 * 300 < 0.002 expected failures), each retry after the wait the
// bank asked for, each call under one X-Request-ID. PSU present, so the
// PSU-not-present limit of 4 calls a day does not apply. (300 rather than
// 1 000 reads: the same paths, a third of the CPU under -race.)
func TestFaultBalances503RetryAfter(t *testing.T) {
	t.Parallel()
	const n, workers = 300, 50
	b := newBank(t, xs2atest.WithFaults(xs2atest.Fault{Method: http.MethodGet, Path: "/v1/accounts/", Status: http.StatusServiceUnavailable,
		RetryAfter: time.Second, Rate: 0.3}))
	c, ct := faultClient(t, b, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 10, MinDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond,
		MaxRetryAfter: 2 * time.Second, Methods: []string{http.MethodGet}}))
	waited := noWait(c)
	psu := faultPSU(t, b, c, xs2atest.PrivateCustomer1, false)
	require.True(t, psu.Present())
	accounts := []string{b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID, b.account(t, xs2atest.PrivateCustomer1, 1).ResourceID}
	mark, mark503, mark200 := ct.requests.Load(), ct.status(http.StatusServiceUnavailable), ct.status(http.StatusOK)
	markBank := b.RequestCount(http.MethodGet, "/v1/accounts/")

	var mu sync.Mutex
	var errs []error
	attempts := map[int]int{} // attempts per call -> calls
	runConcurrently(n, workers, func(i int) {
		bal, resp, err := c.Accounts.Balances(context.Background(), psu, accounts[i%2])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		if len(bal.Balances) == 0 {
			errs = append(errs, errors.New("no balances"))
		}
		attempts[resp.Attempts]++
	})

	require.Empty(t, errs)
	retried, maxAttempts, sum := 0, 0, 0
	for a, calls := range attempts {
		sum += calls
		if a > 1 {
			retried += calls
		}
		maxAttempts = max(maxAttempts, a)
	}
	assert.Equal(t, n, sum)
	got503, sent := ct.status(http.StatusServiceUnavailable)-mark503, int(ct.requests.Load()-mark)
	assert.Equal(t, n+got503, sent, "one request per call plus one per 503")
	assert.Equal(t, n, ct.status(http.StatusOK)-mark200)
	assert.Equal(t, n+got503, b.RequestCount(http.MethodGet, "/v1/accounts/")-markBank)
	assert.Positive(t, got503)
	w := waited.all()
	assert.Len(t, w, got503, "one wait per 503")
	for _, d := range w {
		require.Equal(t, time.Second, d, "each retry waits the Retry-After of its 503")
	}
	t.Logf("balance reads: %d calls, all succeeded; %d requests sent, %d answered 503 Retry-After: 1 and retried; "+
		"%d calls needed retries, at most %d attempts for one call; attempts per call: %v", n, sent, got503, retried, maxAttempts, attempts)
}

// expiringContext is a context with a deadline that passes when the test
// says so, not by the clock.
type expiringContext struct {
	context.Context
	once sync.Once
	done chan struct{}
}

// newExpiringContext returns a context whose deadline passes once the
// request has been written (httptrace WroteRequest).
func newExpiringContext() context.Context {
	c := &expiringContext{Context: context.Background(), done: make(chan struct{})}
	expire := func() { c.once.Do(func() { close(c.done) }) }
	return httptrace.WithClientTrace(c, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { expire() }})
}

func (c *expiringContext) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (c *expiringContext) Done() <-chan struct{}       { return c.done }
func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A bank that stalls: the call ends when the context's deadline passes, as
// a *TransportError that wraps context.DeadlineExceeded (for a POST also
// ErrOutcomeUnknown: the request was sent). The deadline passes once the
// request was written, whatever the clock says, so a busy machine cannot
// make it pass before the bank has the request.
func TestFaultStalledBankEndsAtTheDeadline(t *testing.T) {
	t.Parallel()
	b := newBank(t, xs2atest.WithFaults(
		xs2atest.Fault{Method: http.MethodGet, Path: "/v1/accounts", Delay: time.Hour},
		xs2atest.Fault{Method: http.MethodPost, Path: "/v1/payments/", Delay: time.Hour},
	))
	c, ct := faultClient(t, b)
	psu := faultPSU(t, b, c, xs2atest.PrivateCustomer1, true)
	mark := ct.requests.Load()
	p := b.payment(t, "1.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN)
	before := b.PaymentCount()

	tests := []struct {
		name string
		call func(ctx context.Context) error
		post bool
	}{
		{"GET accounts", func(ctx context.Context) error { _, _, err := c.Accounts.List(ctx, psu); return err }, false},
		{"POST payment", func(ctx context.Context) error {
			_, _, err := c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
			return err
		}, true},
	}
	for _, tt := range tests {
		err := tt.call(newExpiringContext())
		require.Error(t, err, tt.name)
		assert.ErrorIs(t, err, context.DeadlineExceeded, tt.name)
		var te *xs2a.TransportError
		require.ErrorAs(t, err, &te, tt.name)
		assert.NotEmpty(t, te.RequestID)
		assert.Equal(t, 1, te.Attempts, tt.name)
		assert.Equal(t, tt.post, errors.Is(err, xs2a.ErrOutcomeUnknown), "%s: %v", tt.name, err)
		t.Logf("stalled %s: %v", tt.name, err)
	}
	assert.EqualValues(t, 2, ct.requests.Load()-mark, "an ended context is not retried")
	// The bank gives up its Delay when the client hangs up (Fault.Delay),
	// for a POST with an unread body too: both requests end in its log.
	// (A guard against a hang, not a timing assertion.)
	require.Eventually(t, func() bool {
		return b.RequestCount(http.MethodGet, "/v1/accounts") == 1 && b.RequestCount(http.MethodPost, "/v1/payments/") == 1
	}, 30*time.Second, 10*time.Millisecond, "the bank's handlers still wait out their Delay")
	assert.Equal(t, before, b.PaymentCount(), "the stalled POST was never processed")
}
