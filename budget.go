package xs2a

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// BudgetEndpoint names an endpoint whose PSU-not-present calls the access
// budget counts, per PSU and account, every request that may reach the bank
// included (docs/interface.md L1, L2, L8), keyed by the bank's view of the
// request (L11).
type BudgetEndpoint string

// The counted endpoints.
const (
	// BudgetBalances counts GET /v1/accounts/{id}/balances and
	// /v1/card-accounts/{id}/balances (docs/interface.md L8).
	BudgetBalances BudgetEndpoint = "balances"
	// BudgetTransactions counts GET /v1/accounts/{id}/transactions.
	BudgetTransactions BudgetEndpoint = "transactions"
	// BudgetTransaction counts GET /v1/accounts/{id}/transactions/{transactionId},
	// apart from the list (docs/interface.md L8).
	BudgetTransaction BudgetEndpoint = "transaction-details"
)

// Limits of docs/interface.md for requests without PSU-IP-Address (PSU not present).
const (
	// AccessLimit is the calls per AccessWindow, PSU and account without the PSU
	// present.
	AccessLimit = 4
	// AccessWindow is the rolling window AccessLimit applies to.
	AccessWindow = 24 * time.Hour
	// HistoryLimit is how old transactions asked for without the PSU present
	// may be (90 days). DateFrom is compared as a calendar date, as it is sent.
	HistoryLimit = 90 * 24 * time.Hour
)

// BudgetStatus is the access budget of one PSU, account and endpoint after
// a call it counted (Response.Budget, CallEnd.Budget), as go-github's
// Response.Rate: the calls left in the rolling window and when the next
// frees up. Reset is on the client's clock (WithClock), also when the
// store measures the window with a clock of its own (redisstore).
type BudgetStatus struct {
	Endpoint  BudgetEndpoint
	Limit     int       // AccessLimit
	Remaining int       // calls left in the window after this one; 0 when refused
	Reset     time.Time // when the oldest call still counted leaves the window, freeing one
}

// budgetKeyPrefix starts every key the access budget hands to a BudgetStore.
const budgetKeyPrefix = "xs2a:budget:"

// BudgetStore counts the calls of the access budget (see WithBudgetStore).
// Implementations must be safe for concurrent use. When several replicas of
// a TPP call the bank for the same PSUs, they must share one BudgetStore (for
// example a Redis sorted set per key, trimmed and counted in one script), or
// together they will spend more than the bank allows.
//
// Keys start with "xs2a:budget:" followed by a hex SHA-256 of the PSU id,
// the account id and the endpoint; they never hold a PSU id or account id in
// clear, so a shared store can be inspected without exposing them.
type BudgetStore interface {
	// Take records one call under key at now if fewer than limit calls were
	// recorded in (now-window, now], and says how the window stands after
	// it (BudgetTake): whether the call was recorded, the calls left and
	// when the oldest counted call leaves the window. A refused Take records
	// nothing. A store shared by replicas may measure the window with one
	// clock of its own instead (redisstore uses the Redis server's), so
	// that replicas whose clocks disagree still agree; Next is then moved
	// onto the caller's clock (now).
	Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (BudgetTake, error)
	// Peek says how the window under key stands at now, on the same clock
	// as Take, without recording a call: OK when a Take would be recorded,
	// Remaining the calls left, Next when the oldest counted call leaves
	// the window (zero when none is counted; when full, when one more
	// fits). It is Client.Budget's read and spends nothing.
	Peek(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (BudgetTake, error)
}

// BudgetTake is a BudgetStore's answer to Take (and to Peek, which records
// nothing).
type BudgetTake struct {
	// OK reports that the call was recorded (fewer than limit were in the
	// window).
	OK bool
	// Remaining is the calls left in the window after this Take: limit
	// less the calls counted, never below 0; 0 when refused.
	Remaining int
	// Next is when the oldest call still counted leaves the window, freeing
	// one, on the caller's clock: never zero after a Take, zero after a
	// Peek that found no call counted. When refused (or full), it is the
	// first moment a Take may succeed (when enough calls have left for one
	// more to fit).
	Next time.Time
}

// accessBudget is the client's local guard of the PSU-not-present limits of
// docs/interface.md: it counts calls in a BudgetStore and checks how old the asked-for
// transactions are. A nil *accessBudget, or one with a nil store, counts
// nothing (WithBudgetStore(nil)); the history check still applies.
type accessBudget struct {
	store BudgetStore
	now   func() time.Time
}

// newAccessBudget returns a budget counting in store (nil: no counting) with
// the clock now (nil: time.Now).
func newAccessBudget(store BudgetStore, now func() time.Time) *accessBudget {
	if now == nil {
		now = time.Now
	}
	return &accessBudget{store: store, now: now}
}

func (b *accessBudget) clock() time.Time {
	if b == nil || b.now == nil {
		return time.Now()
	}
	return b.now()
}

// take counts one PSU-not-present call of psuID to ep on accountID and
// returns the budget after it. It returns an *AccessExceededError, and the
// budget with no call left, when the call would pass AccessLimit in
// AccessWindow; the store's error, wrapped, and no budget when the store
// fails: the call is then not sent, as the budget cannot be known. A budget
// that counts nothing returns neither.
func (b *accessBudget) take(ctx context.Context, psuID, accountID string, ep BudgetEndpoint) (*BudgetStatus, error) {
	if b == nil || b.store == nil {
		return nil, nil
	}
	bt, err := b.store.Take(ctx, budgetKey(psuID, accountID, ep), b.clock(), AccessLimit, AccessWindow)
	if err != nil {
		return nil, fmt.Errorf("xs2a: access budget for %s: %w", bankText(string(ep), 64), err)
	}
	st := budgetStatus(ep, bt)
	if !bt.OK {
		return &st, &AccessExceededError{Endpoint: ep, Next: bt.Next}
	}
	return &st, nil
}

// budgetStatus is the BudgetStatus of a store's answer for ep: Remaining
// within 0 and AccessLimit whatever the store says, 0 when refused.
func budgetStatus(ep BudgetEndpoint, bt BudgetTake) BudgetStatus {
	st := BudgetStatus{Endpoint: ep, Limit: AccessLimit, Remaining: min(max(bt.Remaining, 0), AccessLimit), Reset: bt.Next}
	if !bt.OK {
		st.Remaining = 0
	}
	return st
}

// errNotCounted is Client.Budget's error when the client counts nothing.
var errNotCounted = errors.New("xs2a: access budget: not counted (WithBudgetStore(nil))")

// Budget returns the access budget of psu's calls without the PSU present
// to ep on accountID (the account's resource id, or for BudgetBalances a
// card account's), as the next counted call would find it, without
// spending one and without calling the bank: the calls left and when the
// oldest counted one leaves the window (Reset zero when none is counted),
// on the client's clock. It reads the key the calls are counted under
// (docs/interface.md L8, L11): psu.ID (required; IPAddress is ignored) and
// the account id as the bank reads it. Bad input is a *ValidationError
// naming "PSU.ID", "accountID" or "ep"; a store that fails, its error
// wrapped; a client counting nothing (WithBudgetStore(nil)) an error.
// Other replicas may spend from a shared store at any moment, so the answer
// is a snapshot, not a reservation.
func (c *Client) Budget(ctx context.Context, psu PSU, accountID string, ep BudgetEndpoint) (BudgetStatus, error) {
	if err := checkContext(ctx); err != nil {
		return BudgetStatus{}, err
	}
	if err := psu.writeHeaders(make(http.Header), false); err != nil {
		return BudgetStatus{}, err
	}
	if psu.ID == "" {
		return BudgetStatus{}, invalid("PSU.ID", "is required: the budget counts calls per PSU")
	}
	switch ep {
	case BudgetBalances, BudgetTransactions, BudgetTransaction:
	default:
		return BudgetStatus{}, invalid("ep", "must be BudgetBalances, BudgetTransactions or BudgetTransaction")
	}
	if err := checkResourceID("accountID", accountID); err != nil {
		return BudgetStatus{}, err
	}
	// The account id as the bank reads it, as every counted call keys it.
	r := &request{href: accountPath(accountID) + "/balances", rule: routeRule{field: "accountID", kinds: []routeKind{routeBalances}}}
	if _, err := c.target(r); err != nil {
		return BudgetStatus{}, err
	}
	return c.budget.peek(ctx, psu.ID, r.accountID, ep)
}

// keepCalls is the *AccessExceededError of calls that must not start
// because no more than keep of psu's calls to accountID's ep are left
// (TransactionsOptions.KeepCalls; 0: none left); nil when more are, or
// nothing is counted.
func (c *Client) keepCalls(ctx context.Context, psu PSU, accountID string, ep BudgetEndpoint, keep int) error {
	st, err := c.Budget(ctx, psu, accountID, ep)
	switch {
	case errors.Is(err, errNotCounted):
		return nil
	case err != nil:
		return err
	case st.Remaining <= keep:
		return &AccessExceededError{Endpoint: ep, Next: st.Reset, Kept: st.Remaining}
	}
	return nil
}

// peek is Client.Budget's read of the store.
func (b *accessBudget) peek(ctx context.Context, psuID, accountID string, ep BudgetEndpoint) (BudgetStatus, error) {
	if b == nil || b.store == nil {
		return BudgetStatus{}, errNotCounted
	}
	bt, err := b.store.Peek(ctx, budgetKey(psuID, accountID, ep), b.clock(), AccessLimit, AccessWindow)
	if err != nil {
		return BudgetStatus{}, fmt.Errorf("xs2a: access budget for %s: %w", bankText(string(ep), 64), err)
	}
	return budgetStatus(ep, bt), nil
}

// checkHistory refuses a dateFrom, or a dateTo, more than HistoryLimit (90
// days) before now: the bank refuses transactions that old asked for
// without the PSU present (docs/interface.md, Limits), and a dateTo that old asks
// for nothing else, yet would spend one of the day's calls. The dates are
// sent as YYYY-MM-DD in their own location, and the bank counts the 90 days
// from today in its own calendar (historyZone), so the check compares that
// date with today at the bank: today minus 90 days passes, one day earlier
// fails. A zero date (not sent) passes.
func (b *accessBudget) checkHistory(dateFrom, dateTo time.Time) error {
	oldest := EarliestDateFrom(b.clock())
	for _, d := range []struct {
		field string
		date  time.Time
	}{{"TransactionsOptions.DateFrom", dateFrom}, {"TransactionsOptions.DateTo", dateTo}} {
		if !d.date.IsZero() && DateOf(d.date).Before(oldest) {
			return invalid(d.field, "without the PSU present transactions may be at most 90 days old (from %s)", oldest)
		}
	}
	return nil
}

// EarliestDateFrom is the earliest TransactionsOptions.DateFrom a call
// without the PSU present may ask for at now: today in the bank's calendar
// (Europe/Oslo) less 90 days (docs/interface.md L2). A DateFrom is compared
// as the calendar date it is sent as, in its own location.
func EarliestDateFrom(now time.Time) Date {
	return DateOf(now.In(historyZone)).AddDays(-int(HistoryLimit / (24 * time.Hour)))
}

// historyZone is the bank's calendar (Europe/Oslo), which decides what
// "today" is for the 90 days. Without a zone database the earlier of the two
// Norwegian offsets (CET, UTC+1) is used, so no dateFrom the bank accepts is
// refused locally.
var historyZone = func() *time.Location {
	if loc, err := time.LoadLocation("Europe/Oslo"); err == nil {
		return loc
	}
	return time.FixedZone("CET", 60*60)
}()

// budgetKey derives the BudgetStore key of one PSU, account and endpoint: the
// prefix and a hex SHA-256 of the three parts, each preceded by its length
// so that no two triples share an input. The PSU id, a UUID (PSU.validate),
// is taken in lower case, so that its spellings share one count.
func budgetKey(psuID, accountID string, ep BudgetEndpoint) string {
	psuID = strings.ToLower(psuID)
	h := sha256.New()
	var n [8]byte
	for _, part := range []string{psuID, accountID, string(ep)} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return budgetKeyPrefix + hex.EncodeToString(h.Sum(nil))
}

// errStoreArgs is returned by the memory store for a limit below 1 or a
// window that is not positive.
var errStoreArgs = errors.New("xs2a: access budget store: limit and window must be positive")

// memoryStore is the in-process BudgetStore: a map from key to the times of
// the calls still in their window.
type memoryStore struct {
	mu        sync.Mutex
	keys      map[string]*memoryEntry
	lastSweep time.Time
	ops       int // takes since the last sweep
}

type memoryEntry struct {
	calls []time.Time // sorted
	until time.Time   // when the last call leaves its window
}

// NewMemoryBudgetStore returns a BudgetStore that counts in memory, for a
// TPP running as a single process (the default of WithBudgetStore). It is
// safe for concurrent use. Keys whose calls have all left their window are dropped,
// so memory stays bounded by the keys in use within about one window.
func NewMemoryBudgetStore() BudgetStore {
	return &memoryStore{keys: make(map[string]*memoryEntry)}
}

// Take implements BudgetStore. Calls recorded at a time after now (a clock that
// went back) still count, so a clock step never frees calls early.
func (s *memoryStore) Take(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (BudgetTake, error) {
	return s.count(ctx, key, now, limit, window, true)
}

// Peek implements BudgetStore: it reads the calls counted under key in
// (now-window, now] without recording one (nor a key).
func (s *memoryStore) Peek(ctx context.Context, key string, now time.Time, limit int, window time.Duration) (BudgetTake, error) {
	return s.count(ctx, key, now, limit, window, false)
}

// count reads the calls under key in (now-window, now] and, with record,
// records one at now when it fits (Take); without, it changes nothing
// (Peek).
func (s *memoryStore) count(ctx context.Context, key string, now time.Time, limit int, window time.Duration, record bool) (BudgetTake, error) {
	if err := liveContext(ctx); err != nil {
		return BudgetTake{}, err
	}
	if limit < 1 || window <= 0 {
		return BudgetTake{}, errStoreArgs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if record {
		s.ops++
		if s.ops >= len(s.keys) || !now.Before(s.lastSweep.Add(window)) {
			s.sweep(now)
		}
		if s.keys[key] == nil {
			s.keys[key] = &memoryEntry{}
		}
	}
	e := s.keys[key]
	if e == nil {
		return BudgetTake{OK: true, Remaining: limit}, nil
	}
	start := now.Add(-window)
	i := 0
	for i < len(e.calls) && !e.calls[i].After(start) {
		i++
	}
	calls := e.calls[i:]
	if record {
		e.calls = slices.Delete(e.calls, 0, i)
		calls = e.calls
	}
	if len(calls) >= limit {
		// The call that must leave the window for one more to fit.
		return BudgetTake{Next: calls[len(calls)-limit].Add(window)}, nil
	}
	if record {
		at, _ := slices.BinarySearchFunc(e.calls, now, func(a, b time.Time) int { return a.Compare(b) })
		// Insert after equal times, keeping the slice sorted.
		for at < len(e.calls) && e.calls[at].Equal(now) {
			at++
		}
		e.calls = slices.Insert(e.calls, at, now)
		if u := e.calls[len(e.calls)-1].Add(window); u.After(e.until) {
			e.until = u
		}
		calls = e.calls
	}
	t := BudgetTake{OK: true, Remaining: limit - len(calls)}
	if len(calls) > 0 {
		t.Next = calls[0].Add(window)
	}
	return t, nil
}

// sweep drops the keys whose calls have all left their window. It runs when
// a window has passed since the last sweep, or after as many takes as there
// are keys, so its cost per take stays constant and dead keys never
// outnumber live ones for long.
func (s *memoryStore) sweep(now time.Time) {
	for k, e := range s.keys {
		if !e.until.After(now) {
			delete(s.keys, k)
		}
	}
	if now.After(s.lastSweep) {
		s.lastSweep = now // callers' clocks may interleave; keep the latest
	}
	s.ops = 0
}

// size reports how many keys the store holds (for tests).
func (s *memoryStore) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}
