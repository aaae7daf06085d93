package redisstore_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
)

// managers returns n SessionManagers over Redis run as d, each with its
// own connections, on one fake clock, under a key prefix of their own.
func managers(t *testing.T, d *deployment, c *clock, n int) []*xs2a.SessionManager {
	t.Helper()
	prefix := isolated()
	ms := make([]*xs2a.SessionManager, n)
	for i := range ms {
		ms[i] = xs2a.NewSessionManager(redisstore.NewSessionStore(d.client(t), prefix), c.Now)
	}
	return ms
}

// forEachKind runs test for each kind of Redis, in parallel, on the test
// binary's shared deployment of it.
func forEachKind(t *testing.T, test func(*testing.T, *deployment)) {
	t.Helper()
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			test(t, shared(t, k))
		})
	}
}

// Eight replicas begin and complete SCA for 50 users at once: each user
// ends with one Active session, the one begun last, that every replica
// sees and none has Pending.
func TestSessionFleetAgrees(t *testing.T) {
	t.Parallel()
	forEachKind(t, checkSessionFleetAgrees)
}

func checkSessionFleetAgrees(t *testing.T, d *deployment) {
	ms := managers(t, d, &clock{t: t0}, 8)
	ctx := context.Background()
	users := make([]string, 50)
	completed := map[string]map[string]bool{} // user -> ids whose Complete succeeded
	for i := range users {
		users[i] = fmt.Sprintf("tpp-user-%02d", i)
		completed[users[i]] = map[string]bool{}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, u := range users {
		for _, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, err := sessionOf(m.Begin(ctx, u, "test"))
				if !assert.NoError(t, err) {
					return
				}
				err = m.Complete(ctx, u, id)
				if err == nil {
					mu.Lock()
					completed[u][id] = true
					mu.Unlock()
					return
				}
				assert.ErrorIs(t, err, xs2a.ErrUnknownSession, "a later Begin replaced it")
			}()
		}
	}
	wg.Wait()
	for _, u := range users {
		first, ok, err := ms[0].Current(ctx, u)
		require.NoError(t, err)
		require.True(t, ok, "user %s has a session", u)
		assert.True(t, completed[u][first], "the Active id is one whose SCA completed")
		for i, m := range ms {
			id, ok, err := m.Current(ctx, u)
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, first, id, "replica %d", i)
			_, pending, err := m.Pending(ctx, u)
			require.NoError(t, err)
			assert.False(t, pending, "replica %d", i)
		}
	}
}

// An SCA aborted on one replica is valid on none; the session before it
// stays valid everywhere until its hour ends.
func TestSessionFleetAbort(t *testing.T) {
	t.Parallel()
	forEachKind(t, checkSessionFleetAbort)
}

func checkSessionFleetAbort(t *testing.T, d *deployment) {
	c := &clock{t: t0}
	ms := managers(t, d, c, 8)
	ctx := context.Background()
	const user = "tpp-user-1"
	old, err := sessionOf(ms[0].Begin(ctx, user, "test"))
	require.NoError(t, err)
	require.NoError(t, ms[1].Complete(ctx, user, old))
	aborted, err := sessionOf(ms[2].Begin(ctx, user, "test"))
	require.NoError(t, err)
	require.NoError(t, ms[3].Abort(ctx, user, aborted))
	require.ErrorIs(t, ms[4].Complete(ctx, user, aborted), xs2a.ErrUnknownSession)
	for i, m := range ms {
		ok, err := m.Valid(ctx, user, aborted)
		require.NoError(t, err)
		assert.False(t, ok, "replica %d: the aborted session", i)
		ok, err = m.Valid(ctx, user, old)
		require.NoError(t, err)
		assert.True(t, ok, "replica %d: the session before it", i)
	}
	c.Advance(xs2a.SessionValidity)
	for i, m := range ms {
		_, ok, err := m.Current(ctx, user)
		require.NoError(t, err)
		assert.False(t, ok, "replica %d: the hour is over", i)
	}
}

// A user's state is one key: the user key hashed as its hash tag, behind
// the prefix, with a TTL of the session's lifetime; nothing holds the user
// key in clear, and a state back to zero deletes the key.
func TestSessionStoreKeys(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	ctx := context.Background()
	s := redisstore.NewSessionStore(rdb, redisstore.WithKeyPrefix("tpp-7:"))
	const user = "alice@example.com"
	want := xs2a.SessionState{Active: "sess-a", ActiveUntil: t0.Add(time.Hour), Pending: "sess-b"}
	require.NoError(t, s.Update(ctx, user, func(st xs2a.SessionState) (xs2a.SessionState, error) {
		assert.Zero(t, st)
		return want, nil
	}))
	key := "tpp-7:xs2a:session:{" + sha(user) + "}"
	assert.Equal(t, sha(user), hashTag(key))
	ttl, err := rdb.PTTL(ctx, key).Result()
	require.NoError(t, err)
	assert.True(t, ttl > 0 && ttl <= xs2a.SessionValidity, "TTL %v", ttl)
	raw, err := rdb.Get(ctx, key).Result()
	require.NoError(t, err)
	assert.NotContains(t, raw, "alice")

	other := redisstore.NewSessionStore(srv.client(t), redisstore.WithKeyPrefix("tpp-7:"))
	got, err := other.Load(ctx, user)
	require.NoError(t, err)
	assert.Equal(t, want.Active, got.Active)
	assert.Equal(t, want.Pending, got.Pending)
	assert.True(t, want.ActiveUntil.Equal(got.ActiveUntil))

	require.NoError(t, other.Update(ctx, user, func(xs2a.SessionState) (xs2a.SessionState, error) {
		return xs2a.SessionState{}, nil
	}))
	n, err := rdb.Exists(ctx, key).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "the zero state deletes the key")
}

// Update retries on the state another replica wrote meanwhile, and stores
// nothing when fn fails.
func TestSessionStoreUpdateConflict(t *testing.T) {
	t.Parallel()
	forEachKind(t, checkSessionStoreUpdateConflict)
}

func checkSessionStoreUpdateConflict(t *testing.T, d *deployment) {
	ctx := context.Background()
	prefix := isolated()
	a := redisstore.NewSessionStore(d.client(t), prefix)
	b := redisstore.NewSessionStore(d.client(t), prefix)
	set := func(s *redisstore.SessionStore, id string) {
		t.Helper()
		require.NoError(t, s.Update(ctx, "u", func(st xs2a.SessionState) (xs2a.SessionState, error) {
			st.Pending = st.Pending + id
			return st, nil
		}))
	}
	set(a, "1") // a remembers "1"
	set(b, "2") // b reads "1" after a first guess of nothing: "12"
	set(a, "3") // a's guess "1" is stale: it retries on "12"
	st, err := b.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, "123", st.Pending)

	boom := fmt.Errorf("refused")
	err = a.Update(ctx, "u", func(xs2a.SessionState) (xs2a.SessionState, error) { return xs2a.SessionState{Pending: "x"}, boom })
	require.ErrorIs(t, err, boom)
	st, err = b.Load(ctx, "u")
	require.NoError(t, err)
	assert.Equal(t, "123", st.Pending, "nothing stored")
}

// A state that is not the store's own fails Load and Update, and the
// error does not carry what Redis held.
func TestSessionStoreForeignState(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	ctx := context.Background()
	require.NoError(t, rdb.Set(ctx, "xs2a:session:{"+sha("u")+"}", "secret-not-json", 0).Err())
	s := redisstore.NewSessionStore(rdb)
	_, err := s.Load(ctx, "u")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secret")
	err = s.Update(ctx, "u", func(st xs2a.SessionState) (xs2a.SessionState, error) { return st, nil })
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "secret")
}

// TestSessionStoreKeepsSCAs: an SCA begun on one replica is resolved by its
// state on another, on success and on a failure without tpp-session-id,
// with the user and purpose; its state answers once across the fleet; two
// SCAs in flight for one user resolve apart; and Redis holds neither a
// state nor a user key in clear.
func TestSessionStoreKeepsSCAs(t *testing.T) {
	t.Parallel()
	forEachKind(t, checkSessionStoreKeepsSCAs)
}

func checkSessionStoreKeepsSCAs(t *testing.T, d *deployment) {
	c := &clock{t: t0}
	ms := managers(t, d, c, 3)
	ctx := context.Background()
	const user = "alice@tpp.example"
	const psuID = "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"
	first, err := ms[0].Begin(ctx, user, "accounts")
	require.NoError(t, err)
	res, err := ms[1].Callback(ctx, url.Values{"psu-id": {psuID}, "context": {"PRIVATE"},
		"tpp-session-id": {first.SessionID}, "xs2a-state": {first.State}})
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAResult{User: user, Purpose: "accounts", SessionID: first.SessionID, Callback: res.Callback}, *res)
	cur, ok, err := ms[2].Current(ctx, user)
	require.NoError(t, err)
	assert.True(t, ok && cur == first.SessionID)
	info, err := ms[2].Session(ctx, first.SessionID)
	require.NoError(t, err)
	assert.Equal(t, "accounts", info.Purpose)
	assert.Equal(t, user, info.User)

	// Two in flight: the later Begin replaces the first's session.
	second, err := ms[0].Begin(ctx, user, "consent")
	require.NoError(t, err)
	third, err := ms[1].Begin(ctx, user, "payment 42")
	require.NoError(t, err)
	res, err = ms[2].Callback(ctx, url.Values{"status": {"401"}, "code": {"SCA_INVALID"}, "xs2a-state": {third.State}})
	require.ErrorIs(t, err, xs2a.ErrSCAFailed)
	assert.Equal(t, "payment 42", res.Purpose)
	res, err = ms[0].Callback(ctx, url.Values{"psu-id": {psuID}, "context": {"PRIVATE"}, "xs2a-state": {second.State}})
	require.ErrorIs(t, err, xs2a.ErrUnknownSession, "replaced by the third")
	assert.Equal(t, "consent", res.Purpose)
	for i, m := range ms {
		_, err := m.Callback(ctx, url.Values{"status": {"401"}, "code": {"X"}, "xs2a-state": {third.State}})
		require.ErrorIs(t, err, xs2a.ErrUnknownSession, "replica %d: a replay", i)
		cur, _, err := m.Current(ctx, user)
		require.NoError(t, err)
		assert.Equal(t, first.SessionID, cur, "replica %d", i)
	}
	dump := dumpKeys(t, d.client(t))
	for _, secret := range []string{user, first.State, second.State, third.State} {
		assert.NotContains(t, dump, secret)
	}
}

// dumpKeys is every key and string value Redis holds, on every master.
func dumpKeys(t *testing.T, rdb redis.UniversalClient) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	var mu sync.Mutex
	dump := func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			v, _ := c.Get(ctx, k).Result()
			b.WriteString(k + " " + v + "\n")
		}
		return nil
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, dump)
	case *redis.Client:
		err = dump(ctx, c)
	default:
		t.Fatalf("no dump for %T", rdb)
	}
	require.NoError(t, err)
	return b.String()
}
