package xs2a

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"slices"
)

// CardAccountsService reads card accounts, their balances and transactions
// (GET /v1/card-accounts..., docs/interface.md EP18, PRS7, L9), as
// AccountsService reads accounts: the same consent, the same errors
// (*SCARequiredError without consent, ErrConsentInvalid,
// ErrCorporateIDRequired) and ids put into paths as the bank wrote them
// (PRQ4). Only Balances counts against the access budget without the PSU
// present.
type CardAccountsService service

// List returns the PSU's card accounts: GET /v1/card-accounts. A 404
// means the bank offers no card accounts (docs/interface.md, Production; release 1.19.0
// excluded them from the PSD2 channel): the result is then an empty list and
// a nil error. The call is not counted by the access budget, with or without
// the PSU present: docs/interface.md's Limits name only
// /v1/accounts/{id}/balances and /v1/accounts/{id}/transactions.
func (s *CardAccountsService) List(ctx context.Context, psu PSU) ([]CardAccount, *Response, error) {
	body := listBody[CardAccount]{key: "cardAccounts"}
	resp, err := s.client.do(ctx, &request{op: "card_accounts.list", method: http.MethodGet, href: "/v1/card-accounts", psu: &psu}, &body)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.StatusCode == http.StatusNotFound {
			return []CardAccount{}, resp, nil
		}
		return nil, resp, corporateHint(psu, err)
	}
	return body.list(), resp, nil
}

// Get returns one card account: GET /v1/card-accounts/{cardAccountID},
// whose answer is {"cardAccount": {...}} (a bare card account object decodes
// too). cardAccountID is CardAccount.ResourceID. Not counted by the access
// budget, as List.
func (s *CardAccountsService) Get(ctx context.Context, psu PSU, cardAccountID string) (*CardAccount, *Response, error) {
	if err := checkResourceID("cardAccountID", cardAccountID); err != nil {
		return nil, nil, err
	}
	body := singleBody[CardAccount]{key: "cardAccount"}
	resp, err := s.client.do(ctx, &request{op: "card_accounts.get", method: http.MethodGet, psu: &psu, href: cardAccountPath(cardAccountID),
		rule: routeRule{field: "cardAccountID"}}, &body)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return &body.item, resp, nil
}

// Balances returns the balances of a card account:
// GET /v1/card-accounts/{cardAccountID}/balances, the same shape as
// AccountsService.Balances: production answers {"cardAccount":{"maskedPan"},"balances"},
// whose reference goes to Balances.Account (a cardAccount that does not fit
// there stays in Balances.Extra). Balance types outside the Berlin Group
// list come through unchanged in Balance.BalanceType.
//
// Without the PSU present the call counts against the access budget as
// account balances do (BudgetBalances, per card account): the written
// limits name only account balances, but a bank that counts card balances
// too would refuse a fifth call, so the SDK is conservative here.
func (s *CardAccountsService) Balances(ctx context.Context, psu PSU, cardAccountID string) (*Balances, *Response, error) {
	if err := checkResourceID("cardAccountID", cardAccountID); err != nil {
		return nil, nil, err
	}
	var out cardBalancesBody
	resp, err := s.client.do(ctx, &request{
		op: "card_accounts.balances", method: http.MethodGet, psu: &psu,
		href: cardAccountPath(cardAccountID) + "/balances", rule: routeRule{field: "cardAccountID"},
	}, &out)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return out.balances(), resp, nil
}

// Transactions iterates over a card account's transactions
// (GET /v1/card-accounts/{cardAccountID}/transactions), page by page: pending
// then booked entries, each with Status set, walked and stopped as by
// AccountsService.Transactions (docs/interface.md EP18, EP21, PRS7). Entries are told apart by
// cardTransactionId alone; equal entries without one are each yielded.
// TransactionAmount is always in the card account's currency, whether or not the
// caller removed CardAccountSwitchAmounts (V4). Card calls are not counted by
// the access budget and have no 90-day check (L9).
func (s *CardAccountsService) Transactions(ctx context.Context, psu PSU, cardAccountID string, q *TransactionsOptions) iter.Seq2[CardTransaction, error] {
	var qc TransactionsOptions
	if q != nil {
		qc = *q
	}
	return func(yield func(CardTransaction, error) bool) {
		if err := checkResourceID("cardAccountID", cardAccountID); err != nil {
			yield(CardTransaction{}, err)
			return
		}
		query, err := transactionQueryValues(&qc)
		if err != nil {
			yield(CardTransaction{}, err)
			return
		}
		buf := walkBuffer()
		defer func() { recycleBody(buf, *buf) }() // the buffer as the last page left it
		first := cardAccountPath(cardAccountID) + "/transactions"
		w := pageWalk[CardTransaction]{
			op: "card_accounts.transactions", href: first,
			query: query, limit: qc.Limit, offset: qc.Offset,
			fetch: func(ctx context.Context, href string, query url.Values) (pageOf[CardTransaction], error) {
				var rep cardTransactionReport
				resp, err := s.client.do(ctx, &request{
					op: "card_accounts.transactions", method: http.MethodGet, psu: &psu, href: href, query: query,
					fixes: []AcceptFix{CardAccountSwitchAmounts}, readBuf: buf,
					rule: pageRule(href != first, routeCardTransactions, "cardAccountID", cardAccountID),
				}, &rep)
				if err != nil {
					return pageOf[CardTransaction]{}, corporateHint(psu, err)
				}
				t := rep.CardTransactions
				swap := !slices.Contains(resp.AcceptFixes, CardAccountSwitchAmounts)
				if swap {
					for _, list := range [][]CardTransaction{t.Booked, t.Pending} {
						for i := range list {
							list[i].swapAmounts()
						}
					}
				}
				setCardStatus(t.Booked, BookingBooked)
				setCardStatus(t.Pending, BookingPending)
				return pageOf[CardTransaction]{booked: t.Booked, pending: t.Pending, next: t.Links.Next.Href}, nil
			},
			id: func(x *CardTransaction) string { return x.CardTransactionID },
		}
		w.walk(ctx, yield)
	}
}

func setCardStatus(list []CardTransaction, st BookingStatus) {
	for i := range list {
		list[i].Status = st
	}
}
