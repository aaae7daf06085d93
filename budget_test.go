package xs2a

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var budgetT0 = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// recordingStore is a BudgetStore that remembers the keys it was asked for.
type recordingStore struct {
	BudgetStore
	mu   sync.Mutex
	keys []string
}

func (s *recordingStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (BudgetTake, error) {
	s.mu.Lock()
	s.keys = append(s.keys, key)
	s.mu.Unlock()
	return s.BudgetStore.Take(ctx, key, now, limit, window)
}

// takeErr is the error of accessBudget.take.
func takeErr(_ *BudgetStatus, err error) error { return err }

// failingStore is a BudgetStore that always fails.
type failingStore struct{ err error }

func (s failingStore) Take(context.Context, string, time.Time, int, time.Duration) (BudgetTake, error) {
	return BudgetTake{}, s.err
}

func (s failingStore) Peek(context.Context, string, time.Time, int, time.Duration) (BudgetTake, error) {
	return BudgetTake{}, s.err
}

func TestAccessBudgetFifthCallRefused(t *testing.T) {
	t.Parallel()
	for _, ep := range []BudgetEndpoint{BudgetBalances, BudgetTransactions, BudgetTransaction} {
		t.Run(string(ep), func(t *testing.T) {
			t.Parallel()
			clock := newTestClock(budgetT0)
			b := newAccessBudget(NewMemoryBudgetStore(), clock.Now)
			ctx := context.Background()
			for i := range AccessLimit {
				require.NoErrorf(t, takeErr(b.take(ctx, "psu-secret-17", "acct-secret-42", ep)), "call %d", i+1)
				clock.Advance(time.Hour)
			}
			_, err := b.take(ctx, "psu-secret-17", "acct-secret-42", ep)
			require.Error(t, err)
			if !errors.Is(err, ErrAccessExceeded) {
				t.Fatalf("errors.Is(%v, ErrAccessExceeded) = false", err)
			}
			var ae *AccessExceededError
			require.True(t, errors.As(err, &ae), "error is %T, want *AccessExceededError", err)
			if ae.Endpoint != ep {
				t.Errorf("Endpoint = %q, want %q", ae.Endpoint, ep)
			}
			if want := budgetT0.Add(AccessWindow); !ae.Next.Equal(want) {
				t.Errorf("Next = %v, want %v (first call leaves the window)", ae.Next, want)
			}
			wantMsg := "xs2a: access exceeded: 4 calls without the PSU present in 24h to " + string(ep) +
				"; next call allowed at 2025-03-15T09:30:00Z"
			if err.Error() != wantMsg {
				t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
			}
			for _, secret := range []string{"psu-secret-17", "acct-secret-42"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("Error() %q contains %q", err.Error(), secret)
				}
			}
			// A refused call is not counted: still refused, with the same Next.
			_, err = b.take(ctx, "psu-secret-17", "acct-secret-42", ep)
			require.True(t, errors.As(err, &ae))
			require.True(t, ae.Next.Equal(budgetT0.Add(AccessWindow)))
		})
	}
}

func TestAccessBudgetWindowRolls(t *testing.T) {
	t.Parallel()
	clock := newTestClock(budgetT0)
	b := newAccessBudget(NewMemoryBudgetStore(), clock.Now)
	ctx := context.Background()
	take := func() error { return takeErr(b.take(ctx, "psu", "acct", BudgetBalances)) }

	// Calls at t0, t0+1h, t0+2h, t0+3h.
	for range AccessLimit {
		require.NoError(t, take())
		clock.Advance(time.Hour)
	}
	steps := []struct {
		name     string
		at       time.Time
		wantErr  bool
		wantNext time.Time
	}{
		{"just before the first call leaves", budgetT0.Add(AccessWindow - time.Nanosecond), true, budgetT0.Add(AccessWindow)},
		{"when the first call leaves", budgetT0.Add(AccessWindow), false, time.Time{}},
		{"right after, full again", budgetT0.Add(AccessWindow), true, budgetT0.Add(time.Hour + AccessWindow)},
		{"when the second call leaves", budgetT0.Add(time.Hour + AccessWindow), false, time.Time{}},
		{"a day of silence later", budgetT0.Add(5 * AccessWindow), false, time.Time{}},
	}
	for _, s := range steps {
		clock.Set(s.at)
		err := take()
		if !s.wantErr {
			require.NoError(t, err, s.name)
			continue
		}
		var ae *AccessExceededError
		require.Truef(t, errors.As(err, &ae), "%s: err = %v, want *AccessExceededError", s.name, err)
		require.Truef(t, ae.Next.Equal(s.wantNext), "%s: Next = %v, want %v", s.name, ae.Next, s.wantNext)
	}
}

func TestAccessBudgetCountsSeparately(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		psu, account     string
		ep               BudgetEndpoint
		wantSameAsFilled bool
	}{
		{"same PSU, account and endpoint", "psu-a", "acct-1", BudgetTransactions, true},
		{"other account", "psu-a", "acct-2", BudgetTransactions, false},
		{"other PSU", "psu-b", "acct-1", BudgetTransactions, false},
		{"balances", "psu-a", "acct-1", BudgetBalances, false},
		{"transaction details", "psu-a", "acct-1", BudgetTransaction, false},
		{"parts shifted across the boundary", "psu-aacct-1", "", BudgetTransactions, false},
		{"parts shifted the other way", "psu-", "aacct-1", BudgetTransactions, false},
		{"empty PSU", "", "acct-1", BudgetTransactions, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newTestClock(budgetT0)
			b := newAccessBudget(NewMemoryBudgetStore(), clock.Now)
			ctx := context.Background()
			for range AccessLimit {
				require.NoError(t, takeErr(b.take(ctx, "psu-a", "acct-1", BudgetTransactions)))
			}
			_, err := b.take(ctx, tt.psu, tt.account, tt.ep)
			if tt.wantSameAsFilled {
				require.ErrorIs(t, err, ErrAccessExceeded)
				return
			}
			require.NoError(t, err)
			// The other key has a full budget of its own.
			for range AccessLimit - 1 {
				require.NoError(t, takeErr(b.take(ctx, tt.psu, tt.account, tt.ep)))
			}
			require.ErrorIs(t, takeErr(b.take(ctx, tt.psu, tt.account, tt.ep)), ErrAccessExceeded)
		})
	}
}

func TestAccessBudgetKeysAreHashed(t *testing.T) {
	t.Parallel()
	rec := &recordingStore{BudgetStore: NewMemoryBudgetStore()}
	b := newAccessBudget(rec, newTestClock(budgetT0).Now)
	ctx := context.Background()
	triples := []struct {
		psu, account string
		ep           BudgetEndpoint
	}{
		{"12345678901", "NO9386011117947", BudgetBalances},
		{"12345678901", "NO9386011117947", BudgetTransactions},
		{"12345678901", "NO9386011117947", BudgetTransaction},
		{"1234567890", "1NO9386011117947", BudgetBalances},
		{"", "", ""},
	}
	for _, tr := range triples {
		require.NoError(t, takeErr(b.take(ctx, tr.psu, tr.account, tr.ep)))
	}
	keyRE := regexp.MustCompile(`^xs2a:budget:[0-9a-f]{64}$`)
	seen := map[string]bool{}
	for i, k := range rec.keys {
		if !keyRE.MatchString(k) {
			t.Errorf("key %q does not match %s", k, keyRE)
		}
		for _, clear := range []string{triples[i].psu, triples[i].account} {
			if clear != "" && strings.Contains(k, clear) {
				t.Errorf("key %q holds %q in clear", k, clear)
			}
		}
		if seen[k] {
			t.Errorf("key %q used for two different triples", k)
		}
		seen[k] = true
	}
	// The same triple always maps to the same key (replicas must agree); the
	// vector was computed outside Go: sha256(be64(len) || part, for each part).
	require.Equal(t, "xs2a:budget:8c3b86f29aa6424de046a8f2dedead030e284b6c222bef1ade2d326b02829f9a", rec.keys[0])
	require.Equal(t, rec.keys[0], budgetKey("12345678901", "NO9386011117947", BudgetBalances))
}

func TestBudgetKeyUnambiguous(t *testing.T) {
	t.Parallel()
	type triple struct {
		psu, account string
		ep           BudgetEndpoint
	}
	pairs := []struct {
		name string
		a, b triple
	}{
		{"boundary moved", triple{"ab", "c", BudgetBalances}, triple{"a", "bc", BudgetBalances}},
		{"separator inside a part", triple{"a\x00b", "c", BudgetBalances}, triple{"a", "b\x00c", BudgetBalances}},
		{"length bytes inside a part", triple{"a", "\x00\x00\x00\x00\x00\x00\x00\x01b", "x"}, triple{"a\x00\x00\x00\x00\x00\x00\x00\x01b", "", "x"}},
		{"endpoint absorbed", triple{"a", "bbalances", ""}, triple{"a", "b", BudgetBalances}},
	}
	for _, tt := range pairs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ka := budgetKey(tt.a.psu, tt.a.account, tt.a.ep)
			kb := budgetKey(tt.b.psu, tt.b.account, tt.b.ep)
			require.NotEqual(t, ka, kb)
		})
	}
}

func TestAccessBudgetHistory(t *testing.T) {
	t.Parallel()
	oslo := time.FixedZone("CET", 3600)
	now := time.Date(2025, 6, 30, 14, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	midnight := func(t time.Time) time.Time {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
	}
	tests := []struct {
		name     string
		dateFrom time.Time
		wantErr  bool
	}{
		{"zero is not sent", time.Time{}, false},
		{"today", now, false},
		{"89 days", now.Add(-89 * day), false},
		{"90 days", now.Add(-HistoryLimit), false},
		{"90 days, the date at midnight", midnight(now.Add(-HistoryLimit)), false},
		{"90 days and a few hours, same date", midnight(now.Add(-HistoryLimit)).Add(time.Hour), false},
		{"91 days", now.Add(-91 * day), true},
		{"91 days, last instant of that date", midnight(now.Add(-HistoryLimit)).Add(-time.Nanosecond), true},
		{"a year", now.AddDate(-1, 0, 0), true},
		{"in the future", now.Add(day), false},
		{"90 days in another zone", time.Date(2025, 4, 1, 0, 0, 0, 0, oslo), false},
		{"91 days in another zone", time.Date(2025, 3, 31, 23, 59, 0, 0, oslo), true},
	}
	b := newAccessBudget(nil, func() time.Time { return now })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The same rule for dateFrom and for dateTo: a dateTo that old
			// asks only for transactions the bank does not give.
			for _, c := range []struct {
				field            string
				dateFrom, dateTo time.Time
			}{
				{"TransactionsOptions.DateFrom", tt.dateFrom, time.Time{}},
				{"TransactionsOptions.DateTo", time.Time{}, tt.dateFrom},
			} {
				err := b.checkHistory(c.dateFrom, c.dateTo)
				if !tt.wantErr {
					require.NoError(t, err)
					continue
				}
				var ve *ValidationError
				require.True(t, errors.As(err, &ve), "err = %v, want *ValidationError", err)
				require.Equal(t, c.field, ve.Field)
				require.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
				require.Contains(t, ve.Reason, "90 days")
			}
		})
	}
}

func TestAccessBudgetStoreError(t *testing.T) {
	t.Parallel()
	storeErr := errors.New("redis: connection refused")
	b := newAccessBudget(failingStore{storeErr}, newTestClock(budgetT0).Now)
	_, err := b.take(context.Background(), "psu-secret", "acct-secret", BudgetTransactions)
	require.ErrorIs(t, err, storeErr)
	require.NotErrorIs(t, err, ErrAccessExceeded)
	require.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
	require.NotContains(t, err.Error(), "psu-secret")
	require.NotContains(t, err.Error(), "acct-secret")
}

func TestAccessBudgetOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		b    *accessBudget
	}{
		{"nil budget", nil},
		{"nil store", newAccessBudget(nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 2 * AccessLimit {
				require.NoError(t, takeErr(tt.b.take(context.Background(), "psu", "acct", BudgetBalances)))
			}
			// The history check does not depend on the store.
			require.NoError(t, tt.b.checkHistory(time.Now().AddDate(0, 0, -10), time.Time{}))
			require.Error(t, tt.b.checkHistory(time.Now().AddDate(0, 0, -100), time.Time{}))
		})
	}
}

func TestAccessBudgetConcurrent(t *testing.T) {
	t.Parallel()
	clock := newTestClock(budgetT0)
	b := newAccessBudget(NewMemoryBudgetStore(), clock.Now)
	ctx := context.Background()
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		passed, refused int
		other           []error
	)
	start := make(chan struct{})
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := b.take(ctx, "psu", "acct", BudgetTransactions)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				passed++
			case errors.Is(err, ErrAccessExceeded):
				refused++
			default:
				other = append(other, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Empty(t, other)
	require.Equal(t, AccessLimit, passed)
	require.Equal(t, 100-AccessLimit, refused)
}

func TestMemoryStorePrunes(t *testing.T) {
	t.Parallel()
	s := NewMemoryBudgetStore().(*memoryStore)
	ctx := context.Background()
	for i := range 50 {
		bt, err := s.Take(ctx, budgetKey("psu", string(rune('A'+i)), BudgetBalances), budgetT0, AccessLimit, AccessWindow)
		require.NoError(t, err)
		require.True(t, bt.OK)
	}
	require.Equal(t, 50, s.size())

	// Still inside the window: nothing may go.
	bt, err := s.Take(ctx, "other", budgetT0.Add(AccessWindow-time.Second), AccessLimit, AccessWindow)
	require.NoError(t, err)
	require.True(t, bt.OK)
	require.Equal(t, 51, s.size())

	// Once the window has passed, the next take drops the dead keys.
	bt, err = s.Take(ctx, "fresh", budgetT0.Add(AccessWindow+time.Minute), AccessLimit, AccessWindow)
	require.NoError(t, err)
	require.True(t, bt.OK)
	require.Equal(t, 2, s.size(), "keys left: only the live ones (other, fresh)")

	// Calls that left the window are dropped from a key's list too.
	e := s.keys["other"]
	require.Len(t, e.calls, 1)
	for i := range AccessLimit {
		bt, err = s.Take(ctx, "other", budgetT0.Add(2*AccessWindow+time.Duration(i)*time.Hour), AccessLimit, AccessWindow)
		require.NoError(t, err)
		require.True(t, bt.OK)
	}
	require.Len(t, s.keys["other"].calls, AccessLimit)
}

func TestMemoryStoreStaysBounded(t *testing.T) {
	t.Parallel()
	s := NewMemoryBudgetStore().(*memoryStore)
	ctx := context.Background()
	now := budgetT0
	// One new key an hour for six weeks: at most 24 keys are live at a time.
	const live = 24
	maxSize := 0
	for i := range 1000 {
		bt, err := s.Take(ctx, budgetKey("psu", "acct", BudgetEndpoint(rune(i))), now, AccessLimit, AccessWindow)
		require.NoError(t, err)
		require.True(t, bt.OK)
		maxSize = max(maxSize, s.size())
		now = now.Add(time.Hour)
	}
	require.LessOrEqual(t, maxSize, 2*live+1)
}

func TestMemoryStoreTake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("next with a smaller limit", func(t *testing.T) {
		t.Parallel()
		s := NewMemoryBudgetStore()
		for i := range 4 {
			bt, err := s.Take(ctx, "k", budgetT0.Add(time.Duration(i)*time.Hour), 4, AccessWindow)
			require.NoError(t, err)
			require.True(t, bt.OK)
		}
		// With limit 2, two calls must leave: the second oldest decides.
		bt, err := s.Take(ctx, "k", budgetT0.Add(5*time.Hour), 2, AccessWindow)
		require.NoError(t, err)
		require.False(t, bt.OK)
		require.True(t, bt.Next.Equal(budgetT0.Add(2*time.Hour+AccessWindow)), "next = %v", bt.Next)
	})
	t.Run("a clock that went back does not free calls", func(t *testing.T) {
		t.Parallel()
		s := NewMemoryBudgetStore()
		for range 4 {
			bt, err := s.Take(ctx, "k", budgetT0, 4, AccessWindow)
			require.NoError(t, err)
			require.True(t, bt.OK)
		}
		bt, err := s.Take(ctx, "k", budgetT0.Add(-time.Hour), 4, AccessWindow)
		require.NoError(t, err)
		require.False(t, bt.OK)
		require.True(t, bt.Next.Equal(budgetT0.Add(AccessWindow)))
	})
	t.Run("bad arguments", func(t *testing.T) {
		t.Parallel()
		s := NewMemoryBudgetStore()
		for _, a := range []struct {
			limit  int
			window time.Duration
		}{{0, AccessWindow}, {-1, AccessWindow}, {4, 0}, {4, -time.Hour}} {
			_, err := s.Take(ctx, "k", budgetT0, a.limit, a.window)
			require.ErrorIs(t, err, errStoreArgs)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		t.Parallel()
		s := NewMemoryBudgetStore()
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		bt, err := s.Take(cctx, "k", budgetT0, 4, AccessWindow)
		require.ErrorIs(t, err, context.Canceled)
		require.False(t, bt.OK)
		// Nothing was counted: a limit of one still has room.
		bt, err = s.Take(ctx, "k", budgetT0, 1, AccessWindow)
		require.NoError(t, err)
		require.True(t, bt.OK)
	})
}

func TestAccessExceededErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		next time.Time
		want string
	}{
		{"whole second", budgetT0, "2025-03-14T09:30:00Z"},
		{"rounded up, never early", budgetT0.Add(time.Millisecond), "2025-03-14T09:30:01Z"},
		{"shown in UTC", budgetT0.In(time.FixedZone("CET", 3600)), "2025-03-14T09:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := &AccessExceededError{Endpoint: BudgetBalances, Next: tt.next}
			require.Equal(t, "xs2a: access exceeded: 4 calls without the PSU present in 24h to balances; next call allowed at "+tt.want, err.Error())
			require.ErrorIs(t, err, ErrAccessExceeded)
			require.NotErrorIs(t, err, ErrConsentInvalid)
		})
	}
}

// TestAccessBudgetCountsRetries: every attempt reaches the bank, so every
// attempt spends one of the day's calls; the retry that the budget no longer
// allows is not made, and the call returns the bank's answer.
func TestAccessBudgetCountsRetries(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	b, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/balances": func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 { // every first attempt fails after the bank counted it
			answer(http.StatusInternalServerError, "application/json", `{"tppMessages":[{"category":"ERROR","code":"INTERNAL_SERVER_ERROR"}]}`)(w, r, 0)
			return
		}
		answer(http.StatusOK, "application/json", `{"balances":[]}`)(w, r, 0)
	}})
	fakeSleep(c)
	for range 2 {
		_, _, err := c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
		require.NoError(t, err)
	}
	// Four attempts spent: the next call is refused before it is sent.
	_, _, err := c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
	require.ErrorIs(t, err, ErrAccessExceeded)
	assert.Equal(t, AccessLimit, b.count(), "the bank saw no more than the budget")

	// A retry the budget no longer allows is not made: the bank's answer.
	n.Store(0)
	b, c = newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/balances": func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= AccessLimit-1 {
			answer(http.StatusOK, "application/json", `{"balances":[]}`)(w, r, 0)
			return
		}
		answer(http.StatusServiceUnavailable, "application/json", `{"tppMessages":[{"category":"ERROR","code":"SERVICE_UNAVAILABLE"}]}`)(w, r, 0)
	}})
	fakeSleep(c)
	for range AccessLimit - 1 {
		_, _, err := c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
		require.NoError(t, err)
	}
	_, _, err = c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.Equal(t, AccessLimit, b.count())
}
