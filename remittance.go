package xs2a

// Reference types of remittanceInformationStructuredArray entries
// (docs/interface.md PIS6).
const (
	ReferenceTypeSCOR = "SCOR" // the creditor's reference: a KID (ValidKID) or an RF reference (ValidCreditorReference)
	ReferenceTypeCINV = "CINV" // the invoice number
)

// DefaultInvoiceIssuer is the referenceIssuer that EInvoiceReferences puts on
// the CINV reference: the eFaktura scheme's code from a production sample, a
// default, not a certainty (docs/interface.md PIS7).
const DefaultInvoiceIssuer = "BITS-EFAKTURA"

// StructuredRemittance is one entry of remittanceInformationStructuredArray in
// a payment initiation (docs/interface.md PIS1, PIS6); for an electronic
// invoice, EInvoiceReferences builds them.
type StructuredRemittance struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

// EInvoiceReferences builds the remittanceInformationStructuredArray of an
// electronic invoice payment (docs/interface.md PIS6, PP6): the SCOR entry
// (the KID) and then the CINV entry (the invoice number, issued by
// DefaultInvoiceIssuer). The KID must pass ValidKID (Field "kid"), the invoice
// number be 1 to 35 characters of text the bank can process (Field
// "invoiceNumber"). Errors are *ValidationError and never repeat the values.
func EInvoiceReferences(kid, invoiceNumber string) ([]StructuredRemittance, error) {
	return EInvoiceReferencesWithIssuer(kid, invoiceNumber, DefaultInvoiceIssuer)
}

// EInvoiceReferencesWithIssuer is EInvoiceReferences with another issuer code
// on the CINV reference (docs/interface.md PIS7), 1 to 35 characters of text
// the bank can process (Field "issuer").
func EInvoiceReferencesWithIssuer(kid, invoiceNumber, issuer string) ([]StructuredRemittance, error) {
	if !ValidKID(kid) {
		return nil, invalid("kid", "must be a KID of 2 to 25 digits with a MOD10 or MOD11 control digit last")
	}
	if err := firstError(checkRequired("invoiceNumber", invoiceNumber, maxReferenceLen),
		checkRequired("issuer", issuer, maxReferenceLen)); err != nil {
		return nil, err
	}
	return []StructuredRemittance{
		{Reference: kid, ReferenceType: ReferenceTypeSCOR},
		{Reference: invoiceNumber, ReferenceType: ReferenceTypeCINV, ReferenceIssuer: issuer},
	}, nil
}
