package xs2a

import (
	"context"
	"net/http"
)

// UsersService registers PSUs and reads their corporate agreements
// (GET /v1/users, /v1/user, /v1/agreements).
type UsersService service

// Register registers a PSU for a PISP-only TPP: GET /v1/users, which answers
// 200 with a scaRedirect link (docs/interface.md, Endpoints and Flow 3). The
// callback after that SCA carries the psu-id (and psu-corporate-id in
// corporate context). PSU.Context, when set, is sent as PSU-Context.
func (s *UsersService) Register(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.client.startSCA(ctx, psu, "users.register", http.MethodGet, "/v1/users")
}

// ChooseContext starts the SCA of GET /v1/user (docs/interface.md EP2), in
// which the PSU signs in and chooses a private or corporate context: the way
// a PISP that is not an AISP gets a PSU-CORPORATE-ID. The callback carries
// the psu-id, the context (Callback.Context) and psu-corporate-id when the
// PSU chose a company. PSU.Context, when set, is sent as PSU-Context.
func (s *UsersService) ChooseContext(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.client.startSCA(ctx, psu, "users.choose_context", http.MethodGet, "/v1/user")
}

// Agreements returns the PSU's corporate agreements: GET /v1/agreements
// (docs/interface.md, Endpoints and Flow 2). It needs PSU.ID (a *ValidationError
// otherwise, nothing sent). The PSU picks one; put its ID into
// PSU.CorporateID. The answer {"agreements": [...]} and a bare array both
// decode; none is an empty, non-nil slice.
func (s *UsersService) Agreements(ctx context.Context, psu PSU) ([]Agreement, *Response, error) {
	if psu.ID == "" {
		return nil, nil, invalid("PSU.ID", "is required: GET /v1/agreements needs the psu-id of an earlier SCA")
	}
	body := listBody[Agreement]{key: "agreements"}
	resp, err := s.client.do(ctx, &request{op: "users.agreements", method: http.MethodGet, href: "/v1/agreements", psu: &psu}, &body)
	if err != nil {
		return nil, resp, err
	}
	return body.list(), resp, nil
}
