package redisstore_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
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

const psuIP = "192.0.2.10"

// clock is a fake clock shared by the bank and the replicas.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fleet is a fake bank, a PSU who granted access with SCA, and replicas of
// a TPP that share a Redis budget under a key prefix of the fleet's own.
type fleet struct {
	bank    *xs2atest.Server
	clock   *clock
	redis   *deployment
	prefix  redisstore.Option
	away    xs2a.PSU // the PSU, not present
	account string
}

// noWait retries at once: the tests do not sleep.
var noWait = xs2a.RetryPolicy{MaxAttempts: 3, Methods: []string{http.MethodGet}}

// newFleet sets up a fleet over Redis run as d.
func newFleet(t *testing.T, d *deployment, opts ...xs2atest.Option) *fleet {
	t.Helper()
	f := &fleet{clock: &clock{t: t0}, redis: d, prefix: isolated()}
	f.bank = xs2atest.NewServer(t, append([]xs2atest.Option{xs2atest.WithClock(f.clock.Now)}, opts...)...)
	f.away = xs2a.PSU{ID: f.signIn(t, f.replica(t)).ID}
	c, ok := f.bank.Customer(xs2atest.PrivateCustomer1)
	require.True(t, ok)
	f.account = c.Accounts[0].ResourceID
	return f
}

// replica is one TPP replica: an SDK client with connections of its own to
// the bank and to Redis, counting in the shared budget.
func (f *fleet) replica(t *testing.T, redisOpts ...func(*redis.UniversalOptions)) *xs2a.Client {
	t.Helper()
	return f.replicaWith(t, redisstore.NewBudgetStore(f.redis.client(t, redisOpts...), f.prefix))
}

// replicaWith is a replica counting in store, with SDK options of its own
// (a clock) after the fleet's.
func (f *fleet) replicaWith(t *testing.T, store *redisstore.BudgetStore, opts ...xs2a.Option) *xs2a.Client {
	t.Helper()
	tr := f.bank.HTTPClient().Transport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := f.bank.Client(nil, append([]xs2a.Option{
		xs2a.WithHTTPClient(&http.Client{Transport: tr}),
		xs2a.WithBudgetStore(store),
		xs2a.WithRetry(noWait)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// signIn runs the account access SCA for PrivateCustomer1.
func (f *fleet) signIn(t *testing.T, c *xs2a.Client) xs2a.PSU {
	t.Helper()
	ctx := context.Background()
	_, _, err := c.Accounts.List(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	u, err := f.bank.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.NoError(t, err)
	return cb.PSU(psuIP)
}

// balancesAtBank counts the balance reads that reached the bank, dropped
// connections included.
func (f *fleet) balancesAtBank() int {
	n := 0
	for _, r := range f.bank.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/balances") {
			n++
		}
	}
	return n
}

// storm makes calls concurrent PSU-not-present balance reads on each
// replica and returns how many succeeded and how many the budget refused.
func (f *fleet) storm(t *testing.T, replicas []*xs2a.Client, calls int) (ok, refused int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range replicas {
		for range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := c.Accounts.Balances(context.Background(), f.away, f.account)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, xs2a.ErrAccessExceeded):
					refused++
				}
			}()
		}
	}
	wg.Wait()
	return ok, refused
}

// Eight replicas, each with its own connections, 25 concurrent
// PSU-not-present calls each on one account: the bank sees exactly its 4,
// also when 30% of the connections drop after the bank read the request
// (at most 4 then: a retry spends the budget too). Over one redis-server,
// a Cluster of three masters and Sentinel.
func TestFleetSharesTheBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		drop  float64
		exact bool
	}{
		{"no faults", 0, true},
		{"30% of connections dropped", 0.3, false},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(string(k)+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				var opts []xs2atest.Option
				if tt.drop > 0 {
					opts = append(opts, xs2atest.WithFaults(xs2atest.Fault{Path: "/v1/accounts/", Drop: true, Rate: tt.drop}))
				}
				f := newFleet(t, shared(t, k), opts...)
				f.checkStorm(t, tt.exact)
			})
		}
	}
}

// checkStorm runs 25 calls on each of eight replicas and checks what
// reached the bank: exactly its limit, or at most that when exact is false
// (connections dropped).
func (f *fleet) checkStorm(t *testing.T, exact bool) {
	t.Helper()
	replicas := make([]*xs2a.Client, 8)
	for i := range replicas {
		replicas[i] = f.replica(t)
	}
	ok, refused := f.storm(t, replicas, 25)
	atBank := f.balancesAtBank()
	if exact {
		assert.Equal(t, xs2a.AccessLimit, atBank, "calls at the bank")
		assert.Equal(t, xs2a.AccessLimit, ok, "calls answered")
		assert.Equal(t, 8*25-xs2a.AccessLimit, refused, "calls refused locally")
		return
	}
	assert.LessOrEqual(t, atBank, xs2a.AccessLimit, "calls at the bank")
	assert.Positive(t, refused, "calls refused locally")
	dropped := 0
	for _, r := range f.bank.Requests() {
		if r.Dropped {
			dropped++
		}
	}
	assert.Equal(t, atBank, ok+dropped, "every request at the bank answered or dropped")
	t.Logf("at the bank %d (dropped %d), answered %d, refused %d", atBank, dropped, ok, refused)
}
