package xs2a

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Do sends one call the SDK does not name yet, through the same signed
// pipeline as the named calls: psu checked and sent as headers, signing and
// Digest, the same-origin and base-path rules, retries for GET only (as
// RetryPolicy says; a POST is never sent twice), the access budget counted
// as for the named reads when the PSU is not present (not the 90-day check
// of TransactionQuery: a raw query is sent as it is), a bank's error answer
// as *Error and a scaRedirect in any answer as *SCARequiredError.
//
// method is GET, POST, PUT or DELETE. path is relative to the base URL
// ("/v1/accounts") or an href from _links. body, when not nil, is sent as
// JSON (a POST or PUT without one sends an empty body). into, when not nil,
// receives the 2xx body decoded with encoding/json.
func (c *Client) Do(ctx context.Context, psu PSU, method, path string, body, into any) (*Response, error) {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return nil, invalid("method", "must be GET, POST, PUT or DELETE")
	}
	if path == "" {
		return nil, invalid("path", "is required")
	}
	r := &request{op: "client.do", method: method, href: path, body: body, psu: &psu}
	if body == nil && (method == http.MethodPost || method == http.MethodPut) {
		r.rawBody = []byte{}
	}
	if method == http.MethodGet {
		if err := c.budgetRaw(r); err != nil {
			return nil, err
		}
	}
	return c.do(ctx, r, into)
}

// budgetRaw sets the access budget's endpoint and account of a raw GET to
// a path the budget counts: /v1/accounts/{id}/balances, .../transactions
// and .../transactions/{transactionId}, and /v1/card-accounts/{id}/balances
// (as AccountsService counts them), in any spelling the bank reads as that
// path (segments are compared unescaped: "%62alances" is "balances").
func (c *Client) budgetRaw(r *request) error {
	u, err := c.resolve(r.href)
	if err != nil {
		return err
	}
	p := strings.TrimPrefix(u.EscapedPath(), c.basePath)
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, seg := range segs {
		if segs[i], err = url.PathUnescape(seg); err != nil {
			return invalid("path", "has a malformed path")
		}
	}
	if len(segs) < 4 || segs[0] != "v1" {
		return nil
	}
	var ep BudgetEndpoint
	switch kind, tail := segs[1], strings.Join(segs[3:], "/"); {
	case kind == "accounts" && tail == "balances", kind == "card-accounts" && tail == "balances":
		ep = BudgetBalances
	case kind == "accounts" && tail == "transactions":
		ep = BudgetTransactions
	case kind == "accounts" && len(segs) == 5 && segs[3] == "transactions":
		ep = BudgetTransaction
	default:
		return nil
	}
	r.budgetEndpoint, r.accountID = ep, segs[2]
	return nil
}
