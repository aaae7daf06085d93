package xs2a

import (
	"context"
	"net/http"
)

// ConsentsService asks for bank-offered consent: CreateBankOffered
// (POST /v1/bank-offered-consents, as the production banks run it) or Create
// (POST /v1/consents, as the interface description writes it).
type ConsentsService service

// CreateBankOffered asks for bank-offered consent as production banks run it
// (docs/interface.md EP5): POST /v1/bank-offered-consents with an empty body
// and PSU.Context, when set, as PSU-Context. Send the PSU to the answer's
// Links.SCARedirect; the callback (ParseCallback) carries the psu-id and the
// context the PSU chose.
func (s *ConsentsService) CreateBankOffered(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	links, resp, err := s.client.startSCA(ctx, psu, "consents.createBankOffered", http.MethodPost, "/v1/bank-offered-consents")
	return links, resp, corporateHint(psu, err)
}

// Create is CreateBankOffered with POST /v1/consents, the interface
// description's form (docs/interface.md EP4), for a bank that serves only
// that one.
func (s *ConsentsService) Create(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	links, resp, err := s.client.startSCA(ctx, psu, "consents.create", http.MethodPost, "/v1/consents")
	return links, resp, corporateHint(psu, err)
}

// startSCA sends a call whose answer is an SCA redirect (a consent or a
// registration), with PSU.Context as PSU-Context; a POST has an empty body.
func (c *Client) startSCA(ctx context.Context, psu PSU, op, method, path string) (*SCALinks, *Response, error) {
	r := &request{op: op, method: method, href: path, psu: &psu, scaResult: true, psuContext: true}
	if method == http.MethodPost {
		r.rawBody = []byte{}
	}
	return doAs[SCALinks](ctx, c, r)
}
