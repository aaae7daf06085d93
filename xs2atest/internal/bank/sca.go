package bank

import (
	"slices"
	"time"
)

// What an SCA decides once the PSU has signed in and chosen its context:
// who is registered, which session opens, what is consented and signed.
// The pages that ask are the HTTP face's.

// SCA is a PSU's sign-in at an SCA: for which TPP (and the psu-id it gets
// there), under which TPP-Session-ID, in which context.
type SCA struct {
	TPP, PSUID, Customer, SessionID string
	Agreement                       string // the agreement the PSU acts for; "" private
}

// register records the PSU for the TPP and opens the session of the SCA's
// TPP-Session-ID for an hour; an older session ends. An SCA without a
// TPP-Session-ID (a payment's, say) is of no new session: it leaves a
// valid session of another id as it is (docs/interface.md CS4: the old id
// ends when the SCA of a new TPP-Session-ID completes).
func (b *Bank) register(s SCA) {
	b.psus[s.PSUID] = &PSU{TPP: s.TPP, Customer: s.Customer, Corporate: s.Agreement != ""}
	k := SessionKey{TPP: s.TPP, Customer: s.Customer}
	if old := b.sessions[k]; s.SessionID == "" && old != nil && old.ID != "" && b.now().Before(old.Expires) {
		return
	}
	b.sessions[k] = &Session{ID: s.SessionID, Expires: b.now().Add(SessionValidity)}
}

// CompleteUser ends a registration SCA: the PSU is known to the TPP.
func (b *Bank) CompleteUser(s SCA) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.register(s)
}

// CompleteConsent ends a consent SCA: the PSU is registered and its consent
// in the context holds exactly the ticked accounts, granted now. 400
// FORMAT_ERROR, nothing changed, when one was not offered
// (ContextAccounts).
func (b *Bank) CompleteConsent(s SCA, ticked []string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	offered := b.contextAccounts(s.Customer, b.agreementOf(s.Agreement))
	for _, id := range ticked {
		if !slices.Contains(offered, id) {
			return FormatErr("account", "an account that was not offered was ticked")
		}
	}
	b.register(s)
	c := &Consent{Accounts: map[string]time.Time{}}
	for _, id := range ticked {
		c.Accounts[id] = b.now()
	}
	b.consents[ConsentKey{TPP: s.TPP, Customer: s.Customer, Agreement: s.Agreement}] = c
	return nil
}

// errNotBindable: the payment initiated without PSU-ID is bound to another
// PSU by now, or has left RCVD.
var errNotBindable = &Error{Status: 401, Code: "SCA_INVALID",
	Text: "The payment can no longer be authorised by this PSU."}

// CompletePayment ends the authorisation authID of a payment: the PSU is
// registered, the authorisation finalised and the payment signed by it
// (SignPayment's rules). With bind the SCA binds a payment initiated
// without PSU-ID to the PSU and its context; one bound since gets 401
// SCA_INVALID and a failed authorisation, nothing else changed. debtor is
// the account chosen at SCA for a payment that had none.
func (b *Bank) CompletePayment(s SCA, paymentID, authID string, bind bool, debtor string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[paymentID]
	if p == nil || p.Auths[authID] == nil {
		return errGone
	}
	if bind && p.Bound() {
		b.failSCA(paymentID, authID, "")
		return errNotBindable
	}
	b.register(s)
	p.Auths[authID].Status = "finalised"
	if bind && p.Status == "RCVD" {
		p.Customer = s.Customer
		if ag := b.agreementOf(s.Agreement); ag != nil {
			p.Agreement, p.SignersRequired = ag.ID, ag.SignersRequired
		}
	}
	if p.Debtor == "" {
		p.Debtor = debtor
	}
	if a := b.accounts[p.Debtor]; a != nil && a.NoPayments {
		b.failSCA(paymentID, authID, "")
		return errNoPayments
	}
	b.signPayment(p, s.Customer)
	return nil
}

// CompleteBasket ends a signing basket's authorisation: the PSU is
// registered, every payment of the basket signed by it, the basket ACTC.
// A basket deleted meanwhile is left as it is.
func (b *Bank) CompleteBasket(s SCA, basketID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bk := b.baskets[basketID]
	if bk == nil || bk.Deleted {
		return
	}
	b.register(s)
	bk.SCAStatus = "finalised"
	for _, id := range bk.PaymentIDs {
		b.signPayment(b.payments[id], s.Customer)
	}
	bk.Status = "ACTC"
}

// FailSCA marks the authorisation of an SCA that ended without success
// failed: the payment's authID, or the basket's.
func (b *Bank) FailSCA(paymentID, authID, basketID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failSCA(paymentID, authID, basketID)
}

func (b *Bank) failSCA(paymentID, authID, basketID string) {
	if p := b.payments[paymentID]; p != nil {
		if a := p.Auths[authID]; a != nil {
			a.Status = "failed"
		}
	}
	if bk := b.baskets[basketID]; bk != nil {
		bk.SCAStatus = "failed"
	}
}

// MaySign checks, at sign-in, that the customer may sign each payment: it
// waits for a signer (400 STATUS_INVALID), and a bound one is the
// customer's own or of an agreement the customer is a member of (403
// PSU_CREDENTIALS_INVALID). A payment not bound yet is checked by Bind.
// The texts are for the PSU.
func (b *Bank) MaySign(paymentIDs []string, customerNumber string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range paymentIDs {
		p := b.payments[id]
		if p == nil {
			return errGone
		}
		if !p.WaitingForSigner() {
			return Refuse("STATUS_INVALID", "paymentId", "The payment can no longer be authorised (status "+p.Status+").")
		}
		if !b.maySign(p, customerNumber) {
			return &Error{Status: 403, Code: "PSU_CREDENTIALS_INVALID", Path: "paymentId",
				Text: "This customer has no payment permission on the debtor account."}
		}
	}
	return nil
}

func (b *Bank) maySign(p *Payment, customerNumber string) bool {
	if !p.Bound() {
		return true
	}
	if p.Agreement != "" {
		ag := b.agreements[p.Agreement]
		return ag != nil && slices.Contains(ag.Members, customerNumber)
	}
	return p.Customer == customerNumber
}

// Bind checks a payment initiated without PSU-ID for the PSU who signed in
// at its SCA, in the context it chose, as Initiate checks one with a
// PSU-ID: its debtorAccount must be an account the PSU may pay from there,
// and an instant payment must be payable. It returns that account's id, ""
// when the payment names no debtor (the PSU picks one). On a refusal the
// payment is rejected (RJCT) and the authorisation failed; a payment bound
// since, or no longer RCVD, gets 401 SCA_INVALID and only the failed
// authorisation.
func (b *Bank) Bind(s SCA, paymentID, authID string) (debtor string, e *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[paymentID]
	if p == nil {
		return "", errGone
	}
	if p.Bound() || p.Status != "RCVD" {
		b.failSCA(paymentID, authID, "")
		return "", errNotBindable
	}
	if p.DebtorRef == nil {
		return "", nil
	}
	a, e := b.debtorOf(s.Customer, b.agreementOf(s.Agreement), p.DebtorRef)
	if e == nil {
		if e = b.fundsCheck(p, a.ID); e != nil {
			funds := false
			p.Funds = &funds
		}
	}
	if e != nil {
		b.failSCA(paymentID, authID, "")
		p.Status = "RJCT"
		return "", e
	}
	return a.ID, nil
}
