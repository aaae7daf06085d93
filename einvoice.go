package xs2a

import (
	"context"
	"errors"
)

// EInvoice identifies the electronic invoice a payment settles (docs/interface.md,
// "Electronic invoice payment" and Flow 4).
type EInvoice struct {
	KID           string // the invoice's KID, sent as the SCOR reference; must pass ValidKID
	InvoiceNumber string // sent as the CINV reference, 1 to 35 characters
	// Issuer is the CINV reference's issuer code; "" means DefaultInvoiceIssuer.
	Issuer string
}

// InitiateEInvoice pays an electronic invoice (docs/interface.md, Flows,
// flow 4): a single payment, POST /v1/payments/{product}, whose
// remittanceInformationStructuredArray holds the invoice's KID and invoice
// number (EInvoiceReferencesWithIssuer). p supplies the rest and must carry
// no remittance information; it is not modified. opts may be nil. The
// rules are in docs/interface.md, Electronic invoice payments.
//
// The first attempt sends no opts.AllowLogicalDuplicate, so the bank
// refuses a real duplicate; set it only to retry the same invoice after a
// failure the PSU or TPP can correct, and cancel an attempt the bank holds
// as ACCP with fundsAvailable false first, or the invoice may be paid twice.
func (s *PaymentsService) InitiateEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice, opts *InitiateOptions) (*Initiation, *Response, error) {
	body, err := einvoicePayment(psu, product, p, inv)
	if err != nil {
		return nil, nil, err
	}
	return s.initiate(ctx, psu, paymentEndpoint{op: "payments.initiate_einvoice", prefix: singleEndpoint.prefix, kind: kindSingle}, product, body, opts)
}

// EInvoiceResolution is the answer of ResolveEInvoice: either Landed (with
// Refusal) or Initiation is set.
type EInvoiceResolution struct {
	// Landed: the bank refused the invoice as a logical duplicate, so it
	// already holds a payment of it that is neither cancelled nor
	// rejected: the attempt whose answer was lost, or an earlier one. The
	// interface offers no way to learn that payment's id or links.
	Landed bool
	// Refusal is the bank's duplicate answer (ErrDuplicatePayment) when
	// Landed.
	Refusal *Error
	// Initiation is the payment this call created when the bank held no
	// live payment of the invoice: the lost attempt never reached it, or
	// was since cancelled or rejected. Go on with it as with an answer of
	// InitiateEInvoice (StartAuthorisation).
	Initiation *Initiation
}

// ResolveEInvoice tells whether an e-invoice payment whose answer was lost
// (ErrOutcomeUnknown from InitiateEInvoice) reached the bank: it sends the
// same invoice again without allowLogicalDuplicate, so it creates at most
// one payment of the invoice. A duplicate refusal means the earlier attempt
// landed (Landed; its links are lost); an acceptance means it did not, and
// this call made the payment (Initiation). Pass the psu, product, p and inv
// of the lost call. When Landed, pay again only on the PSU's decision
// (InitiateEInvoice with AllowLogicalDuplicate); see "Lost payment answers"
// in the package documentation.
func (s *PaymentsService) ResolveEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice) (*EInvoiceResolution, *Response, error) {
	body, err := einvoicePayment(psu, product, p, inv)
	if err != nil {
		return nil, nil, err
	}
	ini, resp, err := s.initiate(ctx, psu, paymentEndpoint{op: "payments.resolve_einvoice", prefix: singleEndpoint.prefix, kind: kindSingle}, product, body, nil)
	var refusal *Error
	switch {
	case err == nil:
		return &EInvoiceResolution{Initiation: ini}, resp, nil
	case errors.As(err, &refusal) && refusal.Is(ErrDuplicatePayment):
		return &EInvoiceResolution{Landed: true, Refusal: refusal}, resp, nil
	}
	return nil, resp, err
}

// einvoicePayment checks an e-invoice initiation and returns the payment to
// send: a copy of p with the invoice's references.
func einvoicePayment(psu PSU, product string, p *Payment, inv EInvoice) (*Payment, error) {
	if err := checkInitiation(psu, product); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, invalid("Payment", "is nil")
	}
	switch {
	case p.RemittanceInformationUnstructured != "":
		return nil, invalid("Payment.RemittanceInformationUnstructured", "must be empty: an e-invoice payment carries the KID and invoice number only")
	case len(p.RemittanceInformationStructuredArray) > 0:
		return nil, invalid("Payment.RemittanceInformationStructuredArray", "must be empty: InitiateEInvoice fills it from EInvoice")
	case p.RemittanceInformationStructured != nil:
		return nil, invalid("Payment.RemittanceInformationStructured", "must be nil: InitiateEInvoice fills RemittanceInformationStructuredArray from EInvoice")
	}
	refs, err := inv.references()
	if err != nil {
		return nil, err
	}
	cp := *p
	cp.RemittanceInformationStructuredArray = refs
	if err := cp.validate("Payment"); err != nil {
		return nil, err
	}
	return &cp, nil
}

// references builds the structured references of the invoice, naming
// EInvoice fields in errors.
func (inv EInvoice) references() ([]StructuredRemittance, error) {
	issuer := inv.Issuer
	if issuer == "" {
		issuer = DefaultInvoiceIssuer
	}
	refs, err := EInvoiceReferencesWithIssuer(inv.KID, inv.InvoiceNumber, issuer)
	var ve *ValidationError
	if errors.As(err, &ve) {
		fields := map[string]string{"kid": "EInvoice.KID", "invoiceNumber": "EInvoice.InvoiceNumber", "issuer": "EInvoice.Issuer"}
		if f, ok := fields[ve.Field]; ok {
			return nil, &ValidationError{Field: f, Reason: ve.Reason}
		}
	}
	if err != nil {
		return nil, err
	}
	return refs, nil
}
