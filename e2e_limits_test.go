package xs2a_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Limits: without PSU-IP-Address, balances, transactions (and transaction
// details) take at most 4 calls per 24 hours per account. The SDK's budget
// refuses the 5th locally; with the guard off the bank answers 429.
func TestLimitsPSUNotPresent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	endpoints := []struct {
		ep   xs2a.BudgetEndpoint
		path string
		call func(c *xs2a.Client, psu xs2a.PSU, account, txID string) error
	}{
		{xs2a.BudgetBalances, "/balances", func(c *xs2a.Client, psu xs2a.PSU, account, _ string) error {
			_, _, err := c.Accounts.Balances(ctx, psu, account)
			return err
		}},
		{xs2a.BudgetTransactions, "/transactions", func(c *xs2a.Client, psu xs2a.PSU, account, _ string) error {
			_, _, err := c.Accounts.TransactionsPage(ctx, psu, account, nil)
			return err
		}},
		{xs2a.BudgetTransaction, "/transactions/", func(c *xs2a.Client, psu xs2a.PSU, account, txID string) error {
			_, _, err := c.Accounts.Transaction(ctx, psu, account, txID)
			return err
		}},
	}
	for _, e := range endpoints {
		for _, local := range []bool{true, false} {
			name := string(e.ep) + "/refused locally"
			if !local {
				name = string(e.ep) + "/refused by the bank"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				b := newBank(t)
				c := b.c
				if !local {
					c = b.client(t, xs2a.WithBudgetStore(nil))
				}
				psu := b.signIn(t, xs2atest.PrivateCustomer2)
				account := b.account(t, xs2atest.PrivateCustomer2, 0).ResourceID
				other := b.account(t, xs2atest.PrivateCustomer2, 1).ResourceID
				page, _, err := c.Accounts.TransactionsPage(ctx, psu, account, &xs2a.TransactionsOptions{Limit: 1})
				require.NoError(t, err)
				txID := page.Transactions.Booked[0].TransactionID

				for range 6 { // the PSU present: not counted
					require.NoError(t, e.call(c, psu, account, txID))
				}
				away := xs2a.PSU{ID: psu.ID}
				t0 := b.clock.Now()
				for range xs2a.AccessLimit {
					require.NoError(t, e.call(c, away, account, txID))
					b.clock.Advance(time.Minute)
				}
				mark := b.rec.len()
				err = e.call(c, away, account, txID)
				require.ErrorIs(t, err, xs2a.ErrAccessExceeded)
				if local {
					var ae *xs2a.AccessExceededError
					require.ErrorAs(t, err, &ae)
					assert.Equal(t, e.ep, ae.Endpoint)
					assert.True(t, ae.Next.Equal(t0.Add(xs2a.AccessWindow)), "next call allowed at %v", ae.Next)
					assert.Empty(t, b.rec.since(mark, http.MethodGet, ""), "refused before sending")
				} else {
					requireBankError(t, err, http.StatusTooManyRequests, xs2a.CodeAccessExceeded)
					assert.Len(t, b.rec.since(mark, http.MethodGet, e.path), 1, "a 429 ACCESS_EXCEEDED is not retried")
				}
				require.NoError(t, e.call(c, away, other, firstTx(t, c, psu, other)), "each account has its own count")

				b.clock.Set(t0.Add(xs2a.AccessWindow)) // the first call leaves the rolling window
				require.NoError(t, e.call(c, away, account, txID))
				require.ErrorIs(t, e.call(c, away, account, txID), xs2a.ErrAccessExceeded)
			})
		}
	}
}

// Limits: every counted PSU-not-present call to the fake bank tells, on its
// Response, the calls left on its endpoint and account and when the first
// leaves the window on the client's clock; balances and transactions count
// apart; a PSU-present call tells nothing.
func TestLimitsBudgetOnResponse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer2)
	account := b.account(t, xs2atest.PrivateCustomer2, 0).ResourceID
	away := xs2a.PSU{ID: psu.ID}
	_, resp, err := b.c.Accounts.Balances(ctx, psu, account)
	require.NoError(t, err)
	assert.Nil(t, resp.Budget, "the PSU present")

	calls := []struct {
		ep   xs2a.BudgetEndpoint
		call func() (*xs2a.Response, error)
	}{
		{xs2a.BudgetBalances, func() (*xs2a.Response, error) {
			_, resp, err := b.c.Accounts.Balances(ctx, away, account)
			return resp, err
		}},
		{xs2a.BudgetTransactions, func() (*xs2a.Response, error) {
			_, resp, err := b.c.Accounts.TransactionsPage(ctx, away, account, nil)
			return resp, err
		}},
	}
	for _, c := range calls {
		first := b.clock.Now()
		for i := range xs2a.AccessLimit {
			resp, err := c.call()
			require.NoError(t, err, "%s call %d", c.ep, i+1)
			want := &xs2a.BudgetStatus{Endpoint: c.ep, Limit: xs2a.AccessLimit, Remaining: xs2a.AccessLimit - 1 - i, Reset: first.Add(xs2a.AccessWindow)}
			assert.Equal(t, want, resp.Budget, "%s call %d", c.ep, i+1)
			b.clock.Advance(time.Minute)
		}
		_, err := c.call()
		require.ErrorIs(t, err, xs2a.ErrAccessExceeded)
	}
}

func firstTx(t *testing.T, c *xs2a.Client, psu xs2a.PSU, account string) string {
	t.Helper()
	page, _, err := c.Accounts.TransactionsPage(context.Background(), psu, account, &xs2a.TransactionsOptions{Limit: 1})
	require.NoError(t, err)
	return page.Transactions.Booked[0].TransactionID
}

// Limits: without the PSU present, transactions are at most 90 days old
// (the SDK refuses an older dateFrom locally; the bank answers 400
// PERIOD_INVALID), and only for accounts the PSU accessed with SCA within the
// last 90 days.
func TestLimits90Days(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	away := xs2a.PSU{ID: psu.ID}
	account := b.account(t, xs2atest.PrivateCustomer1, 1).ResourceID
	today := b.clock.Now().In(oslo)
	day90, day91 := today.AddDate(0, 0, -90), today.AddDate(0, 0, -91)

	// the local guard
	mark := b.rec.len()
	_, _, err := b.c.Accounts.TransactionsPage(ctx, away, account, &xs2a.TransactionsOptions{DateFrom: day91})
	requireInvalid(t, err, "TransactionsOptions.DateFrom")
	for _, err := range b.c.Accounts.Transactions(ctx, away, account, &xs2a.TransactionsOptions{DateFrom: day91}) {
		requireInvalid(t, err, "TransactionsOptions.DateFrom")
	}
	assert.Empty(t, b.rec.since(mark, http.MethodGet, ""), "nothing sent")
	noGuard := b.client(t, xs2a.WithBudgetStore(nil))
	_, _, err = noGuard.Accounts.TransactionsPage(ctx, away, account, &xs2a.TransactionsOptions{DateFrom: day91})
	requireInvalid(t, err, "TransactionsOptions.DateFrom") // the budget's off switch leaves the 90 days

	// the bank, asked directly
	q := url.Values{"dateFrom": {day91.Format(time.DateOnly)}}
	a := b.raw(t, "GET", "/v1/accounts/"+url.PathEscape(account)+"/transactions?"+q.Encode(), nil, "PSU-ID", psu.ID)
	assert.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, xs2a.CodePeriodInvalid, a.code())

	// 90 days is allowed; the PSU present may go further back
	page, _, err := b.c.Accounts.TransactionsPage(ctx, away, account, &xs2a.TransactionsOptions{DateFrom: day90})
	require.NoError(t, err)
	for _, tx := range page.Transactions.Booked {
		assert.False(t, tx.BookingDate.Before(xs2a.DateOf(day90)))
	}
	page, _, err = b.c.Accounts.TransactionsPage(ctx, psu, account, &xs2a.TransactionsOptions{DateFrom: today.AddDate(0, 0, -120)})
	require.NoError(t, err)
	assert.Len(t, page.Transactions.Booked, 40, "all 120 days")

	// 91 days after the SCA the account needs SCA again; balances do not
	b.clock.Advance(91 * 24 * time.Hour)
	_, _, err = b.c.Accounts.TransactionsPage(ctx, away, account, nil)
	sca := requireSCA(t, err)
	require.NotEmpty(t, sca.Messages)
	assert.Equal(t, xs2a.CodeConsentExpired, sca.Messages[0].Code)
	assert.ErrorIs(t, err, xs2a.ErrConsentInvalid, "re-consent needed, as after a revoked consent")
	_, _, err = b.c.Accounts.Balances(ctx, away, account)
	require.NoError(t, err)
}

// Limits, the bank's calendar: the 90 days are counted in Oslo. Shortly
// after midnight in Oslo, when it is still the day before in UTC, a dateFrom
// 90 UTC days back is 91 days back at the bank.
func TestLimits90DaysBankCalendar(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 1).ResourceID
	b.clock.Set(time.Date(2025, 3, 12, 23, 30, 0, 0, time.UTC)) // 00:30 on 13 March in Oslo
	dateFrom := time.Date(2024, 12, 12, 0, 0, 0, 0, time.UTC)   // 90 days before 12 March

	a := b.raw(t, "GET", "/v1/accounts/"+url.PathEscape(account)+"/transactions?dateFrom=2024-12-12", nil, "PSU-ID", psu.ID)
	require.Equal(t, xs2a.CodePeriodInvalid, a.code(), "the bank counts from 13 March")
	_, _, err := b.c.Accounts.TransactionsPage(ctx, xs2a.PSU{ID: psu.ID}, account, &xs2a.TransactionsOptions{DateFrom: dateFrom})
	requireInvalid(t, err, "TransactionsOptions.DateFrom")
}

// Limits: an SCA under one TPP-Session-ID holds for 1 hour; a new
// TPP-Session-ID before then needs a new SCA, whose completion invalidates
// the old ID and whose abort keeps it. The SDK's SessionManager keeps the
// same rules on the TPP's side; each step checks that both agree.
func TestLimitsSCASession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const user = "tpp-user-7"

	// start signs the PSU in under a session the manager began and completed.
	start := func(t *testing.T) (*bank, *xs2a.SessionManager, xs2a.PSU) {
		b := newBank(t)
		sm := xs2a.NewSessionManager(nil, b.clock.Now)
		s1, err := beginSession(sm.Begin(ctx, user, "accounts"))
		require.NoError(t, err)
		psu := xs2a.PSU{SessionID: s1, IPAddress: psuIP}
		_, _, err = b.c.Accounts.List(ctx, psu)
		cb := b.sca(t, requireSCA(t, err).Redirect.Href, xs2atest.PrivateCustomer1)
		require.NoError(t, sm.Complete(ctx, user, cb.TPPSessionID))
		return b, sm, cb.PSU(psuIP)
	}
	// agree checks that the bank and the SessionManager agree on session id.
	agree := func(t *testing.T, b *bank, sm *xs2a.SessionManager, psu xs2a.PSU, id string, want bool) {
		t.Helper()
		psu.SessionID = id
		_, _, err := b.c.Accounts.List(ctx, psu)
		if want {
			require.NoError(t, err)
		} else {
			requireSCA(t, err)
		}
		valid, err := sm.Valid(ctx, user, id)
		require.NoError(t, err)
		require.Equal(t, want, valid, "SessionManager.Valid")
	}
	// redo runs the SCA of the 401 that a request under id gets.
	redo := func(t *testing.T, b *bank, psu xs2a.PSU, id string, opts ...xs2atest.SCAOption) (string, error) {
		t.Helper()
		psu.SessionID = id
		_, _, err := b.c.Accounts.List(ctx, psu)
		u, err := b.CompleteSCA(ctx, requireSCA(t, err).Redirect.Href, xs2atest.PrivateCustomer1, opts...)
		require.NoError(t, err)
		cb, err := xs2a.ParseCallback(u.Query())
		if err != nil {
			return id, err
		}
		return cb.TPPSessionID, nil
	}

	t.Run("valid for one hour", func(t *testing.T) {
		t.Parallel()
		b, sm, psu := start(t)
		s1 := psu.SessionID
		b.clock.Advance(59 * time.Minute)
		agree(t, b, sm, psu, s1, true)
		b.clock.Advance(time.Minute)
		agree(t, b, sm, psu, s1, false)
		_, ok, err := sm.Current(ctx, user)
		require.NoError(t, err)
		assert.False(t, ok, "SCA must be redone")

		s2, err := beginSession(sm.Begin(ctx, user, "accounts"))
		require.NoError(t, err)
		got, err := redo(t, b, psu, s2)
		require.NoError(t, err)
		require.NoError(t, sm.Complete(ctx, user, got))
		agree(t, b, sm, psu, s2, true)
	})

	t.Run("a new session id needs SCA; completing it invalidates the old", func(t *testing.T) {
		t.Parallel()
		b, sm, psu := start(t)
		s1 := psu.SessionID
		b.clock.Advance(10 * time.Minute)
		s2, err := beginSession(sm.Begin(ctx, user, "accounts"))
		require.NoError(t, err)
		psu.SessionID = s2
		_, _, err = b.c.Accounts.List(ctx, psu)
		requireSCA(t, err)
		agree(t, b, sm, psu, s1, true) // until the new SCA completes
		got, err := redo(t, b, psu, s2)
		require.NoError(t, err)
		require.NoError(t, sm.Complete(ctx, user, got))
		agree(t, b, sm, psu, s2, true)
		agree(t, b, sm, psu, s1, false)
	})

	t.Run("an aborted SCA keeps the old session", func(t *testing.T) {
		t.Parallel()
		b, sm, psu := start(t)
		s1 := psu.SessionID
		s2, err := beginSession(sm.Begin(ctx, user, "accounts"))
		require.NoError(t, err)
		_, err = redo(t, b, psu, s2, xs2atest.Cancel())
		require.ErrorIs(t, err, xs2a.ErrSCAFailed)
		require.NoError(t, sm.Abort(ctx, user, s2))
		agree(t, b, sm, psu, s1, true)
		agree(t, b, sm, psu, s2, false)
	})

	t.Run("the bank ends the session early", func(t *testing.T) {
		t.Parallel()
		b, _, psu := start(t)
		b.ExpireSessions(xs2atest.PrivateCustomer1)
		_, _, err := b.c.Accounts.List(ctx, psu)
		requireSCA(t, err)
		_, _, err = b.c.Accounts.List(ctx, xs2a.PSU{ID: psu.ID}) // not present: no session needed
		require.NoError(t, err)
	})
}

// downStore is a BudgetStore that answers its first ok takes and then fails, as
// a shared store that becomes unreachable.
type downStore struct {
	xs2a.BudgetStore
	mu  sync.Mutex
	ok  int
	err error
}

func (s *downStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (xs2a.BudgetTake, error) {
	s.mu.Lock()
	if s.ok == 0 {
		s.mu.Unlock()
		return xs2a.BudgetTake{}, s.err
	}
	s.ok--
	s.mu.Unlock()
	return s.BudgetStore.Take(ctx, key, now, limit, window)
}

// A PSU-not-present call whose budget store fails is not sent: its error
// wraps the store's, and a retry the store cannot count is not made (the
// bank's answer to the last attempt is returned).
func TestLimitsStoreDownFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	storeErr := errors.New("store unreachable")
	tests := []struct {
		name   string
		ok     int // takes the store answers before failing
		faults []xs2atest.Fault
		sent   int
	}{
		{"first attempt", 0, nil, 0},
		{"retry", 1, []xs2atest.Fault{{Path: "/v1/accounts/", Status: http.StatusServiceUnavailable, Times: 1}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, xs2atest.WithFaults(tt.faults...))
			psu := b.signIn(t, xs2atest.PrivateCustomer1)
			account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
			c := b.client(t, xs2a.WithBudgetStore(&downStore{BudgetStore: xs2a.NewMemoryBudgetStore(), ok: tt.ok, err: storeErr}))
			noWait(c)
			mark := b.rec.len()
			_, resp, err := c.Accounts.Balances(ctx, xs2a.PSU{ID: psu.ID}, account)
			require.Error(t, err)
			assert.NotErrorIs(t, err, xs2a.ErrAccessExceeded)
			assert.NotContains(t, err.Error(), psu.ID)
			assert.Len(t, b.rec.since(mark, http.MethodGet, "/balances"), tt.sent)
			if tt.sent == 0 {
				require.ErrorIs(t, err, storeErr)
				assert.True(t, strings.HasPrefix(err.Error(), "xs2a: access budget"), err.Error())
				return
			}
			require.NotNil(t, resp)
			assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "the bank's answer to the only attempt")
		})
	}
}

// beginSession is the session id of Begin's SCAStart.
func beginSession(s xs2a.SCAStart, err error) (string, error) { return s.SessionID, err }

// TestLimitsWalkKeepsCalls: a walk without the PSU present with KeepCalls
// stops after the page that leaves that many of the day's calls, ends with
// an *AccessExceededError saying so (Kept, Next), and does not start while
// no more are left; the next day it walks again. KeepCalls outside 0 to 3
// is refused before anything is sent. EarliestDateFrom is the date the 90
// days start from, the same the SDK checks.
func TestLimitsWalkKeepsCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	away := psu
	away.IPAddress = ""
	walk := func(keep int) (n int, err error) {
		q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked, Limit: 1, KeepCalls: keep,
			DateFrom: xs2a.EarliestDateFrom(b.clock.Now()).In(time.UTC)}
		for _, err := range b.c.Accounts.Transactions(ctx, away, account, q) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	mark := b.rec.len()
	n, err := walk(1)
	var kept *xs2a.AccessExceededError
	require.ErrorAs(t, err, &kept)
	assert.ErrorIs(t, err, xs2a.ErrAccessExceeded)
	assert.Equal(t, 1, kept.Kept)
	assert.Equal(t, b.clock.Now().Add(xs2a.AccessWindow), kept.Next, "the first call of the day frees up first")
	assert.Contains(t, err.Error(), "walk stopped to keep 1 of the 4 calls")
	assert.Equal(t, 3, n, "one entry a page, three pages")
	assert.Len(t, b.rec.since(mark, http.MethodGet, "/transactions"), 3)

	mark = b.rec.len()
	_, err = walk(1)
	require.ErrorAs(t, err, &kept)
	assert.Empty(t, b.rec.since(mark, http.MethodGet, ""), "one call left: the walk does not start")
	n, err = walk(0)
	require.ErrorAs(t, err, &kept, "without KeepCalls the last call goes, then the budget refuses")
	assert.Zero(t, kept.Kept)
	assert.Equal(t, 1, n)

	b.clock.Advance(xs2a.AccessWindow)
	n, err = walk(1)
	require.ErrorAs(t, err, &kept)
	assert.Equal(t, 3, n, "a new day: three calls again")

	for _, keep := range []int{-1, xs2a.AccessLimit} {
		_, err = walk(keep)
		requireInvalid(t, err, "TransactionsOptions.KeepCalls")
	}
	earliest := xs2a.EarliestDateFrom(b.clock.Now())
	_, _, err = b.c.Accounts.TransactionsPage(ctx, away, account, &xs2a.TransactionsOptions{DateFrom: earliest.AddDays(-1).In(time.UTC)})
	requireInvalid(t, err, "TransactionsOptions.DateFrom")
}
