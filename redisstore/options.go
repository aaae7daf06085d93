package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tppkit/xs2a"
)

// Option configures a BudgetStore or a SessionStore.
type Option func(*config)

type config struct {
	prefix string
}

// WithKeyPrefix puts prefix in front of every key the store writes, so
// several TPPs or environments can share one Redis (default: none; the keys
// start with "xs2a:"). The prefix must not hold "{" or "}": the hash tag of
// each key must be the store's own (see the package documentation). A store
// with such a prefix fails every call with a *xs2a.ValidationError.
func WithKeyPrefix(prefix string) Option {
	return func(c *config) { c.prefix = prefix }
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// check reports a store that cannot be used, before anything is sent.
func (c config) check(rdb any) error {
	if rdb == nil {
		return &xs2a.ValidationError{Field: "rdb", Reason: "is nil"}
	}
	if strings.ContainsAny(c.prefix, "{}") {
		return &xs2a.ValidationError{Field: "WithKeyPrefix", Reason: `must not hold "{" or "}", which would take the hash tag of the keys`}
	}
	return nil
}

// budgetKeyPrefix starts the keys the SDK hands to a budget store.
const budgetKeyPrefix = "xs2a:budget:"

// budgetKey is the Redis key of an SDK budget key: the prefix, then the
// SDK's key with its hashed part as the hash tag, so a Take (one key) runs
// on one Cluster node. A key of another shape is hashed whole.
func (c config) budgetKey(key string) string {
	rest, ok := strings.CutPrefix(key, budgetKeyPrefix)
	if !ok || rest == "" || strings.ContainsAny(rest, "{}") {
		rest = hashHex(key)
	}
	return c.prefix + budgetKeyPrefix + "{" + rest + "}"
}

// sessionKey is the Redis key of a user's session state: the prefix, then a
// SHA-256 of the user key as the hash tag, so the user key is not stored in
// clear and all of a user's state sits in one Cluster slot.
func (c config) sessionKey(user string) string {
	return c.prefix + "xs2a:session:{" + hashHex(user) + "}"
}

// indexKey is the Redis key of a SessionManager index key: the prefix,
// "xs2a:index:" and the key (a hash; one with braces is hashed again, so
// that it names no hash tag). Each is one key, on its own Cluster slot.
func (c config) indexKey(key string) string {
	if strings.ContainsAny(key, "{}") {
		key = hashHex(key)
	}
	return c.prefix + "xs2a:index:" + key
}

func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// within runs fn and returns its error, or the context's error as soon as
// ctx ends: a go-redis client that does not apply context deadlines to its
// connections (ContextTimeoutEnabled false, the default) would otherwise
// hold a caller past its deadline while Redis does not answer. fn may still
// finish after within returned. A nil ctx is refused (*xs2a.ValidationError).
func within(ctx context.Context, fn func(context.Context) error) error {
	if ctx == nil {
		return &xs2a.ValidationError{Field: "ctx", Reason: "is nil: pass the call's context, or context.Background()"}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if ctx.Done() == nil {
		return fn(ctx)
	}
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // finished as the context ended: keep its result
			return err
		default:
			return ctx.Err()
		}
	}
}
