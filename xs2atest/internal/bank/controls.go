package bank

// Controls a test uses to make the bank do what production banks do in
// other channels: withdraw a payment right, change or cancel a payment.

// errNoPayments refuses a payment from an account whose payment right is
// withdrawn: 403 SERVICE_BLOCKED at the debtorAccount.
var errNoPayments = &Error{Status: 403, Code: "SERVICE_BLOCKED", Path: "debtorAccount",
	Text: "payments from this account are not allowed; it stays available for account information"}

// WithdrawPaymentRights withdraws (or, with false, restores) the right to
// pay from the account: it stays listed and readable, but a payment naming
// it as debtorAccount gets 403 SERVICE_BLOCKED. False for no such account.
func (b *Bank) WithdrawPaymentRights(id string, withdrawn bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[id]
	if a == nil {
		return false
	}
	a.NoPayments = withdrawn
	return true
}

// CancelElsewhere cancels the payment as the PSU would in the bank's own
// channels: CANC under the same id, unless its status is final (400
// CANCELLATION_INVALID); 404 RESOURCE_UNKNOWN for no payment.
func (b *Bank) CancelElsewhere(id string) *Error {
	return b.CancelPayment(id)
}

// ChangeElsewhere changes the amount of a single payment's only entry
// (amount in minor units), as the PSU would in the bank's own channels,
// keeping its id and status: the payment's reads show the new amount. 400
// STATUS_INVALID once it is final or for a bulk payment; 404 for no
// payment.
func (b *Bank) ChangeElsewhere(id string, amount int64, formatted string) *Error {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[id]
	switch {
	case p == nil:
		return Unknown("paymentId", "unknown payment")
	case FinalStatus[p.Status] || len(p.Entries) != 1:
		return Refuse("STATUS_INVALID", "paymentId", "the payment cannot be changed")
	}
	p.Entries[0].Amount = amount
	raw := make(map[string]any, len(p.Raw))
	for k, v := range p.Raw {
		raw[k] = v
	}
	raw["instructedAmount"] = map[string]any{"currency": p.Entries[0].Currency, "amount": formatted}
	p.Raw = raw
	return nil
}

// Exempt signs a payment without SCA, as when the bank applies an SCA
// exemption: the payment must be bound and have its debtor account (no SCA
// to pick one), and wait for its first signer. It reports whether it did.
func (b *Bank) Exempt(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.payments[id]
	if p == nil || !p.Bound() || p.Debtor == "" || p.Status != "RCVD" || p.SignersRequired > 1 {
		return false
	}
	b.signPayment(p, p.Customer)
	return true
}
