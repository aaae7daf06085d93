package xs2a

import (
	"context"
	"iter"
	"time"
)

// SyncMark is where a sync of one account's booked transactions goes on
// (AccountsService.Sync). Store it with the entries of each run; the zero
// SyncMark begins a first sync. The bank pages booked entries newest first,
// so Offset counts the same entries while From moves later and an entry
// booked meanwhile comes in the next walk.
type SyncMark struct {
	From   Date `json:"from,omitzero"`   // DateFrom of the walk under way, or of the next one
	Offset int  `json:"offset"`          // entries of that walk already yielded; 0: a new walk
	Latest Date `json:"latest,omitzero"` // the latest booking date yielded
}

// SyncMargin is how many days inside the 90 (EarliestDateFrom) a sync
// begins: a walk the access budget stops may go on that many days later.
const SyncMargin = 5

// Sync walks an account's booked transactions on from *mark, as
// Transactions does, and moves *mark past each entry it yields; a walk that
// ends sets the next one's From a day before the latest booking date. Store
// the entries by TransactionID (one may come again) with the mark.
//
// q gives only Limit and KeepCalls (nil: none): a walk the budget stops ends
// with an *AccessExceededError and goes on at the next Sync. By the
// Client's clock in the bank's calendar, a From the 90 days overtook goes
// on from EarliestDateFrom; a zero From, or a From or Latest after today
// (another clock's), begins a new sync SyncMargin days inside the 90.
func (s *AccountsService) Sync(ctx context.Context, psu PSU, accountID string, mark *SyncMark, q *TransactionsOptions) iter.Seq2[Transaction, error] {
	return func(yield func(Transaction, error) bool) {
		m, opts, err := s.syncStart(mark, q)
		if err != nil {
			yield(Transaction{}, err)
			return
		}
		for tx, err := range s.Transactions(ctx, psu, accountID, opts) {
			if err != nil {
				yield(tx, err)
				return
			}
			m.Offset++
			if tx.BookingDate.After(m.Latest) {
				m.Latest = tx.BookingDate
			}
			*mark = m
			if !yield(tx, nil) {
				return
			}
		}
		m.Offset = 0
		if !m.Latest.IsZero() {
			m.From = m.Latest.AddDays(-1)
		}
		*mark = m
	}
}

// syncStart checks mark and q and returns the mark the walk goes on from
// (a new one when mark's From is no longer a DateFrom the bank takes) and
// the walk's options. *mark changes only once an entry is yielded.
func (s *AccountsService) syncStart(mark *SyncMark, q *TransactionsOptions) (SyncMark, *TransactionsOptions, error) {
	var opts TransactionsOptions
	if q != nil {
		opts = *q
	}
	switch {
	case mark == nil:
		return SyncMark{}, nil, invalid("mark", "is nil")
	case mark.Offset < 0:
		return SyncMark{}, nil, invalid("SyncMark.Offset", "must not be negative")
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"TransactionsOptions.BookingStatus", opts.BookingStatus != ""},
		{"TransactionsOptions.DateFrom", !opts.DateFrom.IsZero()},
		{"TransactionsOptions.DateTo", !opts.DateTo.IsZero()},
		{"TransactionsOptions.Offset", opts.Offset != 0},
	} {
		if f.set {
			return SyncMark{}, nil, invalid(f.name, "is Sync's to set, from the SyncMark: give only Limit and KeepCalls")
		}
	}
	m, now := *mark, s.client.cfg.now()
	earliest, today := EarliestDateFrom(now), DateOf(now.In(historyZone))
	switch {
	case m.From.IsZero() || m.From.After(today) || m.Latest.After(today): // a first sync, or another clock's mark
		m = SyncMark{From: earliest.AddDays(SyncMargin)}
	case m.From.Before(earliest): // the 90 days overtook the walk: it goes on inside them
		m.From = earliest
	}
	opts.BookingStatus, opts.DateFrom, opts.Offset = BookingBooked, m.From.In(time.UTC), m.Offset
	return m, &opts, nil
}
