package bank

import (
	"strings"
	"time"
)

// The sandbox's simulated batch processing: 5 runs a day (docs/interface.md
// "Sandbox", "Limits") at these hours, Europe/Oslo. Periodic payments are
// not processed.
var batchHours = []int{6, 9, 12, 15, 18}

func (b *Bank) catchUp() {
	now := b.now()
	if !now.After(b.lastBatch) {
		return
	}
	day := DateOf(b.lastBatch)
	for i := 0; i < 3700 && !day.After(DateOf(now)); i++ {
		for _, h := range batchHours {
			t := time.Date(day.Year(), day.Month(), day.Day(), h, 0, 0, 0, Oslo)
			if t.After(b.lastBatch) && !t.After(now) {
				b.runBatch(t)
			}
		}
		day = day.AddDate(0, 0, 1)
	}
	b.lastBatch = now
}

// executable are the statuses a batch run books when the date has come.
var executable = map[string]bool{"PDNG": true, "ACWC": true, "ACCP": true}

func (b *Bank) runBatch(at time.Time) {
	today := DateOf(at)
	for _, id := range b.paymentOrder {
		p := b.payments[id]
		if p.Service == "periodic-payments" || !executable[p.Status] || p.ExecDate.After(today) {
			continue
		}
		b.execute(p, at)
	}
}

// execute books a payment if the debtor has the funds: ACSC; else ACCP
// with fundsAvailable false. A bulk payment is booked whole or not at all.
// A card account pays like an account, its balance going down to minus its
// creditLimit (funds: balance + creditLimit).
func (b *Bank) execute(p *Payment, at time.Time) {
	debtor := b.accounts[p.Debtor]
	ok := debtor != nil && CanPay(debtor, p.TotalIn(debtor.Currency))
	p.Funds = &ok
	if !ok {
		p.Status = "ACCP"
		return
	}
	day := DateOf(at)
	for _, e := range p.Entries {
		b.bookEntry(debtor, e, day)
	}
	if p.Fee > 0 {
		fee := Convert(p.Fee, "NOK", debtor.Currency)
		debtor.Balance -= fee
		debtor.Booked = append(debtor.Booked, &Transaction{ID: b.newID(), BookingDate: day, ValueDate: day,
			TransactionDate: day, Amount: -fee, Currency: debtor.Currency, Remittance: FeeText(p.Product),
			Code: "GEBYR", OrigAmount: -fee, OrigCurrency: debtor.Currency, Details: FeeText(p.Product)})
	}
	SortBooked(debtor)
	p.Status = "ACSC"
}

// bookEntry books one payment entry on day: debited from the debtor
// in its currency (converted from a cross-border payment's own, which
// stays the original amount), credited to a creditor account the bank
// holds.
func (b *Bank) bookEntry(debtor *Account, e *Entry, day time.Time) {
	debit := Convert(e.Amount, e.Currency, debtor.Currency)
	debtor.Balance -= debit
	t := &Transaction{ID: b.newID(), BookingDate: day, ValueDate: day, TransactionDate: day, Amount: -debit,
		Currency: debtor.Currency, CreditorName: e.CreditorName,
		DebtorName: b.ownerName(debtor), DebtorBBAN: debtor.BBAN, Remittance: e.Remittance, Code: "OVERFØRSEL",
		OrigAmount: -e.Amount, OrigCurrency: e.Currency}
	if e.Foreign {
		t.CreditorIBAN = e.Creditor
		t.Exchange = ExchangeOf(e.Currency, debtor.Currency, contractOf(t.ID), day)
	} else {
		t.CreditorBBAN = e.Creditor
	}
	if debtor.Card {
		t.Details = e.CreditorName // what a card account's transaction shows
	}
	if e.KID != "" {
		t.Info = "KID " + e.KID
	}
	debtor.Booked = append(debtor.Booked, t)
	if cred := b.byBBAN[t.CreditorBBAN]; cred != nil && !cred.Closed {
		cred.Balance += e.Amount
		ct := *t
		ct.ID, ct.Amount, ct.OrigAmount, ct.Details = b.newID(), e.Amount, e.Amount, ""
		cred.Booked = append(cred.Booked, &ct)
		SortBooked(cred)
	}
}

// contractOf is the bank's contract id of the currency exchange booked in
// the transaction with this id (Max35Text).
func contractOf(transactionID string) string {
	id := strings.TrimPrefix(transactionID, "enc!!")
	return "FX-" + strings.NewReplacer("+", "", "/", "", "=", "").Replace(id)[:min(12, len(id))]
}

// CanPay reports whether an open account can pay amount: its balance, plus
// its creditLimit for a card account, covers it.
func CanPay(a *Account, amount int64) bool {
	return a != nil && !a.Closed && a.Balance+a.CreditLimit >= amount
}
