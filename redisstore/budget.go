package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tppkit/xs2a"
)

// takeScript counts one call in a sorted set, in one round trip. Scores are
// the callers' times in whole microseconds. KEYS[1] the key; ARGV: now,
// window (both µs), limit, a unique member. It drops the calls at or before
// now-window, then records now and sets the key's TTL to one window when
// fewer than limit are left ({1}), or answers {0, the score of the call that
// must leave the window for one more to fit}. Calls recorded after now (a
// caller whose clock is behind another's) count, as in the SDK's memory store.
var takeScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return {0, tonumber(oldest[2])}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return {1}
`)

// errArgs is returned for a limit below 1, a window that is not positive, or
// a time Redis cannot hold exactly as a score.
var errArgs = errors.New("redisstore: limit and window must be positive and now between 1970 and 2255")

// maxMicros bounds the times a score holds exactly (2^53 µs, year 2255).
const maxMicros = 1 << 53

// BudgetStore is an xs2a.BudgetStore over Redis, shared by every replica of
// a TPP: each key is a sorted set of the times of the calls in its window,
// trimmed, counted and added to by one Lua script, so a Take is atomic and
// costs one round trip. Time comes from the caller's now (the SDK's clock), never from
// Redis; a key expires one window after its last recorded call. Keys are the
// SDK's (a hash of PSU id, account and endpoint, never those in clear)
// behind the key prefix, with the hash as the Cluster hash tag. It is safe
// for concurrent use.
type BudgetStore struct {
	rdb redis.UniversalClient
	cfg config
}

// BudgetStore implements xs2a.BudgetStore.
var _ xs2a.BudgetStore = (*BudgetStore)(nil)

// NewBudgetStore returns a BudgetStore over rdb (a redis.NewClient,
// NewClusterClient or NewFailoverClient). Give it to xs2a.WithBudgetStore.
func NewBudgetStore(rdb redis.UniversalClient, opts ...Option) *BudgetStore {
	return &BudgetStore{rdb: rdb, cfg: newConfig(opts)}
}

// Take implements xs2a.BudgetStore: it records one call under key at now when
// fewer than limit calls were recorded in (now-window, now], else it returns
// ok false and when the oldest counted call leaves the window. A Redis error
// or a context that ends first is returned as is (the SDK then sends
// nothing); a Take that ended with an error may still have recorded its
// call, which only ever errs on the side of fewer calls.
func (s *BudgetStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (ok bool, next time.Time, err error) {
	if s == nil {
		return false, time.Time{}, &xs2a.ValidationError{Field: "BudgetStore", Reason: "is nil"}
	}
	if err := s.cfg.check(s.rdb); err != nil {
		return false, time.Time{}, err
	}
	nowUS, winUS, err := micros(now, window, limit)
	if err != nil {
		return false, time.Time{}, err
	}
	member, err := uniqueMember(nowUS)
	if err != nil {
		return false, time.Time{}, err
	}
	var reply any
	err = within(ctx, func(ctx context.Context) error {
		var err error
		reply, err = takeScript.Run(ctx, s.rdb, []string{s.cfg.budgetKey(key)}, nowUS, winUS, limit, member).Result()
		return err
	})
	if err != nil {
		return false, time.Time{}, err
	}
	return parseTakeReply(reply, winUS)
}

// micros checks the arguments and gives now (rounded up, so a call never
// leaves its window early) and window in whole microseconds.
func micros(now time.Time, window time.Duration, limit int) (nowUS, winUS int64, err error) {
	if limit < 1 || window <= 0 {
		return 0, 0, errArgs
	}
	nowUS = now.UnixMicro()
	if now.Sub(time.UnixMicro(nowUS)) > 0 {
		nowUS++
	}
	winUS = int64(window / time.Microsecond)
	if window%time.Microsecond != 0 {
		winUS++ // not window+999ns, which overflows for the longest windows
	}
	if nowUS < 0 || nowUS > maxMicros || winUS > maxMicros {
		return 0, 0, errArgs
	}
	return nowUS, winUS, nil
}

// uniqueMember names one recorded call: its time and 8 random bytes, so two
// calls at the same microsecond from two replicas are both counted.
func uniqueMember(nowUS int64) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%s", nowUS, hex.EncodeToString(b[:])), nil
}

// parseTakeReply reads the script's answer: {1}, or {0, score in µs}.
func parseTakeReply(reply any, winUS int64) (bool, time.Time, error) {
	vals, _ := reply.([]any)
	if len(vals) == 0 {
		return false, time.Time{}, fmt.Errorf("redisstore: unexpected answer of the budget script (%T)", reply)
	}
	flag, _ := vals[0].(int64)
	switch {
	case flag == 1 && len(vals) == 1:
		return true, time.Time{}, nil
	case flag == 0 && len(vals) == 2:
		oldest, ok := vals[1].(int64)
		if !ok || oldest < 0 || oldest > math.MaxInt64-winUS {
			break
		}
		return false, time.UnixMicro(oldest + winUS), nil
	}
	return false, time.Time{}, errors.New("redisstore: unexpected answer of the budget script")
}
