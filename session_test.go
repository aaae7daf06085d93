package xs2a

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newFakeClock is the sessions tests' clock.
func newFakeClock() *testClock { return newTestClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)) }

// TestSessionRules drives the rules of docs/interface.md "Consent and SCA session"
// step by step. Each step acts and then checks which session ids are valid.
// Names "A", "B", ... stand for the ids Begin returned, in order.
func TestSessionRules(t *testing.T) {
	t.Parallel()
	type step struct {
		advance time.Duration // move the clock first
		op      string        // "begin", "complete X", "abort X", "" (only check)
		wantErr error
		valid   []string // ids that must be valid after the step
		invalid []string // ids that must not be
		current string   // Current's id; "none": ok == false; "": not checked
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"no session before any SCA", []step{
			{current: "none"},
			{op: "begin", invalid: []string{"A"}, current: "none"},
		}},
		{"valid at 59m59s, invalid at 1h", []step{
			{op: "begin"},
			{op: "complete A", valid: []string{"A"}, current: "A"},
			{advance: 59*time.Minute + 59*time.Second, valid: []string{"A"}, current: "A"},
			{advance: time.Second, invalid: []string{"A"}, current: "none"},
			{advance: time.Hour, invalid: []string{"A"}, current: "none"},
		}},
		{"the hour counts from completion, not from Begin", []step{
			{op: "begin"},
			{advance: 30 * time.Minute, op: "complete A", valid: []string{"A"}},
			{advance: 59 * time.Minute, valid: []string{"A"}, current: "A"},
			{advance: time.Minute, invalid: []string{"A"}},
		}},
		{"new session before expiry: old valid until the new completes", []step{
			{op: "begin"},
			{op: "complete A", valid: []string{"A"}, current: "A"},
			{advance: 10 * time.Minute, op: "begin", valid: []string{"A"}, invalid: []string{"B"}, current: "A"},
			{advance: 10 * time.Minute, valid: []string{"A"}, invalid: []string{"B"}, current: "A"},
			{op: "complete B", valid: []string{"B"}, invalid: []string{"A"}, current: "B"},
			// B has its own hour from its completion (20 minutes in).
			{advance: 59 * time.Minute, valid: []string{"B"}, invalid: []string{"A"}, current: "B"},
			{advance: time.Minute, invalid: []string{"A", "B"}, current: "none"},
		}},
		{"abort keeps the old session", []step{
			{op: "begin"},
			{op: "complete A"},
			{op: "begin"},
			{op: "abort B", valid: []string{"A"}, invalid: []string{"B"}, current: "A"},
			{op: "complete B", wantErr: ErrUnknownSession, valid: []string{"A"}, invalid: []string{"B"}, current: "A"},
			{advance: time.Hour, invalid: []string{"A", "B"}, current: "none"},
		}},
		{"abort without an active session", []step{
			{op: "begin"},
			{op: "abort A", invalid: []string{"A"}, current: "none"},
			{op: "abort A", wantErr: ErrUnknownSession},
		}},
		{"complete of an id that is not pending fails", []step{
			{op: "complete X", wantErr: ErrUnknownSession, current: "none"},
			{op: "begin"},
			{op: "complete X", wantErr: ErrUnknownSession, invalid: []string{"A", "X"}},
			{op: "complete ", wantErr: ErrUnknownSession, invalid: []string{"A"}},
			{op: "complete A", valid: []string{"A"}},
			{op: "abort A", wantErr: ErrUnknownSession, valid: []string{"A"}},
		}},
		{"a later Begin replaces the pending id", []step{
			{op: "begin"},
			{op: "begin"},
			{op: "complete A", wantErr: ErrUnknownSession, invalid: []string{"A", "B"}},
			{op: "abort A", wantErr: ErrUnknownSession},
			{op: "complete B", valid: []string{"B"}, invalid: []string{"A"}, current: "B"},
		}},
		{"completing the active id again changes nothing", []step{
			{op: "begin"},
			{op: "complete A"},
			{advance: 50 * time.Minute, op: "complete A", valid: []string{"A"}, current: "A"},
			{advance: 10 * time.Minute, invalid: []string{"A"}, current: "none"},
			{op: "complete A", wantErr: ErrUnknownSession, invalid: []string{"A"}},
		}},
		{"completing the active id keeps a pending one", []step{
			{op: "begin"},
			{op: "complete A"},
			{op: "begin"},
			{op: "complete A", valid: []string{"A"}},
			{op: "complete B", valid: []string{"B"}, invalid: []string{"A"}},
		}},
		{"expired active, then Begin", []step{
			{op: "begin"},
			{op: "complete A"},
			{advance: 2 * time.Hour, op: "begin", invalid: []string{"A", "B"}, current: "none"},
			{op: "abort B", invalid: []string{"A", "B"}, current: "none"},
			{op: "begin"},
			{op: "complete C", valid: []string{"C"}, invalid: []string{"A", "B"}, current: "C"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := newFakeClock()
			m := NewSessionManager(nil, clock.Now)
			ids := map[string]string{"X": "not-an-issued-id", "": ""}
			next := 'A'
			for i, s := range tc.steps {
				clock.Advance(s.advance)
				var err error
				var op, arg string
				fmt.Sscan(s.op, &op, &arg)
				switch op {
				case "":
				case "begin":
					var id string
					id, err = beginID(m.Begin(ctx, "user", "test"))
					ids[string(next)] = id
					next++
				case "complete":
					err = m.Complete(ctx, "user", ids[arg])
				case "abort":
					err = m.Abort(ctx, "user", ids[arg])
				default:
					t.Fatalf("bad op %q", s.op)
				}
				if s.wantErr != nil {
					require.ErrorIs(t, err, s.wantErr, "step %d", i)
				} else {
					require.NoError(t, err, "step %d", i)
				}
				for _, name := range s.valid {
					ok, err := m.Valid(ctx, "user", ids[name])
					require.NoError(t, err)
					assert.True(t, ok, "step %d: %s should be valid", i, name)
				}
				for _, name := range s.invalid {
					ok, err := m.Valid(ctx, "user", ids[name])
					require.NoError(t, err)
					assert.False(t, ok, "step %d: %s should be invalid", i, name)
				}
				cur, ok, err := m.Current(ctx, "user")
				require.NoError(t, err)
				switch s.current {
				case "":
				case "none":
					assert.False(t, ok, "step %d: no current session expected", i)
				default:
					assert.True(t, ok, "step %d", i)
					assert.Equal(t, ids[s.current], cur, "step %d: current", i)
				}
				// Current and Valid agree: at most the current id is valid.
				for name, id := range ids {
					v, err := m.Valid(ctx, "user", id)
					require.NoError(t, err)
					assert.Equal(t, ok && id == cur, v, "step %d: %s", i, name)
				}
			}
		})
	}
}

func TestSessionUsersAreSeparate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(NewMemorySessionStore(), newFakeClock().Now)
	a, err := beginID(m.Begin(ctx, "alice", "test"))
	require.NoError(t, err)
	require.ErrorIs(t, m.Complete(ctx, "bob", a), ErrUnknownSession)
	require.NoError(t, m.Complete(ctx, "alice", a))
	ok, err := m.Valid(ctx, "bob", a)
	require.NoError(t, err)
	assert.False(t, ok)
	_, ok, err = m.Current(ctx, "bob")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestSessionEmptyUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, nil)
	var ve *ValidationError
	_, _, err := m.Current(ctx, "")
	assert.ErrorAs(t, err, &ve)
	_, err = beginID(m.Begin(ctx, "", "test"))
	assert.ErrorAs(t, err, &ve)
	assert.ErrorAs(t, m.Complete(ctx, "", "x"), &ve)
	assert.ErrorAs(t, m.Abort(ctx, "", "x"), &ve)
	_, err = m.Valid(ctx, "", "x")
	assert.ErrorAs(t, err, &ve)
	assert.Equal(t, "xs2a: invalid user: empty", ve.Error())
}

func TestSessionDefaultClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, nil)
	id, err := beginID(m.Begin(ctx, "u", "test"))
	require.NoError(t, err)
	require.NoError(t, m.Complete(ctx, "u", id))
	ok, err := m.Valid(ctx, "u", id)
	require.NoError(t, err)
	assert.True(t, ok, "a session completed just now is valid with the real clock")
}

// failingSessionStore fails every call, to see store errors come back wrapped.
type failingSessionStore struct{ err error }

func (s failingSessionStore) Update(context.Context, string, func(SessionState) (SessionState, error)) error {
	return s.err
}
func (s failingSessionStore) Load(context.Context, string) (SessionState, error) {
	return SessionState{}, s.err
}
func (s failingSessionStore) Index(context.Context, string, string, time.Duration) error {
	return s.err
}
func (s failingSessionStore) Lookup(context.Context, string) (string, error) { return "", s.err }

func TestSessionStoreErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	boom := errors.New("connection refused")
	m := NewSessionManager(failingSessionStore{boom}, nil)
	_, _, err := m.Current(ctx, "u")
	assert.ErrorIs(t, err, boom)
	assert.EqualError(t, err, "xs2a: session store: connection refused")
	_, err = beginID(m.Begin(ctx, "u", "test"))
	assert.ErrorIs(t, err, boom)
	assert.ErrorIs(t, m.Complete(ctx, "u", "x"), boom)
	assert.ErrorIs(t, m.Abort(ctx, "u", "x"), boom)
	_, err = m.Valid(ctx, "u", "x")
	assert.ErrorIs(t, err, boom)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	m = NewSessionManager(nil, nil)
	_, err = beginID(m.Begin(cctx, "u", "test"))
	assert.ErrorIs(t, err, context.Canceled)
	_, _, err = m.Current(cctx, "u")
	assert.ErrorIs(t, err, context.Canceled)
}

func TestMemorySessionStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewMemorySessionStore()
	st, err := s.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, SessionState{}, st)

	want := SessionState{Active: "a", ActiveUntil: time.Unix(100, 0), Pending: "p"}
	require.NoError(t, s.Update(ctx, "u", func(SessionState) (SessionState, error) { return want, nil }))
	st, err = s.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, want, st)

	oops := errors.New("oops")
	err = s.Update(ctx, "u", func(SessionState) (SessionState, error) { return SessionState{Pending: "other"}, oops })
	assert.ErrorIs(t, err, oops)
	st, _ = s.Load(ctx, "u")
	assert.Equal(t, want, st, "a failed update stores nothing")

	require.NoError(t, s.Update(ctx, "u", func(SessionState) (SessionState, error) { return SessionState{}, nil }))
	assert.Empty(t, s.(*memorySessionStore).m, "the zero state is deleted")
}

// TestMemorySessionStoreAtomic counts in ActiveUntil: lost updates would show.
func TestMemorySessionStoreAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewMemorySessionStore()
	users := []string{"u1", "u2", "u3"}
	const goroutines, rounds = 16, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				err := s.Update(ctx, users[g%len(users)], func(st SessionState) (SessionState, error) {
					st.ActiveUntil = st.ActiveUntil.Add(time.Nanosecond)
					return st, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	total := time.Duration(0)
	for _, u := range users {
		st, err := s.Load(ctx, u)
		require.NoError(t, err)
		total += st.ActiveUntil.Sub(time.Time{})
	}
	assert.Equal(t, time.Duration(goroutines*rounds), total)
}

// TestSessionManagerConcurrent runs Begin, Complete, Abort, Current and Valid
// from many goroutines on a few users. Whatever the interleaving, each user
// ends with exactly one valid id among all ids ever issued, and Current names
// it.
func TestSessionManagerConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	m := NewSessionManager(nil, clock.Now)
	users := []string{"alice", "bob", "carol", "dave"}
	const goroutines, rounds = 24, 50

	var mu sync.Mutex
	issued := map[string][]string{}
	completed := map[string]int{}
	// Every user starts with a completed SCA, so each has an Active id
	// whatever the interleaving.
	for _, user := range users {
		id, err := beginID(m.Begin(ctx, user, "test"))
		require.NoError(t, err)
		require.NoError(t, m.Complete(ctx, user, id))
		issued[user] = append(issued[user], id)
	}

	var wg sync.WaitGroup
	for g := range goroutines {
		user := users[g%len(users)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				id, err := beginID(m.Begin(ctx, user, "test"))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				issued[user] = append(issued[user], id)
				mu.Unlock()
				if _, _, err := m.Current(ctx, user); err != nil {
					t.Error(err)
					return
				}
				if r%3 == 2 {
					err = m.Abort(ctx, user, id)
				} else {
					err = m.Complete(ctx, user, id)
					if err == nil {
						mu.Lock()
						completed[user]++
						mu.Unlock()
					}
				}
				// A later Begin by another goroutine may have replaced id.
				if err != nil && !errors.Is(err, ErrUnknownSession) {
					t.Error(err)
					return
				}
				if _, err := m.Valid(ctx, user, id); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()

	for _, user := range users {
		t.Logf("%s: %d of %d SCAs completed", user, completed[user], len(issued[user])-1)
		cur, ok, err := m.Current(ctx, user)
		require.NoError(t, err)
		require.True(t, ok, "user %s", user)
		valid := 0
		for _, id := range issued[user] {
			ok, err := m.Valid(ctx, user, id)
			require.NoError(t, err)
			if ok {
				valid++
				assert.Equal(t, cur, id)
			}
		}
		assert.Equal(t, 1, valid, "user %s", user)
		// Ids are per user: another user's active id is never valid here.
		for _, other := range users {
			if other == user {
				continue
			}
			oc, _, err := m.Current(ctx, other)
			require.NoError(t, err)
			ok, err := m.Valid(ctx, user, oc)
			require.NoError(t, err)
			assert.False(t, ok)
		}
	}
}

func TestSessionManagerPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, newFakeClock().Now)
	_, ok, err := m.Pending(ctx, "alice")
	require.NoError(t, err)
	require.False(t, ok)
	id, err := beginID(m.Begin(ctx, "alice", "test"))
	require.NoError(t, err)
	got, ok, err := m.Pending(ctx, "alice")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, id, got)
	require.NoError(t, m.Abort(ctx, "alice", got))
	_, ok, err = m.Pending(ctx, "alice")
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = m.Pending(ctx, "")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
}

// guessingSessionStore runs fn on a guessed (stale) state first, as a
// shared store with a cache may, then fails reading the real one.
type guessingSessionStore struct {
	guess SessionState
	err   error
}

func (s guessingSessionStore) Update(_ context.Context, _ string, fn func(SessionState) (SessionState, error)) error {
	if _, err := fn(s.guess); err == nil {
		return nil
	}
	return s.err // the state could not be read to run fn on it
}
func (s guessingSessionStore) Load(context.Context, string) (SessionState, error) {
	return SessionState{}, s.err
}
func (s guessingSessionStore) Index(context.Context, string, string, time.Duration) error { return nil }
func (s guessingSessionStore) Lookup(context.Context, string) (string, error)             { return "", s.err }

// A store that refused a guessed state with fn and then failed reports its
// own error, not fn's: the session id may well be the real state's.
func TestSessionStoreErrorAfterGuess(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection refused")
	m := NewSessionManager(guessingSessionStore{guess: SessionState{Pending: "old"}, err: boom}, nil)
	for name, err := range map[string]error{
		"Complete": m.Complete(context.Background(), "u", "new"),
		"Abort":    m.Abort(context.Background(), "u", "new"),
	} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorIs(t, err, boom)
			assert.NotErrorIs(t, err, ErrUnknownSession)
		})
	}
}

// beginID is Begin's session id, for tests of the session rules.
func beginID(s SCAStart, err error) (string, error) { return s.SessionID, err }
