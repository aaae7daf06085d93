package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
	"github.com/tppkit/xs2a/xs2atest"
)

// roundTrips is a go-redis hook counting the commands and pipelines sent.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// hooked is a client of srv with a round-trip counter.
func hooked(b *testing.B, srv *redisServer) (*redis.Client, *roundTrips) {
	rdb := srv.client(b)
	h := &roundTrips{}
	rdb.AddHook(h)
	return rdb, h
}

// BenchmarkTake: one Take (the SDK's limit and window) on a key of 4
// calls; round trips per Take reported as rt/op. The server's clock, as the
// script reads it, moves with at.
func BenchmarkTake(b *testing.B) {
	rdb, h := hooked(b, startRedis(b))
	s := redisstore.NewBudgetStore(rdb)
	ctx := context.Background()
	at := t0
	redisstore.SetServerShift(s, func() time.Duration { return at.Sub(t0) })
	_, _ = s.Take(ctx, testKey, at, xs2a.AccessLimit, xs2a.AccessWindow) // loads the script
	h.n.Store(0)
	b.ResetTimer()
	for range b.N {
		at = at.Add(6*time.Hour + time.Second) // 4 calls in any window: always allowed
		if bt, err := s.Take(ctx, testKey, at, xs2a.AccessLimit, xs2a.AccessWindow); err != nil || !bt.OK {
			b.Fatal(bt, err)
		}
	}
	b.ReportMetric(float64(h.n.Load())/float64(b.N), "rt/op")
}

// BenchmarkUpdate: one SessionManager.Begin (a store Update) for a user
// this replica saw last; round trips per Update reported as rt/op.
func BenchmarkUpdate(b *testing.B) {
	rdb, h := hooked(b, startRedis(b))
	m := xs2a.NewSessionManager(redisstore.NewSessionStore(rdb), func() time.Time { return t0 })
	ctx := context.Background()
	if _, err := sessionOf(m.Begin(ctx, "tpp-user", "test")); err != nil { // loads the script
		b.Fatal(err)
	}
	h.n.Store(0)
	b.ResetTimer()
	for range b.N {
		if _, err := sessionOf(m.Begin(ctx, "tpp-user", "test")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(h.n.Load())/float64(b.N), "rt/op")
}

// BenchmarkSignedGET: one signed PSU-not-present balance read against the
// fake bank, its budget in memory or in Redis: the difference is a Take's
// cost beside a signed request. The clock (the bank's, the SDK's and, as
// the budget script reads it, the Redis server's) moves 6 hours per call so
// the bank's and the SDK's 4 calls a day always allow it; the PSU signs in
// again (untimed) before the access of its SCA runs out.
func BenchmarkSignedGET(b *testing.B) {
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			clk := &clock{t: t0}
			store := xs2a.NewMemoryBudgetStore()
			if name == "redis" {
				rs := redisstore.NewBudgetStore(startRedis(b).client(b))
				redisstore.SetServerShift(rs, func() time.Duration { return clk.Now().Sub(t0) })
				store = rs
			}
			bank := xs2atest.NewServer(b, xs2atest.WithClock(clk.Now))
			c, err := bank.Client(nil, xs2a.WithBudgetStore(store), xs2a.WithRetry(noWait))
			if err != nil {
				b.Fatal(err)
			}
			cust, _ := bank.Customer(xs2atest.PrivateCustomer1)
			account := cust.Accounts[0].ResourceID
			var away xs2a.PSU
			b.ResetTimer()
			for i := range b.N {
				if i%300 == 0 {
					b.StopTimer()
					away = xs2a.PSU{ID: benchSignIn(b, bank, c).ID}
					b.StartTimer()
				}
				clk.Advance(6*time.Hour + time.Second)
				if _, _, err := c.Accounts.Balances(context.Background(), away, account); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchSignIn(b *testing.B, bank *xs2atest.Server, c *xs2a.Client) xs2a.PSU {
	ctx := context.Background()
	_, _, err := c.Accounts.List(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
	sca, ok := err.(*xs2a.SCARequiredError)
	if !ok {
		b.Fatalf("want SCA, got %v", err)
	}
	u, err := bank.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		b.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(u.Query())
	if err != nil {
		b.Fatal(err)
	}
	return cb.PSU(psuIP)
}
