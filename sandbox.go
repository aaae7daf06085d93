package xs2a

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// SandboxService runs the sandbox's mock-data operations (docs/interface.md,
// Sandbox): reset the sandbox to its known state, list its customers, and
// create customers, accounts, corporate agreements, transactions and balances
// that the payment and account operations then work on. The paths are those
// of docs/interface.md, Production, Other endpoints.
//
// These calls act for no PSU: they carry no PSU headers, and are signed like
// every other request. Input is checked before anything is sent; a refused
// input is a *ValidationError naming the field. The sandbox's own refusals
// (for example an invalid CustomerType, or a transaction with another account
// as debtor) are *Error answers, typically 400 FORMAT_ERROR.
type SandboxService service

// Sandbox text limits (Berlin Group Max70Text, Max140Text, Max35Text,
// Max500Text, Max1000Text), applied with checkText.
const (
	sandboxMaxName        = 70
	sandboxMaxRemittance  = 140
	sandboxMaxCode        = 35
	sandboxMaxInfo        = 500
	sandboxMaxCardDetails = 1000
)

// Initialize resets the sandbox to its known state with POST
// /v1/sandbox/initialize and an empty body (docs/interface.md, Sandbox and
// Endpoints): customers, accounts and other data created through the mock-data
// operations are removed; two private customers (each with 2 accounts and a
// card account) and two corporate customers (each with 2 accounts) remain
// (see SandboxPrivateCustomer1 and the other constants).
func (s *SandboxService) Initialize(ctx context.Context) (*Response, error) {
	return s.client.do(ctx, &request{
		op:      "sandbox.initialize",
		method:  http.MethodPost,
		href:    "/v1/sandbox/initialize",
		rawBody: []byte{},
	}, nil)
}

// Customers lists the sandbox customers with GET /v1/sandbox/customers
// (docs/interface.md, Sandbox and Endpoints), with their accounts and agreements when
// opts asks for them (includeAccounts=true, includeAgreements=true;
// docs/interface.md, Production, Other endpoints). opts may be nil. Each account's
// CustomerNumber is filled from its customer.
func (s *SandboxService) Customers(ctx context.Context, opts *CustomersOptions) ([]SandboxCustomer, *Response, error) {
	q := url.Values{}
	if opts != nil && opts.IncludeAccounts {
		q.Set("includeAccounts", "true")
	}
	if opts != nil && opts.IncludeAgreements {
		q.Set("includeAgreements", "true")
	}
	var raw json.RawMessage
	resp, err := s.client.do(ctx, &request{
		op:     "sandbox.customers",
		method: http.MethodGet,
		href:   "/v1/sandbox/customers",
		query:  q,
	}, &raw)
	if err != nil {
		return nil, resp, err
	}
	customers, err := decodeSandboxCustomers(raw)
	if err != nil {
		return nil, resp, fmt.Errorf("xs2a: sandbox.customers: decoding the response (X-Request-ID %s): %w", resp.RequestID, err)
	}
	for i := range customers {
		fillAccountOwner(&customers[i])
	}
	return customers, resp, nil
}

// decodeSandboxCustomers reads {"customers":[...]}, the sandbox's answer, and
// also a bare array, since docs/interface.md does not show the body.
func decodeSandboxCustomers(raw json.RawMessage) ([]SandboxCustomer, error) {
	raw = bytes.TrimSpace(raw)
	out := []SandboxCustomer{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	var doc struct {
		Customers []SandboxCustomer `json:"customers"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if doc.Customers != nil {
		out = doc.Customers
	}
	return out, nil
}

// fillAccountOwner sets CustomerNumber on the accounts of c that have none.
func fillAccountOwner(c *SandboxCustomer) {
	for i := range c.Accounts {
		if c.Accounts[i].CustomerNumber == "" {
			c.Accounts[i].CustomerNumber = c.CustomerNumber
		}
	}
}

// CreateCustomer creates a sandbox customer with POST /v1/sandbox/customers
// (docs/interface.md, Sandbox: mock-data operations create customers;
// docs/interface.md, Production, Other endpoints). It sends customerNumber (11 digits, the
// mock national id used on the sandbox SCA page), customerType (PRIVATE or
// CORPORATE; the sandbox answers 400 to anything else, docs/interface.md Errors) and
// name, and returns the customer as created (a corporate customer comes with
// a default agreement). c is not modified.
func (s *SandboxService) CreateCustomer(ctx context.Context, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	if c == nil {
		return nil, nil, invalid("SandboxCustomer", "is required")
	}
	if err := checkCustomerNumber("SandboxCustomer.CustomerNumber", c.CustomerNumber); err != nil {
		return nil, nil, err
	}
	if !c.CustomerType.Valid() {
		return nil, nil, invalid("SandboxCustomer.CustomerType", "must be PRIVATE or CORPORATE")
	}
	if err := checkRequiredText("SandboxCustomer.Name", c.Name, sandboxMaxName); err != nil {
		return nil, nil, err
	}
	body := struct {
		CustomerNumber string       `json:"customerNumber"`
		CustomerType   CustomerType `json:"customerType"`
		Name           string       `json:"name"`
	}{c.CustomerNumber, c.CustomerType, c.Name}
	out := new(SandboxCustomer)
	resp, err := s.client.do(ctx, &request{
		op:     "sandbox.createCustomer",
		method: http.MethodPost,
		href:   "/v1/sandbox/customers",
		body:   body,
	}, out)
	if err != nil {
		return nil, resp, err
	}
	fillAccountOwner(out)
	return out, resp, nil
}

// CreateAccount creates an account, or with Card set a card account, for the
// customer a.CustomerNumber with POST /v1/sandbox/accounts (docs/interface.md,
// Sandbox: mock-data operations create accounts, and card accounts may be
// inserted as supplementary card accounts; docs/interface.md, Production, Other endpoints).
// Checked before sending: CustomerNumber 11 digits; Currency an ISO 4217 code;
// Name present; a BBAN, when given, a valid Norwegian account number and only
// without Card; Balance and CreditLimit decimal amounts; CreditLimit and
// MaskedPAN only with Card. The returned account carries the ResourceID to
// use as mockAccountId. a is not modified.
func (s *SandboxService) CreateAccount(ctx context.Context, a *SandboxAccount) (*SandboxAccount, *Response, error) {
	if err := validateSandboxAccount(a); err != nil {
		return nil, nil, err
	}
	body := struct {
		CustomerNumber  string `json:"customerNumber"`
		BBAN            string `json:"bban,omitempty"`
		Currency        string `json:"currency"`
		Name            string `json:"name"`
		Product         string `json:"product,omitempty"`
		Balance         string `json:"balance,omitempty"`
		CashAccountType string `json:"cashAccountType,omitempty"`
		Card            bool   `json:"card,omitempty"`
		MaskedPAN       string `json:"maskedPan,omitempty"`
		CreditLimit     string `json:"creditLimit,omitempty"`
	}{a.CustomerNumber, a.BBAN, a.Currency, a.Name, a.Product, a.Balance, a.CashAccountType, a.Card, a.MaskedPAN, a.CreditLimit}
	out := new(SandboxAccount)
	resp, err := s.client.do(ctx, &request{
		op:     "sandbox.createAccount",
		method: http.MethodPost,
		href:   "/v1/sandbox/accounts",
		body:   body,
	}, out)
	if err != nil {
		return nil, resp, err
	}
	if out.CustomerNumber == "" {
		out.CustomerNumber = a.CustomerNumber
	}
	if out.CashAccountType == "" {
		out.CashAccountType = a.CashAccountType
	}
	return out, resp, nil
}

func validateSandboxAccount(a *SandboxAccount) error {
	const f = "SandboxAccount"
	if a == nil {
		return invalid(f, "is required")
	}
	if err := checkCustomerNumber(f+".CustomerNumber", a.CustomerNumber); err != nil {
		return err
	}
	if err := checkCurrency(f+".Currency", a.Currency, true); err != nil {
		return err
	}
	if err := checkRequiredText(f+".Name", a.Name, sandboxMaxName); err != nil {
		return err
	}
	for _, t := range []struct{ field, value string }{
		{".Product", a.Product}, {".CashAccountType", a.CashAccountType}, {".MaskedPAN", a.MaskedPAN},
	} {
		if err := checkText(f+t.field, t.value, sandboxMaxName); err != nil {
			return err
		}
	}
	if a.BBAN != "" {
		if a.Card {
			return invalid(f+".BBAN", "must be empty for a card account")
		}
		if !ValidBBAN(a.BBAN) {
			return invalid(f+".BBAN", "must be a Norwegian account number of 11 digits with a valid MOD11 control digit")
		}
	}
	if a.Balance != "" && !amountPattern.MatchString(a.Balance) {
		return invalid(f+".Balance", "must be a decimal number with up to 14 digits before and 3 after a '.'")
	}
	if !a.Card && a.MaskedPAN != "" {
		return invalid(f+".MaskedPAN", "is only for a card account (Card)")
	}
	if a.CreditLimit != "" {
		if !a.Card {
			return invalid(f+".CreditLimit", "is only for a card account (Card)")
		}
		if a.CreditLimit[0] == '-' || !amountPattern.MatchString(a.CreditLimit) {
			return invalid(f+".CreditLimit", "must be a non-negative decimal number")
		}
	}
	return nil
}

// CreateAgreement creates a corporate agreement with POST
// /v1/sandbox/agreements (docs/interface.md, Production, Other endpoints: "POST
// /v1/sandbox/agreements (corporate)"; docs/interface.md Flows 2): the owner
// a.CustomerNumber (a corporate customer) grants the accounts a.Accounts
// (resource ids of its accounts) to a.Members (customer numbers; the owner is
// always a member), and a payment needs a.SignersRequired of them (0: one).
// Checked before sending: CustomerNumber and every member 11 digits, Name
// present, no empty account id, SignersRequired not negative. a is not
// modified.
func (s *SandboxService) CreateAgreement(ctx context.Context, a *SandboxAgreement) (*SandboxAgreement, *Response, error) {
	const f = "SandboxAgreement"
	if a == nil {
		return nil, nil, invalid(f, "is required")
	}
	if err := checkCustomerNumber(f+".CustomerNumber", a.CustomerNumber); err != nil {
		return nil, nil, err
	}
	if err := checkRequiredText(f+".Name", a.Name, sandboxMaxName); err != nil {
		return nil, nil, err
	}
	for i, id := range a.Accounts {
		if err := checkSandboxID(fmt.Sprintf("%s.Accounts[%d]", f, i), id); err != nil {
			return nil, nil, err
		}
	}
	for i, m := range a.Members {
		if err := checkCustomerNumber(fmt.Sprintf("%s.Members[%d]", f, i), m); err != nil {
			return nil, nil, err
		}
	}
	if a.SignersRequired < 0 {
		return nil, nil, invalid(f+".SignersRequired", "must not be negative")
	}
	body := struct {
		CustomerNumber  string   `json:"customerNumber"`
		Name            string   `json:"name"`
		Accounts        []string `json:"accounts"`
		SignersRequired int      `json:"signersRequired,omitempty"`
		Members         []string `json:"members,omitempty"`
	}{a.CustomerNumber, a.Name, a.Accounts, a.SignersRequired, a.Members}
	if body.Accounts == nil {
		body.Accounts = []string{}
	}
	out := new(SandboxAgreement)
	resp, err := s.client.do(ctx, &request{
		op:     "sandbox.createAgreement",
		method: http.MethodPost,
		href:   "/v1/sandbox/agreements",
		body:   body,
	}, out)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// CreateTransaction creates a mock transaction on the account mockAccountID
// (a ResourceID) with POST /v1/sandbox/accounts/{mockAccountId}/transactions
// (docs/interface.md, Sandbox and Endpoints; docs/interface.md, Production: "booking and value date
// in the past, bookingDate <= valueDate"). Checked before sending, with the
// client's clock (WithClock) and the bank's calendar (Europe/Oslo):
// BookingDate and ValueDate not after today, BookingDate not after ValueDate
// (an empty BookingDate is today, an empty ValueDate the booking date),
// TransactionAmount and OriginalAmount valid amounts, account references
// valid, and text fields printable Latin-1 within the Berlin Group lengths.
// A DebtorAccount other than the account itself is refused by the sandbox
// (docs/interface.md, Sandbox) with an *Error. tx is not modified; TransactionID is
// never sent.
func (s *SandboxService) CreateTransaction(ctx context.Context, mockAccountID string, tx *SandboxTransaction) (*SandboxTransaction, *Response, error) {
	if err := checkSandboxID("mockAccountID", mockAccountID); err != nil {
		return nil, nil, err
	}
	if err := validateSandboxTransaction(tx, sandboxToday(s.client.cfg.now())); err != nil {
		return nil, nil, err
	}
	body := *tx
	body.TransactionID = ""
	out := new(SandboxTransaction)
	resp, err := s.client.do(ctx, &request{
		op:     "sandbox.createTransaction",
		method: http.MethodPost,
		href:   "/v1/sandbox/accounts/" + pathSegment(mockAccountID) + "/transactions",
		body:   &body,
	}, out)
	if err != nil {
		return nil, resp, err
	}
	out.Pending = tx.Pending
	return out, resp, nil
}

func validateSandboxTransaction(tx *SandboxTransaction, today Date) error {
	const f = "SandboxTransaction"
	if tx == nil {
		return invalid(f, "is required")
	}
	if err := tx.TransactionAmount.validate(f + ".TransactionAmount"); err != nil {
		return err
	}
	if tx.OriginalAmount != nil {
		if err := tx.OriginalAmount.validate(f + ".OriginalAmount"); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		field string
		date  Date
	}{{".BookingDate", tx.BookingDate}, {".ValueDate", tx.ValueDate}, {".TransactionDate", tx.TransactionDate}} {
		if err := checkDate(f+d.field, d.date); err != nil {
			return err
		}
	}
	booking := tx.BookingDate
	if booking.IsZero() {
		booking = today
	}
	value := tx.ValueDate
	if value.IsZero() {
		value = booking
	}
	switch {
	case booking.After(today):
		return invalid(f+".BookingDate", "must not be in the future (today is %s at the bank)", today)
	case value.After(today):
		return invalid(f+".ValueDate", "must not be in the future (today is %s at the bank)", today)
	case value.Before(booking) && tx.BookingDate.IsZero():
		return invalid(f+".ValueDate", "must not be before the booking date, today when BookingDate is empty")
	case value.Before(booking):
		return invalid(f+".ValueDate", "must not be before BookingDate")
	}
	if tx.CreditorAccount != nil {
		if err := tx.CreditorAccount.validate(f + ".CreditorAccount"); err != nil {
			return err
		}
	}
	if tx.DebtorAccount != nil {
		if err := tx.DebtorAccount.validate(f + ".DebtorAccount"); err != nil {
			return err
		}
	}
	for _, t := range []struct {
		field, value string
		max          int
	}{
		{".CreditorName", tx.CreditorName, sandboxMaxName},
		{".DebtorName", tx.DebtorName, sandboxMaxName},
		{".RemittanceInformationUnstructured", tx.RemittanceInformationUnstructured, sandboxMaxRemittance},
		{".ProprietaryBankTransactionCode.Value", tx.ProprietaryBankTransactionCode.Value, sandboxMaxCode},
		{".ProprietaryBankTransactionCode.Code", tx.ProprietaryBankTransactionCode.Code, sandboxMaxCode},
		{".AdditionalInformation", tx.AdditionalInformation, sandboxMaxInfo},
		{".TransactionDetails", tx.TransactionDetails, sandboxMaxCardDetails},
	} {
		if err := checkText(f+t.field, t.value, t.max); err != nil {
			return err
		}
	}
	return nil
}

// SetBalance sets the booked balance of the account mockAccountID (a
// ResourceID) with PUT /v1/sandbox/accounts/{mockAccountId}/balances and the
// body {"balanceAmount":{"amount","currency"}} (docs/interface.md, Sandbox: mock-data
// operations update balances; docs/interface.md, Production, Other endpoints). The amount
// must be a valid Amount; the sandbox refuses a currency other than the
// account's.
func (s *SandboxService) SetBalance(ctx context.Context, mockAccountID string, b *SandboxBalance) (*Response, error) {
	if err := checkSandboxID("mockAccountID", mockAccountID); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, invalid("SandboxBalance", "is required")
	}
	if err := b.BalanceAmount.validate("SandboxBalance.BalanceAmount"); err != nil {
		return nil, err
	}
	return s.client.do(ctx, &request{
		op:     "sandbox.setBalance",
		method: http.MethodPut,
		href:   "/v1/sandbox/accounts/" + pathSegment(mockAccountID) + "/balances",
		body:   b,
	}, nil)
}

// checkCustomerNumber checks a sandbox customer number: the mock national
// identification number, 11 digits (docs/interface.md, Sandbox).
func checkCustomerNumber(field, n string) error {
	if len(n) != 11 || !allDigits(n) {
		return invalid(field, "must be 11 digits (the mock national identification number)")
	}
	return nil
}

// checkRequiredText is checkText for a field that must not be blank.
func checkRequiredText(field, s string, max int) error {
	if len(bytes.TrimSpace([]byte(s))) == 0 {
		return invalid(field, "is required")
	}
	return checkText(field, s, max)
}

// checkSandboxID checks an opaque resource id used as one path segment: not
// empty, at most 200 characters, printable ASCII (ids look like "enc!!..."),
// and not "." or "..". It is path-escaped when sent.
func checkSandboxID(field, id string) error {
	switch {
	case id == "":
		return invalid(field, "is required")
	case id == "." || id == "..":
		return invalid(field, "must be a resource id, not a path element")
	case !headerSafe(id, 200):
		return invalid(field, "must be 1 to 200 printable ASCII characters (a resourceId of the sandbox)")
	}
	return nil
}

// sandboxZone is the bank's time zone, which decides what "today" is for
// booking and value dates. Without a zone database the later of the two
// Norwegian offsets (CEST, UTC+2) is used, so no date that is today in Oslo is
// refused locally; the sandbox still checks.
var sandboxZone = func() *time.Location {
	if loc, err := time.LoadLocation("Europe/Oslo"); err == nil {
		return loc
	}
	return time.FixedZone("CEST", 2*60*60)
}()

// sandboxToday is the date at the bank at instant now.
func sandboxToday(now time.Time) Date { return DateOf(now.In(sandboxZone)) }
