package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
	"github.com/tppkit/xs2a/xs2atest"
)

// callerClocks are replicas' clocks that disagree with each other and with
// the Redis server's: minutes, a day, a year, decades off, and one going an
// hour backwards on every reading.
func callerClocks() map[string]func() time.Time {
	fixed := func(at time.Time) func() time.Time { return func() time.Time { return at } }
	back := &clock{t: t0}
	return map[string]func() time.Time{
		"right":             fixed(t0),
		"10 minutes ahead":  fixed(t0.Add(10 * time.Minute)),
		"10 minutes behind": fixed(t0.Add(-10 * time.Minute)),
		"a day ahead":       fixed(t0.Add(xs2a.AccessWindow)),
		"a year ahead":      fixed(t0.AddDate(1, 0, 0)),
		"in 1971":           fixed(time.Date(1971, 1, 1, 0, 0, 0, 0, time.UTC)),
		"in 2300":           fixed(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)),
		"going backwards":   func() time.Time { back.Advance(-time.Hour); return back.Now() },
	}
}

// budgetKeys are an SDK budget key under a prefix of the test's own and the
// Redis key the store keeps it in.
func budgetKeys(name string) (prefix, key, redisKey string) {
	prefix = fmt.Sprintf("clock-%d:", prefixes.Add(1))
	h := sha(name)
	return prefix, "xs2a:budget:" + h, prefix + "xs2a:budget:{" + h + "}"
}

// serverMicros reads TIME, in µs, on the server holding redisKey (the
// master of its slot on a Cluster).
func serverMicros(t *testing.T, rdb redis.UniversalClient, redisKey string) int64 {
	t.Helper()
	ctx := context.Background()
	var node redis.Cmdable = rdb
	if c, ok := rdb.(*redis.ClusterClient); ok {
		m, err := c.MasterForKey(ctx, redisKey)
		require.NoError(t, err)
		node = m
	}
	now, err := node.Time(ctx).Result()
	require.NoError(t, err)
	return now.UnixMicro()
}

// scores are the times, in µs, of the calls recorded under redisKey, oldest first.
func scores(t *testing.T, rdb redis.UniversalClient, redisKey string) []int64 {
	t.Helper()
	zs, err := rdb.ZRangeWithScores(context.Background(), redisKey, 0, -1).Result()
	require.NoError(t, err)
	out := make([]int64, len(zs))
	for i, z := range zs {
		out[i] = int64(z.Score)
	}
	return out
}

// assertNext checks a refused Take's next against the server: the call
// scored due-window leaves the window at server time due, and the Take ran
// at a server time within [from, to], so next lies within [now+due-to,
// now+due-from] on the caller's clock.
func assertNext(t *testing.T, now, next time.Time, due, from, to int64) {
	t.Helper()
	wait := next.Sub(now)
	lo, hi := time.Duration(due-to)*time.Microsecond, time.Duration(due-from)*time.Microsecond
	assert.True(t, wait >= lo && wait <= hi, "next %v is %v after the caller's now %v; want %v to %v", next, wait, now, lo, hi)
}

// Replicas whose clocks are wildly wrong share one store built as in
// production (NewBudgetStore: the script reads TIME alone) and Take
// concurrently: exactly the limit succeed, every call is scored by the
// server's TIME (not by a caller's now), and each refused Take's next is on
// its own caller's clock: when the first call leaves the server's window,
// moved by that caller's offset. Over one redis-server, a Cluster and
// Sentinel.
func TestBudgetStoreUsesServerTime(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			d := shared(t, k)
			admin := d.client(t)
			prefix, key, redisKey := budgetKeys(t.Name())
			type take struct {
				replica   string
				now, next time.Time
				ok        bool
			}
			var (
				mu    sync.Mutex
				takes []take
				wg    sync.WaitGroup
			)
			from := serverMicros(t, admin, redisKey)
			for name, now := range callerClocks() {
				s := redisstore.NewBudgetStore(d.client(t), redisstore.WithKeyPrefix(prefix))
				for range 5 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						at := now()
						bt, err := s.Take(context.Background(), key, at, xs2a.AccessLimit, xs2a.AccessWindow)
						assert.NoError(t, err)
						mu.Lock()
						defer mu.Unlock()
						takes = append(takes, take{name, at, bt.Next, bt.OK})
					}()
				}
			}
			wg.Wait()
			to := serverMicros(t, admin, redisKey)

			recorded := scores(t, admin, redisKey)
			require.Len(t, recorded, xs2a.AccessLimit, "calls recorded")
			for _, s := range recorded {
				assert.True(t, s >= from && s <= to, "score %d not the server's time (%d to %d)", s, from, to)
			}
			due := recorded[0] + int64(xs2a.AccessWindow/time.Microsecond)
			allowed := 0
			for _, tk := range takes {
				if tk.ok {
					allowed++
					continue
				}
				t.Run(tk.replica, func(t *testing.T) { assertNext(t, tk.now, tk.next, due, from, to) })
			}
			assert.Equal(t, xs2a.AccessLimit, allowed, "Takes allowed of %d", len(takes))
		})
	}
}

// The window runs on the server's clock, moved here by a shift while the
// caller's clock stands still: calls an hour apart on the server fill the
// limit; a day later on every caller's clock but 23 hours on the server's
// the next is refused, with next an hour ahead on the caller's clock; once
// the server passes the first call's window one more fits; a server whose
// clock went back (a new master behind the old) frees nothing.
func TestBudgetStoreServerWindow(t *testing.T) {
	t.Parallel()
	const hourUS = int64(time.Hour / time.Microsecond)
	winUS := int64(xs2a.AccessWindow / time.Microsecond)
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			d := shared(t, k)
			admin := d.client(t)
			prefix, key, redisKey := budgetKeys(t.Name())
			var mu sync.Mutex
			shift := time.Duration(0)
			setShift := func(v time.Duration) { mu.Lock(); shift = v; mu.Unlock() }
			s := redisstore.NewBudgetStore(d.client(t), redisstore.WithKeyPrefix(prefix))
			redisstore.SetServerShift(s, func() time.Duration { mu.Lock(); defer mu.Unlock(); return shift })
			// serverAt shifts the server to time at, read now; the server
			// time a Take then reads is at least at (TIME only goes on).
			serverAt := func(at int64) { setShift(time.Duration(at-serverMicros(t, admin, redisKey)) * time.Microsecond) }
			take := func(now time.Time) (bool, time.Time, int64, int64) {
				t.Helper()
				mu.Lock()
				sh := int64(shift / time.Microsecond)
				mu.Unlock()
				from := serverMicros(t, admin, redisKey) + sh
				bt, err := s.Take(context.Background(), key, now, xs2a.AccessLimit, xs2a.AccessWindow)
				require.NoError(t, err)
				return bt.OK, bt.Next, from, serverMicros(t, admin, redisKey) + sh
			}

			start := serverMicros(t, admin, redisKey)
			for i := range xs2a.AccessLimit {
				serverAt(start + int64(i)*hourUS)
				ok, _, _, _ := take(t0)
				require.True(t, ok, "call %d", i+1)
			}
			recorded := scores(t, admin, redisKey)
			require.Len(t, recorded, xs2a.AccessLimit)

			serverAt(recorded[0] + winUS - hourUS)
			later := t0.Add(2 * xs2a.AccessWindow) // the caller's clock is two days on
			ok, next, from, to := take(later)
			assert.False(t, ok, "the server's window has not passed")
			assertNext(t, later, next, recorded[0]+winUS, from, to)

			serverAt(recorded[0] + winUS)
			ok, _, _, _ = take(t0)
			assert.True(t, ok, "the first call left the server's window")
			ok, next, from, to = take(t0)
			assert.False(t, ok)
			assertNext(t, t0, next, recorded[1]+winUS, from, to)

			serverAt(recorded[0] + winUS - 2*xs2a.AccessLimit*hourUS)
			ok, _, _, _ = take(later)
			assert.False(t, ok, "a server clock gone back frees nothing")

			ttl, err := admin.PTTL(context.Background(), redisKey).Result()
			require.NoError(t, err)
			assert.True(t, ttl > 0 && ttl <= xs2a.AccessWindow, "TTL %v", ttl)
		})
	}
}

// Eight replicas whose SDK clocks disagree (callerClocks, each moving with
// the fleet's clock) make 25 concurrent PSU-not-present calls each: the
// bank sees exactly its 4. Two days on, on the bank's and every replica's
// clock but 23 hours on the Redis server's, the bank sees none more: the
// budget waits for the server's window, whatever the replicas' clocks say.
// Past it, exactly 4 more. Over one redis-server, a Cluster and Sentinel.
func TestFleetSkewedClocks(t *testing.T) {
	t.Parallel()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			// The replicas' clocks are minutes to years off, and so are the
			// Date headers they sign: the fake bank's Date check is off, so
			// that only the budget decides what reaches it.
			f := newFleet(t, shared(t, k), xs2atest.WithDateSkew(0))
			server := &clock{t: t0} // the Redis server's time is TIME plus how far server moved
			var replicas []*xs2a.Client
			for _, caller := range callerClocks() {
				s := redisstore.NewBudgetStore(f.redis.client(t), f.prefix)
				redisstore.SetServerShift(s, func() time.Duration { return server.Now().Sub(t0) })
				skewed := func() time.Time { return f.clock.Now().Add(caller().Sub(t0)) }
				replicas = append(replicas, f.replicaWith(t, s, xs2a.WithClock(skewed)))
			}
			steps := []struct {
				name           string
				fleet, server  time.Duration // how far each clock moves first
				wantOK, atBank int
			}{
				{"one day", 0, 0, xs2a.AccessLimit, xs2a.AccessLimit},
				{"two days on the replicas, 23 hours on the server", 2 * xs2a.AccessWindow, 23 * time.Hour, 0, xs2a.AccessLimit},
				{"past the server's window", 0, 2 * time.Hour, xs2a.AccessLimit, 2 * xs2a.AccessLimit},
			}
			for _, st := range steps {
				f.clock.Advance(st.fleet)
				server.Advance(st.server)
				ok, refused := f.storm(t, replicas, 25)
				assert.Equal(t, st.wantOK, ok, "%s: calls answered", st.name)
				assert.Equal(t, len(replicas)*25-st.wantOK, refused, "%s: calls refused locally", st.name)
				assert.Equal(t, st.atBank, f.balancesAtBank(), "%s: calls at the bank", st.name)
			}
		})
	}
}
