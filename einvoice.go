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
	// Issuer is the issuer code of the invoice scheme on the CINV reference;
	// "" means DefaultInvoiceIssuer.
	Issuer string
}

// InitiateEInvoice pays an electronic invoice (docs/interface.md, Flow 4): a single
// payment, POST /v1/payments/{product} (usually
// NorwegianDomesticCreditTransfers), whose
// remittanceInformationStructuredArray holds the invoice's KID (type SCOR)
// and invoice number (type CINV, referenceIssuer the scheme's issuer code),
// built by EInvoiceReferencesWithIssuer. p supplies the rest (amount,
// creditor; leave DebtorAccount nil to let the PSU choose the account) and
// must carry no remittance information of its own; p itself is not modified.
// The bank may adjust RequestedExecutionDate.
//
// retry says whether this is a new attempt for the same invoice after a
// failure that the PSU or TPP can correct (for example a rejected SCA or a
// fixed amount): only then is allowLogicalDuplicate=true sent, as Flow 4
// requires. The first attempt must pass retry false, so that the bank
// refuses a real duplicate payment of the invoice. Before retrying, make sure
// the earlier attempt cannot still be executed: a payment the bank holds as
// ACCP for lack of funds (PollStatus returns a *FundsError) may be booked at
// a later batch run when funds arrive, so cancel it (Cancel) first, or the
// invoice may be paid twice.
//
// When the PSU authorises the payment, the bank marks the invoice as
// processed at the invoice scheme. The TPP must not change that status
// itself (docs/interface.md, Flow 4); the SDK has no call that does.
func (s *PaymentsService) InitiateEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice, retry bool) (*Initiation, *Response, error) {
	body, err := einvoicePayment(psu, product, p, inv)
	if err != nil {
		return nil, nil, err
	}
	return s.initiate(ctx, psu, "payments.initiate_einvoice", "/v1/payments/", product, body, &InitiateOptions{AllowLogicalDuplicate: retry}, kindSingle)
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

// ResolveEInvoice finds out whether an e-invoice payment whose answer was
// lost (ErrOutcomeUnknown from InitiateEInvoice) reached the bank: it sends
// the same invoice again, POST /v1/payments/{product}, always without
// allowLogicalDuplicate. The bank refuses a second live payment of one
// invoice (same KID, invoice number and creditor) unless that flag is set,
// so this call creates at most one payment of the invoice whatever happened
// before: a refusal means the earlier attempt landed (Landed), an
// acceptance means it did not and this call made the payment (Initiation).
// Pass the psu, product, p and inv of the lost call; checks and errors are
// those of InitiateEInvoice.
//
// The SDK never calls it on its own: re-sending a payment is the caller's
// decision. If its own answer is lost (ErrOutcomeUnknown again), calling it
// again is as safe. When Landed, the SDK cannot authorise, poll or cancel
// the earlier payment (its links were in the lost answer); unless the bank
// exempted it from SCA, it is not executed without the PSU's SCA, which
// starts from those links. Do not pay
// the invoice again on your own: tell the PSU, and only on the PSU's
// decision call InitiateEInvoice with retry true.
func (s *PaymentsService) ResolveEInvoice(ctx context.Context, psu PSU, product string, p *Payment, inv EInvoice) (*EInvoiceResolution, *Response, error) {
	body, err := einvoicePayment(psu, product, p, inv)
	if err != nil {
		return nil, nil, err
	}
	ini, resp, err := s.initiate(ctx, psu, "payments.resolve_einvoice", "/v1/payments/", product, body, nil, kindSingle)
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
