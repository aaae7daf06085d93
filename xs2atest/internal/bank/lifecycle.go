package bank

// The lifecycle rules of a payment and a signing basket once created.

// WaitingForSigner reports whether the payment waits for a signature: RCVD,
// or PATC while only some of its signers have signed.
func (p *Payment) WaitingForSigner() bool { return p.Status == "RCVD" || p.Status == "PATC" }

// Hidden refuses status and details of a domestic-norway-credit-transfers
// payment before it is approved (while it waits for a signer): 400
// RESOURCE_UNKNOWN.
func (p *Payment) Hidden() *Error {
	if p.Product == ProductDomesticNorway && p.WaitingForSigner() {
		return Refuse("RESOURCE_UNKNOWN", "paymentId",
			"status and details of this product are unavailable before the payment is approved")
	}
	return nil
}

// cancel cancels the payment (CANC) unless its status is final: 400
// CANCELLATION_INVALID.
func (p *Payment) cancel() *Error {
	if FinalStatus[p.Status] {
		return Refuse("CANCELLATION_INVALID", "paymentId", "the payment has a final status and cannot be cancelled")
	}
	p.Status = "CANC"
	return nil
}

// startAuthorisation starts an authorisation (started) with an id from
// newID for the next signer: 400 STATUS_INVALID unless the payment waits
// for one.
func (p *Payment) startAuthorisation(newID func() string) (*Authorisation, *Error) {
	if !p.WaitingForSigner() {
		return nil, Refuse("STATUS_INVALID", "paymentId", "the payment is not waiting for authorisation")
	}
	a := &Authorisation{ID: newID(), Status: "started"}
	p.Auths[a.ID] = a
	p.AuthOrder = append(p.AuthOrder, a.ID)
	return a, nil
}

// newBasket creates a signing basket (RCVD) of single payments of tpp,
// each received, bound to a PSU, and with a debtor account: 400
// RESOURCE_UNKNOWN for another's or no payment, REFERENCE_MIX_INVALID for a
// bulk or periodic one, REFERENCE_STATUS_INVALID for one in another state.
func (b *Bank) newBasket(tpp string, paymentIDs []string) (*Basket, *Error) {
	for _, id := range paymentIDs {
		p := b.payments[id]
		switch {
		case p == nil || p.TPP != tpp:
			return nil, Refuse("RESOURCE_UNKNOWN", "paymentIds", "unknown payment")
		case p.Service != "payments":
			return nil, Refuse("REFERENCE_MIX_INVALID", "paymentIds", "bulk and periodic payments cannot be put in a signing basket")
		case p.Status != "RCVD" || p.Debtor == "" || !p.Bound():
			return nil, Refuse("REFERENCE_STATUS_INVALID", "paymentIds",
				"every payment must be received, not yet authorised, initiated with a PSU-ID and a debtorAccount")
		}
	}
	bk := &Basket{ID: b.newID(), TPP: tpp, PaymentIDs: append([]string{}, paymentIDs...), Status: "RCVD"}
	b.baskets[bk.ID] = bk
	return bk, nil
}

// delete removes the basket for its TPP (its payments stay as they are):
// 400 CANCELLATION_INVALID once it is authorised, 404 once deleted.
func (bk *Basket) delete() *Error {
	if bk.Deleted {
		return errBasketGone
	}
	if bk.Status != "RCVD" {
		return Refuse("CANCELLATION_INVALID", "basketId", "the basket is authorised already")
	}
	bk.Deleted = true
	return nil
}

// startAuthorisation starts the basket's authorisation with an id from
// newID: 400 STATUS_INVALID unless it waits for one, 404 once deleted.
func (bk *Basket) startAuthorisation(newID func() string) *Error {
	if bk.Deleted {
		return errBasketGone
	}
	if bk.Status != "RCVD" {
		return Refuse("STATUS_INVALID", "basketId", "the basket is not waiting for authorisation")
	}
	bk.AuthID, bk.SCAStatus = newID(), "started"
	return nil
}
