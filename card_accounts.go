package xs2a

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"slices"
)

// CardAccountsService reads card accounts, their balances and transactions
// (GET /v1/card-accounts..., docs/interface.md EP18, PRS7, L9) as
// AccountsService reads accounts: the same consent, errors and ids in paths
// (PRQ4). Only Balances counts against the access budget.
type CardAccountsService service

// List returns the PSU's card accounts: GET /v1/card-accounts. A 404, from a
// bank that offers no card accounts, is an empty list and a nil error (E13).
// Not counted by the access budget (L9).
func (s *CardAccountsService) List(ctx context.Context, psu PSU) ([]CardAccount, *Response, error) {
	list, resp, err := doList[CardAccount](ctx, s.client, &request{op: "card_accounts.list", method: http.MethodGet,
		href: "/v1/card-accounts", psu: &psu}, "cardAccounts")
	if e, ok := errors.AsType[*Error](err); ok && e.StatusCode == http.StatusNotFound {
		return []CardAccount{}, resp, nil
	}
	return list, resp, corporateHint(psu, err)
}

// Get returns one card account: GET /v1/card-accounts/{cardAccountID}, for
// CardAccount.ResourceID. The answer {"cardAccount": {...}} and a bare object
// both decode.
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

// Balances returns the balances of a card account: GET
// /v1/card-accounts/{cardAccountID}/balances (docs/interface.md EP9, PRS6),
// as AccountsService.Balances; the answer's cardAccount goes to
// Balances.Account. Without the PSU present it counts against the access
// budget as account balances do (BudgetBalances, per card account; L8).
func (s *CardAccountsService) Balances(ctx context.Context, psu PSU, cardAccountID string) (*Balances, *Response, error) {
	if err := checkResourceID("cardAccountID", cardAccountID); err != nil {
		return nil, nil, err
	}
	var out cardBalancesBody
	resp, err := s.client.do(ctx, &request{op: "card_accounts.balances", method: http.MethodGet, psu: &psu,
		href: cardAccountPath(cardAccountID) + "/balances", rule: routeRule{field: "cardAccountID"}}, &out)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return out.balances(), resp, nil
}

// Transactions iterates over a card account's transactions (GET
// /v1/card-accounts/{cardAccountID}/transactions) as
// AccountsService.Transactions does (docs/interface.md EP18, EP21, PRS7):
// entries are told apart by cardTransactionId alone. TransactionAmount is in
// the card account's currency, with or without CardAccountSwitchAmounts
// (V4). No budget and no 90-day check (L9).
func (s *CardAccountsService) Transactions(ctx context.Context, psu PSU, cardAccountID string, q *TransactionsOptions) iter.Seq2[CardTransaction, error] {
	qc := *cmp.Or(q, &TransactionsOptions{})
	return func(yield func(CardTransaction, error) bool) {
		query, err := transactionQueryValues(&qc)
		if err = firstError(checkResourceID("cardAccountID", cardAccountID), err); err != nil {
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
				setCardStatus(t.Booked, BookingBooked, swap)
				setCardStatus(t.Pending, BookingPending, swap)
				return pageOf[CardTransaction]{booked: t.Booked, pending: t.Pending, next: t.Links.Next.Href}, nil
			},
			id: func(x *CardTransaction) string { return x.CardTransactionID },
		}
		w.walk(ctx, yield)
	}
}

// setCardStatus sets the status of the entries of list, and swaps their
// amounts when the bank did not (swap).
func setCardStatus(list []CardTransaction, st BookingStatus, swap bool) {
	for i := range list {
		list[i].BookingStatus = st
		if swap {
			list[i].swapAmounts()
		}
	}
}
