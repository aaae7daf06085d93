package xs2a

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budgetRoutes answer the account list and the balances of aisAccountID.
func budgetRoutes(t *testing.T) map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"GET /v1/accounts":                    serve(t, http.StatusOK, `{"accounts":[]}`),
		"GET " + aisAccountPath + "/balances": serve(t, http.StatusOK, `{"balances":[]}`),
	}
}

// wantBudget is the BudgetStatus of balances with remaining calls left and
// the oldest counted call leaving the window at reset.
func wantBudget(remaining int, reset time.Time) *BudgetStatus {
	return &BudgetStatus{Endpoint: BudgetBalances, Limit: AccessLimit, Remaining: remaining, Reset: reset}
}

// TestResponseBudget: each counted PSU-not-present call reports the budget
// after it, as go-github's Response.Rate: 3, 2, 1, 0 calls left, and Reset
// when the first call leaves the window, on the client's clock; a call the
// budget does not count (the PSU present, the account list, counting off)
// reports none.
func TestResponseBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newTestClock(budgetT0)
	_, c := newAISBank(t, budgetRoutes(t), WithClock(clock.Now))
	for i, remaining := range []int{3, 2, 1, 0} {
		_, resp, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoErrorf(t, err, "call %d", i+1)
		assert.Equalf(t, wantBudget(remaining, budgetT0.Add(AccessWindow)), resp.Budget, "call %d", i+1)
		clock.Advance(time.Hour)
	}
	uncounted := []struct {
		name string
		call func(c *Client) (*Response, error)
	}{
		{"PSU present", func(c *Client) (*Response, error) {
			_, resp, err := c.Accounts.Balances(ctx, aisPresent, aisAccountID)
			return resp, err
		}},
		{"account list", func(c *Client) (*Response, error) {
			_, resp, err := c.Accounts.List(ctx, aisNotPresent)
			return resp, err
		}},
	}
	_, off := newAISBank(t, budgetRoutes(t), WithClock(clock.Now), WithBudgetStore(nil))
	for _, u := range uncounted {
		resp, err := u.call(c)
		require.NoError(t, err, u.name)
		assert.Nil(t, resp.Budget, u.name)
	}
	_, resp, err := off.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
	require.NoError(t, err)
	assert.Nil(t, resp.Budget, "counting off (WithBudgetStore(nil))")
}

// TestResponseBudgetRetried: a counted call answered 503, then 200, took
// two calls from the budget, and its Response says so.
func TestResponseBudgetRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	_, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/balances": func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			answer(http.StatusServiceUnavailable, "application/json", `{"tppMessages":[{"category":"ERROR","code":"SERVICE_UNAVAILABLE"}]}`)(w, r, 0)
			return
		}
		answer(http.StatusOK, "application/json", `{"balances":[]}`)(w, r, 0)
	}}, WithClock(newTestClock(budgetT0).Now))
	fakeSleep(c)
	_, resp, err := c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	assert.Equal(t, wantBudget(AccessLimit-2, budgetT0.Add(AccessWindow)), resp.Budget)
}

// TestResponseBudgetReset: once the window rolls past the first call,
// Reset moves on to the next oldest.
func TestResponseBudgetReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newTestClock(budgetT0)
	_, c := newAISBank(t, budgetRoutes(t), WithClock(clock.Now))
	for range AccessLimit { // t0, t0+1h, t0+2h, t0+3h
		_, _, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoError(t, err)
		clock.Advance(time.Hour)
	}
	for _, step := range []struct {
		at, reset time.Duration // from t0
	}{
		{AccessWindow, time.Hour + AccessWindow},               // the call at t0 left
		{AccessWindow + time.Hour, 2*time.Hour + AccessWindow}, // and the one at t0+1h
	} {
		clock.Set(budgetT0.Add(step.at))
		_, resp, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoError(t, err)
		assert.Equal(t, wantBudget(0, budgetT0.Add(step.reset)), resp.Budget, "at t0+%v", step.at)
	}
}

// endRecorder is an Observer that keeps the budget of every call's end.
type endRecorder struct {
	mu   sync.Mutex
	ends []*BudgetStatus
}

func (o *endRecorder) StartCall(ctx context.Context, _ *CallInfo) context.Context { return ctx }
func (o *endRecorder) Attempt(context.Context, AttemptInfo)                       {}
func (o *endRecorder) EndCall(_ context.Context, end CallEnd) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ends = append(o.ends, end.Budget)
}

// TestResponseBudgetRefused: a call the budget refuses reports, to the
// observer, no call left and when the next frees up, the AccessExceededError's
// Next; a call taken reports what its Response does.
func TestResponseBudgetRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	obs := &endRecorder{}
	clock := newTestClock(budgetT0)
	_, c := newAISBank(t, budgetRoutes(t), WithClock(clock.Now), WithObserver(obs))
	var last *Response
	for range AccessLimit {
		_, resp, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoError(t, err)
		last = resp
		clock.Advance(time.Hour)
	}
	_, _, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
	var ae *AccessExceededError
	require.ErrorAs(t, err, &ae)
	require.Len(t, obs.ends, AccessLimit+1)
	assert.Same(t, last.Budget, obs.ends[AccessLimit-1])
	assert.Equal(t, wantBudget(0, ae.Next), obs.ends[AccessLimit])
	assert.Equal(t, budgetT0.Add(AccessWindow), ae.Next)
}
