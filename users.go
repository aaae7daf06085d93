package xs2a

import (
	"context"
	"net/http"
)

// UsersService registers PSUs and reads their corporate agreements
// (GET /v1/users, /v1/user, /v1/agreements).
type UsersService service

// Register registers a PSU for a PISP-only TPP: GET /v1/users, which answers
// with a scaRedirect link (docs/interface.md EP1, F3); the callback carries
// the psu-id. PSU.Context, when set, is sent as PSU-Context.
func (s *UsersService) Register(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.client.startSCA(ctx, psu, "users.register", http.MethodGet, "/v1/users")
}

// ChooseContext starts the SCA of GET /v1/user (docs/interface.md EP2), in
// which the PSU chooses a private or corporate context; the callback carries
// the psu-id, Callback.Context and, for a company, psu-corporate-id.
// PSU.Context, when set, is sent as PSU-Context.
func (s *UsersService) ChooseContext(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.client.startSCA(ctx, psu, "users.choose_context", http.MethodGet, "/v1/user")
}

// Agreements returns the PSU's corporate agreements: GET /v1/agreements
// (docs/interface.md EP3, F2), for PSU.ID (required). The PSU picks one; put
// its ID into PSU.CorporateID. None is an empty, non-nil slice.
func (s *UsersService) Agreements(ctx context.Context, psu PSU) ([]Agreement, *Response, error) {
	if psu.ID == "" {
		return nil, nil, invalid("PSU.ID", "is required: GET /v1/agreements needs the psu-id of an earlier SCA")
	}
	return doList[Agreement](ctx, s.client, &request{op: "users.agreements", method: http.MethodGet,
		href: "/v1/agreements", psu: &psu}, "agreements")
}
