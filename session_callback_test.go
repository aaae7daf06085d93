package xs2a

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const cbPSUID = "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"

// successQuery is the query of a successful SCA's callback for start.
func successQuery(start SCAStart) url.Values {
	return url.Values{"psu-id": {cbPSUID}, "tpp-session-id": {start.SessionID}, "context": {"PRIVATE"},
		paramState: {start.State}}
}

// failureQuery is a failed SCA's: no tpp-session-id, as the bank sends it.
func failureQuery(state string) url.Values {
	return url.Values{"status": {"401"}, "code": {"SCA_INVALID"}, "message": {"cancelled"}, paramState: {state}}
}

// countingStore counts Lookups, to see what is refused before any.
type countingStore struct {
	SessionStore
	lookups atomic.Int32
}

func (s *countingStore) Lookup(ctx context.Context, key string) (string, error) {
	s.lookups.Add(1)
	return s.SessionStore.Lookup(ctx, key)
}

// TestCallbackState: a callback resolves by its state to the user and
// purpose Begin was given, on success (the Pending ID becomes Active) and on
// a failure that carries no tpp-session-id (the Pending ID is dropped and
// the Active one stays).
func TestCallbackState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	m := NewSessionManager(nil, clock.Now)

	first, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	res, err := m.Callback(ctx, successQuery(first))
	require.NoError(t, err)
	assert.Equal(t, "alice", res.User)
	assert.Equal(t, "accounts", res.Purpose)
	assert.Equal(t, first.SessionID, res.SessionID)
	require.NotNil(t, res.Callback)
	assert.Equal(t, cbPSUID, res.Callback.PSUID)
	cur, ok, err := m.Current(ctx, "alice")
	require.NoError(t, err)
	assert.True(t, ok && cur == first.SessionID, "the SCA's session is current")

	second, err := m.Begin(ctx, "alice", "consent renewal")
	require.NoError(t, err)
	res, err = m.Callback(ctx, failureQuery(second.State))
	var failed *SCAFailedError
	require.ErrorAs(t, err, &failed)
	assert.Equal(t, "SCA_INVALID", failed.Code)
	require.NotNil(t, res, "a failure resolves too")
	assert.Equal(t, SCAResult{User: "alice", Purpose: "consent renewal", SessionID: second.SessionID}, *res)
	_, pending, err := m.Pending(ctx, "alice")
	require.NoError(t, err)
	assert.False(t, pending, "the failed SCA's session is dropped")
	cur, ok, err = m.Current(ctx, "alice")
	require.NoError(t, err)
	assert.True(t, ok && cur == first.SessionID, "the earlier session stays current")
}

// TestCallbackStateAttacks sends Callback what an attacker would: every
// case is refused, and neither alice's nor bob's session changes.
func TestCallbackStateAttacks(t *testing.T) {
	t.Parallel()
	type fixture struct {
		m          *SessionManager
		store      *countingStore
		clock      *testClock
		alice, bob SCAStart
		wantActive string // the user whose session the setup made active
	}
	tests := []struct {
		name       string
		query      func(t *testing.T, f *fixture) url.Values
		wantParam  string // a *CallbackError naming it, before any lookup
		wantUser   string // the state resolved, to this user, with ErrUnknownSession
		wantLookup bool
	}{
		{"a forged state", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, newState())
			return q
		}, "", "", true},
		{"a replayed callback", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			_, err := f.m.Callback(context.Background(), q)
			require.NoError(t, err)
			f.wantActive = "alice" // by the first callback
			return q
		}, "", "", true},
		{"a success after the failure of the same state", func(t *testing.T, f *fixture) url.Values {
			_, err := f.m.Callback(context.Background(), failureQuery(f.alice.State))
			require.ErrorIs(t, err, ErrSCAFailed)
			return successQuery(f.alice)
		}, "", "", true},
		{"bob's state with alice's session id", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, f.bob.State)
			return q
		}, "", "bob", true},
		{"a missing state", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Del(paramState)
			return q
		}, paramState, "", false},
		{"an empty state", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, "")
			return q
		}, paramState, "", false},
		{"a repeated state", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Add(paramState, f.alice.State)
			return q
		}, paramState, "", false},
		{"alice's and bob's states", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Add(paramState, f.bob.State)
			return q
		}, paramState, "", false},
		{"an oversized state", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, f.alice.State+strings.Repeat("A", 1<<20))
			return q
		}, paramState, "", false},
		{"a state one character short", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, f.alice.State[1:])
			return q
		}, paramState, "", false},
		{"a state in standard base64", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, "+"+f.alice.State[1:])
			return q
		}, paramState, "", false},
		{"a state with a line break", func(t *testing.T, f *fixture) url.Values {
			q := successQuery(f.alice)
			q.Set(paramState, f.alice.State[:42]+"\n")
			return q
		}, paramState, "", false},
		{"an expired state", func(t *testing.T, f *fixture) url.Values {
			f.clock.Advance(PendingValidity)
			return successQuery(f.alice)
		}, "", "alice", true},
		{"a clock gone back", func(t *testing.T, f *fixture) url.Values {
			f.clock.Advance(-time.Second)
			return successQuery(f.alice)
		}, "", "alice", true},
		{"a psu-id beside failure parameters", func(t *testing.T, f *fixture) url.Values {
			q := failureQuery(f.alice.State)
			q.Set("psu-id", cbPSUID)
			return q
		}, paramPSUID, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := &fixture{store: &countingStore{SessionStore: NewMemorySessionStore()}, clock: newFakeClock()}
			f.m = NewSessionManager(f.store, f.clock.Now)
			var err error
			f.alice, err = f.m.Begin(ctx, "alice", "accounts")
			require.NoError(t, err)
			f.bob, err = f.m.Begin(ctx, "bob", "payment 42")
			require.NoError(t, err)
			q := tt.query(t, f)
			f.store.lookups.Store(0)

			res, err := f.m.Callback(ctx, q)
			var cbErr *CallbackError
			switch {
			case tt.wantParam != "":
				require.ErrorAs(t, err, &cbErr)
				assert.Equal(t, tt.wantParam, cbErr.Param)
				assert.Nil(t, res)
			case tt.wantUser != "":
				require.ErrorIs(t, err, ErrUnknownSession)
				require.NotNil(t, res)
				assert.Equal(t, tt.wantUser, res.User)
				assert.NotErrorIs(t, err, ErrInvalidCallback, "a known state's callback is outdated, not invalid")
			default:
				require.ErrorIs(t, err, ErrUnknownSession)
				assert.ErrorIs(t, err, ErrInvalidCallback, "no SCA has this state: never act on it")
				assert.Nil(t, res)
			}
			assert.Equal(t, res == nil, ProblemOf(err).Code == "invalid_callback", "ProblemOf: %v", err)
			assert.Equal(t, tt.wantLookup, f.store.lookups.Load() > 0, "looked up")
			for _, user := range []string{"alice", "bob"} {
				_, ok, err := f.m.Current(ctx, user)
				require.NoError(t, err)
				assert.Equal(t, user == f.wantActive, ok, "%s's session active", user)
			}
		})
	}
}

// TestCallbackLeavesAMalformedCallbackAlone: a callback that is no
// well-formed result (CB3) is not acted on, so its state still answers
// the bank's real callback.
func TestCallbackLeavesAMalformedCallbackAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, newFakeClock().Now)
	start, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	q := successQuery(start)
	q.Set("psu-id", "not-a-uuid")
	_, err = m.Callback(ctx, q)
	require.ErrorIs(t, err, ErrInvalidCallback)
	res, err := m.Callback(ctx, successQuery(start))
	require.NoError(t, err)
	assert.Equal(t, "alice", res.User)
}

// TestCallbackStoreHoldsNoSecrets: the store keeps neither the state nor
// the user key in its index, and an index value moved to another key (a
// store written by an attacker) names nobody.
func TestCallbackStoreHoldsNoSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := NewMemorySessionStore().(*memorySessionStore)
	m := NewSessionManager(store, newFakeClock().Now)
	alice, err := m.Begin(ctx, "alice@tpp.example", "accounts")
	require.NoError(t, err)
	bob, err := m.Begin(ctx, "bob@tpp.example", "accounts")
	require.NoError(t, err)
	for key, e := range store.index {
		for _, secret := range []string{"alice@tpp.example", "bob@tpp.example", alice.State, bob.State, alice.SessionID} {
			assert.NotContains(t, key+" "+e.value, secret)
		}
	}
	st, err := store.Load(ctx, "alice@tpp.example")
	require.NoError(t, err)
	for _, p := range st.SCAs {
		assert.NotContains(t, p.StateHash, alice.State)
	}
	// bob's sealed user under alice's key: it does not open with alice's state.
	store.index[stateKey(alice.State)] = store.index[stateKey(bob.State)]
	res, err := m.Callback(ctx, successQuery(alice))
	require.ErrorIs(t, err, ErrUnknownSession)
	assert.Nil(t, res)
}

// resultWithLink is a result holding an scaRedirect, as a payment
// initiation's does.
type resultWithLink struct{ link Link }

func (r *resultWithLink) scaRedirectLink() *Link { return &r.link }

// TestOnlyTheLatestSCACounts plays docs/interface.md CS6: accounts, then a
// payment under the same session, then two new sessions in flight.
func TestOnlyTheLatestSCACounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	m := NewSessionManager(nil, clock.Now)
	current := func() string {
		t.Helper()
		cur, _, err := m.Current(ctx, "alice")
		require.NoError(t, err)
		return cur
	}
	s1, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	_, err = m.Callback(ctx, successQuery(s1))
	require.NoError(t, err)
	require.Equal(t, s1.SessionID, current())
	st, err := m.store.Load(ctx, "alice")
	require.NoError(t, err)
	until := st.ActiveUntil

	// Two payments in flight under S1, each with its own state.
	clock.Advance(10 * time.Minute)
	psu := PSU{IPAddress: "192.0.2.10"}
	var sent []PSU
	pay := func(p PSU) (*resultWithLink, *Response, error) {
		sent = append(sent, p)
		return &resultWithLink{link: Link{Href: "https://bank.example/sca/1"}}, nil, nil
	}
	_, link1, err := CallPresent(ctx, m, "alice", "payment 1", psu, pay)
	require.NoError(t, err)
	require.NotNil(t, link1)
	_, _, err = CallPresent(ctx, m, "alice", "payment 2", psu, pay)
	require.NoError(t, err)
	require.Len(t, sent, 2)
	assert.Equal(t, s1.SessionID, sent[0].SessionID, "a payment runs under the current session")
	assert.NotEqual(t, sent[0].SCAState, sent[1].SCAState, "each SCA has its own state")
	res2, err := m.Callback(ctx, url.Values{"psu-id": {cbPSUID}, "tpp-session-id": {s1.SessionID},
		"context": {"PRIVATE"}, paramState: {sent[1].SCAState}})
	require.NoError(t, err)
	assert.Equal(t, "payment 2", res2.Purpose)
	res1, err := m.Callback(ctx, failureQuery(sent[0].SCAState))
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "payment 1", res1.Purpose)
	st, err = m.store.Load(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, s1.SessionID, st.Active, "a payment's SCA leaves the session current")
	assert.Equal(t, until, st.ActiveUntil, "and does not extend its hour")

	// Two new sessions in flight: S2, then S3. Only S3 counts.
	for _, order := range []string{"S2's callback first", "S3's callback first"} {
		t.Run(order, func(t *testing.T) {
			s2, err := m.Begin(ctx, "alice", "consent 2")
			require.NoError(t, err)
			s3, err := m.Begin(ctx, "alice", "consent 3")
			require.NoError(t, err)
			late := func() {
				res, err := m.Callback(ctx, successQuery(s2))
				require.ErrorIs(t, err, ErrUnknownSession, "S2 was replaced")
				assert.Equal(t, "consent 2", res.Purpose)
				assert.NotNil(t, res.Callback)
			}
			before := current()
			if order == "S2's callback first" {
				late()
				assert.Equal(t, before, current(), "S2 made nothing current")
			}
			res, err := m.Callback(ctx, successQuery(s3))
			require.NoError(t, err)
			assert.Equal(t, "consent 3", res.Purpose)
			assert.Equal(t, s3.SessionID, current())
			if order == "S3's callback first" {
				late()
				assert.Equal(t, s3.SessionID, current(), "S2 did not replace S3")
			}
		})
	}
}

// TestSessionLookup: a valid Active or Pending id names its user and
// purpose; an expired, replaced or unknown one does not.
func TestSessionLookup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	m := NewSessionManager(nil, clock.Now)
	s1, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	info, err := m.Session(ctx, s1.SessionID)
	require.NoError(t, err)
	assert.Equal(t, SessionInfo{User: "alice", Purpose: "accounts", Until: clock.Now().Add(PendingValidity)}, *info)

	_, err = m.Callback(ctx, successQuery(s1))
	require.NoError(t, err)
	info, err = m.Session(ctx, s1.SessionID)
	require.NoError(t, err)
	assert.Equal(t, SessionInfo{User: "alice", Purpose: "accounts", Active: true, Until: clock.Now().Add(SessionValidity)}, *info)

	s2, err := m.Begin(ctx, "alice", "consent")
	require.NoError(t, err)
	_, err = m.Begin(ctx, "alice", "consent again")
	require.NoError(t, err)
	for name, id := range map[string]string{"replaced": s2.SessionID, "never begun": NewSessionID(), "empty": "",
		"a state": s1.State} {
		_, err := m.Session(ctx, id)
		assert.ErrorIs(t, err, ErrUnknownSession, name)
	}
	clock.Advance(SessionValidity)
	_, err = m.Session(ctx, s1.SessionID)
	assert.ErrorIs(t, err, ErrUnknownSession, "expired")
}

// TestPurposeAndUserChecked: Begin refuses a purpose that could not travel
// in a header or is unbounded, before anything is stored.
func TestPurposeAndUserChecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, nil)
	for name, purpose := range map[string]string{
		"empty": "", "65 characters": strings.Repeat("p", 65), "a line break": "pay\r\nX-Evil: 1",
		"not ASCII": "betaling æ", "a NUL": "pay\x00",
	} {
		_, err := m.Begin(ctx, "alice", purpose)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "purpose", ve.Field, name)
	}
	_, err := m.Begin(ctx, "alice", strings.Repeat("p", 64))
	require.NoError(t, err)
	_, err = m.Begin(ctx, "", "accounts")
	require.Error(t, err)
}

// TestSCAsPerUserBounded: a user's SCAs stay at 16, the oldest dropped.
func TestSCAsPerUserBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, newFakeClock().Now)
	first, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	var last SCAStart
	for range maxSCAs {
		last, err = m.Begin(ctx, "alice", "accounts")
		require.NoError(t, err)
	}
	st, err := m.store.Load(ctx, "alice")
	require.NoError(t, err)
	assert.Len(t, st.SCAs, maxSCAs)
	_, err = m.Callback(ctx, successQuery(first))
	assert.ErrorIs(t, err, ErrUnknownSession, "the oldest was dropped")
	_, err = m.Callback(ctx, successQuery(last))
	assert.NoError(t, err)
}

// TestRedirectURIWithState: the state goes into the query of the client's
// TPP-Redirect-URI, before any fragment, and WithRedirectURI refuses a URI
// that would carry a second one.
func TestRedirectURIWithState(t *testing.T) {
	t.Parallel()
	state := newState()
	for uri, want := range map[string]string{
		"https://tpp.example/cb":           "https://tpp.example/cb?xs2a-state=" + state,
		"https://tpp.example/cb?a=%7E&b=1": "https://tpp.example/cb?a=%7E&b=1&xs2a-state=" + state,
		"https://tpp.example/cb?":          "https://tpp.example/cb?xs2a-state=" + state,
		"https://tpp.example/cb?a=1&":      "https://tpp.example/cb?a=1&xs2a-state=" + state,
		"https://tpp.example/cb#done":      "https://tpp.example/cb?xs2a-state=" + state + "#done",
		"https://tpp.example/cb?a=1#done":  "https://tpp.example/cb?a=1&xs2a-state=" + state + "#done",
	} {
		assert.Equal(t, want, redirectWithState(uri, state), uri)
	}
	for _, uri := range []string{"https://tpp.example/cb?xs2a-state=x", "https://tpp.example/cb?a=1&xs2a-state=",
		"https://tpp.example/cb?a=%zz"} {
		var c config
		err := WithRedirectURI(uri)(&c)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, uri)
		assert.Equal(t, "RedirectURI", ve.Field)
	}
	h := make(map[string][]string)
	err := PSU{SCAState: state[:42] + "="}.writeHeaders(h, false)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "PSU.SCAState", ve.Field)
}

// FuzzCallbackState: whatever the query, Callback resolves only the state
// Begin handed out, to alice, and answers it once.
func FuzzCallbackState(f *testing.F) {
	for _, q := range []string{
		"xs2a-state=AAAA", "psu-id=" + cbPSUID + "&context=PRIVATE&xs2a-state=",
		"status=401&code=X&xs2a-state=%00", "xs2a-state=a&xs2a-state=b", "psu-id=x&status=1",
	} {
		f.Add(q, false)
	}
	f.Add("psu-id="+cbPSUID+"&context=PRIVATE", true)
	f.Add("status=401&code=SCA_INVALID", true)
	f.Fuzz(func(t *testing.T, raw string, withState bool) {
		ctx := context.Background()
		m := NewSessionManager(nil, newFakeClock().Now)
		start, err := m.Begin(ctx, "alice", "accounts")
		require.NoError(t, err)
		q, _ := url.ParseQuery(raw)
		if withState {
			q.Set(paramState, start.State)
		}
		res, err := m.Callback(ctx, q)
		if res == nil {
			require.Error(t, err)
			return
		}
		require.Equal(t, "alice", res.User)
		require.Equal(t, []string{start.State}, q[paramState])
		_, again := m.Callback(ctx, q)
		require.ErrorIs(t, again, ErrUnknownSession, "a state answers once")
	})
}

// TestSessionManagerCallbackHandler: GET only, no-store and no-referrer on
// every answer, and a query url.ParseQuery refuses is not acted on (its
// state still answers the real callback).
func TestSessionManagerCallbackHandler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, newFakeClock().Now)
	start, err := m.Begin(ctx, "alice", "accounts")
	require.NoError(t, err)
	var got []error
	var users []string
	h := m.CallbackHandler(func(w http.ResponseWriter, r *http.Request, res *SCAResult, err error) {
		got = append(got, err)
		if res != nil {
			users = append(users, res.User)
		}
	})
	serve := func(method, rawQuery string) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, "/base/cb?"+rawQuery, nil))
		return rec.Result()
	}
	res := serve(http.MethodPost, successQuery(start).Encode())
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	assert.Empty(t, got, "a POST reaches nobody")
	res = serve(http.MethodGet, successQuery(start).Encode()+"&x=%zz")
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	assert.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"))
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0], ErrInvalidCallback)
	serve(http.MethodGet, successQuery(start).Encode())
	require.Len(t, got, 2)
	assert.NoError(t, got[1])
	assert.Equal(t, []string{"alice"}, users)
}

// TestMemoryIndexSwept: the memory store drops index entries past their
// time once the index has doubled, and keeps the live ones.
func TestMemoryIndexSwept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := newFakeClock()
	s := NewMemorySessionStore().(*memorySessionStore)
	s.wallTime = clock.Now
	for i := range 1024 {
		require.NoError(t, s.Index(ctx, fmt.Sprint("old-", i), "v", time.Hour))
	}
	clock.Advance(time.Hour)
	require.NoError(t, s.Index(ctx, "new", "v", time.Hour))
	assert.Len(t, s.index, 1)
	v, err := s.Lookup(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}
