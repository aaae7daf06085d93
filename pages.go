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
	next            string // _links.next href, "" on the last page
}

// pageSignature identifies a page by its size and its first and last ids;
// "" when the entries have no ids.
func pageSignature[T any](list []T, id func(*T) string) string {
	if len(list) == 0 {
		return ""
	}
	first, last := id(&list[0]), id(&list[len(list)-1])
	if first == "" && last == "" {
		return ""
	}
	return strconv.Itoa(len(list)) + "\x00" + first + "\x00" + last
}

// pageWalk runs the paging of the transaction iterators (STYLE.md 8).
type pageWalk[T any] struct {
	op            string
	href          string     // first page: the endpoint's path
	query         url.Values // first page's query; offset is advanced in it
	limit, offset int
	fetch         func(ctx context.Context, href string, query url.Values) (pageOf[T], error)
	// id is an entry's transactionId (cardTransactionId), "" when it has
	// none.
	id func(*T) string
}

// pendingKey identifies a pending entry, to yield it once when the bank
// repeats it on a later page: "i" and its id, or "j" and the SHA-256 of its
// JSON encoding when it has no id; "" when it cannot be encoded (it is then
// yielded every time).
func (w *pageWalk[T]) pendingKey(x *T) string {
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

func (w *pageWalk[T]) walk(ctx context.Context, yield func(T, error) bool) {
	var zero T
	href, query, offset := w.href, w.query, w.offset
	linked := false // the bank pages by _links.next
	seen := map[string]bool{}
	// The pending entries yielded so far, by pendingKey: kept while the
	// loop runs, at most one key per pending entry.
	seenPending := map[string]struct{}{}
	prevSig := ""
	for {
		if err := ctx.Err(); err != nil {
			yield(zero, err)
			return
		}
		p, err := w.fetch(ctx, href, query)
		if err != nil {
			yield(zero, err)
			return
		}
		sig := pageSignature(p.booked, w.id)
		if sig != "" && sig == prevSig {
			yield(zero, fmt.Errorf("xs2a: %s: the bank sent the same page twice; stopping", w.op))
			return
		}
		prevSig = sig
		newPending := 0
		for i := range p.pending {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			if k := w.pendingKey(&p.pending[i]); k != "" {
				if _, dup := seenPending[k]; dup {
					continue
				}
				seenPending[k] = struct{}{}
			}
			newPending++
			if !yield(p.pending[i], nil) {
				return
			}
		}
		for _, x := range p.booked {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			if !yield(x, nil) {
				return
			}
		}
		// Offsets count booked entries: banks page the booked list, and
		// send pending entries on every page, on the first, or paged by
		// the same offset and limit (the sandbox, card accounts). Only a
		// full page of new pending entries, with the booked ones used up,
		// moves the offset on by the pending entries.
		next := p.next
		var advance int
		switch {
		case len(p.booked) >= w.limit:
			advance = len(p.booked)
		case newPending >= w.limit:
			advance = len(p.pending)
		}
		switch {
		case len(p.booked) == 0 && newPending == 0:
			return
		case next != "":
			if seen[next] {
				yield(zero, fmt.Errorf("xs2a: %s: the bank's next link leads back to a page already read; stopping", w.op))
				return
			}
			seen[next] = true
			href, query, linked = next, nil, true
		case linked || w.limit <= 0 || advance == 0:
			return
		default:
			offset += advance
			q := make(url.Values, len(w.query))
			for k, v := range w.query {
				q[k] = v
			}
			q.Set("offset", strconv.Itoa(offset))
			query = q
		}
	}
}
