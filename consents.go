package xs2a

import (
	"context"
	"net/http"
)

// ConsentsService asks for bank-offered consent: CreateBankOffered
// (POST /v1/bank-offered-consents, as the production banks run it) or Create
// (POST /v1/consents, as the interface description writes it).
type ConsentsService service

// CreateBankOffered asks for bank-offered consent as the banks of the
// platform run it in production: POST /v1/bank-offered-consents with an
// empty body (digested as the empty byte string) and PSU.Context, when set,
// as PSU-Context (PRIVATE or CORPORATE; the SCA page may preselect it). The
// answer carries Links.SCARedirect: send the PSU there; consent is given
// during that SCA, and the callback (ParseCallback) carries the psu-id and
// the context the PSU chose.
//
// Use CreateBankOffered against the production banks, whose recorded
// consent journeys start here; use Create for a bank that serves only the
// POST /v1/consents of the written interface description. Both give the
// same consent.
func (s *ConsentsService) CreateBankOffered(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.create(ctx, psu, "consents.createBankOffered", "/v1/bank-offered-consents")
}

// Create asks for bank-offered consent: POST /v1/consents with an empty body
// (the interface description's consent call: the bank ignores the body and
// answers only with an SCA redirect), and PSU.Context, when set, as
// PSU-Context. Send the PSU to Links.SCARedirect; consent is collected
// during that SCA. Production banks of the platform are known to run
// consent through CreateBankOffered; prefer that one against them.
func (s *ConsentsService) Create(ctx context.Context, psu PSU) (*SCALinks, *Response, error) {
	return s.create(ctx, psu, "consents.create", "/v1/consents")
}

func (s *ConsentsService) create(ctx context.Context, psu PSU, op, path string) (*SCALinks, *Response, error) {
	links, resp, err := s.client.startSCA(ctx, psu, op, http.MethodPost, path)
	return links, resp, corporateHint(psu, err)
}

// startSCA sends a call whose answer is an SCA redirect (a consent or a
// registration), with PSU.Context as PSU-Context; a POST has an empty body.
func (c *Client) startSCA(ctx context.Context, psu PSU, op, method, path string) (*SCALinks, *Response, error) {
	r := &request{op: op, method: method, href: path, psu: &psu, scaResult: true, psuContext: true}
	if method == http.MethodPost {
		r.rawBody = []byte{}
	}
	var out SCALinks
	resp, err := c.do(ctx, r, &out)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}
