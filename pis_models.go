package xs2a

import (
	"slices"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// Payment products of the path /v1/{payments|periodic-payments|bulk-payments}/{product}
// (docs/interface.md PP1). The Initiate methods take any product of
// lower-case letters, digits and '-'.
const (
	// NorwegianDomesticCreditTransfers is the ordinary Norwegian domestic
	// payment, also used for electronic invoices (InitiateEInvoice). Beside
	// DomesticNorwayCreditTransfers: the same kind of payment, but its
	// status can be read from the initiation on (RCVD until signed).
	NorwegianDomesticCreditTransfers = "norwegian-domestic-credit-transfers"
	// InstantNorwegianDomesticCreditTransfersStraks is the instant domestic
	// payment (Straks).
	InstantNorwegianDomesticCreditTransfersStraks = "instant-norwegian-domestic-credit-transfers-straks"
	// DomesticNorwayCreditTransfers is a domestic payment too, a product of
	// its own on the platform. Beside NorwegianDomesticCreditTransfers: its
	// details and status do not exist until the PSU approved it; a read
	// before answers 404 or RESOURCE_UNKNOWN (docs/interface.md PS7: IsNotYet,
	// PollOptions.NotYetFor).
	DomesticNorwayCreditTransfers = "domestic-norway-credit-transfers"
	// SEPACreditTransfers is the SEPA credit transfer in euro.
	SEPACreditTransfers = "sepa-credit-transfers"
	// CrossBorderCreditTransfers is a payment abroad in another currency.
	CrossBorderCreditTransfers = "cross-border-credit-transfers"
)

// Limits of the Berlin Group data types (Max35Text and so on), for the
// payment and sandbox fields.
const (
	max35Text       = 35
	max70Text       = 70
	max140Text      = 140
	max500Text      = 500
	max1000Text     = 1000
	maxReferenceLen = max35Text // a structured remittance reference and its issuer
	maxPurposeCode  = 4         // ExternalPurpose1Code
	maxMonths       = 11        // monthsOfExecution, maxItems 11
)

// Payment is the body of a single payment initiation, POST
// /v1/payments/{product} (docs/interface.md PIS1, PIS2), and an entry of
// BulkPayment.Payments. Initiation checks it before sending (PIS5, PIS8,
// PIS9, G2), each failure a *ValidationError naming the Go field.
type Payment struct {
	EndToEndIdentification string `json:"endToEndIdentification,omitempty"` // the TPP's reference, at most 35 characters
	InstructedAmount       Amount `json:"instructedAmount"`                 // the amount and currency to pay
	// DebtorAccount is the account to pay from; nil lets the PSU choose it
	// during SCA (PIS10). Nil in the entries of a bulk payment.
	DebtorAccount   *AccountReference `json:"debtorAccount,omitempty"`
	CreditorAccount AccountReference  `json:"creditorAccount"`           // the account to pay to; required
	CreditorName    string            `json:"creditorName"`              // the payee's name, 1 to 70 characters; required
	CreditorAddress *Address          `json:"creditorAddress,omitempty"` // the payee's address (cross-border payments)
	PurposeCode     string            `json:"purposeCode,omitempty"`     // an ISO 20022 purpose code (4 characters)
	// RequestedExecutionDate is the day to pay; zero: as soon as possible.
	// The bank may move it (PIS10). Zero in a periodic payment and in the
	// entries of a bulk payment.
	RequestedExecutionDate Date `json:"requestedExecutionDate,omitzero"`
	// RemittanceInformationUnstructured is a message, at most 140 characters
	// (PIS9).
	RemittanceInformationUnstructured string `json:"remittanceInformationUnstructured,omitempty"`
	// RemittanceInformationStructuredArray holds structured references: a
	// KID or RF reference (SCOR) and, for an electronic invoice, the invoice
	// number (CINV; see EInvoiceReferences).
	RemittanceInformationStructuredArray []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	// RemittanceInformationStructured formerly carried a KID.
	//
	// Deprecated: use RemittanceInformationStructuredArray (docs/interface.md V7: to be removed).
	RemittanceInformationStructured *StructuredRemittance `json:"remittanceInformationStructured,omitempty"`
}

// Address is creditorAddress; Country (ISO 3166 alpha-2) is required.
type Address struct {
	StreetName     string `json:"streetName,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	TownName       string `json:"townName,omitempty"`
	PostCode       string `json:"postCode,omitempty"`
	Country        string `json:"country"`
}

// Frequency is a periodic payment's frequency (docs/interface.md PP8).
type Frequency string

// The frequencies the interface accepts.
const (
	Daily           Frequency = "Daily"
	Weekly          Frequency = "Weekly"
	EveryTwoWeeks   Frequency = "EveryTwoWeeks"
	Monthly         Frequency = "Monthly"
	EveryTwoMonths  Frequency = "EveryTwoMonths"
	Quarterly       Frequency = "Quarterly"
	SemiAnnual      Frequency = "SemiAnnual"
	Annual          Frequency = "Annual"
	MonthlyVariable Frequency = "MonthlyVariable" // in PeriodicPayment.MonthsOfExecution, each once (EP19)
)

// Known reports whether f is one of the frequencies above.
func (f Frequency) Known() bool {
	switch f {
	case Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable:
		return true
	}
	return false
}

// ExecutionRule moves an execution off a non-business day.
type ExecutionRule string

// The execution rules.
const (
	ExecutionFollowing ExecutionRule = "following" // to the next business day
	ExecutionPreceding ExecutionRule = "preceding" // to the business day before
)

// PeriodicPayment is the body of POST /v1/periodic-payments/{product}
// (docs/interface.md PP8, EP19): the fields of Payment at the top level and
// the schedule; the first execution is StartDate. Checked before sending,
// besides the Payment rules: StartDate set, EndDate not before it, and the
// values of PP8 (MonthsOfExecution only for MonthlyVariable, each once).
type PeriodicPayment struct {
	Payment
	StartDate         Date          `json:"startDate"`
	EndDate           Date          `json:"endDate,omitzero"` // zero: until cancelled
	ExecutionRule     ExecutionRule `json:"executionRule,omitempty"`
	Frequency         Frequency     `json:"frequency"`
	DayOfExecution    string        `json:"dayOfExecution,omitempty"`    // "1".."31"
	MonthsOfExecution []string      `json:"monthsOfExecution,omitempty"` // "1".."12", at most 11, MonthlyVariable only
}

// BulkPayment is the body of POST /v1/bulk-payments/{product}
// (docs/interface.md PP7): several payments from one debtor account,
// authorised with one SCA.
type BulkPayment struct {
	BatchBookingPreferred  *bool            `json:"batchBookingPreferred,omitempty"`
	DebtorAccount          AccountReference `json:"debtorAccount"`
	PaymentInformationID   string           `json:"paymentInformationId,omitempty"`
	RequestedExecutionDate Date             `json:"requestedExecutionDate,omitzero"`
	Payments               []Payment        `json:"payments"`
}

// InitiateOptions are the query options of Initiate and InitiateEInvoice.
type InitiateOptions struct {
	// AllowLogicalDuplicate sends allowLogicalDuplicate=true: the bank accepts
	// a payment equal to an earlier one (PIS3, F4; see InitiateEInvoice).
	AllowLogicalDuplicate bool
}

// paymentKind is what an Initiation was created as.
type paymentKind uint8

const (
	kindUnknown paymentKind = iota
	kindSingle
	kindPeriodic
	kindBulk
)

func (k paymentKind) String() string {
	if k > kindBulk {
		k = kindUnknown
	}
	return [...]string{"unknown", "single", "periodic", "bulk"}[k]
}

// Initiation is the answer to a payment initiation (docs/interface.md PIS4,
// PP2). SCA says what comes next; pass Links.Status to Status or PollStatus.
type Initiation struct {
	PaymentID               string            `json:"paymentId"`
	TransactionStatus       TransactionStatus `json:"transactionStatus"`
	TransactionFees         *Amount           `json:"transactionFees,omitempty"`         // the fee, when one applies
	TransactionFeeIndicator *bool             `json:"transactionFeeIndicator,omitempty"` // nil: not said
	Links                   ResourceLinks     `json:"_links"`
	Messages                []TPPMessage      `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`

	kind paymentKind // set by Initiate and InitiateEInvoice
}

// UnmarshalJSONFrom decodes an initiation answer; members it does not name go to Extra.
func (i *Initiation) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Initiation
	return jsonv2.UnmarshalDecode(d, (*plain)(i))
}

// MarshalJSONTo encodes an initiation answer with its Extra members.
func (i Initiation) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Initiation
	return marshalModel(e, (*plain)(&i), &i.Extra, i)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (i *Initiation) UnmarshalJSON(data []byte) error { return decodeJSON(data, i) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (i Initiation) MarshalJSON() ([]byte, error) { return encodeJSON(i) }

// PaymentStatus is the answer of GET on a payment's status link
// (docs/interface.md PS5, PS6): the next signer of a PATC payment starts at
// Links.StartAuthorisation.
type PaymentStatus struct {
	PaymentID         string            `json:"paymentId,omitempty"` // "" when the bank did not send it
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	FundsAvailable    *bool             `json:"fundsAvailable,omitempty"` // false for too little money (nil: not said)
	// RequestedExecutionDate is the execution date, when the bank reports
	// one: a date it moved at the PSU's SCA (PIS10).
	RequestedExecutionDate Date          `json:"requestedExecutionDate,omitzero"`
	Links                  ResourceLinks `json:"_links,omitzero"`
	Messages               []TPPMessage  `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a payment status; members it does not name go to Extra.
func (s *PaymentStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain PaymentStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes a payment status with its Extra members.
func (s PaymentStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain PaymentStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *PaymentStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s PaymentStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// AuthorisationStatus is the answer of GET on an authorisation's link: the
// state of that PSU's SCA (docs/interface.md PS8).
type AuthorisationStatus struct {
	SCAStatus  SCAStatus     `json:"scaStatus"`
	PSUMessage string        `json:"psuMessage,omitempty"` // a text for the PSU, when the bank sends one
	Links      ResourceLinks `json:"_links,omitzero"`
	Messages   []TPPMessage  `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes an authorisation status; members it does not name go to Extra.
func (s *AuthorisationStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain AuthorisationStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes an authorisation status with its Extra members.
func (s AuthorisationStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain AuthorisationStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *AuthorisationStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s AuthorisationStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// InsufficientFunds reports whether the bank found too little money for the
// payment: fundsAvailable is false, whatever the status (docs/interface.md
// PS5). An ACCP payment may still be executed when funds arrive: cancel it
// before initiating it again or telling the PSU it failed.
func (s *PaymentStatus) InsufficientFunds() bool {
	return s != nil && s.FundsAvailable != nil && !*s.FundsAvailable
}

// SigningBasket is the body of POST /v1/signing-baskets (docs/interface.md
// PP9): payments (and consents) authorised together with one SCA, sent as
// paymentIds (PaymentIDs first, then the PaymentID of each of Payments) and
// consentIds. Only single payments may go into a basket.
type SigningBasket struct {
	Payments   []*Initiation // single payments from PaymentsService.Initiate
	PaymentIDs []string      // further payment ids
	ConsentIDs []string
}

// BasketInitiation is the answer to POST /v1/signing-baskets.
type BasketInitiation struct {
	BasketID          string            `json:"basketId"`
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	Links             ResourceLinks     `json:"_links"`
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
}

// BasketDetails is the answer of GET on a signing basket's self link: the
// ids of the payments (and consents) it holds and its status.
type BasketDetails struct {
	Payments          []string          `json:"payments,omitempty"`
	Consents          []string          `json:"consents,omitempty"`
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	Links             ResourceLinks     `json:"_links,omitzero"`
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a signing basket; members it does not name go to Extra.
func (b *BasketDetails) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain BasketDetails
	return jsonv2.UnmarshalDecode(d, (*plain)(b))
}

// MarshalJSONTo encodes a signing basket with its Extra members.
func (b BasketDetails) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain BasketDetails
	return marshalModel(e, (*plain)(&b), &b.Extra, b)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (b *BasketDetails) UnmarshalJSON(data []byte) error { return decodeJSON(data, b) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (b BasketDetails) MarshalJSON() ([]byte, error) { return encodeJSON(b) }

// BasketStatus is the answer of GET on a signing basket's status link.
type BasketStatus struct {
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a signing basket's status; members it does not name go to Extra.
func (s *BasketStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain BasketStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes a signing basket's status with its Extra members.
func (s BasketStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain BasketStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *BasketStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s BasketStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// signingBasketBody is the JSON sent for a SigningBasket.
type signingBasketBody struct {
	PaymentIDs []string `json:"paymentIds,omitempty"`
	ConsentIDs []string `json:"consentIds,omitempty"`
}

// validate checks a payment, which must not be nil; field is the Go path of
// p ("Payment", "BulkPayment.Payments[2]").
func (p *Payment) validate(field string) error {
	if p == nil {
		return invalid(field, "is nil")
	}
	if err := p.InstructedAmount.validatePayment(field + ".InstructedAmount"); err != nil {
		return err
	}
	return firstError(
		validateSet(field+".DebtorAccount", p.DebtorAccount),
		p.CreditorAccount.validate(field+".CreditorAccount"),
		checkRequired(field+".CreditorName", p.CreditorName, max70Text),
		validateSet(field+".CreditorAddress", p.CreditorAddress),
		checkTexts(field,
			textRule{".PurposeCode", p.PurposeCode, maxPurposeCode},
			textRule{".EndToEndIdentification", p.EndToEndIdentification, max35Text}),
		checkDate(field+".RequestedExecutionDate", p.RequestedExecutionDate),
		p.validateRemittance(field),
	)
}

// validateRemittance checks the remittance information of a payment: a
// text, or structured references, never both.
func (p *Payment) validateRemittance(field string) error {
	if err := firstError(
		checkText(field+".RemittanceInformationUnstructured", p.RemittanceInformationUnstructured, max140Text),
		checkEach(field+".RemittanceInformationStructuredArray", p.RemittanceInformationStructuredArray, checkRemittance),
	); err != nil {
		return err
	}
	if p.RemittanceInformationStructured != nil {
		if len(p.RemittanceInformationStructuredArray) > 0 {
			return invalid(field+".RemittanceInformationStructured", "is deprecated: put every reference into RemittanceInformationStructuredArray, not both")
		}
		if err := checkRemittance(field+".RemittanceInformationStructured", *p.RemittanceInformationStructured); err != nil {
			return err
		}
	}
	structured := len(p.RemittanceInformationStructuredArray) > 0 || p.RemittanceInformationStructured != nil
	if structured && p.RemittanceInformationUnstructured != "" {
		return invalid(field+".RemittanceInformationUnstructured", "must be empty when a structured reference (KID, invoice) is given: a payment carries one or the other")
	}
	return nil
}

// checkRemittance checks one structured reference of a payment: a
// reference and a type of at most 35 characters, and in a SCOR reference a
// valid KID or ISO 11649 RF creditor reference (docs/interface.md PIS8).
func checkRemittance(field string, r StructuredRemittance) error {
	if err := checkRequired(field+".Reference", r.Reference, maxReferenceLen); err != nil {
		return err
	}
	if r.ReferenceType == "" {
		return invalid(field+".ReferenceType", "is required (SCOR for a KID, CINV for an invoice number)")
	}
	if err := checkTexts(field, textRule{".ReferenceType", r.ReferenceType, maxReferenceLen},
		textRule{".ReferenceIssuer", r.ReferenceIssuer, maxReferenceLen}); err != nil {
		return err
	}
	if r.ReferenceType == ReferenceTypeSCOR && !ValidKID(r.Reference) && !ValidCreditorReference(r.Reference) {
		return invalid(field+".Reference", "is neither a valid KID (2 to 25 digits with a MOD10 or MOD11 control digit last) nor an ISO 11649 RF creditor reference (RF, 2 check digits, 1 to 21 upper-case letters and digits, MOD 97-10)")
	}
	return nil
}

// validate checks an address: an ISO 3166 alpha-2 Country and text fields
// within their lengths.
func (a *Address) validate(field string) error {
	if len(a.Country) != 2 || !isUpper(a.Country[0]) || !isUpper(a.Country[1]) {
		return invalid(field+".Country", "must be an ISO 3166 alpha-2 country code (two upper-case letters)")
	}
	return checkTexts(field,
		textRule{".StreetName", a.StreetName, max70Text},
		textRule{".BuildingNumber", a.BuildingNumber, 16},
		textRule{".TownName", a.TownName, max35Text},
		textRule{".PostCode", a.PostCode, 16})
}

// textRule is a text field: its name below the value's, its text, and its
// longest length.
type textRule struct {
	name, text string
	max        int
}

// checkTexts checks each text field of the value named field (checkText).
func checkTexts(field string, rules ...textRule) error {
	for _, r := range rules {
		if err := checkText(field+r.name, r.text, r.max); err != nil {
			return err
		}
	}
	return nil
}

// checkRequired is checkText for a field that must not be empty.
func checkRequired(field, s string, max int) error {
	if s == "" {
		return invalid(field, "is required")
	}
	return checkText(field, s, max)
}

// checkDate refuses a set Date that is not a real calendar date.
func checkDate(field string, d Date) error {
	if !d.IsZero() && !d.valid() {
		return invalid(field, "is not a calendar date")
	}
	return nil
}

// validate checks a periodic payment, which must not be nil.
func (p *PeriodicPayment) validate() error {
	const field = "PeriodicPayment"
	if p == nil {
		return invalid(field, "is nil")
	}
	if err := p.Payment.validate(field); err != nil {
		return err
	}
	months := len(p.MonthsOfExecution)
	switch err := firstError(checkDate(field+".StartDate", p.StartDate), checkDate(field+".EndDate", p.EndDate)); {
	case !p.RequestedExecutionDate.IsZero():
		return invalid(field+".RequestedExecutionDate", "is not used by periodic payments: set StartDate")
	case p.StartDate.IsZero():
		return invalid(field+".StartDate", "is required")
	case err != nil:
		return err
	case !p.EndDate.IsZero() && p.EndDate.Before(p.StartDate):
		return invalid(field+".EndDate", "is before StartDate")
	case p.ExecutionRule != "" && p.ExecutionRule != ExecutionFollowing && p.ExecutionRule != ExecutionPreceding:
		return invalid(field+".ExecutionRule", "must be %q or %q", ExecutionFollowing, ExecutionPreceding)
	case p.Frequency == "":
		return invalid(field+".Frequency", "is required")
	case !p.Frequency.Known():
		return invalid(field+".Frequency", "is not a frequency the interface accepts (Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable)")
	case p.DayOfExecution != "" && !numberIn(p.DayOfExecution, 1, 31):
		return invalid(field+".DayOfExecution", "must be a day of the month, \"1\" to \"31\"")
	case p.Frequency != MonthlyVariable && months > 0:
		return invalid(field+".MonthsOfExecution", "is only used with Frequency MonthlyVariable")
	case p.Frequency == MonthlyVariable && months == 0:
		return invalid(field+".MonthsOfExecution", "is required with Frequency MonthlyVariable")
	case months > maxMonths:
		return invalid(field+".MonthsOfExecution", "has more than 11 months: every month is Frequency Monthly (Berlin Group monthsOfExecution, maxItems 11)")
	}
	for i, m := range p.MonthsOfExecution {
		f := field + ".MonthsOfExecution[" + strconv.Itoa(i) + "]"
		if !numberIn(m, 1, 12) {
			return invalid(f, "must be a month, \"1\" to \"12\"")
		}
		if slices.Contains(p.MonthsOfExecution[:i], m) {
			return invalid(f, "repeats a month: the bank rejects duplicate month identifiers (docs/interface.md, Endpoints)")
		}
	}
	return nil
}

// numberIn reports whether s is a decimal number in [lo, hi] written without
// sign or leading zero.
func numberIn(s string, lo, hi int) bool {
	n, err := strconv.Atoi(s)
	return err == nil && lo <= n && n <= hi && strconv.Itoa(n) == s
}

// validate checks a bulk payment, which must not be nil.
func (b *BulkPayment) validate() error {
	const field = "BulkPayment"
	if b == nil {
		return invalid(field, "is nil")
	}
	if err := firstError(
		b.DebtorAccount.validate(field+".DebtorAccount"),
		checkText(field+".PaymentInformationID", b.PaymentInformationID, max35Text),
		checkDate(field+".RequestedExecutionDate", b.RequestedExecutionDate),
	); err != nil {
		return err
	}
	if len(b.Payments) == 0 {
		return invalid(field+".Payments", "must hold at least one payment")
	}
	entry := func(i int) string { return field + ".Payments[" + strconv.Itoa(i) + "]" }
	for i := range b.Payments {
		p := &b.Payments[i]
		if p.DebtorAccount != nil {
			return invalid(entry(i)+".DebtorAccount", "must be nil: a bulk payment has one BulkPayment.DebtorAccount")
		}
		if !p.RequestedExecutionDate.IsZero() {
			return invalid(entry(i)+".RequestedExecutionDate", "must be zero: use BulkPayment.RequestedExecutionDate")
		}
		// named on failure only: BenchmarkBulkPayment10k
		if err := p.validate(""); err != nil {
			if ve, ok := err.(*ValidationError); ok {
				ve.Field = entry(i) + ve.Field
			}
			return err
		}
	}
	return nil
}

// effectiveKind is the kind set by the Initiate method, or, for an
// Initiation decoded elsewhere (stored by the TPP), the kind its links show.
func (i *Initiation) effectiveKind() paymentKind {
	if i.kind != kindUnknown {
		return i.kind
	}
	for _, l := range []Link{i.Links.Self, i.Links.Status, i.Links.StartAuthorisation} {
		switch {
		case strings.Contains(l.Href, "/periodic-payments/"):
			return kindPeriodic
		case strings.Contains(l.Href, "/bulk-payments/"):
			return kindBulk
		}
	}
	return kindUnknown
}

// firstError returns the first of errs that is not nil: the results of pure
// checks, in the order their failures are reported.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkEach checks each element of list with check, naming it field[i].
func checkEach[T any](field string, list []T, check func(field string, v T) error) error {
	for i, v := range list {
		if err := check(field+"["+strconv.Itoa(i)+"]", v); err != nil {
			return err
		}
	}
	return nil
}

// validateSet checks v, when it is set, naming it field.
func validateSet[T any, P interface {
	*T
	validate(string) error
}](field string, v P) error {
	if v == nil {
		return nil
	}
	return v.validate(field)
}
