package xs2a

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"net/url"
	"strconv"
)

// pageOf is one page of a transaction list, as the iterators see it.
type pageOf[T any] struct {
	booked, pending []T
	info            []T    // standing orders (bookingStatus information, all)
	next            string // _links.next href, "" on the last page
	stop            error  // when set, the walk ends with it after this page, if more would follow
}

// pageWalk runs the paging of the transaction iterators.
type pageWalk[T any] struct {
	op            string
	href          string     // first page: the endpoint's path
	query         url.Values // first page's query; offset is advanced in it
	limit, offset int
	fetch         func(ctx context.Context, href string, query url.Values) (pageOf[T], error)
	id            func(*T) string // an entry's transactionId (cardTransactionId), "" when none
	// repeatsPending: the bank may send the pending entries again on later
	// pages (accounts, docs/interface.md EP16), so pending entries without an id
	// are recognised by their content; card accounts page theirs.
	repeatsPending bool
	probe          func(*walkMemory) // for tests: handed the walk's memory when it starts
}

// print is the fingerprint of the entry x for kind: of its id, or when it
// has none and content counts, of its JSON encoding (kind in upper case); 0
// when it has neither.
func (w *pageWalk[T]) print(m *walkMemory, kind byte, x *T, content bool) uint64 {
	if id := w.id(x); id != "" {
		return m.fingerprint(kind, id)
	}
	if !content {
		return 0
	}
	b, err := json.Marshal(x)
	if err != nil {
		return 0
	}
	return m.fingerprint(kind-'a'+'A', string(b))
}

// listPrint is the fingerprint of list for kind, of its entries' prints in
// turn; 0 for an empty list or one holding an entry without a print.
func (w *pageWalk[T]) listPrint(m *walkMemory, kind byte, list []T, content bool) uint64 {
	if len(list) == 0 {
		return 0
	}
	h := m.hash(kind)
	var b [8]byte
	for i := range list {
		f := w.print(m, 'e', &list[i], content)
		if f == 0 {
			return 0
		}
		binary.LittleEndian.PutUint64(b[:], f)
		h.Write(b[:])
	}
	return max(h.Sum64(), 1)
}

// unseen returns the entries of list (pending entries or standing orders,
// kind 'p' or 'o') not yielded yet, and records in m, per print, the
// most entries with that print one page has held: two equal entries on one page
// are two transactions, the same entry on every page is one. An entry without
// a print (pending entries without an id on card pages) is always new.
func (w *pageWalk[T]) unseen(list []T, m *walkMemory, kind byte) []T {
	if len(list) == 0 {
		return nil
	}
	onPage := make(map[uint64]uint32, len(list))
	fresh := list[:0:0]
	for i := range list {
		if f := w.print(m, kind, &list[i], w.repeatsPending); f != 0 {
			onPage[f]++
			if onPage[f] <= m.counts.get(f) {
				continue
			}
		}
		fresh = append(fresh, list[i])
	}
	for f, n := range onPage {
		if m.counts.get(f) < n {
			m.counts.put(f, n)
		}
	}
	return fresh
}

// walkMemorySlots is the most slots one table of a walkMemory has (48 KiB);
// it holds at most walkMemoryGeneration fingerprints.
const (
	walkMemorySlots      = 4096
	walkMemoryGeneration = walkMemorySlots * 3 / 4
)

// walkMemory is what a walk remembers of what it has read, in bounded memory
// whatever the bank sends: fingerprints of booked entries' ids ('b'), pages
// ('s', 'q', of their entries' prints 'e') and next links ('l') in seen; of
// pending entries and standing orders ('p', 'o') in counts. The walk's own
// seed keeps a bank from aiming two keys at one fingerprint.
type walkMemory struct {
	seed   maphash.Seed
	seen   generations
	counts generations
}

func newWalkMemory() *walkMemory { return &walkMemory{seed: maphash.MakeSeed()} }

// hash is a hash keyed with the walk's seed, kind written.
func (m *walkMemory) hash(kind byte) (h maphash.Hash) {
	h.SetSeed(m.seed)
	h.WriteByte(kind)
	return h
}

// fingerprint is the keyed fingerprint of key of kind; never 0.
func (m *walkMemory) fingerprint(kind byte, key string) uint64 {
	h := m.hash(kind)
	h.WriteString(key)
	return max(h.Sum64(), 1)
}

// repeat reports whether the walk has met key of kind before, and
// remembers it.
func (m *walkMemory) repeat(kind byte, key string) bool { return m.again(m.fingerprint(kind, key)) }

// again reports whether the walk has met the fingerprint f before (0:
// none, never met), and remembers it.
func (m *walkMemory) again(f uint64) bool {
	if f == 0 {
		return false
	}
	if m.seen.get(f) != 0 {
		return true
	}
	m.seen.put(f, 1)
	return false
}

// generations remembers fingerprints in two tables, the newest
// walkMemoryGeneration at least: when the newer is full, the older is emptied
// and becomes the newer. A fingerprint found in the older is copied to the
// newer, so that what comes on every page stays remembered.
type generations struct{ cur, old fpTable }

// get returns f's value, 0 when f is not remembered.
func (g *generations) get(f uint64) uint32 {
	if v := g.cur.get(f); v != 0 {
		return v
	}
	v := g.old.get(f)
	if v != 0 {
		g.put(f, v)
	}
	return v
}

// put remembers f with the value v (not 0).
func (g *generations) put(f uint64, v uint32) {
	if g.cur.set(f, v) {
		return
	}
	g.old, g.cur = g.cur, g.old
	g.cur.reset()
	g.cur.set(f, v)
}

// fpTable is an open-addressing table (linear probing) of nonzero
// fingerprints and their values, grown up to walkMemorySlots slots.
type fpTable struct {
	keys []uint64 // 0: an empty slot
	vals []uint32
	n    int
}

func (t *fpTable) slot(f uint64) int {
	mask := len(t.keys) - 1
	i := int(f>>32) & mask
	for t.keys[i] != 0 && t.keys[i] != f {
		i = (i + 1) & mask
	}
	return i
}

func (t *fpTable) get(f uint64) uint32 {
	if t.n == 0 {
		return 0
	}
	return t.vals[t.slot(f)]
}

// set sets f's value to v; false when f is new and the table is full.
func (t *fpTable) set(f uint64, v uint32) bool {
	if t.n > 0 {
		if i := t.slot(f); t.keys[i] == f {
			t.vals[i] = v
			return true
		}
	}
	if t.n >= walkMemoryGeneration {
		return false
	}
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	i := t.slot(f)
	t.keys[i], t.vals[i] = f, v
	t.n++
	return true
}

func (t *fpTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(64, 2*len(keys))
	t.keys, t.vals = make([]uint64, size), make([]uint32, size)
	for i, f := range keys {
		if f != 0 {
			j := t.slot(f)
			t.keys[j], t.vals[j] = f, vals[i]
		}
	}
}

func (t *fpTable) reset() {
	clear(t.keys)
	clear(t.vals)
	t.n = 0
}

// walkState is where a walk is: the page to fetch next, and what it
// remembers of the pages before.
type walkState struct {
	href   string
	query  url.Values
	offset int
	linked bool // the bank pages by _links.next
	mem    *walkMemory
}

// walk yields the entries of every page, pending ones first, then booked
// ones and standing orders, until the last page, an error, or yield
// returning false.
func (w *pageWalk[T]) walk(ctx context.Context, yield func(T, error) bool) {
	var zero T
	if err := checkContext(ctx); err != nil {
		yield(zero, err)
		return
	}
	s := &walkState{href: w.href, query: w.query, offset: w.offset, mem: newWalkMemory()}
	if w.probe != nil {
		w.probe(s.mem)
	}
	for {
		if err := ctx.Err(); err != nil {
			yield(zero, err)
			return
		}
		p, err := w.fetch(ctx, s.href, s.query)
		if err != nil {
			yield(zero, err)
			return
		}
		fresh, info, end, err := w.entries(s, p)
		if err != nil {
			yield(zero, err)
			return
		}
		if end || !yieldAll(ctx, yield, fresh, p.booked, info) {
			return
		}
		more, err := w.next(s, p, len(fresh))
		if err != nil {
			yield(zero, err)
		}
		if !more {
			return
		}
		if p.stop != nil {
			yield(zero, p.stop)
			return
		}
	}
}

// entries returns the pending entries and standing orders of p not yielded
// yet (its booked entries are all new), or end for a page with nothing new.
// Before anything is yielded it refuses a page read before, or one holding
// a booked entry (by id) yielded before.
func (w *pageWalk[T]) entries(s *walkState, p pageOf[T]) (fresh, info []T, end bool, err error) {
	// On card pages linked by next, ids only: equal content proves nothing
	// there (a repeated next href stops the walk instead).
	content := w.repeatsPending || !(s.linked || p.next != "")
	if s.mem.again(w.listPrint(s.mem, 's', p.booked, content)) {
		return nil, nil, false, w.errSamePage()
	}
	for i := range p.booked {
		if id := w.id(&p.booked[i]); id != "" && s.mem.repeat('b', id) {
			return nil, nil, false, fmt.Errorf("xs2a: %s: the bank sent a booked entry it had sent before; stopping", w.op)
		}
	}
	fresh = w.unseen(p.pending, s.mem, 'p')
	info = w.unseen(p.info, s.mem, 'o')
	if len(p.booked) > 0 || len(info) > 0 {
		return fresh, info, false, nil
	}
	if len(fresh) == 0 {
		return nil, nil, true, nil
	}
	// Only pending entries, none recognised: a bank ignoring offset would send them for ever.
	if s.mem.again(w.listPrint(s.mem, 'q', fresh, content)) {
		return nil, nil, false, w.errSamePage()
	}
	return fresh, info, false, nil
}

func (w *pageWalk[T]) errSamePage() error {
	return fmt.Errorf("xs2a: %s: the bank sent the same page twice; stopping", w.op)
}

// yieldAll yields the entries of lists in order; false when yield asked to
// stop or the context ended (whose error it yielded).
func yieldAll[T any](ctx context.Context, yield func(T, error) bool, lists ...[]T) bool {
	var zero T
	for _, list := range lists {
		for _, x := range list {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return false
			}
			if !yield(x, nil) {
				return false
			}
		}
	}
	return true
}

// next moves s on to the page after p, which held newPending pending
// entries not yielded before: by p's next link, or by offset. It reports
// false at the end of the list, and refuses a next link already followed.
func (w *pageWalk[T]) next(s *walkState, p pageOf[T], newPending int) (bool, error) {
	if p.next != "" {
		if s.mem.repeat('l', p.next) {
			return false, fmt.Errorf("xs2a: %s: the bank's next link leads back to a page already read; stopping", w.op)
		}
		s.href, s.query, s.linked = p.next, nil, true
		return true, nil
	}
	// Offsets count booked entries, or pending ones on a full page of new
	// pending entries once the booked ran out (docs/interface.md EP21).
	var advance int
	switch {
	case len(p.booked) >= w.limit:
		advance = len(p.booked)
	case newPending >= w.limit:
		advance = len(p.pending)
	}
	if s.linked || w.limit <= 0 || advance == 0 {
		return false, nil
	}
	if s.offset > math.MaxInt-advance {
		return false, fmt.Errorf("xs2a: %s: the next offset would pass the largest int; stopping", w.op)
	}
	s.offset += advance
	q := url.Values{}
	maps.Copy(q, w.query)
	q.Set("offset", strconv.Itoa(s.offset))
	s.query = q
	return true, nil
}
