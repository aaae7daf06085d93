package xs2a

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWalkEndsOnAnyRepeat: a walk ends with an error, before yielding it,
// on a page or booked entry it has yielded before, not only on the
// previous page: a cycle of content under fresh links, a page repeating
// one entry from two pages back, a bank that ignores offset and alternates
// two pages.
func TestWalkEndsOnAnyRepeat(t *testing.T) {
	t.Parallel()
	next := func(n int) string { return aisAccountPath + "/transactions?page=" + strconv.Itoa(n) }
	withEntry := func(page string, id string) string {
		return strings.Replace(page, `"booked":[`, `"booked":[{"transactionId":"`+id+`","transactionAmount":{"amount":"-9","currency":"NOK"}},`, 1)
	}
	tests := []struct {
		name     string
		pages    map[string]string
		q        *TransactionsOptions
		param    string
		yielded  int // booked and the one pending entry
		requests int
		wantErr  string
	}{
		{"A, B, A again under a fresh link", map[string]string{
			"": bookedPage(1, 2, next(2)), "2": bookedPage(3, 2, next(3)), "3": bookedPage(1, 2, next(4)),
		}, nil, "page", 5, 3, "same page"},
		{"an entry from two pages back", map[string]string{
			"": bookedPage(1, 2, next(2)), "2": bookedPage(3, 2, next(3)), "3": withEntry(bookedPage(5, 2, ""), "t1"),
		}, nil, "page", 5, 3, "booked entry"},
		{"an entry twice on one page", map[string]string{
			"": withEntry(bookedPage(1, 2, ""), "t2"),
		}, nil, "page", 0, 1, "booked entry"},
		{"offset ignored, two pages alternating", map[string]string{
			"": bookedPage(1, 2, ""), "2": bookedPage(3, 2, ""), "4": bookedPage(1, 2, ""),
		}, &TransactionsOptions{Limit: 2}, "offset", 5, 3, "same page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/transactions": byQuery(t, tt.param, tt.pages)})
			txs, err := collect(t, c.Accounts.Transactions(context.Background(), aisPresent, aisAccountID, tt.q))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "))
			assert.Len(t, txs, tt.yielded)
			seen := map[string]bool{}
			for _, tx := range txs {
				if tx.TransactionID != "" {
					assert.False(t, seen[tx.TransactionID], "%s yielded twice", tx.TransactionID)
					seen[tx.TransactionID] = true
				}
			}
			assert.Equal(t, tt.requests, bank.count())
		})
	}
}

// TestWalkOffsetNeverOverflows: a walk by offset from near the largest int
// ends with an error instead of sending a wrapped, negative offset.
func TestWalkOffsetNeverOverflows(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/transactions": serve(t, 200, bookedPage(1, 2, ""))})
	txs, err := collect(t, c.Accounts.Transactions(context.Background(), aisPresent, aisAccountID, &TransactionsOptions{Limit: 2, Offset: math.MaxInt - 1}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "largest int")
	assert.Len(t, txs, 3)
	require.Equal(t, 1, bank.count())
	assert.Equal(t, strconv.Itoa(math.MaxInt-1), queryValue(bank.request(0).Query, "offset"))
}

// TestWalkMemoryIsBounded: whatever the bank sends, fresh booked entries,
// fresh pending entries and fresh links on every page, a walk's memory
// stays within its tables' bound, and nothing new is taken for a repeat
// (no entry lost); pending entries the bank sends on every page are
// yielded once however long the walk.
func TestWalkMemoryIsBounded(t *testing.T) {
	t.Parallel()
	const pages, size, repeated = 40, 500, 20
	type entry struct{ ID, Text string }
	var mem *walkMemory
	w := pageWalk[entry]{
		op: "test", href: "/v1/accounts/a/transactions",
		fetch: func(_ context.Context, href string, _ url.Values) (pageOf[entry], error) {
			n := 0
			if _, v, ok := strings.Cut(href, "page="); ok {
				n, _ = strconv.Atoi(v)
			}
			var p pageOf[entry]
			for i := range size {
				p.booked = append(p.booked, entry{ID: fmt.Sprintf("b%d-%d", n, i)})
				p.pending = append(p.pending, entry{Text: fmt.Sprintf("fresh pending %d-%d", n, i)})
			}
			for i := range repeated {
				p.pending = append(p.pending, entry{Text: fmt.Sprintf("pending on every page %d", i)})
			}
			if n+1 < pages {
				p.next = fmt.Sprintf("/v1/accounts/a/transactions?link=%d&page=%d", n, n+1)
			}
			return p, nil
		},
		id:             func(x *entry) string { return x.ID },
		repeatsPending: true,
		probe:          func(m *walkMemory) { mem = m },
	}
	peak, n, everyPage := 0, 0, map[string]int{}
	w.walk(context.Background(), func(x entry, err error) bool {
		require.NoError(t, err)
		peak = max(peak, mem.bytes())
		if strings.HasPrefix(x.Text, "pending on every page") {
			everyPage[x.Text]++
		}
		n++
		return true
	})
	assert.Equal(t, pages*(2*size)+repeated, n, "every entry once")
	assert.Len(t, everyPage, repeated)
	for k, v := range everyPage {
		assert.Equal(t, 1, v, k)
	}
	// Two kinds of memory, two tables each, of at most walkMemorySlots
	// slots of 12 bytes: 192 KiB, whatever the walk's length.
	assert.LessOrEqual(t, peak, 4*12*walkMemorySlots)
	assert.Greater(t, pages*size*2*8, 4*12*walkMemorySlots, "the walk is long enough to fill the tables")
}

// TestWalkMemoryRemembersTheNewest: the newest walkMemoryGeneration
// fingerprints of a kind are always remembered.
func TestWalkMemoryRemembersTheNewest(t *testing.T) {
	t.Parallel()
	m := newWalkMemory()
	const n = 5 * walkMemoryGeneration
	for i := range n {
		require.False(t, m.repeat('b', strconv.Itoa(i)), "%d is new", i)
		if i >= walkMemoryGeneration {
			old := strconv.Itoa(i - walkMemoryGeneration + 1)
			f := m.fingerprint('b', old)
			// Looked up without moving it, as get would.
			require.NotZero(t, m.seen.cur.get(f)+m.seen.old.get(f), "%s of the newest is remembered at %d", old, i)
		}
	}
	assert.LessOrEqual(t, m.bytes(), 2*12*walkMemorySlots)
}

// bytes is how much memory m's tables take: 12 bytes a slot.
func (m *walkMemory) bytes() int { return m.seen.bytes() + m.counts.bytes() }

func (g *generations) bytes() int { return 12 * (len(g.cur.keys) + len(g.old.keys)) }
