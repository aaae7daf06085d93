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

// A Pending ID kept in Redis expires as in memory: the replica taking the
// callback refuses it 1h+1ns after Begin, or when its clock is behind the
// Begin, by its own clock, while Redis still holds the key; a replica
// whose clock is within the hour completes it. Redis's clock and the key's
// TTL decide nothing.
func TestSessionPendingExpires(t *testing.T) {
	t.Parallel()
	forEachKind(t, checkSessionPendingExpires)
}

func checkSessionPendingExpires(t *testing.T, d *deployment) {
	ctx := context.Background()
	prefix := isolated()
	replica := func(at time.Time) *xs2a.SessionManager {
		c := &clock{t: at}
		return xs2a.NewSessionManager(redisstore.NewSessionStore(d.client(t), prefix), c.Now)
	}
	for _, tc := range []struct {
		name  string
		after time.Duration // the callback replica's clock, from Begin's
		ok    bool
	}{
		{"1h+1ns after Begin", xs2a.PendingValidity + time.Nanosecond, false},
		{"1h after Begin", xs2a.PendingValidity, false},
		{"the clock went back 1ns", -time.Nanosecond, false},
		{"1h-1ns after Begin", xs2a.PendingValidity - time.Nanosecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := "user " + tc.name
			id, err := sessionOf(replica(t0).Begin(ctx, user, "test"))
			require.NoError(t, err)
			other := replica(t0.Add(tc.after))
			pending, ok, err := other.Pending(ctx, user)
			require.NoError(t, err)
			assert.Equal(t, tc.ok, ok)
			err = other.Complete(ctx, user, id)
			if tc.ok {
				assert.Equal(t, id, pending)
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, xs2a.ErrUnknownSession)
			// Redis still holds the Pending ID: the manager's clock refused it.
			st, err := redisstore.NewSessionStore(d.client(t), prefix).Load(ctx, user)
			require.NoError(t, err)
			assert.Equal(t, id, st.Pending)
			assert.True(t, st.PendingSince.Equal(t0), "PendingSince %v", st.PendingSince)
		})
	}
}

// PendingSince round-trips through Redis, and the key's TTL covers the
// Pending ID's hour.
func TestSessionStorePendingSince(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	ctx := context.Background()
	s := redisstore.NewSessionStore(rdb, redisstore.WithKeyPrefix("tpp-8:"))
	const user = "bob"
	since := time.Date(2025, 3, 14, 9, 30, 0, 123456789, time.FixedZone("CET", 3600))
	want := xs2a.SessionState{Active: "sess-a", ActiveUntil: t0.Add(time.Hour), Pending: "sess-b", PendingSince: since}
	require.NoError(t, s.Update(ctx, user, func(xs2a.SessionState) (xs2a.SessionState, error) { return want, nil }))

	got, err := redisstore.NewSessionStore(srv.client(t), redisstore.WithKeyPrefix("tpp-8:")).Load(ctx, user)
	require.NoError(t, err)
	assert.True(t, got.PendingSince.Equal(since), "PendingSince %v", got.PendingSince)
	assert.Equal(t, want.Pending, got.Pending)

	key := "tpp-8:xs2a:session:{" + sha(user) + "}"
	ttl, err := rdb.PTTL(ctx, key).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, xs2a.PendingValidity-time.Minute, "TTL %v", ttl)
	assert.LessOrEqual(t, ttl, max(xs2a.PendingValidity, xs2a.SessionValidity), "TTL %v", ttl)
}
