package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
)

// On a Cluster of three masters, every key the stores write hashes to the
// slot of its hash tag, whatever the prefix: a user's session key to the
// slot of the SHA-256 of the user key, a budget key to that of the SDK's
// hash. The keys spread over all three masters, and every Take, Begin and
// Complete (each script touches one key) ran without a CROSSSLOT error. The
// index keys of states and session ids are single keys, and their values
// hold no user key in clear.
func TestClusterKeySlots(t *testing.T) {
	t.Parallel()
	rdb := shared(t, clusterKind).client(t).(*redis.ClusterClient)
	prefix := fmt.Sprintf("slots-%d:", prefixes.Add(1))
	budget := redisstore.NewBudgetStore(rdb, redisstore.WithKeyPrefix(prefix))
	sessions := xs2a.NewSessionManager(redisstore.NewSessionStore(rdb, redisstore.WithKeyPrefix(prefix)), (&clock{t: t0}).Now)
	ctx := context.Background()
	want := map[string]string{} // key -> its hash tag
	for i := range 20 {
		h := sha(fmt.Sprint("budget-", i))
		bt, err := budget.Take(ctx, "xs2a:budget:"+h, t0, xs2a.AccessLimit, xs2a.AccessWindow)
		require.NoError(t, err)
		require.True(t, bt.OK)
		want[prefix+"xs2a:budget:{"+h+"}"] = h

		user := fmt.Sprint("tpp-user-", i)
		id, err := sessionOf(sessions.Begin(ctx, user, "test"))
		require.NoError(t, err)
		require.NoError(t, sessions.Complete(ctx, user, id))
		want[prefix+"xs2a:session:{"+sha(user)+"}"] = sha(user)
	}
	got := keysByMaster(t, rdb, prefix)
	require.Len(t, got, 2*len(want), "keys written: a state per user and budget, and a state and a session index key per user")
	masters := map[string]bool{}
	for key, master := range got {
		if strings.HasPrefix(key, prefix+"xs2a:index:") {
			v, err := rdb.Get(ctx, key).Result()
			require.NoError(t, err)
			assert.NotContains(t, v, "tpp-user-", "an index value holds no user key in clear")
			want[key] = key // one key: its own slot
		}
		tag, ok := want[key]
		require.True(t, ok, "a key not expected: %s", key)
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		require.NoError(t, err)
		tagSlot, err := rdb.ClusterKeySlot(ctx, tag).Result()
		require.NoError(t, err)
		assert.Equal(t, tagSlot, slot, "slot of %s", key)
		masters[master] = true
	}
	assert.Len(t, masters, 3, "keys on every master")
}

// keysByMaster lists the keys under prefix on each master of the cluster,
// with the address of the master holding each.
func keysByMaster(t *testing.T, rdb *redis.ClusterClient, prefix string) map[string]string {
	t.Helper()
	var mu sync.Mutex
	got := map[string]string{}
	err := rdb.ForEachMaster(context.Background(), func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, prefix+"*").Result()
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			got[k] = node.Options().Addr
		}
		return err
	})
	require.NoError(t, err)
	return got
}
