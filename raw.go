package xs2a

import (
	"context"
	"net/http"
)

// Do sends one call the SDK does not name yet, through the same signed
// pipeline as the named calls: psu checked and sent as headers, signing and
// Digest, the same-origin and base-path rules, retries for GET only (as
// RetryPolicy says; a POST is never sent twice), the access budget counted
// as for the named reads when the PSU is not present (not the 90-day check
// of TransactionsOptions: a raw query is sent as it is), a bank's error answer
// as *Error and a scaRedirect in any answer as *SCARequiredError.
//
// method is GET, POST, PUT or DELETE. path is relative to the base URL
// ("/v1/accounts") or an href from _links. body, when not nil, is sent as
// JSON (a POST or PUT without one sends an empty body). into, when not nil,
// receives the 2xx body decoded with encoding/json.
//
// The path is read as the bank routes it (see BudgetEndpoint): a request
// the bank routes to a counted endpoint is counted, whatever its spelling
// ("%62alances", "//", a trailing "/"), and a path the bank could route
// elsewhere is refused with a *ValidationError on "path" before anything
// is sent.
func (c *Client) Do(ctx context.Context, psu PSU, method, path string, body, into any) (*Response, error) {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete:
	default:
		return nil, invalid("method", "must be GET, POST, PUT or DELETE")
	}
	if path == "" {
		return nil, invalid("path", "is required")
	}
	r := &request{op: "client.do", method: method, href: path, body: body, psu: &psu, rule: routeRule{field: "path"}}
	if body == nil && (method == http.MethodPost || method == http.MethodPut) {
		r.rawBody = []byte{}
	}
	return c.do(ctx, r, into)
}
