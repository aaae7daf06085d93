package xs2a

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	Active        string    // the TPP-Session-ID whose SCA completed last ("" when none)
	ActiveUntil   time.Time // when Active's SCA expires: completion + SessionValidity
	ActivePurpose string    // the purpose Active was begun with
	Pending       string    // the TPP-Session-ID waiting for SCA ("" when none)
	PendingSince  time.Time // when Begin handed out Pending, by the SessionManager's clock
	// SCAs are the SCAs begun and not yet called back, each with its own
	// state: at most maxSCAs, those older than PendingValidity dropped.
	SCAs []PendingSCA
}

// IsZero reports a state that holds nothing (a store may delete it).
func (s SessionState) IsZero() bool {
	return s.Active == "" && s.ActiveUntil.IsZero() && s.ActivePurpose == "" && s.Pending == "" &&
		s.PendingSince.IsZero() && len(s.SCAs) == 0
}

// PendingSCA is one SCA a SessionManager began for a user and whose callback
// has not come: under a new TPP-Session-ID (Begin) or under the Active one
// (a payment's SCA through CallPresent).
type PendingSCA struct {
	StateHash  string    // SHA-256 of the state, in hex: the state itself is never stored
	Purpose    string    // the TPP's purpose, given to Begin or CallPresent
	SessionID  string    // the TPP-Session-ID the SCA runs under
	NewSession bool      // begun by Begin: its completion makes SessionID Active (if still Pending)
	Since      time.Time // when it began, by the SessionManager's clock
}

// maxSCAs bounds the SCAs kept per user; a new one drops the oldest.
const maxSCAs = 16

// SessionStore keeps SessionStates by user key, and an index of opaque
// values (a user key sealed with the state or session id it is found by)
// under keys the SessionManager computes (hashes of that state or session
// id). Implement it over a shared database (a SQL transaction, a Redis
// WATCH/MULTI) when several TPP replicas serve the same users;
// NewMemorySessionStore serves a single process.
type SessionStore interface {
	// Update loads the state of user (zero when none), calls fn and stores what
	// fn returns, atomically with respect to other Updates of user; on fn's error
	// it stores nothing and returns that error. fn has no side effects, so a
	// store may call it again after a conflict, and may delete a zero state.
	Update(ctx context.Context, user string, fn func(s SessionState) (SessionState, error)) error
	// Load returns the state of user, the zero SessionState when there is none.
	Load(ctx context.Context, user string) (SessionState, error)
	// Index records value under key for at least ttl; Lookup returns the
	// value under key, "" when none. SessionManager trusts a lookup only
	// after finding what the key names in the user's state, so a store may
	// keep a key longer than ttl, and expiry is only clean-up.
	Index(ctx context.Context, key, value string, ttl time.Duration) error
	Lookup(ctx context.Context, key string) (value string, err error)
}

// NewMemorySessionStore returns an in-memory SessionStore, safe for concurrent use.
func NewMemorySessionStore() SessionStore {
	return &memorySessionStore{m: make(map[string]SessionState), index: make(map[string]indexEntry)}
}

type memorySessionStore struct {
	mu       sync.Mutex
	m        map[string]SessionState
	index    map[string]indexEntry
	swept    int // len(index) after the last sweep
	wallTime func() time.Time
}

// indexEntry is a value under an index key, until a time of the wall
// clock (expiry is only clean-up: SessionManager decides by its own clock).
type indexEntry struct {
	value string
	until time.Time
}

func (s *memorySessionStore) Update(ctx context.Context, user string, fn func(SessionState) (SessionState, error)) error {
	if err := liveContext(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := fn(cloneState(s.m[user]))
	if err != nil {
		return err
	}
	if st.IsZero() {
		delete(s.m, user)
	} else {
		s.m[user] = cloneState(st)
	}
	return nil
}

// cloneState copies SCAs, so that no caller shares the store's slice.
func cloneState(s SessionState) SessionState {
	s.SCAs = slices.Clone(s.SCAs)
	return s
}

// Load is an Update that stores the state it read.
func (s *memorySessionStore) Load(ctx context.Context, user string) (st SessionState, err error) {
	err = s.Update(ctx, user, func(v SessionState) (SessionState, error) { st = v; return v, nil })
	return st, err
}

// Index records value under key; entries past their time are swept when
// the index has doubled since the last sweep.
func (s *memorySessionStore) Index(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := liveContext(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now
	if s.wallTime != nil {
		now = s.wallTime
	}
	if len(s.index) >= max(2*s.swept, 1024) {
		t := now()
		maps.DeleteFunc(s.index, func(_ string, e indexEntry) bool { return !t.Before(e.until) })
		s.swept = len(s.index)
	}
	s.index[key] = indexEntry{value: value, until: now().Add(ttl)}
	return nil
}

// Lookup returns the value under key, "" when none.
func (s *memorySessionStore) Lookup(ctx context.Context, key string) (string, error) {
	if err := liveContext(ctx); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.index[key].value, nil
}

// SessionManager keeps each user's TPP-Session-IDs, an Active and a Pending
// one (docs/interface.md CS3 to CS6), and the SCAs begun for the user, each
// with the TPP's purpose and a state of its own (CB7). CallPresent makes a
// call with the customer present and begins SCA when the bank asks; by hand,
// send Current as TPP-Session-ID, and when it has none, or the bank asks for
// SCA anyway, call Begin and send the PSU to the scaRedirect link. On the
// callback, Callback returns the user and purpose, on success and failure
// alike. State lives in a SessionStore; a SessionManager is safe for
// concurrent use.
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
// neither completed nor been aborted nor expired (PendingValidity).
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

// SCAStart is an SCA that Begin recorded: send both with the call that
// starts it (SCAStart.PSU does).
type SCAStart struct {
	SessionID string // the new TPP-Session-ID (PSU.SessionID)
	State     string // the SCA's state (PSU.SCAState): secret, single-use, never stored
}

// PSU returns p with s's SessionID and State.
func (s SCAStart) PSU(p PSU) PSU {
	p.SessionID, p.SCAState = s.SessionID, s.State
	return p
}

// Begin returns a new TPP-Session-ID and state for a request that will need
// SCA, for user (the TPP's own key) and purpose (what the SCA is for, 1 to 64
// printable ASCII characters, returned by Callback). The ID becomes Pending,
// replacing any earlier Pending ID (whose callback then resolves, but
// completes nothing: only the latest SCA begun counts, CS6), for
// PendingValidity from now. The Active ID, if any, stays valid until the new
// one's SCA completes.
func (m *SessionManager) Begin(ctx context.Context, user, purpose string) (SCAStart, error) {
	start := SCAStart{SessionID: NewSessionID(), State: newState()}
	if err := m.record(ctx, user, purpose, start, true); err != nil {
		return SCAStart{}, err
	}
	return start, nil
}

// record indexes and stores an SCA begun for user: under a new session
// (Begin's) or under the Active one.
func (m *SessionManager) record(ctx context.Context, user, purpose string, start SCAStart, newSession bool) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	switch {
	case user == "":
		return invalid("user", "empty")
	case !validPurpose(purpose):
		return invalid("purpose", "must be 1 to %d printable ASCII characters", maxPurpose)
	}
	hash := stateHash(start.State)
	// Indexed first: a key whose SCA never got stored names nothing.
	if err := m.store.Index(ctx, stateKey(start.State), seal(start.State, user), PendingValidity); err != nil {
		return storeError(err)
	}
	if newSession {
		err := m.store.Index(ctx, sessionKey(start.SessionID), seal(start.SessionID, user), PendingValidity+SessionValidity)
		if err != nil {
			return storeError(err)
		}
	}
	return m.update(ctx, user, func(s SessionState) (SessionState, error) {
		now := m.now()
		if s.Active != "" && !m.activeValid(s) {
			s.Active, s.ActiveUntil, s.ActivePurpose = "", time.Time{}, ""
		}
		if newSession {
			s.Pending, s.PendingSince = start.SessionID, now
		}
		s.SCAs = slices.DeleteFunc(slices.Clone(s.SCAs), func(p PendingSCA) bool { return !m.fresh(p.Since) })
		if len(s.SCAs) >= maxSCAs {
			s.SCAs = s.SCAs[len(s.SCAs)-maxSCAs+1:]
		}
		s.SCAs = append(s.SCAs, PendingSCA{StateHash: hash, Purpose: purpose, SessionID: start.SessionID,
			NewSession: newSession, Since: now})
		return s, nil
	})
}

// errSCAStale refuses to complete an SCA begun more than PendingValidity
// ago, or after now (a clock that went back).
var errSCAStale = fmt.Errorf("%w: its SCA began more than %v ago, or the clock went back", ErrUnknownSession, PendingValidity)

// Complete records that SCA completed under sessionID (the callback's
// tpp-session-id), the user's Pending ID begun less than PendingValidity ago
// (and not in the future): it becomes the Active ID for SessionValidity, the
// previous one is invalidated (docs/interface.md CS4). A callback for the valid
// Active ID changes nothing. Any other answers errors.Is(err, ErrUnknownSession).
// Callback does this and more; Complete serves a callback without a state.
func (m *SessionManager) Complete(ctx context.Context, user, sessionID string) error {
	return m.update(ctx, user, func(s SessionState) (SessionState, error) {
		switch {
		case sessionID == "":
			return s, ErrUnknownSession
		case sessionID == s.Pending && !m.pendingValid(s):
			return s, errSCAStale
		case sessionID == s.Pending:
			return m.activate(s), nil
		case sessionID == s.Active && m.activeValid(s):
			return s, nil
		}
		return s, ErrUnknownSession
	})
}

// activate makes the Pending ID Active, with the purpose it was begun for,
// and drops the SCA that began it.
func (m *SessionManager) activate(s SessionState) SessionState {
	i := sessionSCA(s.SCAs, s.Pending)
	s.Active, s.ActiveUntil, s.ActivePurpose = s.Pending, m.now().Add(SessionValidity), ""
	if i >= 0 {
		s.ActivePurpose = s.SCAs[i].Purpose
		s.SCAs = withoutSCA(s.SCAs, i)
	}
	s.Pending, s.PendingSince = "", time.Time{}
	return s
}

// sessionSCA is the index of the SCA Begin began with sessionID, -1 when
// none.
func sessionSCA(scas []PendingSCA, sessionID string) int {
	return slices.IndexFunc(scas, func(p PendingSCA) bool { return p.NewSession && p.SessionID == sessionID })
}

// withoutSCA returns a copy of scas without scas[i] (nil when none is left).
func withoutSCA(scas []PendingSCA, i int) []PendingSCA {
	if len(scas) == 1 {
		return nil
	}
	return slices.Delete(slices.Clone(scas), i, i+1)
}

// Abort records that the SCA under sessionID, the user's Pending ID (expired
// or not), failed or was abandoned: it is dropped and the Active ID stays valid
// (docs/interface.md CS4). Any other sessionID is ErrUnknownSession.
func (m *SessionManager) Abort(ctx context.Context, user, sessionID string) error {
	return m.update(ctx, user, func(s SessionState) (SessionState, error) {
		if sessionID == "" || sessionID != s.Pending {
			return s, ErrUnknownSession
		}
		if i := sessionSCA(s.SCAs, sessionID); i >= 0 {
			s.SCAs = withoutSCA(s.SCAs, i)
		}
		s.Pending, s.PendingSince = "", time.Time{}
		return s, nil
	})
}

// SessionInfo is whose a TPP-Session-ID is and what it was begun for.
type SessionInfo struct {
	User    string
	Purpose string
	Active  bool      // its SCA completed and has not expired; false: Pending
	Until   time.Time // Active: when its SCA expires; Pending: when it stops waiting
}

// Session looks up a TPP-Session-ID that Begin handed out and that is now a
// user's valid Active or Pending ID; any other answers ErrUnknownSession.
func (m *SessionManager) Session(ctx context.Context, sessionID string) (*SessionInfo, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if sessionID == "" {
		return nil, ErrUnknownSession
	}
	user, err := m.lookup(ctx, sessionKey(sessionID), sessionID)
	if err != nil {
		return nil, err
	}
	s, err := m.load(ctx, user)
	if err != nil {
		return nil, err
	}
	switch {
	case m.activeValid(s) && sameSecret(s.Active, sessionID):
		return &SessionInfo{User: user, Purpose: s.ActivePurpose, Active: true, Until: s.ActiveUntil}, nil
	case m.pendingValid(s) && sameSecret(s.Pending, sessionID):
		info := &SessionInfo{User: user, Until: s.PendingSince.Add(PendingValidity)}
		if i := sessionSCA(s.SCAs, s.Pending); i >= 0 {
			info.Purpose = s.SCAs[i].Purpose
		}
		return info, nil
	}
	return nil, ErrUnknownSession
}

// lookup finds the user indexed under key and sealed with secret (the
// state or session id the key is a hash of): ErrUnknownSession when none.
func (m *SessionManager) lookup(ctx context.Context, key, secret string) (string, error) {
	sealed, err := m.store.Lookup(ctx, key)
	if err != nil {
		return "", storeError(err)
	}
	user, ok := unseal(secret, sealed)
	if !ok {
		return "", ErrUnknownSession
	}
	return user, nil
}

// activeValid applies the one-hour rule: valid strictly before ActiveUntil.
func (m *SessionManager) activeValid(s SessionState) bool {
	return s.Active != "" && m.now().Before(s.ActiveUntil)
}

// pendingValid reports a Pending ID begun less than PendingValidity ago, and
// not in the future, by the manager's clock.
func (m *SessionManager) pendingValid(s SessionState) bool {
	return s.Pending != "" && m.fresh(s.PendingSince)
}

// fresh reports a time less than PendingValidity ago, and not in the
// future, by the manager's clock.
func (m *SessionManager) fresh(since time.Time) bool {
	now := m.now()
	return !now.Before(since) && now.Before(since.Add(PendingValidity))
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
