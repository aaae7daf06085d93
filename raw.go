package xs2a

import (
	"context"
	"net/http"
)

// Do sends one call the SDK does not name yet through the same signed
// pipeline as the named calls (docs/interface.md EP22): retries for GET only,
// the access budget counted by the path as the bank routes it (not the
// 90-day check: a raw query is sent as it is), *Error and *SCARequiredError
// answers. A path the bank could route elsewhere is a *ValidationError on
// "path", sent nowhere.
//
// method is GET, POST, PUT or DELETE. path is relative to the base URL
// ("/v1/accounts") or an href from _links. body, when not nil, is sent as
// JSON (a POST or PUT without one sends an empty body). into, when not nil,
// receives the 2xx body decoded as encoding/json does.
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
