// Package redisstore keeps the xs2a SDK's shared state in Redis, so that
// several replicas of a TPP act as one towards the bank:
//
//   - BudgetStore (give it to xs2a.WithBudgetStore) counts the calls made
//     without the PSU present, 4 per account and endpoint in 24 hours, for
//     the whole fleet. A Take is one Lua script over a sorted set per key:
//     one round trip, atomic across replicas, which also answers the calls
//     left and when the oldest counted call leaves the window, as the same
//     script saw them (the SDK's Response.Budget). Peek reads them without
//     recording a call (xs2a.Client.Budget).
//   - SessionStore (give it to xs2a.NewSessionManager) holds each user's
//     TPP-Session-IDs and the SCAs begun for the user (purpose and the
//     state's hash), so a session one replica began or completed is the
//     one every replica uses, and a callback reaching any replica resolves
//     to the user and purpose. An Update is one compare-and-set script,
//     retried on the state another replica wrote first.
//
// Both take a redis.UniversalClient: redis.NewClient, NewClusterClient
// (Redis Cluster) or NewFailoverClient (Sentinel), and need Redis 5 or
// later. The module's tests run the fleet's budget (exactly 4 calls at the
// bank from eight replicas, also when their clocks disagree), the session
// agreement, Update under contention and the fail-closed outage against
// real servers with each of the three: one redis-server, a Redis Cluster of
// three masters and a master watched by a Sentinel.
//
// # Clocks
//
// A fleet measures the budget's window with one clock, the Redis server's:
// the script reads TIME and scores each call by it, so replicas whose
// clocks are minutes or days apart still get 4 calls in 24 hours between
// them, and a fifth waits until the server's 24 hours have passed. The
// caller's now only places the answer on the caller's clock: a Take's or
// Peek's Next is when the oldest call leaves the server's window (refused:
// when one more fits), moved by the caller's offset from the server, so a
// replica whose clock is off gets a Next, and a Response.Budget a Reset,
// its own clock reaches at that moment. Each key lives on one
// server (the master of its Cluster slot), so one key is always counted
// with one clock; after a failover the new master's clock counts, so keep
// the servers' clocks synchronised (NTP): a new master behind the old one
// keeps calls in the window longer, one ahead frees them early by its lead.
// Session times are the caller's (the SDK's clock).
//
// # Keys
//
// Budget keys are the SDK's ("xs2a:budget:" and a SHA-256 of PSU id,
// account and endpoint) with the hash in braces, "xs2a:budget:{<hex>}";
// session keys are "xs2a:session:{<hex>}", the SHA-256 of the user key;
// index keys are "xs2a:index:state:<hex>" and "xs2a:index:session:<hex>",
// hashes of a state or a session id, each holding the user key sealed with
// that state or id (AES-GCM; only its holder opens it). WithKeyPrefix puts
// a prefix before all of them. Neither keys nor values hold a PSU id, an
// account id, a state or a user key in clear. Every command touches one
// key, and the braces are the Cluster hash tag, so all of one user's (and
// one budget count's) state sits in one slot, whatever the prefix; no
// script crosses slots. Budget keys expire one window
// (24 hours) after their last call, session keys xs2a.SessionValidity after
// their last change, a state's index key xs2a.PendingValidity after Begin
// and a session id's that plus xs2a.SessionValidity.
//
// # When Redis is unreachable
//
// Both stores fail closed: a Take that cannot reach Redis returns its error
// and the SDK sends nothing (the call's error wraps the store's); a session
// that cannot be read is not used. A call ends by its context's deadline
// even when the go-redis client has no deadline of its own
// (ContextTimeoutEnabled false). A Take that timed out may still have been
// counted, which errs on the side of fewer calls. Redis run without
// persistence forgets the day's counts on restart: use AOF (appendonly yes)
// or replicas with Sentinel where that matters.
package redisstore
