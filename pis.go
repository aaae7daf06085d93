package xs2a

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// PaymentsService initiates, authorises, reads and cancels payments
// (docs/interface.md EP10 to EP12, PP1 to PP5). A single payment (F3):
//
//	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &payment, nil)
//	sca, _, err := client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
//	// send the PSU's browser to sca.Links.SCARedirect.Href; after the callback:
//	st, _, err := client.Payments.PollStatus(ctx, psu, ini.Links.Status, nil)
//
// Initiation needs psu.IPAddress (L7); psu.ID may be empty (F5). A payment
// is never sent twice by the SDK: a lost answer is ErrOutcomeUnknown (E18).
type PaymentsService service

// SigningBasketsService groups payments for one SCA (POST /v1/signing-baskets).
type SigningBasketsService service

// PaymentRequest is a payment to initiate with PaymentsService.Initiate: a
// *Payment (POST /v1/payments/{product}), a *PeriodicPayment (a standing
// order, POST /v1/periodic-payments/{product}) or a *BulkPayment (POST
// /v1/bulk-payments/{product}). Only those three implement it.
type PaymentRequest interface {
	// initiation checks the payment and names where it is sent.
	initiation() (paymentEndpoint, error)
}

// paymentEndpoint is what tells the initiations of the trio apart.
type paymentEndpoint struct {
	op, prefix string
	kind       paymentKind
}

var (
	singleEndpoint   = paymentEndpoint{op: "payments.initiate", prefix: "/v1/payments/", kind: kindSingle}
	periodicEndpoint = paymentEndpoint{op: "payments.initiate_periodic", prefix: "/v1/periodic-payments/", kind: kindPeriodic}
	bulkEndpoint     = paymentEndpoint{op: "payments.initiate_bulk", prefix: "/v1/bulk-payments/", kind: kindBulk}
)

func (p *Payment) initiation() (paymentEndpoint, error) {
	if p == nil {
		return paymentEndpoint{}, invalid("Payment", "is nil")
	}
	return singleEndpoint, p.validate("Payment")
}

func (p *PeriodicPayment) initiation() (paymentEndpoint, error) {
	if p == nil {
		return paymentEndpoint{}, invalid("PeriodicPayment", "is nil")
	}
	return periodicEndpoint, p.validate()
}

func (b *BulkPayment) initiation() (paymentEndpoint, error) {
	if b == nil {
		return paymentEndpoint{}, invalid("BulkPayment", "is nil")
	}
	return bulkEndpoint, b.validate()
}

// Initiate sends the payment p to POST /{payments,periodic-payments,
// bulk-payments}/{product} (docs/interface.md, Endpoints and "Payment
// initiation request"). product is a product constant
// (NorwegianDomesticCreditTransfers, ...) or another name of lower-case
// letters, digits and '-'. psu.IPAddress is required; p is checked first
// (a nil p is a *ValidationError) and is not modified; opts may be nil.
//
// Follow the answer's Links.StartAuthorisation with StartAuthorisation (or
// send the PSU to Links.SCARedirect when set). Poll a bulk payment with
// PollOptions.Bulk. Periodic and bulk payments cannot go into a signing
// basket. A refusal for lack of funds answers errors.Is(err, ErrInsufficientFunds).
func (s *PaymentsService) Initiate(ctx context.Context, psu PSU, product string, p PaymentRequest, opts *InitiateOptions) (*Initiation, *Response, error) {
	if err := checkInitiation(psu, product); err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, invalid("PaymentRequest", "is nil: pass a *Payment, *PeriodicPayment or *BulkPayment")
	}
	ep, err := p.initiation()
	if err != nil {
		return nil, nil, err
	}
	return s.initiate(ctx, psu, ep, product, p, opts)
}

// checkInitiation checks what every initiation needs besides its body.
func checkInitiation(psu PSU, product string) error {
	if psu.IPAddress == "" {
		return invalid("PSU.IPAddress", "is required: payment initiation needs the PSU present (docs/interface.md, Limits)")
	}
	if !validProduct(product) {
		return invalid("product", "must be a payment product such as %q: lower-case letters, digits and '-'", NorwegianDomesticCreditTransfers)
	}
	return nil
}

// initiate sends a checked initiation body to ep.
func (s *PaymentsService) initiate(ctx context.Context, psu PSU, ep paymentEndpoint, product string, body any, opts *InitiateOptions) (*Initiation, *Response, error) {
	r := &request{
		op:        ep.op,
		method:    http.MethodPost,
		href:      ep.prefix + product,
		body:      body,
		psu:       &psu,
		scaResult: true,
	}
	if opts != nil && opts.AllowLogicalDuplicate {
		r.query = url.Values{"allowLogicalDuplicate": {"true"}}
	}
	var out Initiation
	resp, err := s.client.do(ctx, r, &out)
	if err != nil {
		return nil, resp, err
	}
	if out.PaymentID == "" {
		// Accepted, but the payment cannot be followed: its outcome is
		// as unknown as that of a lost answer.
		return nil, resp, &TransportError{Method: r.method, Op: ep.op, RequestID: resp.RequestID, Sent: true,
			Err: errors.New("the answer holds no paymentId")}
	}
	out.kind = ep.kind
	return &out, resp, nil
}

// StartAuthorisation starts the PSU's SCA of a payment (or signing basket):
// POST to the startAuthorisation link of the initiation, with an empty body
// (docs/interface.md, Endpoints). Send the PSU's browser to Links.SCARedirect of the
// answer; the PSU sees the payment there and signs it (Flow 3).
//
// For a payment that needs several signatures (corporate context), call it
// again for each further signer, with the same link or the one of the PATC
// status answer (PaymentStatus.Links.StartAuthorisation): the status stays
// PATC until all have signed (docs/interface.md, Payment status; see
// PollOptions.OnPATC). Production banks answer scaStatus and
// Links.SCARedirect only (docs/interface.md PP3); a bank that also sends
// Links.SCAStatus or AuthorisationID lets AuthorisationStatus read the
// new authorisation (SCALinks.AuthorisationLink).
func (s *PaymentsService) StartAuthorisation(ctx context.Context, psu PSU, link Link) (*SCALinks, *Response, error) {
	if link.IsZero() {
		return nil, nil, invalid("link", "is empty: pass Initiation.Links.StartAuthorisation")
	}
	var out SCALinks
	resp, err := s.client.do(ctx, &request{
		op:        "payments.start_authorisation",
		method:    http.MethodPost,
		href:      link.Href,
		rawBody:   []byte{},
		psu:       &psu,
		scaResult: true,
		rule:      routeRule{kinds: []routeKind{routePaymentAuthorisations, routeBasketAuthorisations}},
	}, &out)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// Status reads a payment's status, GET on the status link of the initiation
// (docs/interface.md, Endpoints). Statuses change asynchronously after the PSU's
// approval; PollStatus reads until the bank has accepted or refused the
// payment (PDNG once the PSU has signed, PS9), or until it is final. For product
// DomesticNorwayCreditTransfers the bank answers with an error until the
// payment is approved.
//
// The answer also carries the payment's id and links when the bank sends
// them (PaymentStatus.Links): a TPP that kept only the status link finds
// the startAuthorisation link for the next signer of a PATC payment there,
// and a requestedExecutionDate the bank moved at SCA.
func (s *PaymentsService) Status(ctx context.Context, psu PSU, link Link) (*PaymentStatus, *Response, error) {
	var out PaymentStatus
	resp, err := s.client.follow(ctx, "payments.status", http.MethodGet, psu, link, "Initiation.Links.Status", &out, routePaymentStatus)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// AuthorisationStatus reads the state of one PSU's SCA of a payment or
// signing basket: GET on the authorisation's link
// (.../{paymentId}/authorisations/{authorisationId}), which
// SCALinks.AuthorisationLink gives from the StartAuthorisation answer.
// SCAStatus is started while the PSU has not signed yet, finalised once it
// has, failed when it cancelled. A TPP whose callback never came can tell
// an abandoned SCA from a finished one this way. Production banks answer
// StartAuthorisation with neither a scaStatus link nor an authorisationId
// (docs/interface.md PP3): an empty link is then a *ValidationError saying
// so, sent nowhere; poll the payment's status (Status, PollStatus) instead.
func (s *PaymentsService) AuthorisationStatus(ctx context.Context, psu PSU, link Link) (*AuthorisationStatus, *Response, error) {
	if link.IsZero() {
		return nil, nil, errNoAuthorisation("link")
	}
	var out AuthorisationStatus
	resp, err := s.client.follow(ctx, "payments.authorisation_status", http.MethodGet, psu, link, "the link of SCALinks.AuthorisationLink", &out,
		routePaymentAuthorisation, routeBasketAuthorisation)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// AuthorisationLink is the link of the authorisation that this answer of a
// startAuthorisation link started, for PaymentsService.AuthorisationStatus:
// Links.SCAStatus when the bank sent one, else start (the
// startAuthorisation link that was followed) with "/" and AuthorisationID
// appended. Production banks send neither (docs/interface.md PP3): then it
// returns a *ValidationError saying that the bank gave no authorisation id.
func (a *SCALinks) AuthorisationLink(start Link) (Link, error) {
	switch {
	case a == nil:
		return Link{}, invalid("SCALinks", "is nil")
	case !a.Links.SCAStatus.IsZero():
		return a.Links.SCAStatus, nil
	case a.AuthorisationID == "":
		return Link{}, errNoAuthorisation("SCALinks")
	case start.IsZero():
		return Link{}, invalid("start", "is empty: pass the startAuthorisation link the answer came from")
	}
	href, _, _ := strings.Cut(start.Href, "?")
	return Link{Href: strings.TrimSuffix(href, "/") + "/" + pathSegment(a.AuthorisationID), Verbs: []string{http.MethodGet}}, nil
}

// errNoAuthorisation is the refusal of an authorisation call when the
// bank's startAuthorisation answer named no authorisation; field is what
// was empty.
func errNoAuthorisation(field string) *ValidationError {
	return invalid(field, "names no authorisation (pass the link of SCALinks.AuthorisationLink): the bank's startAuthorisation answer "+
		"gave no authorisationId and no scaStatus link, as production banks answer; read the payment's status instead")
}

// Get reads a payment, GET on the self link of the initiation
// (docs/interface.md PP5): the body it was initiated with, as the bank holds
// it now, with its id and status (see PaymentDetails; the interface does not
// describe the answer beyond the initiation fields, so the rest is in
// PaymentDetails.Extra). A link that would route anywhere but a payment is
// refused before sending.
func (s *PaymentsService) Get(ctx context.Context, psu PSU, link Link) (*PaymentDetails, *Response, error) {
	var out PaymentDetails
	resp, err := s.client.follow(ctx, "payments.get", http.MethodGet, psu, link, "Initiation.Links.Self", &out, routePayment)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// Cancel cancels a payment, DELETE on the self link of the initiation
// (docs/interface.md: available for all products in the sandbox; docs/interface.md, Production).
// When the bank wants the PSU to authorise the cancellation it answers with
// a scaRedirect, returned as a *SCARequiredError.
func (s *PaymentsService) Cancel(ctx context.Context, psu PSU, link Link) (*Response, error) {
	return s.client.follow(ctx, "payments.cancel", http.MethodDelete, psu, link, "Initiation.Links.Self", nil, routePayment)
}

// follow sends a bodiless request to a link of an earlier answer and
// decodes a 2xx body into into (when non-nil). An empty link, or one the
// bank routes to another endpoint than kinds (the link's purpose), is a
// *ValidationError on "link" (the first names pass, the link to give).
func (c *Client) follow(ctx context.Context, op, method string, psu PSU, link Link, pass string, into any, kinds ...routeKind) (*Response, error) {
	if link.IsZero() {
		return nil, invalid("link", "is empty: pass %s", pass)
	}
	return c.do(ctx, &request{op: op, method: method, href: link.Href, psu: &psu, rule: routeRule{kinds: kinds}}, into)
}

// Create sends a signing basket, POST /v1/signing-baskets with
// {"paymentIds":[...],"consentIds":[...]} (docs/interface.md, Production, Payments), so the
// PSU authorises several payments with one SCA: follow
// Links.StartAuthorisation with PaymentsService.StartAuthorisation, or send
// the PSU to Links.SCARedirect. Bulk and periodic payments are refused before
// sending, as the bank refuses them with REFERENCE_MIX_INVALID (docs/interface.md,
// Errors): a *ValidationError whose Field is "SigningBasket.Payments[i]".
// A basket of ids only (PaymentIDs) cannot be checked that way; the bank's
// refusal then answers errors.Is(err, ErrReferenceMixInvalid).
func (s *SigningBasketsService) Create(ctx context.Context, psu PSU, b *SigningBasket) (*BasketInitiation, *Response, error) {
	if b == nil {
		return nil, nil, invalid("SigningBasket", "is nil")
	}
	body, err := b.body()
	if err != nil {
		return nil, nil, err
	}
	var out BasketInitiation
	resp, err := s.client.do(ctx, &request{
		op:        "signing_baskets.create",
		method:    http.MethodPost,
		href:      "/v1/signing-baskets",
		body:      body,
		psu:       &psu,
		scaResult: true,
	}, &out)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// Get reads a signing basket's payment ids and status (GET
// BasketInitiation.Links.Self).
func (s *SigningBasketsService) Get(ctx context.Context, psu PSU, link Link) (*BasketDetails, *Response, error) {
	var out BasketDetails
	resp, err := s.client.follow(ctx, "signing_baskets.get", http.MethodGet, psu, link, "BasketInitiation.Links.Self", &out, routeBasket)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// Status reads a signing basket's status, GET on the status link of its
// creation answer (BasketInitiation.Links.Status): RCVD until the PSU
// authorised it, ACTC after; the payments in it have statuses of their own.
func (s *SigningBasketsService) Status(ctx context.Context, psu PSU, link Link) (*BasketStatus, *Response, error) {
	var out BasketStatus
	resp, err := s.client.follow(ctx, "signing_baskets.status", http.MethodGet, psu, link, "BasketInitiation.Links.Status", &out, routeBasketStatus)
	if err != nil {
		return nil, resp, err
	}
	return &out, resp, nil
}

// Cancel deletes a signing basket, DELETE on the self link of its creation
// answer (BasketInitiation.Links.Self). The bank allows it only before the
// basket is authorised; the payments in it stay as they are (cancel them
// with PaymentsService.Cancel).
func (s *SigningBasketsService) Cancel(ctx context.Context, psu PSU, link Link) (*Response, error) {
	return s.client.follow(ctx, "signing_baskets.cancel", http.MethodDelete, psu, link, "BasketInitiation.Links.Self", nil, routeBasket)
}

// body checks a signing basket and returns the JSON to send.
func (b *SigningBasket) body() (*signingBasketBody, error) {
	if err := checkIDs("SigningBasket.PaymentIDs", b.PaymentIDs); err != nil {
		return nil, err
	}
	if err := checkIDs("SigningBasket.ConsentIDs", b.ConsentIDs); err != nil {
		return nil, err
	}
	out := &signingBasketBody{ConsentIDs: b.ConsentIDs}
	out.PaymentIDs = append(out.PaymentIDs, b.PaymentIDs...)
	for i, ini := range b.Payments {
		f := "SigningBasket.Payments[" + strconv.Itoa(i) + "]"
		if ini == nil {
			return nil, invalid(f, "is nil")
		}
		if k := ini.effectiveKind(); k == kindPeriodic || k == kindBulk {
			return nil, invalid(f, "is a %s payment: only single payments go into a signing basket (the bank answers REFERENCE_MIX_INVALID)", k)
		}
		if err := checkID(f+".PaymentID", ini.PaymentID, out.PaymentIDs); err != nil {
			return nil, err
		}
		out.PaymentIDs = append(out.PaymentIDs, ini.PaymentID)
	}
	if len(out.PaymentIDs) == 0 && len(out.ConsentIDs) == 0 {
		return nil, invalid("SigningBasket", "needs at least one payment or consent")
	}
	return out, nil
}

// checkIDs refuses empty, unprintable and duplicate ids.
func checkIDs(field string, ids []string) error {
	for i, id := range ids {
		if err := checkID(field+"["+strconv.Itoa(i)+"]", id, ids[:i]); err != nil {
			return err
		}
	}
	return nil
}

// checkID refuses an empty or unprintable id, or one already in seen.
func checkID(field, id string, seen []string) error {
	switch {
	case id == "":
		return invalid(field, "is empty")
	case !headerSafe(id, 1024):
		return invalid(field, "must be printable ASCII of at most 1024 characters")
	case slices.Contains(seen, id):
		return invalid(field, "appears twice")
	}
	return nil
}

// doAs sends r and returns its 2xx answer decoded into a new T.
func doAs[T any](ctx context.Context, c *Client, r *request) (*T, *Response, error) {
	out := new(T)
	resp, err := c.do(ctx, r, out)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}
