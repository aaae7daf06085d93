package xs2a_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestListWithBalances: each account comes with the balances its own call
// reads; without the customer each such call spends one of that account's
// day's calls, and the list none.
func TestListWithBalances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	away := psu
	away.IPAddress = ""
	accounts, resp, err := b.c.Accounts.ListWithBalances(ctx, away)
	require.NoError(t, err)
	require.NotNil(t, resp)
	require.GreaterOrEqual(t, len(accounts), 2)
	for _, a := range accounts {
		require.NotEmpty(t, a.Balances, a.ResourceID)
		st, err := b.c.Budget(ctx, away, a.ResourceID, xs2a.BudgetBalances)
		require.NoError(t, err)
		assert.Equal(t, xs2a.AccessLimit-1, st.Remaining, "one call to %s's balances", a.ResourceID)
		one, _, err := b.c.Accounts.Balances(ctx, psu, a.ResourceID)
		require.NoError(t, err)
		assert.Equal(t, one.Balances, a.Balances)
	}
}

// TestListWithBalancesFromAnyBank: an account the list already gives
// balances for gets no call; the first refused call ends it with no
// accounts, and no later account is asked for.
func TestListWithBalancesFromAnyBank(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var paths []string
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, strings.TrimPrefix(r.URL.Path, "/api/v1/accounts"))
		mu.Unlock()
		switch r.URL.Path {
		case "/api/v1/accounts":
			reply(w, 200, `{"accounts":[
				{"resourceId":"a1","currency":"NOK","balances":[{"balanceType":"expected","balanceAmount":{"amount":"1.00","currency":"NOK"}}]},
				{"resourceId":"a2","currency":"NOK"},{"resourceId":"a3","currency":"NOK"},{"resourceId":"a4","currency":"NOK"}]}`)
		case "/api/v1/accounts/a2/balances":
			reply(w, 200, `{"balances":[{"balanceType":"interimAvailable","balanceAmount":{"amount":"2.00","currency":"NOK"}}]}`)
		default:
			reply(w, 404, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`)
		}
	})
	c := hostileClient(t, srv)
	accounts, _, err := c.Accounts.ListWithBalances(context.Background(), xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"})
	assert.ErrorIs(t, err, xs2a.ErrNotFound)
	assert.Nil(t, accounts)
	assert.Equal(t, []string{"", "/a2/balances", "/a3/balances"}, paths)
}

// TestListWithBalancesSpendsNothingInVain: without the customer, when one
// account's day is spent, no other account's balances are read for a list
// that cannot be whole; an account whose resourceId names no account (the
// bank's data, not the caller's) is listed without balances.
func TestListWithBalancesSpendsNothingInVain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	away := psu
	away.IPAddress = ""
	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(accounts), 2)
	last := accounts[len(accounts)-1].ResourceID
	for range xs2a.AccessLimit {
		_, _, err := b.c.Accounts.Balances(ctx, away, last)
		require.NoError(t, err)
	}
	for range 3 {
		_, _, err = b.c.Accounts.ListWithBalances(ctx, away)
		assert.ErrorIs(t, err, xs2a.ErrAccessExceeded)
	}
	st, err := b.c.Budget(ctx, away, accounts[0].ResourceID, xs2a.BudgetBalances)
	require.NoError(t, err)
	assert.Equal(t, xs2a.AccessLimit, st.Remaining, "the first account's calls are all left")

	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/accounts" {
			reply(w, 200, `{"accounts":[{"resourceId":"..","currency":"NOK"},{"resourceId":"a2","currency":"NOK"}]}`)
			return
		}
		reply(w, 200, `{"balances":[{"balanceType":"expected","balanceAmount":{"amount":"2.00","currency":"NOK"}}]}`)
	})
	list, _, err := hostileClient(t, srv).Accounts.ListWithBalances(ctx, xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"})
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Empty(t, list[0].Balances)
	assert.Len(t, list[1].Balances, 1)
	assert.EqualValues(t, 2, srv.hits.Load(), "the list and a2's balances")
}
