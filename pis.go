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
// *Payment, a *PeriodicPayment (a standing order) or a *BulkPayment
// (docs/interface.md PP1). Only those three implement it.
type PaymentRequest interface {
	// initiation checks the payment and names its kind.
	initiation() (paymentKind, error)
}

// initiations are each kind's path prefix and operation name.
var initiations = [...]struct{ prefix, op string }{
	kindSingle:   {"/v1/payments/", "payments.initiate"},
	kindPeriodic: {"/v1/periodic-payments/", "payments.initiate_periodic"},
	kindBulk:     {"/v1/bulk-payments/", "payments.initiate_bulk"},
}

func (p *Payment) initiation() (paymentKind, error)         { return kindSingle, p.validate("Payment") }
func (p *PeriodicPayment) initiation() (paymentKind, error) { return kindPeriodic, p.validate() }
func (b *BulkPayment) initiation() (paymentKind, error)     { return kindBulk, b.validate() }

// Initiate sends the payment p to POST /v1/{payments,periodic-payments,
// bulk-payments}/{product} (docs/interface.md PIS1 to PIS5, PP1). product is
// a product constant or another name of lower-case letters, digits and '-'.
// psu.IPAddress is required; p is checked first and is not modified; opts
// may be nil. Go on with the answer's Initiation.SCA. A refusal for lack of
// funds answers errors.Is(err, ErrInsufficientFunds).
func (s *PaymentsService) Initiate(ctx context.Context, psu PSU, product string, p PaymentRequest, opts *InitiateOptions) (*Initiation, *Response, error) {
	if err := checkInitiation(psu, product); err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, invalid("PaymentRequest", "is nil: pass a *Payment, *PeriodicPayment or *BulkPayment")
	}
	kind, err := p.initiation()
	if err != nil {
		return nil, nil, err
	}
	return s.initiate(ctx, psu, initiations[kind].op, kind, product, p, opts)
}

// checkInitiation checks what every initiation needs besides its body.
func checkInitiation(psu PSU, product string) error {
	if psu.IPAddress == "" {
		return invalid("PSU.IPAddress", "is required: payment initiation needs the PSU present (docs/interface.md, Limits)")
	}
	if product == "" || len(product) > 100 || strings.Trim(product, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return invalid("product", "must be a payment product such as %q: lower-case letters, digits and '-'", NorwegianDomesticCreditTransfers)
	}
	return nil
}

// initiate sends, as op, a checked initiation body of the kind given.
func (s *PaymentsService) initiate(ctx context.Context, psu PSU, op string, kind paymentKind, product string, body any, opts *InitiateOptions) (*Initiation, *Response, error) {
	r := &request{op: op, method: http.MethodPost, href: initiations[kind].prefix + product, body: body, psu: &psu, scaResult: true}
	if opts != nil && opts.AllowLogicalDuplicate {
		r.query = url.Values{"allowLogicalDuplicate": {"true"}}
	}
	out, resp, err := doAs[Initiation](ctx, s.client, r)
	if err != nil {
		return nil, resp, err
	}
	if out.PaymentID == "" { // accepted, but it cannot be followed: as a lost answer
		return nil, resp, &TransportError{Method: r.method, Op: op, RequestID: resp.RequestID, Sent: true,
			Err: errors.New("the answer holds no paymentId")}
	}
	out.kind = kind
	return out, resp, nil
}

// StartAuthorisation starts the PSU's SCA of a payment (or signing basket):
// POST to the startAuthorisation link with an empty body (docs/interface.md
// EP11, F3, PP3). Send the PSU's browser to the answer's Links.SCARedirect.
// Each further signer starts with the same link or the status answer's
// PaymentStatus.Links.StartAuthorisation (PS4).
func (s *PaymentsService) StartAuthorisation(ctx context.Context, psu PSU, link Link) (*SCALinks, *Response, error) {
	r, err := startRequest(link, "link")
	if err != nil {
		return nil, nil, err
	}
	r.psu = &psu
	return doAs[SCALinks](ctx, s.client, r)
}

// startRequest is StartAuthorisation's request on link; field names link
// in an error. Client.do checks its route (target) when it is sent.
func startRequest(link Link, field string) (*request, error) {
	if link.IsZero() {
		return nil, invalid(field, "is empty: pass Initiation.Links.StartAuthorisation")
	}
	return &request{op: "payments.start_authorisation", method: http.MethodPost, href: link.Href, rawBody: []byte{},
		scaResult: true, rule: routeRule{field: field, kinds: []routeKind{routePaymentAuthorisations, routeBasketAuthorisations}}}, nil
}

// Status reads a payment's status, GET on Initiation.Links.Status
// (docs/interface.md EP12, PS1, PS6, PS7); PollStatus reads until the bank
// has decided.
func (s *PaymentsService) Status(ctx context.Context, psu PSU, link Link) (*PaymentStatus, *Response, error) {
	return getLink[PaymentStatus](ctx, s.client, "payments.status", psu, link, "Initiation.Links.Status", routePaymentStatus)
}

// Outcome reads a payment's status (Status) and says what it means to the
// person who made it (PaymentStatus.Outcome). For a
// domestic-norway-credit-transfers payment, which has no status before the
// PSU approved it (PS7), an IsNotYet answer is OutcomeWaitingForSignature;
// any other error is OutcomeUnknown with it.
func (s *PaymentsService) Outcome(ctx context.Context, psu PSU, link Link) (PaymentOutcome, error) {
	st, _, err := s.Status(ctx, psu, link)
	switch {
	case IsNotYet(err) && strings.Contains(link.Href, "/payments/"+DomesticNorwayCreditTransfers+"/"):
		return OutcomeWaitingForSignature, nil
	case err != nil:
		return OutcomeUnknown, err
	}
	return st.Outcome(), nil
}

// AuthorisationStatus reads the state of one PSU's SCA of a payment or
// signing basket: GET on the link SCALinks.AuthorisationLink gives
// (docs/interface.md PS8). An empty link, as production banks leave it
// (PP3), is a *ValidationError saying so; read the payment's status instead.
func (s *PaymentsService) AuthorisationStatus(ctx context.Context, psu PSU, link Link) (*AuthorisationStatus, *Response, error) {
	if link.IsZero() {
		return nil, nil, errNoAuthorisation("link")
	}
	return getLink[AuthorisationStatus](ctx, s.client, "payments.authorisation_status", psu, link,
		"the link of SCALinks.AuthorisationLink", routePaymentAuthorisation, routeBasketAuthorisation)
}

// AuthorisationLink is the link, for PaymentsService.AuthorisationStatus,
// of the authorisation this answer started: Links.SCAStatusLink, else start
// (the startAuthorisation link followed) with "/" and AuthorisationID appended;
// neither is a *ValidationError (docs/interface.md PS8, PP3).
func (a *SCALinks) AuthorisationLink(start Link) (Link, error) {
	switch {
	case a == nil:
		return Link{}, invalid("SCALinks", "is nil")
	case !a.Links.SCAStatusLink.IsZero():
		return a.Links.SCAStatusLink, nil
	case a.AuthorisationID == "":
		return Link{}, errNoAuthorisation("SCALinks")
	case start.IsZero():
		return Link{}, invalid("start", "is empty: pass the startAuthorisation link the answer came from")
	}
	href, _, _ := strings.Cut(start.Href, "?")
	return Link{Href: strings.TrimSuffix(href, "/") + "/" + pathSegment(a.AuthorisationID), Verbs: []string{http.MethodGet}}, nil
}

// KeepAuthorisation records on i, which a TPP stores anyway, the status
// link of the authorisation a started (a.AuthorisationLink of i's
// startAuthorisation link) as i.Links.SCAStatusLink, for a later
// PaymentsService.AuthorisationStatus. Its errors are AuthorisationLink's:
// production banks name no authorisation (docs/interface.md PP3); read the
// payment's status instead.
func (i *Initiation) KeepAuthorisation(a *SCALinks) error {
	if i == nil {
		return invalid("Initiation", "is nil")
	}
	link, err := a.AuthorisationLink(i.Links.StartAuthorisation)
	if err != nil {
		return err
	}
	i.Links.SCAStatusLink = link
	return nil
}

// errNoAuthorisation refuses an authorisation call when the bank's
// startAuthorisation answer named none; field is what was empty.
func errNoAuthorisation(field string) *ValidationError {
	return invalid(field, "names no authorisation (pass the link of SCALinks.AuthorisationLink): the bank's startAuthorisation answer "+
		"gave no authorisationId and no scaStatus link, as production banks answer; read the payment's status instead")
}

// Get reads a payment, GET on Initiation.Links.Self (docs/interface.md PP5):
// the body as the bank holds it now, with its id and status.
func (s *PaymentsService) Get(ctx context.Context, psu PSU, link Link) (*PaymentDetails, *Response, error) {
	return getLink[PaymentDetails](ctx, s.client, "payments.get", psu, link, "Initiation.Links.Self", routePayment)
}

// Cancel cancels a payment, DELETE on Initiation.Links.Self
// (docs/interface.md PP5, SB7). A bank that wants the PSU to authorise the
// cancellation answers with a scaRedirect, a *SCARequiredError.
func (s *PaymentsService) Cancel(ctx context.Context, psu PSU, link Link) (*Response, error) {
	return s.client.deleteLink(ctx, "payments.cancel", psu, link, "Initiation.Links.Self", routePayment)
}

// deleteLink sends DELETE to a link of an earlier answer. An empty link, or
// one the bank routes to another endpoint than kinds, is a *ValidationError
// on "link" (pass names the link to give).
func (c *Client) deleteLink(ctx context.Context, op string, psu PSU, link Link, pass string, kinds ...routeKind) (*Response, error) {
	if link.IsZero() {
		return nil, invalid("link", "is empty: pass %s", pass)
	}
	return c.do(ctx, &request{op: op, method: http.MethodDelete, href: link.Href, psu: &psu, rule: routeRule{kinds: kinds}}, nil)
}

// getLink is deleteLink with GET, decoding the answer into a new T.
func getLink[T any](ctx context.Context, c *Client, op string, psu PSU, link Link, pass string, kinds ...routeKind) (*T, *Response, error) {
	if link.IsZero() {
		return nil, nil, invalid("link", "is empty: pass %s", pass)
	}
	return doAs[T](ctx, c, &request{op: op, method: http.MethodGet, href: link.Href, psu: &psu, rule: routeRule{kinds: kinds}})
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

// doList sends r and returns the list its answer holds as {key: [...]} or a
// bare array; none is an empty, non-nil slice.
func doList[T any](ctx context.Context, c *Client, r *request, key string) ([]T, *Response, error) {
	body := listBody[T]{key: key}
	resp, err := c.do(ctx, r, &body)
	if err != nil {
		return nil, resp, err
	}
	return body.list(), resp, nil
}

// Create sends a signing basket, POST /v1/signing-baskets (docs/interface.md
// PP9), so the PSU authorises several payments with one SCA: go on as with
// an Initiation. A bulk or periodic payment in Payments is a
// *ValidationError on "SigningBasket.Payments[i]" (E8); one among PaymentIDs
// is the bank's refusal, errors.Is(err, ErrReferenceMixInvalid).
func (s *SigningBasketsService) Create(ctx context.Context, psu PSU, b *SigningBasket) (*BasketInitiation, *Response, error) {
	if b == nil {
		return nil, nil, invalid("SigningBasket", "is nil")
	}
	body, err := b.body()
	if err != nil {
		return nil, nil, err
	}
	return doAs[BasketInitiation](ctx, s.client, &request{op: "signing_baskets.create", method: http.MethodPost,
		href: "/v1/signing-baskets", body: body, psu: &psu, scaResult: true})
}

// Get reads a signing basket's payment ids and status, GET on
// BasketInitiation.Links.Self.
func (s *SigningBasketsService) Get(ctx context.Context, psu PSU, link Link) (*BasketDetails, *Response, error) {
	return getLink[BasketDetails](ctx, s.client, "signing_baskets.get", psu, link, "BasketInitiation.Links.Self", routeBasket)
}

// Status reads a signing basket's status, GET on BasketInitiation.Links.Status:
// RCVD until the PSU authorised it, ACTC after.
func (s *SigningBasketsService) Status(ctx context.Context, psu PSU, link Link) (*BasketStatus, *Response, error) {
	return getLink[BasketStatus](ctx, s.client, "signing_baskets.status", psu, link, "BasketInitiation.Links.Status", routeBasketStatus)
}

// Cancel deletes a signing basket, DELETE on BasketInitiation.Links.Self,
// which the bank allows only before the basket is authorised; the payments
// in it stay as they are.
func (s *SigningBasketsService) Cancel(ctx context.Context, psu PSU, link Link) (*Response, error) {
	return s.client.deleteLink(ctx, "signing_baskets.cancel", psu, link, "BasketInitiation.Links.Self", routeBasket)
}

// body checks a signing basket and returns the JSON to send.
func (b *SigningBasket) body() (*signingBasketBody, error) {
	if err := firstError(checkIDs("SigningBasket.PaymentIDs", b.PaymentIDs), checkIDs("SigningBasket.ConsentIDs", b.ConsentIDs)); err != nil {
		return nil, err
	}
	out := &signingBasketBody{PaymentIDs: slices.Clone(b.PaymentIDs), ConsentIDs: b.ConsentIDs}
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
