package xs2a

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// pageOf is one page of a transaction list, as the iterators see it.
type pageOf[T any] struct {
	booked, pending []T
	info            []T    // standing orders (bookingStatus information, all)
	next            string // _links.next href, "" on the last page
}

// pageSignature identifies a list of entries by the SHA-256 of the keys of
// all its entries; "" for an empty list or when an entry has no key.
func pageSignature[T any](list []T, key func(*T) string) string {
	if len(list) == 0 {
		return ""
	}
	h := sha256.New()
	for i := range list {
		k := key(&list[i])
		if k == "" {
			return ""
		}
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return string(h.Sum(nil))
}

// pageWalk runs the paging of the transaction iterators.
type pageWalk[T any] struct {
	op            string
	href          string     // first page: the endpoint's path
	query         url.Values // first page's query; offset is advanced in it
	limit, offset int
	fetch         func(ctx context.Context, href string, query url.Values) (pageOf[T], error)
	// id is an entry's transactionId (cardTransactionId), "" when it has
	// none.
	id func(*T) string
	// repeatsPending: the bank may send the pending entries again on later
	// pages (accounts, docs/interface.md Endpoints), so pending entries without an
	// id are recognised by their content. Card accounts page their pending
	// entries ("card accounts are unaffected"): only ids are compared, and
	// equal entries on different pages are different transactions.
	repeatsPending bool
}

// key identifies an entry: "i" and its id, or "j" and the SHA-256 of its
// JSON encoding when it has no id; "" when it cannot be encoded.
func (w *pageWalk[T]) key(x *T) string {
	if id := w.id(x); id != "" {
		return "i" + id
	}
	b, err := json.Marshal(x)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "j" + string(sum[:])
}

// idKey is key for an entry with an id, "" for one without.
func (w *pageWalk[T]) idKey(x *T) string {
	if id := w.id(x); id != "" {
		return "i" + id
	}
	return ""
}

// repeatKey is the key that tells a page the bank sent twice. A page that
// came by, or leads on by, a next link is a repeat only when its entries'
// ids are; for card accounts, whose pages can hold equal entries without
// ids, equal content proves nothing there, and the repeated next href
// stops the walk instead. Otherwise (accounts, whose booked entries have
// stable ids, and pages by offset, where a bank that ignores offset would
// send the same page for ever) equal content is a repeat.
func (w *pageWalk[T]) repeatKey(linked bool) func(*T) string {
	if linked && !w.repeatsPending {
		return w.idKey
	}
	return w.key
}

// pendingKey identifies a pending entry, to recognise it when the bank
// repeats it on a later page; "" when it cannot be recognised (it is then
// yielded every time).
func (w *pageWalk[T]) pendingKey(x *T) string {
	if !w.repeatsPending && w.id(x) == "" {
		return ""
	}
	return w.key(x)
}

// unseen returns the entries of list (pending entries or standing orders)
// not yielded yet, and records them in seen: for each pendingKey, the most
// entries with that key that one page has held so far. On a later page only
// entries beyond that count are new: two equal entries on one page are two
// transactions (two coffees of the same price on the same day); the same
// entry on every page is one. An entry without a key is always new.
func (w *pageWalk[T]) unseen(list []T, seen map[string]int) []T {
	onPage := map[string]int{}
	fresh := list[:0:0]
	for i := range list {
		if k := w.pendingKey(&list[i]); k != "" {
			onPage[k]++
			if onPage[k] <= seen[k] {
				continue
			}
		}
		fresh = append(fresh, list[i])
	}
	for k, n := range onPage {
		seen[k] = max(seen[k], n)
	}
	return fresh
}

// linkKey identifies a next link the walk followed: the first 16 bytes of
// the SHA-256 of its href. A walk of a million transactions follows
// thousands of links; their keys take a few dozen bytes each, where the
// hrefs, kept as they are, made the walk's memory grow by a page's worth.
type linkKey [16]byte

func keyOfLink(href string) linkKey {
	sum := sha256.Sum256([]byte(href))
	return linkKey(sum[:16])
}

// walkState is where a walk is: the page to fetch next, and what it has
// seen of the pages before.
type walkState struct {
	href   string
	query  url.Values
	offset int
	linked bool             // the bank pages by _links.next
	seen   map[linkKey]bool // the next links followed
	// What unseen records, kept while the walk runs: at most one key per
	// pending entry and standing order.
	seenPending, seenInfo   map[string]int
	prevSig, prevPendingSig string
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
	s := &walkState{href: w.href, query: w.query, offset: w.offset,
		seen: map[linkKey]bool{}, seenPending: map[string]int{}, seenInfo: map[string]int{}}
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
	}
}

// entries returns what page p adds to the walk: its pending entries and
// standing orders not yielded yet (its booked entries are all new). It
// reports the end of the list, a page with nothing new, and refuses a page
// the bank sent twice.
func (w *pageWalk[T]) entries(s *walkState, p pageOf[T]) (fresh, info []T, end bool, err error) {
	repeatKey := w.repeatKey(s.linked || p.next != "")
	sig := pageSignature(p.booked, repeatKey)
	if sig != "" && sig == s.prevSig {
		return nil, nil, false, w.errSamePage()
	}
	s.prevSig = sig
	fresh = w.unseen(p.pending, s.seenPending)
	info = w.unseen(p.info, s.seenInfo)
	if len(p.booked) > 0 || len(info) > 0 {
		return fresh, info, false, nil
	}
	if len(fresh) == 0 {
		return nil, nil, true, nil
	}
	// Pending entries only, none recognised as seen (card entries
	// without ids): a bank that ignores offset would send them for ever.
	psig := pageSignature(fresh, repeatKey)
	if psig != "" && psig == s.prevPendingSig {
		return nil, nil, false, w.errSamePage()
	}
	s.prevPendingSig = psig
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
		k := keyOfLink(p.next)
		if s.seen[k] {
			return false, fmt.Errorf("xs2a: %s: the bank's next link leads back to a page already read; stopping", w.op)
		}
		s.seen[k] = true
		s.href, s.query, s.linked = p.next, nil, true
		return true, nil
	}
	// Offsets count booked entries: banks page the booked list, and send
	// pending entries on every page, on the first, or paged by the same
	// offset and limit (the sandbox, card accounts). Only a full page of
	// new pending entries, with the booked ones used up, moves the offset
	// on by the pending entries.
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
	s.offset += advance
	q := make(url.Values, len(w.query))
	for k, v := range w.query {
		q[k] = v
	}
	q.Set("offset", strconv.Itoa(s.offset))
	s.query = q
	return true, nil
}
