package xs2a

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A callback for a Pending ID is accepted only within PendingValidity of
// Begin, by the manager's clock: at 1h it is refused (and Pending no longer
// reports the ID), as it is when the clock went back before Begin.
func TestPendingExpires(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		after time.Duration // the clock's move from Begin to the callback
		ok    bool
	}{
		{"at once", 0, true},
		{"1h-1ns after Begin", PendingValidity - 1, true},
		{"1h after Begin", PendingValidity, false},
		{"1h+1ns after Begin", PendingValidity + 1, false},
		{"a day later", 24 * time.Hour, false},
		{"the clock went back 1ns", -1, false},
		{"the clock went back a day", -24 * time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := newFakeClock()
			m := NewSessionManager(nil, clock.Now)
			id, err := beginID(m.Begin(ctx, "u", "test"))
			require.NoError(t, err)
			clock.Advance(tc.after)

			pending, ok, err := m.Pending(ctx, "u")
			require.NoError(t, err)
			assert.Equal(t, tc.ok, ok, "Pending reports the ID")
			err = m.Complete(ctx, "u", id)
			if tc.ok {
				assert.Equal(t, id, pending)
				require.NoError(t, err)
				valid, err := m.Valid(ctx, "u", id)
				require.NoError(t, err)
				assert.True(t, valid)
				return
			}
			assert.Empty(t, pending)
			require.ErrorIs(t, err, ErrUnknownSession)
			assert.Contains(t, err.Error(), "xs2a: ")
			_, ok, err = m.Current(ctx, "u")
			require.NoError(t, err)
			assert.False(t, ok, "a refused callback makes no session Active")
			// Abort drops the expired ID; a new Begin gets a new hour.
			require.NoError(t, m.Abort(ctx, "u", id))
			next, err := beginID(m.Begin(ctx, "u", "test"))
			require.NoError(t, err)
			require.NoError(t, m.Complete(ctx, "u", next))
		})
	}
}

// Two replicas share one store, each with its own clock: the store only
// keeps when the SCA began, and the clock of the manager that takes the
// callback decides whether it came in time.
func TestPendingExpiresByTheManagersClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := NewMemorySessionStore()
	begun := newFakeClock()
	a := NewSessionManager(store, begun.Now)
	id, err := beginID(a.Begin(ctx, "u", "test"))
	require.NoError(t, err)

	late := newTestClock(begun.Now().Add(PendingValidity + 1))
	b := NewSessionManager(store, late.Now)
	require.ErrorIs(t, b.Complete(ctx, "u", id), ErrUnknownSession, "replica b's clock is past the hour")
	_, ok, err := b.Pending(ctx, "u")
	require.NoError(t, err)
	assert.False(t, ok)

	inTime := newTestClock(begun.Now().Add(30 * time.Minute))
	c := NewSessionManager(store, inTime.Now)
	require.NoError(t, c.Complete(ctx, "u", id), "replica c's clock is within the hour")
	cur, ok, err := c.Current(ctx, "u")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, id, cur)
}

// Begin records when it began, by the manager's clock, and Complete and
// Abort clear it with the Pending ID.
func TestPendingSinceRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	store := NewMemorySessionStore()
	m := NewSessionManager(store, clock.Now)
	start, err := m.Begin(ctx, "u", "consent")
	require.NoError(t, err)
	id := start.SessionID
	st, err := store.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, SessionState{Pending: id, PendingSince: clock.Now(), SCAs: []PendingSCA{{
		StateHash: stateHash(start.State), Purpose: "consent", SessionID: id, NewSession: true, Since: clock.Now(),
	}}}, st)

	clock.Advance(time.Minute)
	require.NoError(t, m.Complete(ctx, "u", id))
	st, err = store.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, SessionState{Active: id, ActiveUntil: clock.Now().Add(SessionValidity), ActivePurpose: "consent"}, st)

	id2, err := beginID(m.Begin(ctx, "u", "test"))
	require.NoError(t, err)
	require.NoError(t, m.Abort(ctx, "u", id2))
	st, err = store.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, SessionState{Active: id, ActiveUntil: clock.Now().Add(SessionValidity), ActivePurpose: "consent"}, st)
}
