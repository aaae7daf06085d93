package bank

import (
	"maps"
	"slices"
	"strconv"
)

// The bank's exported methods: each takes the bank's lock for one whole
// step and returns values or copies, so a caller never holds the lock and
// never changes the bank's state through what it got.

// Reset empties the bank and fills it with the sandbox data again, as
// POST /v1/sandbox/initialize does; ids repeat for the same seed.
func (b *Bank) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reset()
}

// NewToken is an SCA token: base64url of 18 random bytes, safe in a path.
func (b *Bank) NewToken() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.newToken()
}

// CatchUp runs, lazily, every batch that was due since the last call (on
// the bank's clock).
func (b *Bank) CatchUp() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.catchUp()
}

// RunBatch runs the batches that were due, then one batch now.
func (b *Bank) RunBatch() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.catchUp()
	b.runBatch(b.now())
}

// CustomerNumbers lists the customers' numbers in creation order.
func (b *Bank) CustomerNumbers() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.customerOrder)
}

// Customer is a copy of the customer with this number.
func (b *Bank) Customer(number string) (Customer, bool) {
	return cloneOf(b, func() *Customer { return b.customers[number] }, (*Customer).clone)
}

// OwnerName is the name of the customer with this number ("" for none).
func (b *Bank) OwnerName(customerNumber string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ownerName(&Account{Owner: customerNumber})
}

// Account is a copy of the account with this resource id, its
// transactions included.
func (b *Bank) Account(id string) (Account, bool) {
	return cloneOf(b, func() *Account { return b.accounts[id] }, (*Account).clone)
}

// Accounts is a copy of every account (closed ones too), in creation
// order.
func (b *Bank) Accounts() []Account {
	return clonesOf(b, func() ([]string, map[string]*Account) { return b.accountOrder, b.accounts }, (*Account).clone)
}

// Agreement is a copy of the agreement with this id.
func (b *Bank) Agreement(id string) (Agreement, bool) {
	return cloneOf(b, func() *Agreement { return b.agreements[id] }, (*Agreement).clone)
}

// Agreements is a copy of every agreement, in creation order.
func (b *Bank) Agreements() []Agreement {
	return clonesOf(b, func() ([]string, map[string]*Agreement) { return b.agreementOrder, b.agreements }, (*Agreement).clone)
}

// AddCustomer creates a customer (a corporate one with a default
// agreement): 400 FORMAT_ERROR when the number is taken.
func (b *Bank) AddCustomer(number, kind, name string) (Customer, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.customers[number] != nil {
		return Customer{}, FormatErr("customerNumber", "a customer with this number exists")
	}
	return b.addCustomer(number, kind, name).clone(), nil
}

// AddAccount opens account a for the customer: a new resource id, a new
// bban unless a gives one, a maskedPan for a card account that gives none.
// 400 FORMAT_ERROR for an unknown customer or a bban taken.
func (b *Bank) AddAccount(customerNumber string, a Account) (Account, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.customers[customerNumber]
	switch {
	case c == nil:
		return Account{}, FormatErr("customerNumber", "unknown customer")
	case a.BBAN != "" && b.byBBAN[a.BBAN] != nil:
		return Account{}, FormatErr("bban", "an account with this bban exists")
	}
	if a.Card && a.MaskedPan == "" {
		a.MaskedPan = "5412" + "75******" + strconv.Itoa(1000+b.intN(9000))
	}
	return b.addAccount(c, &a).clone(), nil
}

// AddAgreement creates an agreement of owner over accounts, signed by
// signers of members; the caller has checked them.
func (b *Bank) AddAgreement(owner, name string, accounts []string, signers int, members []string) Agreement {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addAgreement(owner, name, slices.Clone(accounts), signers, slices.Clone(members)).clone()
}

// AddTransaction adds t, with a new id, to the account: pending, or booked
// (the balance moves by its amount). 404 RESOURCE_UNKNOWN for no account.
func (b *Bank) AddTransaction(accountID string, t Transaction, pending bool) (Transaction, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[accountID]
	if a == nil {
		return Transaction{}, Unknown("mockAccountId", "unknown account")
	}
	t.ID = b.newID()
	b.addTransaction(a, &t, pending)
	return t, nil
}

// CloseAccount closes the account; false when there is none.
func (b *Bank) CloseAccount(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[id]
	if a != nil {
		a.Closed = true
	}
	return a != nil
}

// SetBalance sets the account's booked balance and returns a copy of it;
// false when there is no such account.
func (b *Bank) SetBalance(id string, balance int64) (Account, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[id]
	if a == nil {
		return Account{}, false
	}
	a.Balance = balance
	return a.clone(), true
}

// PSU is the PSU with this psu-id, registered at a completed SCA.
func (b *Bank) PSU(psuID string) (PSU, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.psus[psuID]
	if p == nil {
		return PSU{}, false
	}
	return *p, true
}

// SessionValid reports whether the PSU's SCA session for the TPP is the one
// of TPP-Session-ID sessionID and still within its hour.
func (b *Bank) SessionValid(k SessionKey, sessionID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sessionValid(k, sessionID)
}

// Consent is a copy of the consent of k.
func (b *Bank) Consent(k ConsentKey) (Consent, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.consents[k]
	if c == nil {
		return Consent{}, false
	}
	return Consent{Accounts: maps.Clone(c.Accounts), Online: maps.Clone(c.Online), Revoked: c.Revoked}, true
}

// AccessedOnline records, on the consent of k, a request for the account
// made with the PSU present under a valid SCA session.
func (b *Bank) AccessedOnline(k ConsentKey, accountID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c := b.consents[k]; c != nil {
		c.accessedOnline(accountID, b.now())
	}
}

// CountUsage counts a request made without the PSU present: 429
// ACCESS_EXCEEDED, not counted, once MaxNotPresent were made in the last 24
// hours.
func (b *Bank) CountUsage(k UsageKey) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.countUsage(k)
}

// RevokeConsents revokes every consent the customer gave to any TPP, as a
// PSU may at the bank without notice to the TPP.
func (b *Bank) RevokeConsents(customerNumber string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.revokeConsents(customerNumber)
}

// ExpireSessions ends every SCA session of the customer now.
func (b *Bank) ExpireSessions(customerNumber string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expireSessions(customerNumber)
}

// ContextAccounts lists the open accounts and card accounts a PSU may
// consent to and pay from: a private customer's own (agreementID ""), or
// those of the agreement a corporate PSU acts for.
func (b *Bank) ContextAccounts(customerNumber, agreementID string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.contextAccounts(customerNumber, b.agreementOf(agreementID)))
}

// agreementOf is the agreement with this id, nil for "" or none.
func (b *Bank) agreementOf(id string) *Agreement {
	if id == "" {
		return nil
	}
	return b.agreements[id]
}

// Initiate creates a payment (RCVD) and returns a copy; see initiate.
func (b *Bank) Initiate(in Initiation) (Payment, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, e := b.initiate(in)
	if e != nil {
		return Payment{}, e
	}
	return p.clone(), nil
}

// Payment is a copy of the payment with this id.
func (b *Bank) Payment(id string) (Payment, bool) {
	return cloneOf(b, func() *Payment { return b.payments[id] }, (*Payment).clone)
}

// PeriodicFrom is a copy of every periodic payment from the account, in
// creation order.
func (b *Bank) PeriodicFrom(accountID string) []Payment {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Payment
	for _, id := range b.paymentOrder {
		if p := b.payments[id]; p.Service == "periodic-payments" && p.Debtor == accountID {
			out = append(out, p.clone())
		}
	}
	return out
}

// PaymentCount is the number of payments the bank holds, any status.
func (b *Bank) PaymentCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.payments)
}

// InvoiceProcessed reports whether an authorised payment paid the invoice
// with this number: processed at the invoice scheme.
func (b *Bank) InvoiceProcessed(invoiceNumber string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.processed[invoiceNumber]
}

// CancelPayment cancels the payment (CANC) unless its status is final: 400
// CANCELLATION_INVALID; 404 RESOURCE_UNKNOWN for no payment.
func (b *Bank) CancelPayment(id string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[id]
	if p == nil {
		return Unknown("paymentId", "unknown payment")
	}
	return p.cancel()
}

// StartAuthorisation starts an authorisation (started) of the payment for
// its next signer: 400 STATUS_INVALID unless it waits for one.
func (b *Bank) StartAuthorisation(paymentID string) (Authorisation, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[paymentID]
	if p == nil {
		return Authorisation{}, Unknown("paymentId", "unknown payment")
	}
	a, e := p.startAuthorisation(b.newID)
	if e != nil {
		return Authorisation{}, e
	}
	return *a, nil
}

// NewBasket creates a signing basket (RCVD) of payments of tpp and returns
// a copy; see newBasket.
func (b *Bank) NewBasket(tpp string, paymentIDs []string) (Basket, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk, e := b.newBasket(tpp, paymentIDs)
	if e != nil {
		return Basket{}, e
	}
	return bk.clone(), nil
}

// Basket is a copy of the signing basket with this id (a deleted one too).
func (b *Bank) Basket(id string) (Basket, bool) {
	return cloneOf(b, func() *Basket { return b.baskets[id] }, (*Basket).clone)
}

// DeleteBasket removes the basket for its TPP (its payments stay as they
// are): 400 CANCELLATION_INVALID once it is authorised.
func (b *Bank) DeleteBasket(id string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.baskets[id]
	if bk == nil {
		return Unknown("basketId", "unknown signing basket")
	}
	return bk.delete()
}

// StartBasketAuthorisation starts the basket's authorisation and returns a
// copy of the basket: 400 STATUS_INVALID unless it waits for one.
func (b *Bank) StartBasketAuthorisation(id string) (Basket, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.baskets[id]
	if bk == nil {
		return Basket{}, Unknown("basketId", "unknown signing basket")
	}
	if e := bk.startAuthorisation(b.newID); e != nil {
		return Basket{}, e
	}
	return bk.clone(), nil
}

// cloneOf is, under the lock, a copy of the record get finds; false for
// none.
func cloneOf[T, C any](b *Bank, get func() *T, clone func(*T) C) (C, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := get(); t != nil {
		return clone(t), true
	}
	var none C
	return none, false
}

// clonesOf is, under the lock, a copy of every record of the map that
// records gives, in the order it gives.
func clonesOf[T, C any](b *Bank, records func() ([]string, map[string]*T), clone func(*T) C) []C {
	b.mu.Lock()
	defer b.mu.Unlock()
	order, byID := records()
	out := make([]C, 0, len(order))
	for _, id := range order {
		out = append(out, clone(byID[id]))
	}
	return out
}
