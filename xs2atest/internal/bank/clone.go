package bank

import (
	"maps"
	"slices"
)

// Deep copies of the bank's records, for the exported methods to hand out.

func (c *Customer) clone() Customer {
	out := *c
	out.Accounts = slices.Clone(c.Accounts)
	return out
}

func (a *Account) clone() Account {
	out := *a
	out.Booked, out.Pending = cloneTransactions(a.Booked), cloneTransactions(a.Pending)
	return out
}

func cloneTransactions(ts []*Transaction) []*Transaction {
	out := make([]*Transaction, len(ts))
	for i, t := range ts {
		c := *t
		c.Proprietary = slices.Clone(t.Proprietary)
		out[i] = &c
	}
	return out
}

func (ag *Agreement) clone() Agreement {
	out := *ag
	out.Accounts, out.Members = slices.Clone(ag.Accounts), slices.Clone(ag.Members)
	return out
}

// clone copies the payment; Raw, the body as received, is never changed
// and stays shared.
func (p *Payment) clone() Payment {
	out := *p
	if p.Funds != nil {
		f := *p.Funds
		out.Funds = &f
	}
	if p.DebtorRef != nil {
		r := *p.DebtorRef
		out.DebtorRef = &r
	}
	out.Entries = make([]*Entry, len(p.Entries))
	for i, e := range p.Entries {
		c := *e
		out.Entries[i] = &c
	}
	out.Auths = make(map[string]*Authorisation, len(p.Auths))
	for id, a := range p.Auths {
		c := *a
		out.Auths[id] = &c
	}
	out.Signers, out.AuthOrder, out.Dupes = slices.Clone(p.Signers), slices.Clone(p.AuthOrder), slices.Clone(p.Dupes)
	out.Raw = maps.Clone(p.Raw)
	return out
}

func (bk *Basket) clone() Basket {
	out := *bk
	out.PaymentIDs = slices.Clone(bk.PaymentIDs)
	return out
}
