package xs2a_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// syncRun is one Sync as a nightly job runs it: the mark read from and
// written back to a store (as JSON), the entries kept by TransactionID.
func syncRun(t *testing.T, c *xs2a.Client, psu xs2a.PSU, account string, stored *[]byte, q *xs2a.TransactionsOptions,
	seen map[string]xs2a.Transaction) (n int, err error) {
	t.Helper()
	var mark xs2a.SyncMark
	if *stored != nil {
		require.NoError(t, json.Unmarshal(*stored, &mark))
	}
	for tx, err2 := range c.Accounts.Sync(context.Background(), psu, account, &mark, q) {
		if err = err2; err != nil {
			break
		}
		seen[tx.TransactionID] = tx
		n++
	}
	*stored, _ = json.Marshal(mark)
	return n, err
}

// TestSyncGoesOnAcrossRuns: a walk the budget stops goes on at the next run
// where it stopped; together the runs read every booked entry a walk with
// the customer present reads, and the next walk starts a day before the
// latest booking.
func TestSyncGoesOnAcrossRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	away := psu
	away.IPAddress = ""
	from := xs2a.EarliestDateFrom(b.clock.Now()).AddDays(xs2a.SyncMargin)
	want := map[string]bool{}
	var latest xs2a.Date
	for tx, err := range b.c.Accounts.Transactions(ctx, psu, account, &xs2a.TransactionsOptions{
		BookingStatus: xs2a.BookingBooked, DateFrom: from.In(oslo), Limit: 499}) {
		require.NoError(t, err)
		want[tx.TransactionID] = true
		if tx.BookingDate.After(latest) {
			latest = tx.BookingDate
		}
	}
	require.Greater(t, len(want), 600, "enough entries for three runs of three pages")

	var stored []byte
	seen := map[string]xs2a.Transaction{}
	q := &xs2a.TransactionsOptions{Limit: 100, KeepCalls: 1}
	var runs []int
	for run := 0; ; run++ {
		require.Less(t, run, 5, "the walk ends")
		start := b.rec.len()
		n, err := syncRun(t, b.c, away, account, &stored, q, seen)
		runs = append(runs, n)
		for i, s := range b.rec.since(start, http.MethodGet, "/transactions") {
			query, _ := url.ParseQuery(s.RawQuery)
			assert.Equal(t, from.String(), query.Get("dateFrom"), "run %d, page %d", run, i)
		}
		if err == nil {
			break
		}
		var kept *xs2a.AccessExceededError
		require.ErrorAs(t, err, &kept)
		assert.Equal(t, 1, kept.Kept)
		b.clock.Advance(xs2a.AccessWindow)
	}
	assert.Equal(t, []int{300, 300, len(want) - 600}, runs)
	for id := range want {
		assert.Contains(t, seen, id)
	}
	for _, tx := range seen {
		assert.False(t, tx.BookingDate.Before(from), "%s booked before the walk's DateFrom", tx.TransactionID)
		assert.Equal(t, xs2a.BookingBooked, tx.BookingStatus)
	}
	var mark xs2a.SyncMark
	require.NoError(t, json.Unmarshal(stored, &mark))
	assert.Equal(t, xs2a.SyncMark{From: latest.AddDays(-1), Latest: latest}, mark)

	b.clock.Advance(xs2a.AccessWindow)
	start := b.rec.len()
	_, err := syncRun(t, b.c, away, account, &stored, q, seen)
	require.NoError(t, err)
	pages := b.rec.since(start, http.MethodGet, "/transactions")
	require.NotEmpty(t, pages)
	query, _ := url.ParseQuery(pages[0].RawQuery)
	assert.Equal(t, latest.AddDays(-1).String(), query.Get("dateFrom"), "the next walk: a day before the latest")
	assert.Contains(t, []string{"", "0"}, query.Get("offset"), "a new walk")
}

// TestSyncMarkFromAnywhere: a mark from a store is whatever was written to
// it, by another replica's clock or by hand. One the 90 days overtook goes
// on from the earliest date the bank takes, where it was; one from a clock
// ahead (From or Latest after today) begins a new sync 85 days back; one
// inside the 90 days goes on as it is.
func TestSyncMarkFromAnywhere(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 1).ResourceID
	now := b.clock.Now()
	earliest, today := xs2a.EarliestDateFrom(now), xs2a.DateOf(now.In(oslo))
	begin := earliest.AddDays(xs2a.SyncMargin)
	yearAhead := today.AddDays(365)
	tests := []struct {
		name   string
		mark   xs2a.SyncMark
		from   xs2a.Date
		offset string
	}{
		{"zero: a first sync", xs2a.SyncMark{}, begin, ""},
		{"a year old, mid-walk", xs2a.SyncMark{From: today.AddDays(-365), Offset: 5, Latest: today.AddDays(-366)}, earliest, "5"},
		{"a day too old", xs2a.SyncMark{From: earliest.AddDays(-1), Offset: 3}, earliest, "3"},
		{"a clock a year ahead", xs2a.SyncMark{From: yearAhead, Latest: yearAhead.AddDays(1)}, begin, ""},
		{"tomorrow", xs2a.SyncMark{From: today.AddDays(1)}, begin, ""},
		{"a Latest a year ahead", xs2a.SyncMark{From: today.AddDays(-2), Latest: yearAhead}, begin, ""},
		{"the earliest the bank takes", xs2a.SyncMark{From: earliest, Offset: 2}, earliest, "2"},
		{"today", xs2a.SyncMark{From: today}, today, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := tt.mark
			start := b.rec.len()
			var latest xs2a.Date
			for tx, err := range b.c.Accounts.Sync(context.Background(), psu, account, &mark, nil) {
				require.NoError(t, err)
				if tx.BookingDate.After(latest) {
					latest = tx.BookingDate
				}
			}
			pages := b.rec.since(start, http.MethodGet, "/transactions")
			require.NotEmpty(t, pages)
			query, _ := url.ParseQuery(pages[0].RawQuery)
			assert.Equal(t, tt.from.String(), query.Get("dateFrom"))
			assert.Equal(t, tt.offset, query.Get("offset"))
			assert.Zero(t, mark.Offset, "the walk ended")
			assert.False(t, mark.Latest.After(today), "no date from another clock stays: %s", mark.Latest)
			if !latest.IsZero() {
				assert.Equal(t, xs2a.SyncMark{From: latest.AddDays(-1), Latest: latest}, mark)
			}
		})
	}
}

// TestSyncRefusesBeforeSending: a mark or options Sync cannot use is a
// *ValidationError, and nothing is sent.
func TestSyncRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	srv := newHostileServer(t, answerNothing)
	c := hostileClient(t, srv)
	psu := xs2a.PSU{ID: hostilePSUID}
	tests := []struct {
		name  string
		mark  *xs2a.SyncMark
		q     *xs2a.TransactionsOptions
		field string
	}{
		{"no mark", nil, nil, "mark"},
		{"negative offset", &xs2a.SyncMark{Offset: -1}, nil, "SyncMark.Offset"},
		{"a DateFrom of its own", &xs2a.SyncMark{}, &xs2a.TransactionsOptions{DateFrom: e2eStart}, "TransactionsOptions.DateFrom"},
		{"a DateTo", &xs2a.SyncMark{}, &xs2a.TransactionsOptions{DateTo: e2eStart}, "TransactionsOptions.DateTo"},
		{"pending entries", &xs2a.SyncMark{}, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth}, "TransactionsOptions.BookingStatus"},
		{"an offset of its own", &xs2a.SyncMark{}, &xs2a.TransactionsOptions{Offset: 10}, "TransactionsOptions.Offset"},
		{"a negative limit", &xs2a.SyncMark{}, &xs2a.TransactionsOptions{Limit: -1}, "TransactionsOptions.Limit"},
		{"no account", &xs2a.SyncMark{}, nil, "accountID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			account := "acc-1"
			if tt.field == "accountID" {
				account = ""
			}
			var before xs2a.SyncMark
			if tt.mark != nil {
				before = *tt.mark
			}
			n := 0
			for _, err := range c.Accounts.Sync(context.Background(), psu, account, tt.mark, tt.q) {
				requireInvalid(t, err, tt.field)
				n++
			}
			assert.Equal(t, 1, n, "one error, once")
			if tt.mark != nil {
				assert.Equal(t, before, *tt.mark, "a refused sync leaves the mark")
			}
		})
	}
	assert.Zero(t, srv.hits.Load())
}

// TestSyncStoppedByItsCaller: a loop that breaks leaves the mark after the
// last entry it took, and the next sync yields the entry after it.
func TestSyncStoppedByItsCaller(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 1).ResourceID
	var all []string
	var mark xs2a.SyncMark
	for tx, err := range b.c.Accounts.Sync(context.Background(), psu, account, &mark, nil) {
		require.NoError(t, err)
		all = append(all, tx.TransactionID)
	}
	require.Greater(t, len(all), 3)
	mark = xs2a.SyncMark{}
	for i := 0; i < 3; i++ {
		for tx, err := range b.c.Accounts.Sync(context.Background(), psu, account, &mark, &xs2a.TransactionsOptions{Limit: 2}) {
			require.NoError(t, err)
			assert.Equal(t, all[i], tx.TransactionID, "entry %d", i)
			break
		}
		assert.Equal(t, i+1, mark.Offset)
	}
}

// TestSyncOvertakenByTheWindow: a first walk that needs weeks of budget (10
// entries a page, 3 pages a night) ends: each night goes on where the last
// stopped, the 90 days moving under it, and every entry still inside them
// is read.
func TestSyncOvertakenByTheWindow(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	away := psu
	away.IPAddress = ""
	var stored []byte
	seen := map[string]xs2a.Transaction{}
	q := &xs2a.TransactionsOptions{Limit: 10, KeepCalls: 1}
	nights := 0
	for ; ; nights++ {
		require.Less(t, nights, 40, "the walk ends")
		_, err := syncRun(t, b.c, away, account, &stored, q, seen)
		if err == nil {
			break
		}
		require.ErrorIs(t, err, xs2a.ErrAccessExceeded)
		b.clock.Advance(xs2a.AccessWindow)
	}
	assert.Greater(t, nights, xs2a.SyncMargin+1, "the 90 days overtook the walk")
	b.clock.Advance(xs2a.AccessWindow)
	for tx, err := range b.c.Accounts.Transactions(context.Background(), away, account, &xs2a.TransactionsOptions{
		BookingStatus: xs2a.BookingBooked, DateFrom: xs2a.EarliestDateFrom(b.clock.Now()).In(oslo), Limit: 499}) {
		require.NoError(t, err)
		assert.Contains(t, seen, tx.TransactionID, "booked %s", tx.BookingDate)
	}
}
