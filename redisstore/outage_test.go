package redisstore_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// Redis gone mid-run: PSU-not-present calls fail closed (an error wrapping
// the store's, nothing sent to the bank) within the context's deadline;
// back, they succeed again. A frozen Redis (SIGSTOP: connections open,
// nothing answers) under a client that would wait forever shows the
// deadline holds; a killed one, restarted empty on the same port, shows
// the store recovers by itself. Over one redis-server, a Cluster of three
// masters (all frozen or killed) and Sentinel (the master frozen or killed).
func TestOutageFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		down    func(*deployment, testing.TB)
		up      func(*deployment, testing.TB)
		wantErr func(*testing.T, kind, error)
	}{
		{"frozen", (*deployment).freeze, (*deployment).thaw, func(t *testing.T, _ kind, err error) {
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		}},
		{"stopped", (*deployment).kill, (*deployment).restart, func(t *testing.T, k kind, err error) {
			if k == clusterKind { // its client redials the nodes for seconds: the deadline ends the call
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				return
			}
			var op *net.OpError
			assert.ErrorAs(t, err, &op, "the connection refused")
		}},
	}
	for _, k := range kinds {
		for _, tt := range tests {
			t.Run(string(k)+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				checkOutage(t, newFleet(t, deploy(t, k)), tt.down, tt.up, func(t *testing.T, err error) { tt.wantErr(t, k, err) })
			})
		}
	}
}

// checkOutage takes Redis down with down while a replica makes a
// PSU-not-present call, checks the call fails closed by its deadline with
// an error wantErr accepts, and that calls succeed again after up.
func checkOutage(t *testing.T, f *fleet, down, up func(*deployment, testing.TB), wantErr func(*testing.T, error)) {
	t.Helper()
	c := f.replica(t, func(o *redis.UniversalOptions) {
		o.ReadTimeout, o.WriteTimeout = -1, -1 // no deadline of go-redis's own
		o.MaxRetries = -1
	})
	call := func(d time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		_, _, err := c.Accounts.Balances(ctx, f.away, f.account)
		return err
	}
	require.NoError(t, call(time.Minute))
	down(f.redis, t)
	before := f.balancesAtBank()
	done := make(chan error, 1)
	go func() { done <- call(500 * time.Millisecond) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
		t.Fatal("the call did not end by its context's deadline")
	}
	require.Error(t, err)
	assert.False(t, errors.Is(err, xs2a.ErrAccessExceeded), "not a refusal of the budget: %v", err)
	assert.Contains(t, err.Error(), "xs2a: access budget")
	wantErr(t, err)
	assert.Equal(t, before, f.balancesAtBank(), "nothing sent")

	up(f.redis, t)
	require.NoError(t, call(time.Minute), "Redis is back")
	assert.Equal(t, before+1, f.balancesAtBank())
}
