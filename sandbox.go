package xs2a

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
// (docs/interface.md SB3, SB9 and PO2) in the shape of the platform's own
// mock-data scripts: customerNumber (11 digits, the mock national id used on
// the sandbox SCA page), name, and type in lower case ("private",
// "corporate"; the sandbox answers 400 to anything else, E15). It returns
// the customer as created (a corporate customer comes with a default
// agreement). c is not modified.
func (s *SandboxService) CreateCustomer(ctx context.Context, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	if err := validateSandboxCustomer(c); err != nil {
		return nil, nil, err
	}
	return s.sendCustomer(ctx, "sandbox.createCustomer", http.MethodPost, "/v1/sandbox/customers", c)
}

// UpdateCustomer renames the sandbox customer c.CustomerNumber with PUT
// /v1/sandbox/customers/{customerNumber} and the body of CreateCustomer
// (docs/interface.md SB12: a route of the fake bank; the platform documents
// none). A customer's number and type never change: the sandbox answers 400
// to another type. c is not modified.
func (s *SandboxService) UpdateCustomer(ctx context.Context, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	if err := validateSandboxCustomer(c); err != nil {
		return nil, nil, err
	}
	return s.sendCustomer(ctx, "sandbox.updateCustomer", http.MethodPut, "/v1/sandbox/customers/"+pathSegment(c.CustomerNumber), c)
}

func validateSandboxCustomer(c *SandboxCustomer) error {
	if c == nil {
		return invalid("SandboxCustomer", "is required")
	}
	if err := checkCustomerNumber("SandboxCustomer.CustomerNumber", c.CustomerNumber); err != nil {
		return err
	}
	if !c.CustomerType.Valid() {
		return invalid("SandboxCustomer.CustomerType", "must be PRIVATE or CORPORATE")
	}
	return checkRequiredText("SandboxCustomer.Name", c.Name, sandboxMaxName)
}

// sendCustomer sends c in the scripts' shape and reads the customer back.
func (s *SandboxService) sendCustomer(ctx context.Context, op, method, href string, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	body := struct {
		CustomerNumber string `json:"customerNumber"`
		Name           string `json:"name"`
		Type           string `json:"type"`
	}{c.CustomerNumber, c.Name, strings.ToLower(string(c.CustomerType))}
	out := new(SandboxCustomer)
	resp, err := s.client.do(ctx, &request{op: op, method: method, href: href, body: body}, out)
	if err != nil {
		return nil, resp, err
	}
	fillAccountOwner(out)
	return out, resp, nil
}

// CreateAccount creates an account for a.CustomerNumber with POST
// /v1/sandbox/accounts, or with Card a card account with POST
// /v1/sandbox/card-accounts, in the scripts' shape (docs/interface.md SB3, SB7,
// SB9 and PO2). Checked before sending: CustomerNumber 11 digits; Currency an ISO
// 4217 code; Name present; a BBAN, when given, a valid Norwegian account number
// and only without Card; Balance and CreditLimit decimal amounts; CreditLimit and
// MaskedPAN only with Card. IBAN is never sent. The result's ResourceID is the
// mockAccountId. a is not modified.
func (s *SandboxService) CreateAccount(ctx context.Context, a *SandboxAccount) (*SandboxAccount, *Response, error) {
	if err := validateSandboxAccount(a); err != nil {
		return nil, nil, err
	}
	href := "/v1/sandbox/accounts"
	if a.Card {
		href = "/v1/sandbox/card-accounts"
	}
	return s.sendAccount(ctx, "sandbox.createAccount", http.MethodPost, href, a, true)
}

// sandboxAccountBody is an account in the scripts' shape.
type sandboxAccountBody struct {
	CustomerNumber  string           `json:"customerNumber,omitempty"`
	AccountName     string           `json:"accountName,omitempty"`
	Name            string           `json:"name,omitempty"`
	BBAN            string           `json:"bban,omitempty"`
	Currency        string           `json:"currency,omitempty"`
	Product         string           `json:"product,omitempty"`
	CashAccountType string           `json:"cashAccountType,omitempty"`
	MaskedPAN       string           `json:"maskedPan,omitempty"`
	CreditLimit     *Amount          `json:"creditLimit,omitempty"`
	Balances        []sandboxBalance `json:"balances,omitempty"`
}

// sandboxBalance is one entry of an account's balances.
type sandboxBalance struct {
	BalanceType   string `json:"balanceType"`
	BalanceAmount Amount `json:"balanceAmount"`
}

// sendAccount sends a in the scripts' shape (with its owner, number and
// currency when create is set) and reads the account back.
func (s *SandboxService) sendAccount(ctx context.Context, op, method, href string, a *SandboxAccount, create bool) (*SandboxAccount, *Response, error) {
	body := sandboxAccountBody{Product: a.Product, CashAccountType: a.CashAccountType, MaskedPAN: a.MaskedPAN}
	if create {
		body.CustomerNumber, body.BBAN, body.Currency = a.CustomerNumber, a.BBAN, a.Currency
	}
	if a.Card {
		body.Name = a.Name
	} else {
		body.AccountName = a.Name
	}
	if a.CreditLimit != "" {
		body.CreditLimit = &Amount{Currency: a.Currency, Amount: a.CreditLimit}
	}
	if a.Balance != "" {
		body.Balances = []sandboxBalance{{"EXPECTED", Amount{Currency: a.Currency, Amount: a.Balance}}}
	}
	out := new(SandboxAccount)
	resp, err := s.client.do(ctx, &request{op: op, method: method, href: href, body: body}, out)
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

// CreateAgreement creates a corporate agreement owned by a.CustomerNumber with
// POST /v1/sandbox/agreements, in the scripts' shape (docs/interface.md SB10, PO2
// and F2); Accounts, Members and SignersRequired are the fake bank's own members,
// sent only when set. Checked before sending: every customer number 11 digits,
// Name present, no empty account id, SignersRequired not negative, each engagement
// valid (see SandboxEngagement). a is not modified.
func (s *SandboxService) CreateAgreement(ctx context.Context, a *SandboxAgreement) (*SandboxAgreement, *Response, error) {
	if err := validateSandboxAgreement(a); err != nil {
		return nil, nil, err
	}
	return s.sendAgreement(ctx, "sandbox.createAgreement", http.MethodPost, "/v1/sandbox/agreements", a)
}

func validateSandboxAgreement(a *SandboxAgreement) error {
	const f = "SandboxAgreement"
	if a == nil {
		return invalid(f, "is required")
	}
	if err := checkCustomerNumber(f+".CustomerNumber", a.CustomerNumber); err != nil {
		return err
	}
	if err := checkRequiredText(f+".Name", a.Name, sandboxMaxName); err != nil {
		return err
	}
	for i, id := range a.Accounts {
		if err := checkSandboxID(fmt.Sprintf("%s.Accounts[%d]", f, i), id); err != nil {
			return err
		}
	}
	for i, m := range a.Members {
		if err := checkCustomerNumber(fmt.Sprintf("%s.Members[%d]", f, i), m); err != nil {
			return err
		}
	}
	if a.SignersRequired < 0 {
		return invalid(f+".SignersRequired", "must not be negative")
	}
	return validateEngagements(f+".Engagements", a.Engagements)
}

// validateEngagements checks each engagement: an 11-digit customer, an
// account named by IBAN, BBAN or MaskedPAN alone, and known roles.
func validateEngagements(field string, es []SandboxEngagement) error {
	for i, e := range es {
		f := fmt.Sprintf("%s[%d]", field, i)
		if err := checkCustomerNumber(f+".Customer", e.Customer); err != nil {
			return err
		}
		if e.Account.PAN != "" || e.Account.MSISDN != "" {
			return invalid(f+".Account", "must name the account by IBAN, BBAN or MaskedPAN")
		}
		if err := e.Account.validate(f + ".Account"); err != nil {
			return err
		}
		for j, r := range e.Roles {
			if !r.Valid() {
				return invalid(fmt.Sprintf("%s.Roles[%d]", f, j), "must be VIEW or REGISTER")
			}
		}
	}
	return nil
}

// sendAgreement sends a in the scripts' shape and reads the agreement back.
func (s *SandboxService) sendAgreement(ctx context.Context, op, method, href string, a *SandboxAgreement) (*SandboxAgreement, *Response, error) {
	body := struct {
		Owner           string              `json:"owner"`
		Name            string              `json:"name"`
		Engagements     []SandboxEngagement `json:"engagements,omitempty"`
		Accounts        []string            `json:"accounts,omitempty"`
		SignersRequired int                 `json:"signersRequired,omitempty"`
		Members         []string            `json:"members,omitempty"`
	}{a.CustomerNumber, a.Name, a.Engagements, a.Accounts, a.SignersRequired, a.Members}
	out := new(SandboxAgreement)
	resp, err := s.client.do(ctx, &request{op: op, method: method, href: href, body: body}, out)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// CreateTransaction creates one mock transaction on the account
// mockAccountID (a ResourceID): CreateTransactions with tx alone, so it is
// sent as a JSON array of one, as the platform's own mock-data scripts
// send transactions. tx is not modified; TransactionID is never sent.
func (s *SandboxService) CreateTransaction(ctx context.Context, mockAccountID string, tx *SandboxTransaction) (*SandboxTransaction, *Response, error) {
	if tx == nil {
		return nil, nil, invalid("SandboxTransaction", "is required")
	}
	out, resp, err := s.createTransactions(ctx, "sandbox.createTransaction", "/v1/sandbox/accounts/", mockAccountID,
		[]SandboxTransaction{*tx}, "SandboxTransaction")
	if err != nil {
		return nil, resp, err
	}
	return &out[0], resp, nil
}

// CreateTransactions creates txs, in order, on the account mockAccountID with one
// POST /v1/sandbox/accounts/{mockAccountId}/transactions of a JSON array
// (docs/interface.md SB4, SB11 and PO2). Each is checked before sending, with the
// client's clock and the bank's calendar (Europe/Oslo): dates not after today,
// BookingDate not after ValueDate, valid amounts and account references, printable
// Latin-1 text within the Berlin Group lengths; a refusal names
// SandboxTransactions[i].Field. Another DebtorAccount is the sandbox's *Error, and
// none is created. The result follows the order of txs; txs is not modified;
// TransactionID is never sent.
func (s *SandboxService) CreateTransactions(ctx context.Context, mockAccountID string, txs []SandboxTransaction) ([]SandboxTransaction, *Response, error) {
	return s.createTransactions(ctx, "sandbox.createTransactions", "/v1/sandbox/accounts/", mockAccountID, txs, "")
}

// CreateCardTransactions is CreateTransactions for the card account
// mockCardAccountID with POST
// /v1/sandbox/card-accounts/{mockCardAccountId}/transactions, the route the
// platform's scripts use for card transactions (docs/interface.md SB11).
// TransactionDate, OriginalAmount and TransactionDetails are the card
// transaction's members.
func (s *SandboxService) CreateCardTransactions(ctx context.Context, mockCardAccountID string, txs []SandboxTransaction) ([]SandboxTransaction, *Response, error) {
	return s.createTransactions(ctx, "sandbox.createCardTransactions", "/v1/sandbox/card-accounts/", mockCardAccountID, txs, "")
}

// createTransactions checks txs (naming the fields one as field, or
// SandboxTransactions[i] when field is ""), sends them as one array to
// base + id + "/transactions" and reads the created ones back.
func (s *SandboxService) createTransactions(ctx context.Context, op, base, id string, txs []SandboxTransaction, field string) ([]SandboxTransaction, *Response, error) {
	if err := checkSandboxID("mockAccountID", id); err != nil {
		return nil, nil, err
	}
	if len(txs) == 0 {
		return nil, nil, invalid("SandboxTransactions", "must hold at least one transaction")
	}
	if len(txs) > MaxSandboxTransactions {
		return nil, nil, invalid("SandboxTransactions", "must hold at most %d transactions", MaxSandboxTransactions)
	}
	today := sandboxToday(s.client.cfg.now())
	body := make([]SandboxTransaction, len(txs))
	for i := range txs {
		f := field
		if f == "" {
			f = fmt.Sprintf("SandboxTransactions[%d]", i)
		}
		if err := validateSandboxTransaction(&txs[i], f, today); err != nil {
			return nil, nil, err
		}
		body[i] = txs[i]
		body[i].TransactionID = ""
	}
	var raw json.RawMessage
	resp, err := s.client.do(ctx, &request{op: op, method: http.MethodPost, href: base + pathSegment(id) + "/transactions", body: body}, &raw)
	if err != nil {
		return nil, resp, err
	}
	out, err := decodeSandboxTransactions(raw, len(txs))
	if err != nil {
		return nil, resp, fmt.Errorf("xs2a: %s: decoding the response (X-Request-ID %s): %w", op, resp.RequestID, err)
	}
	for i := range out {
		out[i].Pending = txs[i].Pending
	}
	return out, resp, nil
}

// MaxSandboxTransactions is how many transactions CreateTransactions sends
// in one request; the fake bank refuses more.
const MaxSandboxTransactions = 1000

// decodeSandboxTransactions reads the answer to a transactions POST: an
// array of n transactions, or one object when n is 1.
func decodeSandboxTransactions(raw json.RawMessage, n int) ([]SandboxTransaction, error) {
	raw = bytes.TrimSpace(raw)
	var out []SandboxTransaction
	if len(raw) > 0 && raw[0] == '{' && n == 1 {
		out = make([]SandboxTransaction, 1)
		if err := json.Unmarshal(raw, &out[0]); err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d transactions for %d sent", len(out), n)
	}
	return out, nil
}

// validateSandboxTransaction checks tx with field naming it.
func validateSandboxTransaction(tx *SandboxTransaction, f string, today Date) error {
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
