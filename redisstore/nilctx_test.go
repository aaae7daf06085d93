package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
)

// The stores answer a nil context with a *xs2a.ValidationError naming
// "ctx", and write nothing, instead of panicking.
func TestNilContextIsAnError(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	sessions := redisstore.NewSessionStore(rdb, redisstore.WithKeyPrefix("nil:"))
	budget := redisstore.NewBudgetStore(rdb, redisstore.WithKeyPrefix("nil:"))
	var nilCtx context.Context // a nil context, as a careless caller passes it
	for name, call := range map[string]func() error{
		"SessionStore.Load": func() error { _, err := sessions.Load(nilCtx, "u"); return err },
		"SessionStore.Update": func() error {
			return sessions.Update(nilCtx, "u", func(s xs2a.SessionState) (xs2a.SessionState, error) {
				s.Pending = "p"
				return s, nil
			})
		},
		"BudgetStore.Take": func() error {
			_, err := budget.Take(nilCtx, "k", time.Now(), xs2a.AccessLimit, xs2a.AccessWindow)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = call() })
			var ve *xs2a.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "ctx", ve.Field)
		})
	}
	keys, err := rdb.Keys(context.Background(), "nil:*").Result()
	require.NoError(t, err)
	assert.Empty(t, keys, "nothing written")
}
