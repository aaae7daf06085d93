package xs2a

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SessionValidity is how long a TPP-Session-ID's SCA lasts from completion
// (docs/interface.md CS3).
const SessionValidity = time.Hour

// PendingValidity is how long a Pending TPP-Session-ID waits for its SCA's
// callback, counted from Begin, as long as the bank's SCA session lasts
// (docs/interface.md CS5, L3): Complete refuses a later callback.
const PendingValidity = time.Hour

// SessionState is a user's state in a SessionStore; only SessionManager changes it.
type SessionState struct {
	Active       string    // the TPP-Session-ID whose SCA completed last ("" when none)
	ActiveUntil  time.Time // when Active's SCA expires: completion + SessionValidity
	Pending      string    // the TPP-Session-ID waiting for SCA ("" when none)
	PendingSince time.Time // when Begin handed out Pending, by the SessionManager's clock
}

// SessionStore keeps SessionStates by user key. Implement it over a shared
// database (a SQL transaction, a Redis WATCH/MULTI) when several TPP replicas
// serve the same users; NewMemorySessionStore serves a single process.
type SessionStore interface {
	// Update loads the state of user (zero when none), calls fn and stores what
	// fn returns, atomically with respect to other Updates of user; on fn's error
	// it stores nothing and returns that error. fn has no side effects, so a
	// store may call it again after a conflict, and may delete a zero state.
	Update(ctx context.Context, user string, fn func(s SessionState) (SessionState, error)) error
	// Load returns the state of user, the zero SessionState when there is none.
	Load(ctx context.Context, user string) (SessionState, error)
}

// NewMemorySessionStore returns an in-memory SessionStore, safe for concurrent use.
func NewMemorySessionStore() SessionStore {
	return &memorySessionStore{m: make(map[string]SessionState)}
}

type memorySessionStore struct {
	mu sync.Mutex
	m  map[string]SessionState
}

func (s *memorySessionStore) Update(ctx context.Context, user string, fn func(SessionState) (SessionState, error)) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := fn(s.m[user])
	if err != nil {
		return err
	}
	if st == (SessionState{}) {
		delete(s.m, user)
	} else {
		s.m[user] = st
	}
	return nil
}

// Load is an Update that stores the state it read.
func (s *memorySessionStore) Load(ctx context.Context, user string) (st SessionState, err error) {
	err = s.Update(ctx, user, func(v SessionState) (SessionState, error) { st = v; return v, nil })
	return st, err
}

// SessionManager keeps each user's TPP-Session-IDs, an Active and a Pending
// one (docs/interface.md CS3 to CS5). Send Current as TPP-Session-ID; when it
// has none, or the bank asks for SCA anyway, call Begin and send the PSU to the
// scaRedirect link; on the callback call Complete, on a failed SCA Abort. State
// lives in a SessionStore; a SessionManager is safe for concurrent use.
type SessionManager struct {
	store SessionStore
	now   func() time.Time
}

// NewSessionManager returns a SessionManager over store (nil: in memory) and now.
func NewSessionManager(store SessionStore, now func() time.Time) *SessionManager {
	if store == nil {
		store = NewMemorySessionStore()
	}
	if now == nil {
		now = time.Now
	}
	return &SessionManager{store: store, now: now}
}

// Current returns the user's Active TPP-Session-ID while its SCA is valid
// (less than SessionValidity since completion); ok is false when there is
// none and SCA is needed (see Begin).
func (m *SessionManager) Current(ctx context.Context, user string) (sessionID string, ok bool, err error) {
	s, err := m.load(ctx, user)
	if err != nil || !m.activeValid(s) {
		return "", false, err
	}
	return s.Active, true, nil
}

// Pending returns the session id that Begin handed out and whose SCA has
// neither completed nor been aborted nor expired (PendingValidity). A failed
// SCA's redirect carries no tpp-session-id, so a TPP that learns of the
// failure there aborts this id.
func (m *SessionManager) Pending(ctx context.Context, user string) (sessionID string, ok bool, err error) {
	s, err := m.load(ctx, user)
	if err != nil || !m.pendingValid(s) {
		return "", false, err
	}
	return s.Pending, true, nil
}

// Valid reports whether sessionID is the user's Active ID and unexpired.
func (m *SessionManager) Valid(ctx context.Context, user, sessionID string) (bool, error) {
	cur, ok, err := m.Current(ctx, user) // ok: cur is not ""
	return ok && sessionID == cur, err
}

// Begin returns a new TPP-Session-ID for a request that will need SCA and
// records it as Pending, replacing any earlier Pending ID, for
// PendingValidity from now. The Active ID, if any, stays valid until the new
// one's SCA completes.
func (m *SessionManager) Begin(ctx context.Context, user string) (sessionID string, err error) {
	id := NewSessionID()
	err = m.update(ctx, user, func(s SessionState) (SessionState, error) {
		if s.Active != "" && !m.activeValid(s) {
			s.Active, s.ActiveUntil = "", time.Time{}
		}
		s.Pending, s.PendingSince = id, m.now()
		return s, nil
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// Complete records that SCA completed under sessionID (the callback's
// tpp-session-id), the user's Pending ID begun less than PendingValidity ago
// (and not in the future): it becomes the Active ID for SessionValidity, the
// previous one is invalidated (docs/interface.md CS4). A callback for the valid
// Active ID changes nothing. Any other answers errors.Is(err, ErrUnknownSession).
func (m *SessionManager) Complete(ctx context.Context, user, sessionID string) error {
	return m.update(ctx, user, func(s SessionState) (SessionState, error) {
		switch {
		case sessionID == "":
			return s, ErrUnknownSession
		case sessionID == s.Pending && !m.pendingValid(s):
			return s, fmt.Errorf("%w: its SCA began more than %v ago, or the clock went back",
				ErrUnknownSession, PendingValidity)
		case sessionID == s.Pending:
			return SessionState{Active: sessionID, ActiveUntil: m.now().Add(SessionValidity)}, nil
		case sessionID == s.Active && m.activeValid(s):
			return s, nil
		}
		return s, ErrUnknownSession
	})
}

// Abort records that the SCA under sessionID, the user's Pending ID (expired
// or not), failed or was abandoned: it is dropped and the Active ID stays valid
// (docs/interface.md CS4). Any other sessionID is ErrUnknownSession.
func (m *SessionManager) Abort(ctx context.Context, user, sessionID string) error {
	return m.update(ctx, user, func(s SessionState) (SessionState, error) {
		if sessionID == "" || sessionID != s.Pending {
			return s, ErrUnknownSession
		}
		s.Pending, s.PendingSince = "", time.Time{}
		return s, nil
	})
}

// activeValid applies the one-hour rule: valid strictly before ActiveUntil.
func (m *SessionManager) activeValid(s SessionState) bool {
	return s.Active != "" && m.now().Before(s.ActiveUntil)
}

// pendingValid reports a Pending ID begun less than PendingValidity ago, and
// not in the future, by the manager's clock.
func (m *SessionManager) pendingValid(s SessionState) bool {
	now := m.now()
	return s.Pending != "" && !now.Before(s.PendingSince) && now.Before(s.PendingSince.Add(PendingValidity))
}

// load reads the state of user from the store, after checking ctx and user.
func (m *SessionManager) load(ctx context.Context, user string) (SessionState, error) {
	if err := checkContext(ctx); err != nil {
		return SessionState{}, err
	}
	if user == "" {
		return SessionState{}, invalid("user", "empty")
	}
	s, err := m.store.Load(ctx, user)
	if err != nil {
		return SessionState{}, storeError(err)
	}
	return s, nil
}

// update runs fn through the store and tells fn's error (returned as is) from
// the store's own (wrapped). A nil ctx, then an empty user, is refused first.
func (m *SessionManager) update(ctx context.Context, user string, fn func(SessionState) (SessionState, error)) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	if user == "" {
		return invalid("user", "empty")
	}
	var fnErr error
	err := m.store.Update(ctx, user, func(s SessionState) (ns SessionState, _ error) {
		ns, fnErr = fn(s)
		return ns, fnErr
	})
	switch {
	case err == nil:
		return nil
	case fnErr != nil && errors.Is(err, fnErr): // fn's answer on the state stored
		return fnErr
	}
	return storeError(err) // even after fn refused a state the store then could not confirm
}

func storeError(err error) error { return fmt.Errorf("xs2a: session store: %w", err) }
