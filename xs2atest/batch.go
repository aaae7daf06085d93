package xs2atest

import "time"

// The sandbox's simulated batch processing: 5 runs a day (docs/interface.md
// "Sandbox", "Limits") at these hours, Europe/Oslo. Periodic payments are
// not processed.
var batchHours = []int{6, 9, 12, 15, 18}

// catchUpBatches runs, lazily, every batch that was due since the last
// request (on the injected clock).
func (s *Server) catchUpBatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUpLocked()
}

func (s *Server) catchUpLocked() {
	now := s.now()
	if !now.After(s.lastBatch) {
		return
	}
	day := dateOf(s.lastBatch)
	for i := 0; i < 3700 && !day.After(dateOf(now)); i++ {
		for _, h := range batchHours {
			t := time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, oslo)
			if t.After(s.lastBatch) && !t.After(now) {
				s.runBatchLocked(t)
			}
		}
		day = day.AddDate(0, 0, 1)
	}
	s.lastBatch = now
}

// RunBatch runs one simulated payment batch now (after any scheduled runs
// that were due): approved (ACTC, or ACWC with a moved date) and waiting
// (ACCP) single and bulk payments whose execution date has come are booked
// when the debtor has the funds (ACSC), otherwise they wait for a later run
// as ACCP with fundsAvailable false.
func (s *Server) RunBatch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUpLocked()
	s.runBatchLocked(s.now())
}

// executable are the statuses a batch run books when the date has come.
var executable = map[string]bool{"ACTC": true, "ACWC": true, "ACCP": true}

func (s *Server) runBatchLocked(at time.Time) {
	today := dateOf(at)
	for _, id := range s.paymentOrder {
		p := s.payments[id]
		if p.service == "periodic-payments" || !executable[p.status] || p.execDate.After(today) {
			continue
		}
		s.executeLocked(p, at)
	}
}

// executeLocked books a payment if the debtor has the funds: ACSC; else ACCP
// with fundsAvailable false. A bulk payment is booked whole or not at all.
// A card account pays like an account, its balance going down to minus its
// creditLimit (funds: balance + creditLimit).
func (s *Server) executeLocked(p *payment, at time.Time) {
	debtor := s.accounts[p.debtor]
	ok := debtor != nil && canPay(debtor, p.totalIn(debtor.currency))
	p.funds = &ok
	if !ok {
		p.status = "ACCP"
		return
	}
	day := dateOf(at)
	for _, e := range p.entries {
		s.bookEntryLocked(debtor, e, day)
	}
	if p.fee > 0 {
		fee := convert(p.fee, "NOK", debtor.currency)
		debtor.balance -= fee
		debtor.booked = append(debtor.booked, &transaction{id: s.newID(), bookingDate: day, valueDate: day,
			transactionDate: day, amount: -fee, currency: debtor.currency, remittance: feeText(p.product),
			code: "GEBYR", origAmount: -fee, origCurrency: debtor.currency, details: feeText(p.product)})
	}
	sortBooked(debtor)
	p.status = "ACSC"
}

// bookEntryLocked books one payment entry on day: debited from the debtor
// in its currency (converted from a cross-border payment's own, which
// stays the original amount), credited to a creditor account the bank
// holds.
func (s *Server) bookEntryLocked(debtor *account, e *paymentFacts, day time.Time) {
	debit := convert(e.amount, e.currency, debtor.currency)
	debtor.balance -= debit
	t := &transaction{id: s.newID(), bookingDate: day, valueDate: day, transactionDate: day, amount: -debit,
		currency: debtor.currency, creditorName: e.creditorName,
		debtorName: s.ownerName(debtor), debtorBBAN: debtor.bban, remittance: e.remittance, code: "OVERFØRSEL",
		origAmount: -e.amount, origCurrency: e.currency}
	if e.foreign {
		t.creditorIBAN = e.creditor
	} else {
		t.creditorBBAN = e.creditor
	}
	if debtor.card {
		t.details = e.creditorName // what a card account's transaction shows
	}
	if e.kid != "" {
		t.info = "KID " + e.kid
	}
	debtor.booked = append(debtor.booked, t)
	if cred := s.byBBAN[t.creditorBBAN]; cred != nil && !cred.closed {
		cred.balance += e.amount
		ct := *t
		ct.id, ct.amount, ct.origAmount, ct.details = s.newID(), e.amount, e.amount, ""
		cred.booked = append(cred.booked, &ct)
		sortBooked(cred)
	}
}

// canPay reports whether an open account can pay amount: its balance, plus
// its creditLimit for a card account, covers it.
func canPay(a *account, amount int64) bool {
	return a != nil && !a.closed && a.balance+a.creditLimit >= amount
}
