package xs2atest

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Validation of payment initiation bodies (docs/interface.md "Payment initiation
// request", "Electronic invoice payment", periodic and bulk payments).

var (
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
	countryRE  = regexp.MustCompile(`^[A-Z]{2}$`)
)

// Payment products the fake bank knows; any other gives 400 PRODUCT_UNKNOWN.
const (
	ProductDomestic       = bank.ProductDomestic
	ProductInstant        = bank.ProductInstant
	ProductDomesticNorway = bank.ProductDomesticNorway
	// ProductCrossBorder is a payment to an iban abroad, in NOK or another
	// currency, with fees (see the package documentation, Cross-border
	// payments).
	ProductCrossBorder = bank.ProductCrossBorder
)

var products = map[string]bool{ProductDomestic: true, ProductInstant: true, ProductDomesticNorway: true, ProductCrossBorder: true}

var frequencies = map[string]bool{
	"Daily": true, "Weekly": true, "EveryTwoWeeks": true, "Monthly": true, "EveryTwoMonths": true,
	"Quarterly": true, "SemiAnnual": true, "Annual": true, "MonthlyVariable": true,
}

type remittanceRef struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

type addressJSON struct {
	StreetName     string `json:"streetName,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	TownName       string `json:"townName,omitempty"`
	PostCode       string `json:"postCode,omitempty"`
	Country        string `json:"country"`
}

// paymentReq is one payment: a single payment, a periodic payment (with the
// periodic fields) or an entry of a bulk payment.
type paymentReq struct {
	EndToEndIdentification               string           `json:"endToEndIdentification,omitempty"`
	InstructedAmount                     *amountJSON      `json:"instructedAmount"`
	DebtorAccount                        *bank.AccountRef `json:"debtorAccount,omitempty"`
	CreditorAccount                      *bank.AccountRef `json:"creditorAccount"`
	CreditorName                         string           `json:"creditorName"`
	CreditorAddress                      *addressJSON     `json:"creditorAddress,omitempty"`
	PurposeCode                          string           `json:"purposeCode,omitempty"`
	RequestedExecutionDate               string           `json:"requestedExecutionDate,omitempty"`
	RemittanceInformationUnstructured    string           `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructuredArray []remittanceRef  `json:"remittanceInformationStructuredArray,omitempty"`
	RemittanceInformationStructured      *remittanceRef   `json:"remittanceInformationStructured,omitempty"`

	StartDate         string   `json:"startDate,omitempty"`
	EndDate           string   `json:"endDate,omitempty"`
	Frequency         string   `json:"frequency,omitempty"`
	DayOfExecution    string   `json:"dayOfExecution,omitempty"`
	ExecutionRule     string   `json:"executionRule,omitempty"`
	MonthsOfExecution []string `json:"monthsOfExecution,omitempty"`
}

type bulkReq struct {
	PaymentInformationID   string           `json:"paymentInformationId,omitempty"`
	BatchBookingPreferred  bool             `json:"batchBookingPreferred,omitempty"`
	DebtorAccount          *bank.AccountRef `json:"debtorAccount"`
	RequestedExecutionDate string           `json:"requestedExecutionDate,omitempty"`
	Payments               []paymentReq     `json:"payments"`
}

// validKID: 2 to 25 characters, digits with a MOD10 (Luhn) or MOD11 control
// character last (MOD11 may give '-').
func validKID(kid string) bool {
	if len(kid) < 2 || len(kid) > 25 {
		return false
	}
	payload, ctl := kid[:len(kid)-1], kid[len(kid)-1]
	if !allDigits(payload) || (ctl != '-' && (ctl < '0' || ctl > '9')) {
		return false
	}
	// MOD11: weights 2..7 from the right
	sum := 0
	for i := 0; i < len(payload); i++ {
		sum += int(payload[len(payload)-1-i]-'0') * (2 + i%6)
	}
	var c11 byte
	switch r := sum % 11; r {
	case 0:
		c11 = '0'
	case 1:
		c11 = '-'
	default:
		c11 = byte('0' + 11 - r)
	}
	if ctl == c11 {
		return true
	}
	// MOD10 (Luhn): weights 2,1 from the right, digits of products summed
	sum = 0
	for i := 0; i < len(payload); i++ {
		d := int(payload[len(payload)-1-i]-'0') * (2 - i%2)
		sum += d/10 + d%10
	}
	return ctl == byte('0'+(10-sum%10)%10)
}

// bbanOf reads an account reference's bban, or the BBAN inside a Norwegian IBAN.
func bbanOf(ref *bank.AccountRef) string {
	if ref == nil {
		return ""
	}
	if ref.BBAN != "" {
		return ref.BBAN
	}
	if iban := strings.ReplaceAll(ref.IBAN, " ", ""); len(iban) == 15 && strings.HasPrefix(iban, "NO") && bank.IBANOf(iban[4:]) == iban {
		return iban[4:]
	}
	return ""
}

// validatePayment checks one payment of product; prefix names the JSON
// path ("" or "payments[3].").
func validatePayment(p *paymentReq, prefix, product string, today time.Time) (*bank.Entry, *bank.Error) {
	f := &bank.Entry{Foreign: product == ProductCrossBorder}
	if p.InstructedAmount == nil {
		return nil, bank.FormatErr(prefix+"instructedAmount", "instructedAmount is required")
	}
	if !currencyRE.MatchString(p.InstructedAmount.Currency) {
		return nil, bank.FormatErr(prefix+"instructedAmount.currency", "currency must be an ISO 4217 code")
	}
	amt, ok := parseAmount(p.InstructedAmount.Amount, false)
	if !ok || amt == 0 {
		return nil, bank.FormatErr(prefix+"instructedAmount.amount", "amount must be a positive amount string like 100.26")
	}
	f.Amount, f.Currency = amt, p.InstructedAmount.Currency
	check := checkDomesticCreditor
	if f.Foreign {
		check = checkForeignCreditor
	}
	if err := check(p, prefix, f); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.CreditorName) == "" || len([]rune(p.CreditorName)) > 70 {
		return nil, bank.FormatErr(prefix+"creditorName", "creditorName is required, at most 70 characters")
	}
	f.CreditorName = p.CreditorName
	if p.CreditorAddress != nil && !countryRE.MatchString(p.CreditorAddress.Country) {
		return nil, bank.FormatErr(prefix+"creditorAddress.country", "country must be an ISO 3166 code")
	}
	if len([]rune(p.RemittanceInformationUnstructured)) > 140 {
		return nil, bank.FormatErr(prefix+"remittanceInformationUnstructured", "at most 140 characters")
	}
	f.Remittance = p.RemittanceInformationUnstructured
	if p.RequestedExecutionDate != "" {
		d, ok := bank.ParseDate(p.RequestedExecutionDate)
		if !ok {
			return nil, bank.FormatErr(prefix+"requestedExecutionDate", "requestedExecutionDate must be YYYY-MM-DD")
		}
		if d.Before(today) {
			return nil, bank.Refuse("EXECUTION_DATE_INVALID", prefix+"requestedExecutionDate", "requestedExecutionDate is in the past")
		}
		f.ExecDate = d
	}
	if err := validateRemittance(p, prefix, f); err != nil {
		return nil, err
	}
	return f, nil
}

// checkDomesticCreditor: a Norwegian payment is paid in NOK to a valid
// Norwegian account (bban, or the BBAN inside a Norwegian iban).
func checkDomesticCreditor(p *paymentReq, prefix string, f *bank.Entry) *bank.Error {
	if f.Currency != "NOK" {
		return bank.FormatErr(prefix+"instructedAmount.currency", "a Norwegian domestic payment is paid in NOK")
	}
	f.Creditor = bbanOf(p.CreditorAccount)
	if p.CreditorAccount == nil || !validBBAN(f.Creditor) {
		return bank.FormatErr(prefix+"creditorAccount", "creditorAccount must hold a valid Norwegian bban (11 digits, MOD11)")
	}
	if p.CreditorAccount.Currency != "" && p.CreditorAccount.Currency != "NOK" {
		return bank.FormatErr(prefix+"creditorAccount.currency", "creditorAccount currency must be NOK")
	}
	return nil
}

// checkForeignCreditor: a cross-border payment goes in a currency the bank
// trades (bank.Traded) to a valid iban outside Norway, with the creditor's
// country in creditorAddress.
func checkForeignCreditor(p *paymentReq, prefix string, f *bank.Entry) *bank.Error {
	if !bank.Traded(f.Currency) {
		return bank.FormatErr(prefix+"instructedAmount.currency", "currency is not offered for cross-border payments (NOK, EUR, USD, GBP, SEK, DKK, CHF)")
	}
	iban := ""
	if p.CreditorAccount != nil {
		iban = strings.ReplaceAll(p.CreditorAccount.IBAN, " ", "")
	}
	if !validIBAN(iban) {
		return bank.FormatErr(prefix+"creditorAccount.iban", "a cross-border payment needs the creditor's iban, with valid check digits")
	}
	if strings.HasPrefix(iban, "NO") {
		return bank.FormatErr(prefix+"creditorAccount.iban", "the creditor account is Norwegian: use a domestic payment product")
	}
	if p.CreditorAddress == nil {
		return bank.FormatErr(prefix+"creditorAddress", "a cross-border payment needs the creditorAddress with its country")
	}
	f.Creditor = iban
	return nil
}

// validateRemittance checks the structured references: a KID (SCOR) and
// an e-invoice (CINV with its issuer, always with a SCOR) for domestic
// payments; an ISO 11649 RF creditor reference (SCOR) for cross-border ones.
func validateRemittance(p *paymentReq, prefix string, f *bank.Entry) *bank.Error {
	arrayPath := prefix + "remittanceInformationStructuredArray"
	for i, ref := range p.RemittanceInformationStructuredArray {
		path := arrayPath + "[" + strconv.Itoa(i) + "]"
		switch {
		case ref.ReferenceType == "SCOR" && f.Foreign:
			if !validRF(ref.Reference) {
				return bank.FormatErr(path+".reference", "a cross-border payment's SCOR reference must be an ISO 11649 RF creditor reference")
			}
		case ref.ReferenceType == "SCOR":
			if !validKID(ref.Reference) {
				return bank.FormatErr(arrayPath, "invalid KID")
			}
			f.KID = ref.Reference
		case ref.ReferenceType == "CINV" && f.Foreign:
			return bank.FormatErr(path+".referenceType", "electronic invoices are domestic payments")
		case ref.ReferenceType == "CINV":
			if strings.TrimSpace(ref.Reference) == "" {
				return bank.FormatErr(path+".reference", "a CINV reference needs the invoice number")
			}
			if strings.TrimSpace(ref.ReferenceIssuer) == "" {
				return bank.FormatErr(path+".referenceIssuer", "a CINV reference needs the issuer code of the invoice scheme")
			}
			f.Invoice = ref.Reference
		default:
			return bank.FormatErr(path+".referenceType", "referenceType must be SCOR or CINV")
		}
	}
	// docs/interface.md: an electronic invoice payment carries both a CINV (with
	// the scheme's issuer) and a SCOR KID in remittanceInformationStructuredArray
	if f.Invoice != "" && f.KID == "" {
		return bank.FormatErr(arrayPath, "an electronic invoice payment (CINV) needs a KID reference of type SCOR as well")
	}
	if ref := p.RemittanceInformationStructured; ref != nil {
		if ref.ReferenceType != "" && ref.ReferenceType != "SCOR" {
			return bank.FormatErr(prefix+"remittanceInformationStructured.referenceType", "referenceType must be SCOR")
		}
		if !validKID(ref.Reference) {
			return bank.FormatErr(prefix+"remittanceInformationStructured", "invalid KID")
		}
		if f.KID == "" {
			f.KID = ref.Reference
		}
	}
	return nil
}

// validatePeriodic checks the periodic fields.
func validatePeriodic(p *paymentReq, today time.Time) *bank.Error {
	start, ok := bank.ParseDate(p.StartDate)
	if !ok {
		return bank.FormatErr("startDate", "startDate is required, YYYY-MM-DD")
	}
	if start.Before(today) {
		return bank.Refuse("EXECUTION_DATE_INVALID", "startDate", "startDate is in the past")
	}
	if p.EndDate != "" {
		end, ok := bank.ParseDate(p.EndDate)
		if !ok || end.Before(start) {
			return bank.FormatErr("endDate", "endDate must be a date (YYYY-MM-DD) not before startDate")
		}
	}
	if !frequencies[p.Frequency] {
		return bank.FormatErr("frequency", "frequency must be one of Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable")
	}
	if p.DayOfExecution != "" {
		if n, err := strconv.Atoi(p.DayOfExecution); err != nil || n < 1 || n > 31 || strconv.Itoa(n) != p.DayOfExecution {
			return bank.FormatErr("dayOfExecution", "dayOfExecution must be \"1\" to \"31\"")
		}
	}
	if p.ExecutionRule != "" && p.ExecutionRule != "following" && p.ExecutionRule != "preceding" {
		return bank.FormatErr("executionRule", "executionRule must be following or preceding")
	}
	return validateMonths(p)
}

// validateMonths checks monthsOfExecution: distinct months "1" to "12",
// given with frequency MonthlyVariable and only then.
func validateMonths(p *paymentReq) *bank.Error {
	if p.Frequency != "MonthlyVariable" {
		if len(p.MonthsOfExecution) > 0 {
			return bank.FormatErr("monthsOfExecution", "monthsOfExecution is only allowed with frequency MonthlyVariable")
		}
		return nil
	}
	if len(p.MonthsOfExecution) == 0 {
		return bank.FormatErr("monthsOfExecution", "MonthlyVariable needs monthsOfExecution")
	}
	seen := map[int]bool{}
	for _, m := range p.MonthsOfExecution {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > 12 {
			return bank.FormatErr("monthsOfExecution", "month identifiers must be \"1\" to \"12\"")
		}
		if seen[n] {
			return bank.FormatErr("monthsOfExecution", "duplicate month identifiers")
		}
		seen[n] = true
	}
	return nil
}
