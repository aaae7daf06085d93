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

// takeScript counts one call in a sorted set, in one round trip, on the
// clock of the Redis server holding the key: it reads TIME and scores each
// call by that time in whole microseconds. KEYS[1] the key; ARGV: window
// (µs), limit, a unique member, and a shift (µs) added to TIME, which is 0
// except in this package's tests. It drops the calls at or before
// time-window, then records the call at time and sets the key's TTL to one
// window when fewer than limit are left ({1}), or answers {0, the score of
// the call that must leave the window for one more to fit, time}. Calls
// scored after time (a new master whose clock is behind the old one's)
// count. Redis 5 and later replicate a script's writes, not the script, so
// it may read TIME before it writes.
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[4])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return {0, tonumber(oldest[2]), now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
return {1}
`)

// errArgs is returned for a limit below 1, a window that is not positive or
// longer than a score holds exactly, or a zero now.
var errArgs = errors.New("redisstore: limit and window must be positive, the window under 285 years, and now not zero")

// maxMicros bounds the times and windows a score holds exactly (2^53 µs,
// 285 years; year 2255 as a time).
const maxMicros = 1 << 53

// BudgetStore is an xs2a.BudgetStore over Redis, shared by every replica of
// a TPP: each key is a sorted set of the calls in its window, trimmed,
// counted and added to by one Lua script, so a Take is atomic and costs one
// round trip. The window runs on the clock of the Redis server holding the
// key (TIME inside the script), never on a replica's: replicas whose clocks
// disagree by minutes or days still get exactly limit calls per window
// between them, and a call is refused until the server's window has passed.
// A key expires one window after its last recorded call. Keys are the SDK's
// (a hash of PSU id, account and endpoint, never those in clear) behind the
// key prefix, with the hash as the Cluster hash tag. It needs Redis 5 or
// later and is safe for concurrent use.
type BudgetStore struct {
	rdb redis.UniversalClient
	cfg config
	// shift moves the server's time as the script reads it (TIME plus
	// shift()), so that this package's tests can pass a day without waiting
	// one. It is nil, TIME alone, in every store NewBudgetStore returns;
	// only export_test.go sets it.
	shift func() time.Duration
}

// BudgetStore implements xs2a.BudgetStore.
var _ xs2a.BudgetStore = (*BudgetStore)(nil)

// NewBudgetStore returns a BudgetStore over rdb (a redis.NewClient,
// NewClusterClient or NewFailoverClient). Give it to xs2a.WithBudgetStore.
func NewBudgetStore(rdb redis.UniversalClient, opts ...Option) *BudgetStore {
	return &BudgetStore{rdb: rdb, cfg: newConfig(opts)}
}

// Take implements xs2a.BudgetStore on the Redis server's clock: it records
// one call under key at the server's time T when fewer than limit calls were
// recorded in (T-window, T], else it returns ok false and next, when the
// oldest counted call leaves the window, on the caller's clock: that
// moment's server time moved by now-T, so a caller whose clock is off gets
// a next its own clock reaches as the server's window passes. now counts
// nothing else and must not be zero. A Redis error or a context that ends
// first is returned as is (the SDK then sends nothing); a Take that ended
// with an error may still have recorded its call, which only ever errs on
// the side of fewer calls.
func (s *BudgetStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (ok bool, next time.Time, err error) {
	if s == nil {
		return false, time.Time{}, &xs2a.ValidationError{Field: "BudgetStore", Reason: "is nil"}
	}
	if err := s.cfg.check(s.rdb); err != nil {
		return false, time.Time{}, err
	}
	winUS, err := windowMicros(now, window, limit)
	if err != nil {
		return false, time.Time{}, err
	}
	member, err := uniqueMember()
	if err != nil {
		return false, time.Time{}, err
	}
	var reply any
	err = within(ctx, func(ctx context.Context) error {
		var err error
		reply, err = takeScript.Run(ctx, s.rdb, []string{s.cfg.budgetKey(key)}, winUS, limit, member, s.shiftMicros()).Result()
		return err
	})
	if err != nil {
		return false, time.Time{}, err
	}
	return parseTakeReply(reply, now, winUS)
}

// shiftMicros is what the script adds to TIME: 0 in production.
func (s *BudgetStore) shiftMicros() int64 {
	if s.shift == nil {
		return 0
	}
	return int64(s.shift() / time.Microsecond)
}

// windowMicros checks the arguments and gives the window in whole
// microseconds, rounded up so that a call never leaves its window early.
func windowMicros(now time.Time, window time.Duration, limit int) (int64, error) {
	if limit < 1 || window <= 0 || now.IsZero() {
		return 0, errArgs
	}
	winUS := int64(window / time.Microsecond)
	if window%time.Microsecond != 0 {
		winUS++ // not window+999ns, which overflows for the longest windows
	}
	if winUS > maxMicros {
		return 0, errArgs
	}
	return winUS, nil
}

// uniqueMember names one recorded call by 16 random bytes, so calls that
// the server scores at the same microsecond are all counted.
func uniqueMember() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// parseTakeReply reads the script's answer: {1}, or {0, score, server
// time} in µs, the score that of the call that must leave the window. The
// wait, score+window-time, is positive (the script dropped the calls at or
// before time-window) and next is now plus the wait: the caller's clock.
func parseTakeReply(reply any, now time.Time, winUS int64) (bool, time.Time, error) {
	vals, _ := reply.([]any)
	if len(vals) == 0 {
		return false, time.Time{}, fmt.Errorf("redisstore: unexpected answer of the budget script (%T)", reply)
	}
	flag, _ := vals[0].(int64)
	switch {
	case flag == 1 && len(vals) == 1:
		return true, time.Time{}, nil
	case flag == 0 && len(vals) == 3:
		oldest, ok1 := vals[1].(int64)
		at, ok2 := vals[2].(int64)
		if !ok1 || !ok2 || oldest < 0 || oldest > maxMicros || at < 0 || at > maxMicros || winUS > maxMicros {
			break
		}
		wait := oldest + winUS - at
		if wait <= 0 || wait > math.MaxInt64/int64(time.Microsecond) {
			break
		}
		return false, now.Add(time.Duration(wait) * time.Microsecond), nil
	}
	return false, time.Time{}, errors.New("redisstore: unexpected answer of the budget script")
}
