package redisstore_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
)

var t0 = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

const testKey = "xs2a:budget:0123abcd"

// Keys carry the prefix and the SDK's hash as the hash tag, and expire one
// window after the last recorded call.
func TestBudgetStoreKeys(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client(t)
	ctx := context.Background()
	tests := []struct {
		name, key, want string
		opts            []redisstore.Option
	}{
		{"SDK key", testKey, "xs2a:budget:{0123abcd}", nil},
		{"prefix", testKey, "tpp-7:xs2a:budget:{0123abcd}", []redisstore.Option{redisstore.WithKeyPrefix("tpp-7:")}},
		{"other key hashed", "psu-secret", "xs2a:budget:{" + sha("psu-secret") + "}", nil},
		{"braces in an SDK key hashed", "xs2a:budget:{x}", "xs2a:budget:{" + sha("xs2a:budget:{x}") + "}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := redisstore.NewBudgetStore(rdb, tt.opts...)
			bt, err := s.Take(ctx, tt.key, t0, 4, time.Hour)
			require.NoError(t, err)
			require.True(t, bt.OK)
			ttl, err := rdb.PTTL(ctx, tt.want).Result()
			require.NoError(t, err)
			assert.True(t, ttl > 0 && ttl <= time.Hour, "TTL %v", ttl)
		})
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, len(tests))
	for _, k := range keys {
		assert.NotContains(t, k, "psu-secret")
	}
}

// Bad arguments and a bad store are refused before anything is sent.
func TestBudgetStoreRefuses(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.client(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		s      *redisstore.BudgetStore
		now    time.Time
		limit  int
		window time.Duration
		field  string // of the *xs2a.ValidationError; "" for another error
	}{
		{"limit 0", redisstore.NewBudgetStore(rdb), t0, 0, time.Hour, ""},
		{"window 0", redisstore.NewBudgetStore(rdb), t0, 4, 0, ""},
		{"zero time", redisstore.NewBudgetStore(rdb), time.Time{}, 4, time.Hour, ""},
		{"longest window", redisstore.NewBudgetStore(rdb), t0, 4, math.MaxInt64, ""},
		{"nil client", redisstore.NewBudgetStore(nil), t0, 4, time.Hour, "rdb"},
		{"brace in prefix", redisstore.NewBudgetStore(rdb, redisstore.WithKeyPrefix("{tpp}:")), t0, 4, time.Hour, "WithKeyPrefix"},
		{"nil store", nil, t0, 4, time.Hour, "BudgetStore"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bt, err := tt.s.Take(ctx, testKey, tt.now, tt.limit, tt.window)
			require.Error(t, err)
			assert.Equal(t, xs2a.BudgetTake{}, bt)
			var ve *xs2a.ValidationError
			if tt.field != "" {
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, tt.field, ve.Field)
			}
		})
	}
	n, err := rdb.DBSize(ctx).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "nothing written")
}

// A context that has ended sends nothing.
func TestBudgetStoreContextEnded(t *testing.T) {
	t.Parallel()
	rdb := startRedis(t).client(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := redisstore.NewBudgetStore(rdb).Take(ctx, testKey, t0, 4, time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	n, err := rdb.DBSize(context.Background()).Result()
	require.NoError(t, err)
	assert.Zero(t, n)
}

// hashTag is the part of key Redis Cluster hashes: between the first "{"
// and the next "}", when not empty.
func hashTag(key string) string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return key
	}
	return key[i+1 : i+1+j]
}
