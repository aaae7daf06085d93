package xs2a

import (
	"context"
	"errors"
	"net/http"
	"strings"
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

// TestClientBudget: Client.Budget reads the count the calls spend from,
// under every spelling that reaches the same key (a PSU id in upper case,
// a PSU present), and spends nothing: the budget still allows its 4 calls
// after many reads; the endpoints count apart.
func TestClientBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newTestClock(budgetT0)
	bank, c := newAISBank(t, budgetRoutes(t), WithClock(clock.Now))
	read := func(psu PSU, ep BudgetEndpoint) BudgetStatus {
		t.Helper()
		st, err := c.Budget(ctx, psu, aisAccountID, ep)
		require.NoError(t, err)
		return st
	}
	fresh := BudgetStatus{Endpoint: BudgetBalances, Limit: AccessLimit, Remaining: AccessLimit}
	assert.Equal(t, fresh, read(aisNotPresent, BudgetBalances), "nothing counted: no Reset")
	for i := range AccessLimit {
		for range 3 {
			_ = read(aisNotPresent, BudgetBalances) // spends nothing
		}
		_, resp, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoErrorf(t, err, "call %d", i+1)
		for _, psu := range []PSU{aisNotPresent, {ID: strings.ToUpper(aisPSUID)}, aisPresent} {
			assert.Equal(t, *resp.Budget, read(psu, BudgetBalances), "after call %d, PSU %q", i+1, psu.ID)
		}
		clock.Advance(time.Hour)
	}
	assert.Equal(t, AccessLimit, bank.count(), "every call reached the bank")
	assert.Equal(t, *wantBudget(0, budgetT0.Add(AccessWindow)), read(aisNotPresent, BudgetBalances))
	_, _, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
	require.ErrorIs(t, err, ErrAccessExceeded)
	assert.Equal(t, BudgetStatus{Endpoint: BudgetTransactions, Limit: AccessLimit, Remaining: AccessLimit}, read(aisNotPresent, BudgetTransactions))

	clock.Set(budgetT0.Add(AccessWindow)) // the first call left the window
	assert.Equal(t, *wantBudget(1, budgetT0.Add(time.Hour+AccessWindow)), read(aisNotPresent, BudgetBalances))
}

// TestClientBudgetRefuses: bad input is a *ValidationError naming the field,
// a failing store's error is wrapped, and a client counting nothing says
// so; the store is not asked for what would not be counted.
func TestClientBudgetRefuses(t *testing.T) {
	t.Parallel()
	storeErr := errors.New("redis: connection refused")
	_, c := newAISBank(t, nil)
	_, failing := newAISBank(t, nil, WithBudgetStore(failingStore{storeErr}))
	_, off := newAISBank(t, nil, WithBudgetStore(nil))
	tests := []struct {
		name    string
		c       *Client
		psu     PSU
		account string
		ep      BudgetEndpoint
		field   string // the ValidationError's; "" another error
		wantErr error
	}{
		{"no PSU id", c, PSU{}, aisAccountID, BudgetBalances, "PSU.ID", nil},
		{"PSU id not a UUID", c, PSU{ID: "12345678901"}, aisAccountID, BudgetBalances, "PSU.ID", nil},
		{"unknown endpoint", c, aisNotPresent, aisAccountID, "accounts", "ep", nil},
		{"endpoint in another case", c, aisNotPresent, aisAccountID, "Balances", "ep", nil},
		{"no account", c, aisNotPresent, "", BudgetBalances, "accountID", nil},
		{"a dot segment", c, aisNotPresent, "..", BudgetBalances, "accountID", nil},
		{"a ;param", c, aisNotPresent, "acct;x=1", BudgetBalances, "accountID", nil},
		{"an escaped dot", c, aisNotPresent, "%2e%2e", BudgetBalances, "accountID", nil},
		{"an escaped / to another endpoint", c, aisNotPresent, "acct/transactions", BudgetBalances, "accountID", nil},
		{"an escaped / escaped again", c, aisNotPresent, "acct%2Ftransactions", BudgetBalances, "accountID", nil},
		{"store fails", failing, aisNotPresent, aisAccountID, BudgetBalances, "", storeErr},
		{"counting off", off, aisNotPresent, aisAccountID, BudgetBalances, "", errNotCounted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := tt.c.Budget(context.Background(), tt.psu, tt.account, tt.ep)
			assert.Zero(t, st)
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			if tt.field != "" {
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, tt.field, ve.Field)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}
