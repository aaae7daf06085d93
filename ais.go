package xs2a

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// AccountsService reads accounts, their balances and transactions
// (docs/interface.md EP6, EP7, EP8, EP9, PRS2 to PRS8); CardAccountsService
// reads card accounts. Without
// consent a call answers a *SCARequiredError (F1); a consent revoked at the bank
// answers ErrConsentInvalid, and a company's PSU without PSU.CorporateID
// ErrCorporateIDRequired (F2). Without PSU.IPAddress, the calls the bank limits
// count against the access budget and transactions reach 90 days back at most
// (L1, L2, L8). Ids go into paths as the bank wrote them (PRQ4).
type AccountsService service

// TransactionsOptions filters GET /v1/accounts/{id}/transactions and
// GET /v1/card-accounts/{id}/transactions (docs/interface.md, Endpoints). Zero
// fields are not sent.
type TransactionsOptions struct {
	// BookingStatus is sent as bookingStatus (docs/interface.md EP16,
	// EP17: which pending entries each value returns, on which page).
	BookingStatus BookingStatus
	// DateFrom and DateTo are sent as YYYY-MM-DD, the calendar date in the
	// time's own location. Without the PSU present DateFrom may be at most
	// 90 days back (docs/interface.md, Limits).
	DateFrom, DateTo time.Time
	// Limit and Offset page the transactions (EP16, EP18); 499 is the
	// page size used in practice.
	Limit, Offset int
	// KeepCalls, for a walk without the PSU present (Transactions), is how
	// many of the day's calls the walk leaves (docs/interface.md L2): it
	// does not start, or stops after a page, when no more than KeepCalls
	// are left, and ends with an *AccessExceededError whose Kept says so
	// and whose Next is when a call frees up. 0: the walk spends them all.
	KeepCalls int
}

// List returns the accounts the PSU consented to: GET /v1/accounts. An empty
// list (also a closed account, which the bank leaves out) is an empty,
// non-nil slice, never an error. Without PSU.ID or consent the error is a
// *SCARequiredError (docs/interface.md, Flow 1).
func (s *AccountsService) List(ctx context.Context, psu PSU) ([]Account, *Response, error) {
	body := listBody[Account]{key: "accounts"}
	resp, err := s.client.do(ctx, &request{op: "accounts.list", method: http.MethodGet, href: "/v1/accounts", psu: &psu}, &body)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return body.list(), resp, nil
}

// Balances returns the balances of an account:
// GET /v1/accounts/{accountID}/balances. accountID is Account.ResourceID.
// Without the PSU present (PSU.IPAddress empty) the call counts against the
// access budget (BudgetBalances, 4 per 24 hours); a fifth is refused
// locally with an *AccessExceededError.
func (s *AccountsService) Balances(ctx context.Context, psu PSU, accountID string) (*Balances, *Response, error) {
	if err := checkResourceID("accountID", accountID); err != nil {
		return nil, nil, err
	}
	var out Balances
	resp, err := s.client.do(ctx, &request{
		op: "accounts.balances", method: http.MethodGet, psu: &psu,
		href: accountPath(accountID) + "/balances", rule: routeRule{field: "accountID"},
	}, &out)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return &out, resp, nil
}

// ListWithBalances returns List's accounts with their Balances, which this
// platform's list leaves out: one call to Balances per account that came
// without (one whose resourceId names no account keeps none). Without the
// PSU present each counts against that account's budget, and none is made
// unless every one may be. The first error ends it, with no accounts; the
// Response is the last call's.
func (s *AccountsService) ListWithBalances(ctx context.Context, psu PSU) ([]Account, *Response, error) {
	list, resp, err := s.List(ctx, psu)
	if err != nil {
		return nil, resp, err
	}
	var need []int // the accounts to read, once the budget allows every one
	for i, a := range list {
		if len(a.Balances) > 0 || checkResourceID("accountID", a.ResourceID) != nil {
			continue
		}
		if !psu.Present() {
			if err := s.client.keepCalls(ctx, psu, a.ResourceID, BudgetBalances, 0); err != nil {
				return nil, resp, err
			}
		}
		need = append(need, i)
	}
	for _, i := range need {
		b, r, err := s.Balances(ctx, psu, list[i].ResourceID)
		if err != nil {
			return nil, r, err
		}
		list[i].Balances, resp = b.Balances, r
	}
	return list, resp, nil
}

// Get returns one account: GET /v1/accounts/{accountID}, whose answer is
// {"account": {...}} (a bare account object decodes too). accountID is
// Account.ResourceID. The call is not counted by the access budget: the
// PSU-not-present limits name balances and transactions only, and the SDK
// asks for no balances here.
func (s *AccountsService) Get(ctx context.Context, psu PSU, accountID string) (*Account, *Response, error) {
	if err := checkResourceID("accountID", accountID); err != nil {
		return nil, nil, err
	}
	body := singleBody[Account]{key: "account"}
	resp, err := s.client.do(ctx, &request{op: "accounts.get", method: http.MethodGet, psu: &psu, href: accountPath(accountID),
		rule: routeRule{field: "accountID"}}, &body)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return &body.item, resp, nil
}

// TransactionsPage returns one page of an account's transactions:
// GET /v1/accounts/{accountID}/transactions with the query q (nil: none).
// Each entry's BookingStatus is set to BookingBooked, BookingPending or (standing orders) BookingInformation. The
// next page, if any, is in Transactions.Links.Next; Transactions follows it
// for you. Member banks also send Transactions.Links.Previous, the page before
// (docs/interface.md PRS4).
//
// Without the PSU present the call counts against the access budget
// (BudgetTransactions) and q.DateFrom may be at most 90 days back; both are
// checked locally before anything is sent.
func (s *AccountsService) TransactionsPage(ctx context.Context, psu PSU, accountID string, q *TransactionsOptions) (*TransactionReport, *Response, error) {
	query, err := s.transactionsQuery(psu, accountID, q)
	if err != nil {
		return nil, nil, err
	}
	return s.transactionsPage(ctx, psu, transactionsPath(accountID), query, routeRule{field: "accountID"}, nil)
}

// Transactions iterates over an account's transactions
// (GET /v1/accounts/{accountID}/transactions), page by page: each page's
// pending entries, then its booked ones, then its standing orders, each with
// BookingStatus set, a pending entry repeated on later pages once
// (docs/interface.md EP16). How the walk pages and ends is EP21; the first
// error is yielded once, with a zero Transaction. One page is held in memory; q is copied.
// Without the PSU present each page counts against the access budget (L8).
func (s *AccountsService) Transactions(ctx context.Context, psu PSU, accountID string, q *TransactionsOptions) iter.Seq2[Transaction, error] {
	var qc TransactionsOptions
	if q != nil {
		qc = *q
	}
	return func(yield func(Transaction, error) bool) {
		query, err := s.transactionsQuery(psu, accountID, &qc)
		if err != nil {
			yield(Transaction{}, err)
			return
		}
		buf := walkBuffer()
		defer func() { recycleBody(buf, *buf) }() // the buffer as the last page left it
		first := transactionsPath(accountID)
		started := false
		w := pageWalk[Transaction]{
			op: "accounts.transactions", href: first, query: query,
			limit: qc.Limit, offset: qc.Offset,
			fetch: func(ctx context.Context, href string, query url.Values) (pageOf[Transaction], error) {
				if href != first {
					if err := s.checkLinkHistory(psu, href); err != nil {
						return pageOf[Transaction]{}, err
					}
				}
				if !started && qc.KeepCalls > 0 && !psu.Present() {
					if err := s.client.keepCalls(ctx, psu, accountID, BudgetTransactions, qc.KeepCalls); err != nil {
						return pageOf[Transaction]{}, err
					}
				}
				started = true
				rule := pageRule(href != first, routeTransactions, "accountID", accountID)
				rep, resp, err := s.transactionsPage(ctx, psu, href, query, rule, buf)
				if err != nil {
					return pageOf[Transaction]{}, err
				}
				t := rep.Transactions
				p := pageOf[Transaction]{booked: t.Booked, pending: t.Pending, info: t.Information, next: t.Links.Next.Href}
				if b := resp.Budget; qc.KeepCalls > 0 && b != nil && b.Remaining <= qc.KeepCalls {
					p.stop = &AccessExceededError{Endpoint: b.Endpoint, Next: b.Reset, Kept: b.Remaining}
				}
				return p, nil
			},
			id:             func(x *Transaction) string { return x.TransactionID },
			repeatsPending: true,
		}
		w.walk(ctx, yield)
	}
}

// Transaction returns the details of one transaction:
// GET /v1/accounts/{accountID}/transactions/{transactionID}. The answer
// {"transactionsDetails": {...}} (also the Berlin Group's
// "transactionDetails", or a bare transaction) decodes into the Transaction;
// its BookingStatus is empty, as the answer does not say. Without the PSU
// present the call counts against the access budget (BudgetTransaction):
// docs/interface.md's Limits do not list transaction details, so this is the
// SDK's conservative choice, as a bank may count them (see BudgetTransaction).
func (s *AccountsService) Transaction(ctx context.Context, psu PSU, accountID, transactionID string) (*Transaction, *Response, error) {
	if err := checkResourceID("accountID", accountID); err != nil {
		return nil, nil, err
	}
	if err := checkResourceID("transactionID", transactionID); err != nil {
		return nil, nil, err
	}
	var out transactionDetailsBody
	resp, err := s.client.do(ctx, &request{
		op: "accounts.transaction", method: http.MethodGet, psu: &psu,
		href: transactionsPath(accountID) + "/" + pathSegment(transactionID), rule: routeRule{field: "transactionID"},
	}, &out)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	return &out.tx, resp, nil
}

// corporateHint tells a caller whose request the bank refused for lack of a
// (valid) PSU-CORPORATE-ID what to do (docs/interface.md, Flow 2). The bank's
// *Error stays reachable with errors.As.
func corporateHint(psu PSU, err error) error {
	if !errors.Is(err, ErrCorporateIDRequired) {
		return err
	}
	if psu.CorporateID == "" {
		return fmt.Errorf("xs2a: the PSU acts for a company: pick an agreement from Users.Agreements and set PSU.CorporateID: %w", err)
	}
	return fmt.Errorf("xs2a: the bank refused PSU.CorporateID: pick an agreement from Users.Agreements: %w", err)
}

// checkResourceID refuses an empty id, one holding control characters, and
// one the bank's server would read as more or less than one segment (see
// bankSegment): "." and "..", ";", "\", an escaped dot. Ids are opaque and
// are escaped into the path as they are; "/" is escaped as %2F.
func checkResourceID(field, id string) error {
	switch id {
	case "":
		return invalid(field, "is required")
	case ".", "..":
		return invalid(field, "must not be a dot segment")
	}
	for _, r := range id {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return invalid(field, "must not hold control characters")
		}
	}
	// As the bank's server will read the segment (docs/interface.md L11):
	// ";", "\", escaped dots and dot segments in any spelling are refused.
	_, err := bankSegment(pathSegment(id), field)
	return err
}

// transactionsQuery validates an account transactions request and applies
// the 90-day rule of PSU-not-present calls (docs/interface.md, Limits).
func (s *AccountsService) transactionsQuery(psu PSU, accountID string, q *TransactionsOptions) (url.Values, error) {
	if err := checkResourceID("accountID", accountID); err != nil {
		return nil, err
	}
	query, err := transactionQueryValues(q)
	if err != nil {
		return nil, err
	}
	if q != nil && !psu.Present() {
		if err := s.client.budget.checkHistory(q.DateFrom, q.DateTo); err != nil {
			return nil, err
		}
	}
	return query, nil
}

// transactionQueryValues checks q and encodes it as the query of a
// transactions call. Zero fields are left out.
func transactionQueryValues(q *TransactionsOptions) (url.Values, error) {
	v := url.Values{}
	if q == nil {
		return v, nil
	}
	if q.BookingStatus != "" {
		if !headerSafe(string(q.BookingStatus), 64) {
			return nil, invalid("TransactionsOptions.BookingStatus", "must be 1 to 64 printable ASCII characters")
		}
		v.Set("bookingStatus", string(q.BookingStatus))
	}
	var from, to string
	for _, d := range []struct {
		field string
		t     time.Time
		out   *string
		key   string
	}{{"TransactionsOptions.DateFrom", q.DateFrom, &from, "dateFrom"}, {"TransactionsOptions.DateTo", q.DateTo, &to, "dateTo"}} {
		if d.t.IsZero() {
			continue
		}
		if y := d.t.Year(); y < 1 || y > 9999 {
			return nil, invalid(d.field, "must be a date in the years 1 to 9999")
		}
		*d.out = d.t.Format(time.DateOnly)
		v.Set(d.key, *d.out)
	}
	if from != "" && to != "" && from > to {
		return nil, invalid("TransactionsOptions.DateTo", "must not be before DateFrom")
	}
	if q.Limit < 0 {
		return nil, invalid("TransactionsOptions.Limit", "must not be negative")
	}
	if q.Offset < 0 {
		return nil, invalid("TransactionsOptions.Offset", "must not be negative")
	}
	if q.KeepCalls < 0 || q.KeepCalls >= AccessLimit {
		return nil, invalid("TransactionsOptions.KeepCalls", "must be 0 to %d: the calls a walk leaves of the %d", AccessLimit-1, AccessLimit)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return v, nil
}

// transactionsPage fetches one page of account transactions at href (a path
// or a next link, which rule checks), read into buf when set (see
// request.readBuf), and marks each entry booked or pending.
func (s *AccountsService) transactionsPage(ctx context.Context, psu PSU, href string, query url.Values, rule routeRule, buf *[]byte) (*TransactionReport, *Response, error) {
	var out TransactionReport
	resp, err := s.client.do(ctx, &request{
		op: "accounts.transactions", method: http.MethodGet, psu: &psu, href: href, query: query,
		rule: rule, readBuf: buf,
	}, &out)
	if err != nil {
		return nil, resp, corporateHint(psu, err)
	}
	for i := range out.Transactions.Booked {
		out.Transactions.Booked[i].BookingStatus = BookingBooked
	}
	for i := range out.Transactions.Pending {
		out.Transactions.Pending[i].BookingStatus = BookingPending
	}
	for i := range out.Transactions.Information {
		out.Transactions.Information[i].BookingStatus = BookingInformation
	}
	return &out, resp, nil
}

// pageRule is what a page of a walk over the transactions of account id
// may route to: that account's transactions (kind), whether the page is the
// first, built from id (field names it), or one a next link leads to.
func pageRule(linked bool, kind routeKind, field, id string) routeRule {
	if linked {
		field = "link"
	}
	return routeRule{field: field, kinds: []routeKind{kind}, id: id}
}

// checkLinkHistory applies the 90-day rule of PSU-not-present calls to
// the dateFrom and dateTo of a next link's query, as to the caller's
// TransactionsOptions: a link asking for older transactions would spend one
// of the day's calls on a page the bank refuses. A date it cannot read
// is refused too.
func (s *AccountsService) checkLinkHistory(psu PSU, href string) error {
	if psu.Present() {
		return nil
	}
	_, raw, _ := strings.Cut(href, "?")
	if raw == "" {
		return nil
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return invalid("link", "has a malformed query")
	}
	var dates [2]time.Time
	for i, key := range []string{"dateFrom", "dateTo"} {
		for k, vs := range q {
			if !strings.EqualFold(k, key) {
				continue
			}
			for _, v := range vs {
				d, err := time.Parse(time.DateOnly, v)
				if err != nil {
					return invalid("link", "has a %s that is no date", key)
				}
				if dates[i].IsZero() || d.Before(dates[i]) {
					dates[i] = d
				}
			}
		}
	}
	if err := s.client.budget.checkHistory(dates[0], dates[1]); err != nil {
		return invalid("link", "asks for transactions more than 90 days old without the PSU present")
	}
	return nil
}
