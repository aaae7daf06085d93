package bank

import (
	"slices"
	"strconv"
	"time"
)

// The payment products the bank knows.
const (
	ProductDomestic       = "norwegian-domestic-credit-transfers"
	ProductInstant        = "instant-norwegian-domestic-credit-transfers-straks"
	ProductDomesticNorway = "domestic-norway-credit-transfers"
	ProductCrossBorder    = "cross-border-credit-transfers" // to an iban abroad, with fees
)

type Payment struct {
	ID, Service, Product, TPP string
	Customer, Agreement       string // initiating PSU ("" until bound at SCA); agreement id in corporate context
	Raw                       map[string]any
	Status                    string
	Funds                     *bool
	Entries                   []*Entry
	Debtor                    string      // resource id of the debtor (card) account; "" until the PSU picks it at SCA
	DebtorRef                 *AccountRef // debtorAccount of a payment not bound yet: checked at its SCA
	ExecDate                  time.Time
	DateMoved                 bool // execDate was moved at SCA (see moveExecDate)
	Signers                   []string
	SignersRequired           int
	Fee                       int64
	Auths                     map[string]*Authorisation
	AuthOrder                 []string
	Dupes                     []InvoiceKey
}

// Bound reports whether the payment belongs to a customer: initiated with a
// PSU-ID, or authorised since by the PSU who signed in at its SCA.
func (p *Payment) Bound() bool { return p.Customer != "" }

type Authorisation struct{ ID, Status string } // started, finalised, failed

type InvoiceKey struct{ Creditor, KID, Invoice string }

type Basket struct {
	ID, TPP           string
	PaymentIDs        []string
	Status, SCAStatus string
	AuthID            string
	Deleted           bool // DELETE: gone for the TPP
}

var FinalStatus = map[string]bool{"ACSC": true, "ACCC": true, "RJCT": true, "CANC": true, "PART": true}

// TotalIn is what a payment takes from a debtor account in currency: every
// entry and the fee, converted.
func (p *Payment) TotalIn(currency string) int64 {
	t := Convert(p.Fee, "NOK", currency)
	for _, e := range p.Entries {
		t += Convert(e.Amount, e.Currency, currency)
	}
	return t
}

// Entry is what validation extracts from one payment.
type Entry struct {
	Amount                 int64 // in currency
	Currency               string
	Creditor, CreditorName string // creditor: its BBAN, or for a cross-border payment its IBAN
	Foreign                bool   // a cross-border payment: creditor is an IBAN abroad
	Remittance             string
	KID, Invoice           string
	ExecDate               time.Time
}

// duplicates returns the invoice keys (creditor, KID, invoice number) of
// entries, or without allowDup the refusal of an entry whose invoice a live
// payment (neither cancelled nor rejected) already pays: 400 PAYMENT_FAILED
// at the entry's remittanceInformationStructuredArray. Every earlier payment
// of the invoice counts, not only the latest.
func (b *Bank) duplicates(svc string, entries []*Entry, allowDup bool) ([]InvoiceKey, *Error) {
	var keys []InvoiceKey
	for i, f := range entries {
		if f.KID == "" || f.Invoice == "" {
			continue
		}
		k := InvoiceKey{Creditor: f.Creditor, KID: f.KID, Invoice: f.Invoice}
		if !allowDup && b.invoicePaid(k) {
			path := "remittanceInformationStructuredArray"
			if svc == "bulk-payments" {
				path = "payments[" + strconv.Itoa(i) + "]." + path
			}
			return nil, Refuse("PAYMENT_FAILED", path,
				"logical duplicate: an earlier payment has the same invoice number, KID and creditor; repeat with allowLogicalDuplicate=true if this payment is intended")
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// invoicePaid reports whether a payment of invoice k is live: neither
// cancelled nor rejected.
func (b *Bank) invoicePaid(k InvoiceKey) bool {
	for _, id := range b.dupes[k] {
		if p := b.payments[id]; p != nil && p.Status != "CANC" && p.Status != "RJCT" {
			return true
		}
	}
	return false
}

// FundsCheck: the instant product is executed at authorisation, so a
// payment of it that the debtor account cannot pay (amount and fee) is
// refused before it is created or bound (doc.go, "Lack of funds").
func (b *Bank) fundsCheck(p *Payment, debtorID string) *Error {
	executedAtAuthorisation := p.Product == ProductInstant && !p.ExecDate.After(DateOf(b.now()))
	a := b.accounts[debtorID]
	if executedAtAuthorisation && a != nil && !CanPay(a, p.TotalIn(a.Currency)) {
		return Refuse("FUNDS_NOT_AVAILABLE", "instructedAmount",
			"insufficient funds: the debtorAccount cannot pay the amount and the fee of this instant payment")
	}
	return nil
}

// contextAccounts lists the open accounts and card accounts of a
// context: a private customer's own (ag nil), or the accounts of the
// agreement a corporate PSU acts for. The PSU may consent to them and pay
// from them (docs/interface.md, Sandbox: payments from card accounts are supported).
func (b *Bank) contextAccounts(customerNumber string, ag *Agreement) []string {
	var ids []string
	if ag != nil {
		ids = ag.Accounts
	} else if c := b.customers[customerNumber]; c != nil && c.Kind == CustomerPrivate {
		ids = c.Accounts
	}
	var out []string
	for _, id := range ids {
		if a := b.accounts[id]; a != nil && !a.Closed {
			out = append(out, id)
		}
	}
	return out
}

// debtorOf finds the account a debtorAccount names (bban, iban or a
// card account's maskedPan) among those the customer may pay from in the
// context ag (nil: private): 400 FORMAT_ERROR when it names none of them or
// gives another currency.
func (b *Bank) debtorOf(customerNumber string, ag *Agreement, ref *AccountRef) (*Account, *Error) {
	for _, id := range b.contextAccounts(customerNumber, ag) {
		a := b.accounts[id]
		if !a.Is(ref) {
			continue
		}
		if ref.Currency != "" && ref.Currency != a.Currency {
			return nil, FormatErr("debtorAccount.currency", "debtorAccount currency does not match the account")
		}
		if a.NoPayments {
			return nil, errNoPayments
		}
		return a, nil
	}
	return nil, FormatErr("debtorAccount", "debtorAccount is not an account the PSU may pay from")
}

// signPayment records a signature: PDNG when all required (distinct)
// signers have signed, as production banks answer until they execute the
// payment (ACWC when the execution date had to move), PATC before that.
// Instant payments execute at once. An authorised e-invoice is processed at
// the invoice scheme.
func (b *Bank) signPayment(p *Payment, customerNumber string) {
	if p.Status != "RCVD" && p.Status != "PATC" {
		return
	}
	if !slices.Contains(p.Signers, customerNumber) {
		p.Signers = append(p.Signers, customerNumber)
	}
	if len(p.Signers) < p.SignersRequired {
		p.Status = "PATC"
		return
	}
	p.Status = "PDNG"
	if b.moveExecDate(p) {
		p.Status = "ACWC" // accepted with a change: the date
	}
	b.processInvoices(p)
	if p.Product == ProductInstant && !p.ExecDate.After(DateOf(b.now())) {
		b.execute(p, b.now())
	}
}

// moveExecDate moves the requestedExecutionDate of a single or bulk
// payment that is no longer possible when its last signer signs (in the
// past by now, or not a banking day) to the next banking day from today,
// and reports whether it moved it. An instant payment runs every day: only
// a past date moves, to today. Status and details then report the new
// date.
func (b *Bank) moveExecDate(p *Payment) bool {
	if p.ExecDate.IsZero() || p.Service == "periodic-payments" {
		return false
	}
	d := p.ExecDate
	if today := DateOf(b.now()); d.Before(today) {
		d = today
	}
	if p.Product != ProductInstant { // instant payments run every day
		d = NextBankingDay(d)
	}
	if d.Equal(p.ExecDate) {
		return false
	}
	p.ExecDate, p.DateMoved = d, true
	for _, e := range p.Entries {
		e.ExecDate = d
	}
	return true
}

// processInvoices marks the invoices an authorised payment pays as
// processed at the invoice scheme: an e-invoice payment (CINV and SCOR).
func (b *Bank) processInvoices(p *Payment) {
	for _, e := range p.Entries {
		if e.Invoice != "" {
			b.processed[e.Invoice] = true
		}
	}
}

// Initiation is a payment initiation the HTTP face has parsed and
// validated field by field.
type Initiation struct {
	Service, Product, TPP string
	Customer              string     // the initiating PSU; "" leaves the payment unbound until its SCA
	Agreement             *Agreement // the corporate agreement the PSU acts for, or nil
	Entries               []*Entry   // one, or a bulk payment's
	DebtorRef             *AccountRef
	AllowDuplicate        bool           // allowLogicalDuplicate=true
	Raw                   map[string]any // the body, as GET shows it
}

// initiate creates a payment (RCVD). A bound payment's debtorAccount must
// be an account its PSU may pay from; an unbound one's is checked at its
// SCA. It refuses a logical duplicate (unless allowed) and an instant
// payment the debtor cannot pay.
func (b *Bank) initiate(in Initiation) (*Payment, *Error) {
	p := &Payment{Service: in.Service, Product: in.Product, TPP: in.TPP, Customer: in.Customer, Status: "RCVD",
		Auths: map[string]*Authorisation{}, SignersRequired: 1, Raw: in.Raw}
	if in.Agreement != nil {
		p.Agreement, p.SignersRequired = in.Agreement.ID, in.Agreement.SignersRequired
	}
	if e := b.resolveDebtor(p, in); e != nil {
		return nil, e
	}
	dupes, e := b.duplicates(in.Service, in.Entries, in.AllowDuplicate)
	if e != nil {
		return nil, e
	}
	p.Dupes, p.Entries, p.ExecDate = dupes, in.Entries, in.Entries[0].ExecDate
	p.Fee = FeeOf(p.Product, p.Entries, b.debtorCurrency(p, in.DebtorRef))
	if e := b.fundsCheck(p, p.Debtor); e != nil {
		return nil, e
	}
	p.ID = b.newID()
	b.payments[p.ID] = p
	b.paymentOrder = append(b.paymentOrder, p.ID)
	for _, k := range p.Dupes {
		b.dupes[k] = append(b.dupes[k], p.ID)
	}
	return p, nil
}

// resolveDebtor sets the debtor of a bound payment, or keeps the
// debtorAccount of an unbound one for its SCA.
func (b *Bank) resolveDebtor(p *Payment, in Initiation) *Error {
	ref := in.DebtorRef
	switch {
	case ref == nil:
	case in.Customer == "":
		if ref.BBAN == "" && ref.IBAN == "" && ref.MaskedPan == "" {
			return FormatErr("debtorAccount", "debtorAccount names no account (bban, iban or maskedPan)")
		}
		p.DebtorRef = ref
	default:
		a, err := b.debtorOf(in.Customer, in.Agreement, ref)
		if err != nil {
			return err
		}
		p.Debtor = a.ID
	}
	return nil
}
