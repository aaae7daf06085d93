package xs2a

// Reference types of remittanceInformationStructuredArray entries used by the
// electronic invoice payment of docs/interface.md ("Payment initiation request" and
// flow 4): an entry of type CINV carries the invoice number, an entry of type
// SCOR the KID (the creditor's structured reference).
const (
	// ReferenceTypeSCOR marks the creditor's structured reference (ISO 20022
	// "structured creditor reference"): a Norwegian KID/CID (ValidKID), or,
	// in SEPA and cross-border payments, an ISO 11649 RF creditor reference
	// (ValidCreditorReference). The e-invoice needs a KID.
	ReferenceTypeSCOR = "SCOR"
	// ReferenceTypeCINV marks the invoice number (ISO 20022 "commercial
	// invoice").
	ReferenceTypeCINV = "CINV"
)

// DefaultInvoiceIssuer is the referenceIssuer that EInvoiceReferences puts on
// the CINV reference. docs/interface.md (electronic invoice payment) requires "the
// issuer code of the invoice scheme" there without giving it; BITS-EFAKTURA,
// the code of the Norwegian eFaktura scheme, is what one bank portal's sample
// of the same platform shows. It is a default, not a certainty: a TPP that
// learns another code from its bank passes it to EInvoiceReferencesWithIssuer.
const DefaultInvoiceIssuer = "BITS-EFAKTURA"

// maxReferenceLen is the Berlin Group Max35Text limit of a structured
// remittance reference and issuer.
const maxReferenceLen = 35

// StructuredRemittance is one entry of remittanceInformationStructuredArray in
// a payment initiation (docs/interface.md, "Payment initiation request" and
// "Electronic invoice payment"). For an electronic invoice use
// EInvoiceReferences rather than building the entries by hand.
type StructuredRemittance struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

// EInvoiceReferences builds the remittanceInformationStructuredArray of an
// electronic invoice payment (docs/interface.md, Electronic invoice
// payments: a reference of type CINV whose referenceIssuer is the issuer
// code of the invoice scheme, and the KID as a reference of type SCOR). It
// returns the SCOR entry (the KID) first and then the CINV entry (the invoice
// number, issued by DefaultInvoiceIssuer), the order of the platform's sample.
//
// The KID must pass ValidKID (Field "kid"): the Norwegian e-invoice needs a
// KID, so an RF creditor reference is refused here. The invoice number must
// be 1 to 35 characters of text the bank can process (Field
// "invoiceNumber"). Errors are *ValidationError and never repeat the values.
func EInvoiceReferences(kid, invoiceNumber string) ([]StructuredRemittance, error) {
	return EInvoiceReferencesWithIssuer(kid, invoiceNumber, DefaultInvoiceIssuer)
}

// EInvoiceReferencesWithIssuer is EInvoiceReferences with another issuer code
// of the invoice scheme on the CINV reference (docs/interface.md, electronic invoice
// payment: "referenceIssuer is the issuer code of the invoice scheme"), for a
// bank that expects a code other than DefaultInvoiceIssuer. The issuer must be
// 1 to 35 characters of text the bank can process (Field "issuer").
func EInvoiceReferencesWithIssuer(kid, invoiceNumber, issuer string) ([]StructuredRemittance, error) {
	if !ValidKID(kid) {
		return nil, invalid("kid", "must be a KID of 2 to 25 digits with a MOD10 or MOD11 control digit last")
	}
	if err := checkReference("invoiceNumber", invoiceNumber); err != nil {
		return nil, err
	}
	if err := checkReference("issuer", issuer); err != nil {
		return nil, err
	}
	return []StructuredRemittance{
		{Reference: kid, ReferenceType: ReferenceTypeSCOR},
		{Reference: invoiceNumber, ReferenceType: ReferenceTypeCINV, ReferenceIssuer: issuer},
	}, nil
}

// checkReference checks a required Max35Text reference.
func checkReference(field, s string) error {
	if s == "" {
		return invalid(field, "is required")
	}
	return checkText(field, s, maxReferenceLen)
}
