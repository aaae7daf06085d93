package bank

import "slices"

// The sandbox's mock-data changes beyond creation: what the platform
// documents (several transactions in one call, engagements added to an
// agreement, a balance set) and what the fake bank adds (a customer, an
// account, an agreement or a transaction changed in place). The face checks
// the form of each field; these methods check what needs the bank's state.

// AccountChange is the change to an account: the fields that are not nil
// are set. A booked balance is set with SetBalance.
type AccountChange struct {
	Name, Product, Kind, MaskedPan *string
	CreditLimit                    *int64
}

// UpdateCustomer renames the customer and returns a copy. A customer's kind
// never changes: 400 FORMAT_ERROR naming path when kind is given and differs.
// 404 RESOURCE_UNKNOWN for no customer.
func (b *Bank) UpdateCustomer(number, kind, name, path string) (Customer, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.customers[number]
	switch {
	case c == nil:
		return Customer{}, Unknown("customerNumber", "unknown customer")
	case kind != "" && kind != c.Kind:
		return Customer{}, FormatErr(path, "a customer's type cannot change: create another customer")
	}
	c.Name = name
	return c.clone(), nil
}

// UpdateAccount applies ch to the account and returns a copy: 404
// RESOURCE_UNKNOWN for no account, 400 FORMAT_ERROR when card says it is (or
// is not) a card account and it is not (or is), or when ch sets a card
// field of an account that is no card account.
func (b *Bank) UpdateAccount(id string, card bool, ch AccountChange) (Account, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[id]
	switch {
	case a == nil:
		return Account{}, Unknown("mockAccountId", "unknown account")
	case a.Card != card && card:
		return Account{}, Unknown("mockCardAccountId", "unknown card account")
	case a.Card != card:
		return Account{}, FormatErr("mockAccountId", "a card account is changed with PUT /v1/sandbox/card-accounts/{mockCardAccountId}")
	}
	for _, f := range []struct {
		dst *string
		src *string
	}{{&a.Name, ch.Name}, {&a.Product, ch.Product}, {&a.Kind, ch.Kind}, {&a.MaskedPan, ch.MaskedPan}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if ch.CreditLimit != nil {
		a.CreditLimit = *ch.CreditLimit
	}
	return a.clone(), nil
}

// AccountByRef is a copy of the account ref names (bban, iban or
// maskedPan, see Account.Is); false for none.
func (b *Bank) AccountByRef(ref AccountRef) (Account, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range b.accountOrder {
		if a := b.accounts[id]; a.Is(&ref) {
			return a.clone(), true
		}
	}
	return Account{}, false
}

// UpdateAgreement sets the agreement's name, accounts, signers and members
// (the face has checked them against its owner) and returns a copy; the
// owner stays a member. 404 RESOURCE_UNKNOWN for no agreement.
func (b *Bank) UpdateAgreement(id, name string, accounts []string, signers int, members []string) (Agreement, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ag := b.agreements[id]
	if ag == nil {
		return Agreement{}, Unknown("mockAgreementId", "unknown agreement")
	}
	ag.Name, ag.Accounts, ag.SignersRequired = name, slices.Clone(accounts), signers
	ag.Members = []string{ag.Owner}
	for _, m := range members {
		if !slices.Contains(ag.Members, m) {
			ag.Members = append(ag.Members, m)
		}
	}
	return ag.clone(), nil
}

// Engage adds accounts and members to the agreement (each once) and returns
// a copy: the engagements of POST
// /v1/sandbox/agreements/{mockAgreementId}/engagements, checked by the face.
// 404 RESOURCE_UNKNOWN for no agreement.
func (b *Bank) Engage(id string, accounts, members []string) (Agreement, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ag := b.agreements[id]
	if ag == nil {
		return Agreement{}, Unknown("mockAgreementId", "unknown agreement")
	}
	for _, a := range accounts {
		if !slices.Contains(ag.Accounts, a) {
			ag.Accounts = append(ag.Accounts, a)
		}
	}
	for _, m := range members {
		if !slices.Contains(ag.Members, m) {
			ag.Members = append(ag.Members, m)
		}
	}
	return ag.clone(), nil
}

// AddTransactions adds every one of ts, each with a new id, to the account
// in one step (pending[i] for ts[i]; booked ones move the balance) and
// returns them. 404 RESOURCE_UNKNOWN for no account.
func (b *Bank) AddTransactions(accountID string, ts []Transaction, pending []bool) ([]Transaction, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[accountID]
	if a == nil {
		return nil, Unknown("mockAccountId", "unknown account")
	}
	out := make([]Transaction, len(ts))
	for i := range ts {
		t := ts[i]
		t.ID = b.newID()
		b.addTransaction(a, &t, pending[i])
		out[i] = t
	}
	return out, nil
}

// ReplaceTransaction puts t, with the id txID, in place of the account's
// transaction txID, booked or pending as pending says: the balance loses
// the old booked amount and gains the new one. 404 RESOURCE_UNKNOWN for no
// account or no such transaction.
func (b *Bank) ReplaceTransaction(accountID, txID string, t Transaction, pending bool) (Transaction, *Error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.accounts[accountID]
	if a == nil {
		return Transaction{}, Unknown("mockAccountId", "unknown account")
	}
	if i := slices.IndexFunc(a.Booked, func(x *Transaction) bool { return x.ID == txID }); i >= 0 {
		a.Balance -= a.Booked[i].Amount
		a.Booked = slices.Delete(a.Booked, i, i+1)
	} else if i := slices.IndexFunc(a.Pending, func(x *Transaction) bool { return x.ID == txID }); i >= 0 {
		a.Pending = slices.Delete(a.Pending, i, i+1)
	} else {
		return Transaction{}, Unknown("transactionId", "unknown transaction")
	}
	t.ID = txID
	b.addTransaction(a, &t, pending)
	return t, nil
}
