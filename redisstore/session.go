package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tppkit/xs2a"
)

// casScript replaces a user's state only if it still is what the caller
// read, in one round trip. KEYS[1] the key; ARGV: the state read ("" for
// none), the new state ("" to delete), the TTL in ms. It answers {1} when
// the state was replaced, else {0, the state now ("" for none)}.
var casScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then
  return {0, cur}
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return {1}
`)

// stateTTL is the TTL of a user's key from its last write: the longer of
// the two lifetimes it holds, an Active ID's (xs2a.SessionValidity, from
// completion) and a Pending ID's (xs2a.PendingValidity, from Begin). Both
// start at the write that records them, so the key outlives what it holds;
// expiry is only the clean-up, as SessionManager refuses an expired ID by its
// own clock while the key still holds it.
var stateTTL = max(xs2a.SessionValidity, xs2a.PendingValidity)

// maxUpdateTries bounds how often Update retries after other replicas
// changed the same user first. Every round lets one of them through, so the
// bound is only reached with that many replicas updating one user at once.
const maxUpdateTries = 64

// ErrContention is returned by SessionStore.Update when the user's state
// kept changing under it for maxUpdateTries attempts.
var ErrContention = errors.New("redisstore: session state changed by others on every attempt")

// cacheSize bounds the states a SessionStore remembers between calls.
const cacheSize = 4096

// SessionStore is an xs2a.SessionStore over Redis, so every replica of a TPP
// sees the session another one began or completed. A user's state is one
// key (a SHA-256 of the user key as its hash tag, behind the key prefix).
// Update is a compare-and-set: it runs fn on the state it last saw for the
// user (from the previous Load or Update on this store) and a Lua script
// stores the result only if Redis still holds that state, else fn runs again
// on what Redis holds. A Load followed by an Update, as SessionManager does,
// costs one round trip each. Every write sets the key's TTL to stateTTL, so a
// user's state goes away an hour after its last change, after its Active ID
// and its Pending ID expired. The store keeps the times a SessionManager
// wrote (ActiveUntil, PendingSince); the manager's clock decides whether
// they passed, never Redis's. It is safe for concurrent use.
type SessionStore struct {
	rdb redis.UniversalClient
	cfg config

	mu   sync.Mutex
	seen map[string]string // Redis key -> the encoded state last seen
}

// NewSessionStore returns a SessionStore over rdb (a redis.NewClient,
// NewClusterClient or NewFailoverClient). Give it to xs2a.NewSessionManager.
func NewSessionStore(rdb redis.UniversalClient, opts ...Option) *SessionStore {
	return &SessionStore{rdb: rdb, cfg: newConfig(opts), seen: make(map[string]string)}
}

// Load implements xs2a.SessionStore: the user's state, the zero
// SessionState when Redis holds none.
func (s *SessionStore) Load(ctx context.Context, user string) (xs2a.SessionState, error) {
	if err := s.usable(); err != nil {
		return xs2a.SessionState{}, err
	}
	key := s.cfg.sessionKey(user)
	raw, err := s.get(ctx, key)
	if err != nil {
		return xs2a.SessionState{}, err
	}
	return decodeState(raw)
}

// get reads the encoded state under key ("" for none) and remembers it.
func (s *SessionStore) get(ctx context.Context, key string) (string, error) {
	var raw string
	err := within(ctx, func(ctx context.Context) error {
		var err error
		raw, err = s.rdb.Get(ctx, key).Result()
		if errors.Is(err, redis.Nil) {
			raw, err = "", nil
		}
		return err
	})
	if err == nil {
		s.remember(key, raw)
	}
	return raw, err
}

// Update implements xs2a.SessionStore: fn's result replaces the user's
// state atomically with respect to every replica's Update. fn may run more
// than once; when it fails nothing is stored and its error is returned.
func (s *SessionStore) Update(ctx context.Context, user string, fn func(xs2a.SessionState) (xs2a.SessionState, error)) error {
	if err := s.usable(); err != nil {
		return err
	}
	key := s.cfg.sessionKey(user)
	raw, confirmed := s.recall(key), false
	for range maxUpdateTries {
		st, err := decodeState(raw)
		if err != nil {
			return err
		}
		next, err := fn(st)
		if err != nil && !confirmed {
			// fn refused the state remembered: read what Redis holds.
			if raw, err = s.get(ctx, key); err != nil {
				return err
			}
			confirmed = true
			continue
		}
		if err != nil {
			return err
		}
		ok, cur, err := s.store(ctx, key, raw, next)
		if ok || err != nil {
			return err
		}
		raw, confirmed = cur, true
	}
	return ErrContention
}

// store encodes next and stores it under key if the key still holds old.
func (s *SessionStore) store(ctx context.Context, key, old string, next xs2a.SessionState) (ok bool, cur string, err error) {
	newRaw, err := encodeState(next)
	if err != nil {
		return false, "", err
	}
	ok, cur, err = s.compareAndSet(ctx, key, old, newRaw)
	if ok {
		s.remember(key, newRaw)
	}
	return ok, cur, err
}

// compareAndSet stores newRaw under key if it holds old; otherwise it
// reports what the key holds.
func (s *SessionStore) compareAndSet(ctx context.Context, key, old, newRaw string) (ok bool, cur string, err error) {
	var reply any
	err = within(ctx, func(ctx context.Context) error {
		var err error
		reply, err = casScript.Run(ctx, s.rdb, []string{key}, old, newRaw, stateTTL.Milliseconds()).Result()
		return err
	})
	if err != nil {
		return false, "", err
	}
	return parseCASReply(reply)
}

// parseCASReply reads casScript's answer: {1}, or {0, the current state}.
func parseCASReply(reply any) (bool, string, error) {
	vals, _ := reply.([]any)
	if len(vals) == 1 && vals[0] == int64(1) {
		return true, "", nil
	}
	if len(vals) == 2 && vals[0] == int64(0) {
		if cur, ok := vals[1].(string); ok {
			return false, cur, nil
		}
	}
	return false, "", errors.New("redisstore: unexpected answer of the session script")
}

func (s *SessionStore) usable() error {
	if s == nil {
		return &xs2a.ValidationError{Field: "SessionStore", Reason: "is nil"}
	}
	return s.cfg.check(s.rdb)
}

// remember keeps raw as the state last seen under key, dropping another
// entry when the cache is full; it is only a guess for the next Update.
func (s *SessionStore) remember(key, raw string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[key]; !ok && len(s.seen) >= cacheSize {
		for k := range s.seen {
			delete(s.seen, k)
			break
		}
	}
	s.seen[key] = raw
}

func (s *SessionStore) recall(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[key]
}

// storedState is a SessionState as Redis holds it.
type storedState struct {
	Active        string      `json:"a,omitempty"`
	ActiveUntil   time.Time   `json:"u"`
	ActivePurpose string      `json:"ap,omitempty"`
	Pending       string      `json:"p,omitempty"`
	PendingSince  time.Time   `json:"ps,omitzero"`
	SCAs          []storedSCA `json:"s,omitempty"`
}

// storedSCA is an xs2a.PendingSCA as Redis holds it.
type storedSCA struct {
	StateHash  string    `json:"h"`
	Purpose    string    `json:"p"`
	SessionID  string    `json:"i"`
	NewSession bool      `json:"n,omitempty"`
	Since      time.Time `json:"t"`
}

// encodeState writes st as compact JSON, or "" for the zero state (the key
// is then deleted).
func encodeState(st xs2a.SessionState) (string, error) {
	if st.IsZero() {
		return "", nil
	}
	out := storedState{Active: st.Active, ActiveUntil: st.ActiveUntil, ActivePurpose: st.ActivePurpose,
		Pending: st.Pending, PendingSince: st.PendingSince}
	for _, p := range st.SCAs {
		out.SCAs = append(out.SCAs, storedSCA(p))
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// decodeState reads what encodeState wrote ("" is the zero state).
func decodeState(raw string) (xs2a.SessionState, error) {
	if raw == "" {
		return xs2a.SessionState{}, nil
	}
	var st storedState
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return xs2a.SessionState{}, fmt.Errorf("redisstore: a session state that cannot be read (%d bytes)", len(raw))
	}
	out := xs2a.SessionState{Active: st.Active, ActiveUntil: st.ActiveUntil, ActivePurpose: st.ActivePurpose,
		Pending: st.Pending, PendingSince: st.PendingSince}
	for _, p := range st.SCAs {
		out.SCAs = append(out.SCAs, xs2a.PendingSCA(p))
	}
	return out, nil
}

// Index implements xs2a.SessionStore: value under key, with a TTL of ttl
// (Redis's clock; expiry is only clean-up, the manager checks times by its
// own clock). The key is the prefix, "xs2a:index:" and the manager's key (a
// hash); the value is sealed by the manager and holds no user key in clear.
func (s *SessionStore) Index(ctx context.Context, key, value string, ttl time.Duration) error {
	if err := s.usable(); err != nil {
		return err
	}
	return within(ctx, func(ctx context.Context) error {
		return s.rdb.Set(ctx, s.cfg.indexKey(key), value, ttl).Err()
	})
}

// Lookup implements xs2a.SessionStore: the value under key, "" when none.
func (s *SessionStore) Lookup(ctx context.Context, key string) (string, error) {
	if err := s.usable(); err != nil {
		return "", err
	}
	var v string
	err := within(ctx, func(ctx context.Context) error {
		var err error
		v, err = s.rdb.Get(ctx, s.cfg.indexKey(key)).Result()
		if errors.Is(err, redis.Nil) {
			v, err = "", nil
		}
		return err
	})
	return v, err
}
