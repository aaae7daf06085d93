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
// time-window; then, when fewer than limit are left, it records the call at
// time, sets the key's TTL to one window and answers {1, the calls counted,
// the score of the oldest, time}; otherwise {0, the calls counted, the score
// of the call that must leave the window for one more to fit, time}. The
// count and the score are read in the same script as the call is recorded,
// so they are the window this Take left. Calls scored after time (a new
// master whose clock is behind the old one's) count. Redis 5 and later
// replicate a script's writes, not the script, so it may read TIME before
// it writes.
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[4])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return {0, n, tonumber(oldest[2]), now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {1, n + 1, tonumber(oldest[2]), now}
`)

// peekScript reads what takeScript would find, without writing: on the
// same clock (TIME plus the shift, ARGV[3]) it counts the calls scored in
// (time-window, time], as [time-window+1, +inf] since scores are whole
// microseconds, and answers {1, 0, 0, time} when there are none, {1, the
// calls, the score of the oldest, time} when fewer than limit, else {0, the
// calls, the score of the call that must leave the window for one more to
// fit, time}. Numbers go to redis.call as numbers, which Redis writes
// exactly (%.17g); a string built in Lua would round them.
var peekScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) + tonumber(ARGV[3])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local from = now - window + 1
local n = redis.call('ZCOUNT', KEYS[1], from, '+inf')
if n == 0 then
  return {1, 0, 0, now}
end
local at = 0
local flag = 1
if n >= limit then
  at = n - limit
  flag = 0
end
local c = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', at, 1)
return {flag, n, tonumber(c[2]), now}
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
// recorded in (T-window, T], and answers, from the same script, the calls
// left and Next: when the oldest counted call leaves the window (refused:
// when one more fits), on the caller's clock, that moment's server time
// moved by now-T, so a caller whose clock is off gets a Next its own clock
// reaches as the server's window passes. now counts nothing else and must
// not be zero. A Redis error or a context that ends first is returned as is
// (the SDK then sends nothing); a Take that ended with an error may still
// have recorded its call, which only ever errs on the side of fewer calls.
func (s *BudgetStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (xs2a.BudgetTake, error) {
	return s.count(ctx, key, now, limit, window, true)
}

// Peek implements xs2a.BudgetStore: it reads, on the Redis server's clock
// as Take does, how the window under key stands, without recording a call
// (one read-only script, one round trip), with Next on the caller's clock.
// Its errors are Take's.
func (s *BudgetStore) Peek(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (xs2a.BudgetTake, error) {
	return s.count(ctx, key, now, limit, window, false)
}

// count runs takeScript (record) or peekScript, in one round trip, and
// reads its reply.
func (s *BudgetStore) count(ctx context.Context, key string, now time.Time, limit int, window time.Duration, record bool) (xs2a.BudgetTake, error) {
	if s == nil {
		return xs2a.BudgetTake{}, &xs2a.ValidationError{Field: "BudgetStore", Reason: "is nil"}
	}
	if err := s.cfg.check(s.rdb); err != nil {
		return xs2a.BudgetTake{}, err
	}
	winUS, err := windowMicros(now, window, limit)
	if err != nil {
		return xs2a.BudgetTake{}, err
	}
	script, args := peekScript, []any{winUS, limit}
	if record {
		member, err := uniqueMember()
		if err != nil {
			return xs2a.BudgetTake{}, err
		}
		script, args = takeScript, append(args, member)
	}
	args = append(args, s.shiftMicros())
	var reply any
	err = within(ctx, func(ctx context.Context) error {
		var err error
		reply, err = script.Run(ctx, s.rdb, []string{s.cfg.budgetKey(key)}, args...).Result()
		return err
	})
	if err != nil {
		return xs2a.BudgetTake{}, err
	}
	return parseReply(reply, now, winUS, limit, record)
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

// errReply is returned for an answer of the budget script that is not of
// its shape.
var errReply = errors.New("redisstore: unexpected answer of the budget script")

// parseReply reads the answer of takeScript (taken) or peekScript:
// {flag, calls counted, score, server time}, in µs, the score that of the
// oldest call counted (flag 1: recorded, or room for one) or of the call
// that must leave the window for one more to fit (flag 0: refused, or
// full). After a Take the calls counted include its own (1 to limit); a
// Peek may find none (0, and no Next) up to limit-1. The wait,
// score+window-time, is positive (the scripts count only the calls after
// time-window) and Next is now plus the wait: the caller's clock.
func parseReply(reply any, now time.Time, winUS int64, limit int, taken bool) (xs2a.BudgetTake, error) {
	vals, _ := reply.([]any)
	if len(vals) != 4 {
		return xs2a.BudgetTake{}, fmt.Errorf("redisstore: unexpected answer of the budget script (%T)", reply)
	}
	var n [4]int64
	for i, v := range vals {
		x, ok := v.(int64)
		if !ok || x < 0 || x > maxMicros {
			return xs2a.BudgetTake{}, errReply
		}
		n[i] = x
	}
	flag, count, score, at := n[0], n[1], n[2], n[3]
	lo, hi := int64(0), int64(limit)-1 // the calls a Peek with room finds
	if taken {
		lo, hi = 1, int64(limit)
	}
	var bt xs2a.BudgetTake
	switch {
	case flag == 1 && count >= lo && count <= hi:
		bt = xs2a.BudgetTake{OK: true, Remaining: limit - int(count)}
		if count == 0 {
			return bt, nil
		}
	case flag == 0 && count >= int64(limit):
	default:
		return xs2a.BudgetTake{}, errReply
	}
	wait := score + winUS - at
	if winUS > maxMicros || wait <= 0 || wait > math.MaxInt64/int64(time.Microsecond) {
		return xs2a.BudgetTake{}, errReply
	}
	bt.Next = now.Add(time.Duration(wait) * time.Microsecond)
	return bt, nil
}
