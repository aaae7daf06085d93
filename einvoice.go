package xs2a

import (
	"cmp"
	"context"
	"errors"
)

// EInvoice identifies the electronic invoice a payment settles
// (docs/interface.md PIS6, F4).
type EInvoice struct {
	KID           string // the invoice's KID, sent as the SCOR reference; must pass ValidKID
	InvoiceNumber string // sent as the CINV reference, 1 to 35 characters
	Issuer        string // the CINV reference's issuer code; "" means DefaultInvoiceIssuer
}

// InitiateEInvoice pays an electronic invoice (docs/interface.md PIS6 to
// PIS11, F4): a single payment whose remittanceInformationStructuredArray
// holds the invoice's KID and invoice number. p supplies the rest, without
// remittance information; it is not modified. opts may be nil: set
// AllowLogicalDuplicate only to retry the same invoice after a failure the
// PSU or TPP can correct, after cancelling an attempt the bank holds as ACCP
// without funds, or the invoice may be paid twice.
func (s *PaymentsService) InitiateEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice, opts *InitiateOptions) (*Initiation, *Response, error) {
	return s.initiateEInvoice(ctx, "payments.initiate_einvoice", psu, product, p, inv, opts)
}

// EInvoiceResolution is the answer of ResolveEInvoice: either Landed (with
// Refusal) or Initiation is set.
type EInvoiceResolution struct {
	// Landed: the bank refused the invoice as a logical duplicate, so it
	// holds a live payment of it (whose id and links cannot be learnt).
	Landed  bool
	Refusal *Error // when Landed, the bank's duplicate answer (ErrDuplicatePayment)
	// Initiation is the payment this call created when the bank held no
	// live payment of the invoice; go on with it as after InitiateEInvoice.
	Initiation *Initiation
}

// ResolveEInvoice tells whether an e-invoice payment whose answer was lost
// (ErrOutcomeUnknown from InitiateEInvoice) reached the bank, by sending the
// same psu, product, p and inv again without allowLogicalDuplicate: it
// creates at most one payment of the invoice. When Landed, pay again only on
// the PSU's decision; see "Payments sent once" in the package
// documentation.
func (s *PaymentsService) ResolveEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice) (*EInvoiceResolution, *Response, error) {
	ini, resp, err := s.initiateEInvoice(ctx, "payments.resolve_einvoice", psu, product, p, inv, nil)
	var refusal *Error
	switch {
	case err == nil:
		return &EInvoiceResolution{Initiation: ini}, resp, nil
	case errors.As(err, &refusal) && refusal.Is(ErrDuplicatePayment):
		return &EInvoiceResolution{Landed: true, Refusal: refusal}, resp, nil
	}
	return nil, resp, err
}

// initiateEInvoice checks an e-invoice initiation and sends, as op, a copy
// of p with the invoice's references.
func (s *PaymentsService) initiateEInvoice(ctx context.Context, op string, psu PSU, product string, p *Payment, inv EInvoice, opts *InitiateOptions) (*Initiation, *Response, error) {
	if err := checkInitiation(psu, product); err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, invalid("Payment", "is nil")
	}
	switch {
	case p.RemittanceInformationUnstructured != "":
		return nil, nil, invalid("Payment.RemittanceInformationUnstructured", "must be empty: an e-invoice payment carries the KID and invoice number only")
	case len(p.RemittanceInformationStructuredArray) > 0:
		return nil, nil, invalid("Payment.RemittanceInformationStructuredArray", "must be empty: InitiateEInvoice fills it from EInvoice")
	case p.RemittanceInformationStructured != nil:
		return nil, nil, invalid("Payment.RemittanceInformationStructured", "must be nil: InitiateEInvoice fills RemittanceInformationStructuredArray from EInvoice")
	}
	refs, err := EInvoiceReferencesWithIssuer(inv.KID, inv.InvoiceNumber, cmp.Or(inv.Issuer, DefaultInvoiceIssuer))
	if ve, ok := errors.AsType[*ValidationError](err); ok { // named as the EInvoice field
		fields := map[string]string{"kid": "EInvoice.KID", "invoiceNumber": "EInvoice.InvoiceNumber", "issuer": "EInvoice.Issuer"}
		return nil, nil, &ValidationError{Field: fields[ve.Field], Reason: ve.Reason}
	}
	body := *p
	body.RemittanceInformationStructuredArray = refs
	if err := body.validate("Payment"); err != nil {
		return nil, nil, err
	}
	return s.initiate(ctx, psu, op, kindSingle, product, &body, opts)
}
