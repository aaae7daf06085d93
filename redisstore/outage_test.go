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
// the store recovers by itself.
func TestOutageFailsClosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		down    func(*redisServer, testing.TB)
		up      func(*redisServer, testing.TB)
		wantErr func(*testing.T, error)
	}{
		{"frozen", (*redisServer).freeze, (*redisServer).thaw, func(t *testing.T, err error) {
			assert.ErrorIs(t, err, context.DeadlineExceeded)
		}},
		{"stopped", func(r *redisServer, _ testing.TB) { r.stop() }, (*redisServer).restart, func(t *testing.T, err error) {
			var op *net.OpError
			assert.ErrorAs(t, err, &op, "the connection refused")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t)
			c := f.replica(t, func(o *redis.Options) {
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
			tt.down(f.redis, t)
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
			tt.wantErr(t, err)
			assert.Equal(t, before, f.balancesAtBank(), "nothing sent")

			tt.up(f.redis, t)
			require.NoError(t, call(time.Minute), "Redis is back")
			assert.Equal(t, before+1, f.balancesAtBank())
		})
	}
}
