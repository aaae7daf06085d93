package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
	"github.com/tppkit/xs2a/xs2atest"
)

// takeStep is one Take (or, with peek, Peek) of a sequence: at from t0 on
// the caller's clock, with limit, and the answer both stores must give.
type takeStep struct {
	peek      bool
	at        time.Duration
	limit     int
	ok        bool
	remaining int
	next      time.Duration // from t0; -1: zero
}

// takeSequence fills the budget an hour apart, is refused, sees the window
// roll past the first call, then the second, and asks with a smaller limit;
// Peeks on the way read the same, and record nothing.
var takeSequence = []takeStep{
	{true, 0, 4, true, 4, -1},
	{false, 0, 4, true, 3, xs2a.AccessWindow},
	{true, 0, 4, true, 3, xs2a.AccessWindow},
	{false, time.Hour, 4, true, 2, xs2a.AccessWindow},
	{false, 2 * time.Hour, 4, true, 1, xs2a.AccessWindow},
	{true, 2 * time.Hour, 4, true, 1, xs2a.AccessWindow},
	{false, 3 * time.Hour, 4, true, 0, xs2a.AccessWindow},
	{true, 4 * time.Hour, 4, false, 0, xs2a.AccessWindow},
	{false, 4 * time.Hour, 4, false, 0, xs2a.AccessWindow},
	{true, xs2a.AccessWindow, 4, true, 1, time.Hour + xs2a.AccessWindow},
	{false, xs2a.AccessWindow, 4, true, 0, time.Hour + xs2a.AccessWindow},
	{false, xs2a.AccessWindow + time.Minute, 4, false, 0, time.Hour + xs2a.AccessWindow},
	{false, xs2a.AccessWindow + time.Hour, 4, true, 0, 2*time.Hour + xs2a.AccessWindow},
	// Four counted (t0+2h, t0+3h, t0+24h, t0+25h): with limit 2, three must
	// leave for one more to fit; with limit 5, one fits.
	{true, xs2a.AccessWindow + 90*time.Minute, 2, false, 0, 2 * xs2a.AccessWindow},
	{false, xs2a.AccessWindow + 90*time.Minute, 2, false, 0, 2 * xs2a.AccessWindow},
	{true, xs2a.AccessWindow + 90*time.Minute, 5, true, 1, 2*time.Hour + xs2a.AccessWindow},
	{false, xs2a.AccessWindow + 90*time.Minute, 5, true, 0, 2*time.Hour + xs2a.AccessWindow},
	// Two days after the last call: nothing counted.
	{true, 3*xs2a.AccessWindow + 90*time.Minute, 4, true, 4, -1},
}

// The memory store and the Redis store give the same answers to the same
// Takes and Peeks: OK, the calls left and Next. The Redis server's clock is moved to
// the caller's (plus the real time the test takes, span, by which Redis's
// Next may be early), so Next must agree within span. Over one
// redis-server, a Cluster and Sentinel.
func TestBudgetTakeAgreesWithMemory(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			d := shared(t, k)
			admin := d.client(t)
			prefix, key, redisKey := budgetKeys(t.Name())
			clk := &clock{t: t0}
			rs := redisstore.NewBudgetStore(d.client(t), redisstore.WithKeyPrefix(prefix))
			start := serverMicros(t, admin, redisKey)
			redisstore.SetServerShift(rs, func() time.Duration { return clk.Now().Sub(time.UnixMicro(start)) })
			mem := xs2a.NewMemoryBudgetStore()
			ctx := context.Background()
			type answer struct {
				mem, redis xs2a.BudgetTake
			}
			answers := make([]answer, len(takeSequence))
			for i, st := range takeSequence {
				clk.Advance(t0.Add(st.at).Sub(clk.Now()))
				ask := []func(context.Context, string, time.Time, int, time.Duration) (xs2a.BudgetTake, error){mem.Take, rs.Take}
				if st.peek {
					ask = []func(context.Context, string, time.Time, int, time.Duration) (xs2a.BudgetTake, error){mem.Peek, rs.Peek}
				}
				var err error
				answers[i].mem, err = ask[0](ctx, key, clk.Now(), st.limit, xs2a.AccessWindow)
				require.NoError(t, err)
				answers[i].redis, err = ask[1](ctx, key, clk.Now(), st.limit, xs2a.AccessWindow)
				require.NoError(t, err)
			}
			span := time.Duration(serverMicros(t, admin, redisKey)-start) * time.Microsecond
			for i, st := range takeSequence {
				want := xs2a.BudgetTake{OK: st.ok, Remaining: st.remaining}
				if st.next >= 0 {
					want.Next = t0.Add(st.next)
				}
				a := answers[i]
				if want.Next.IsZero() {
					assert.Equal(t, want, a.mem, "memory, step %d", i+1)
					assert.Equal(t, want, a.redis, "redis, step %d", i+1)
					continue
				}
				assert.Equal(t, want, a.mem, "memory, step %d at t0+%v", i+1, st.at)
				assert.Equal(t, want.OK, a.redis.OK, "redis, step %d", i+1)
				assert.Equal(t, want.Remaining, a.redis.Remaining, "redis, step %d", i+1)
				early := want.Next.Sub(a.redis.Next)
				assert.True(t, early >= 0 && early <= span, "redis, step %d: next %v, want %v (at most %v early)", i+1, a.redis.Next, want.Next, span)
			}
		})
	}
}

// Two replicas on one Redis see one count on their Responses: 3, 2, 1, 0
// calls left whichever replica calls. The Redis server's clock is the
// real one, more than a year from the fleet's fake clock, and replica B's
// clock is a day ahead of A's: each Response's Reset is still the first
// call plus the window on its own replica's clock (within the real time
// the calls took, span).
func TestFleetBudgetOnResponse(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			// The bank accepts B's Date a day ahead: only the budget is tested.
			f := newFleet(t, shared(t, k), xs2atest.WithDateSkew(0))
			admin := f.redis.client(t)
			ahead := func() time.Time { return f.clock.Now().Add(xs2a.AccessWindow) }
			a := f.replica(t)
			b := f.replicaWith(t, redisstore.NewBudgetStore(f.redis.client(t), f.prefix), xs2a.WithClock(ahead))
			// The real time the calls take, on a server's TIME (every
			// server runs on this machine's clock).
			from := serverMicros(t, admin, "span")
			type call struct {
				name   string
				c      *xs2a.Client
				now    time.Time
				budget *xs2a.BudgetStatus
			}
			calls := []call{{name: "A", c: a}, {name: "B", c: b}, {name: "A", c: a}, {name: "B", c: b}}
			for i := range calls {
				cl := &calls[i]
				cl.now = f.clock.Now()
				if cl.name == "B" {
					cl.now = ahead()
				}
				_, resp, err := cl.c.Accounts.Balances(context.Background(), f.away, f.account)
				require.NoError(t, err, "call %d on %s", i+1, cl.name)
				cl.budget = resp.Budget
			}
			span := time.Duration(serverMicros(t, admin, "span")-from) * time.Microsecond
			for i, cl := range calls {
				require.NotNil(t, cl.budget, "call %d on %s", i+1, cl.name)
				assert.Equal(t, xs2a.BudgetBalances, cl.budget.Endpoint)
				assert.Equal(t, xs2a.AccessLimit, cl.budget.Limit)
				assert.Equal(t, xs2a.AccessLimit-1-i, cl.budget.Remaining, "call %d on %s", i+1, cl.name)
				want := cl.now.Add(xs2a.AccessWindow)
				early := want.Sub(cl.budget.Reset)
				assert.True(t, early >= 0 && early <= span, "call %d on %s: reset %v, want %v (at most %v early)", i+1, cl.name, cl.budget.Reset, want, span)
			}
			for _, c := range []*xs2a.Client{a, b} {
				_, _, err := c.Accounts.Balances(context.Background(), f.away, f.account)
				require.ErrorIs(t, err, xs2a.ErrAccessExceeded)
			}
			assert.Equal(t, xs2a.AccessLimit, f.balancesAtBank())
		})
	}
}
