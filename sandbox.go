package xs2a

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// SandboxService runs the sandbox's mock-data operations (docs/interface.md SB1
// to SB12, PO2). The calls act for no PSU. Input is checked before sending (a
// *ValidationError naming the field); the sandbox's own refusals are *Error
// answers, typically 400 FORMAT_ERROR.
type SandboxService service

// MaxSandboxTransactions is the most transactions one request creates
// (docs/interface.md SB11).
const MaxSandboxTransactions = 1000

// Initialize resets the sandbox to its known state: POST /v1/sandbox/initialize
// with an empty body (docs/interface.md SB1; see SandboxPrivateCustomer1 and
// the other constants).
func (s *SandboxService) Initialize(ctx context.Context) (*Response, error) {
	return s.client.do(ctx, &request{op: "sandbox.initialize", method: http.MethodPost, href: "/v1/sandbox/initialize",
		rawBody: []byte{}}, nil)
}

// Customers lists the sandbox customers: GET /v1/sandbox/customers, with their
// accounts and agreements when opts asks for them (docs/interface.md PO2). opts
// may be nil. Each account's CustomerNumber is filled from its customer; no
// customers is an empty, non-nil slice.
func (s *SandboxService) Customers(ctx context.Context, opts *CustomersOptions) ([]SandboxCustomer, *Response, error) {
	q := url.Values{}
	if opts != nil && opts.IncludeAccounts {
		q.Set("includeAccounts", "true")
	}
	if opts != nil && opts.IncludeAgreements {
		q.Set("includeAgreements", "true")
	}
	customers, resp, err := doList[SandboxCustomer](ctx, s.client, &request{op: "sandbox.customers", method: http.MethodGet,
		href: "/v1/sandbox/customers", query: q}, "customers")
	for i := range customers {
		fillAccountOwner(&customers[i])
	}
	return customers, resp, err
}

// fillAccountOwner sets CustomerNumber on the accounts of c that have none.
func fillAccountOwner(c *SandboxCustomer) {
	for i := range c.Accounts {
		c.Accounts[i].CustomerNumber = cmp.Or(c.Accounts[i].CustomerNumber, c.CustomerNumber)
	}
}

// CreateCustomer creates a sandbox customer with POST /v1/sandbox/customers in
// the shape of the platform's mock-data scripts (docs/interface.md SB9):
// customerNumber (11 digits), name, and type in lower case. It returns the
// customer as created. c is not modified.
func (s *SandboxService) CreateCustomer(ctx context.Context, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	return s.sendCustomer(ctx, "sandbox.createCustomer", http.MethodPost, c, false)
}

// UpdateCustomer renames the sandbox customer c.CustomerNumber with PUT
// /v1/sandbox/customers/{customerNumber} and the body of CreateCustomer
// (docs/interface.md SB12: the type never changes). c is not modified.
func (s *SandboxService) UpdateCustomer(ctx context.Context, c *SandboxCustomer) (*SandboxCustomer, *Response, error) {
	return s.sendCustomer(ctx, "sandbox.updateCustomer", http.MethodPut, c, true)
}

// sendCustomer checks c, sends it in the scripts' shape (to the customer's own
// path when update is set) and reads the customer back.
func (s *SandboxService) sendCustomer(ctx context.Context, op, method string, c *SandboxCustomer, update bool) (*SandboxCustomer, *Response, error) {
	if c == nil {
		return nil, nil, invalid("SandboxCustomer", "is required")
	}
	if err := checkCustomerNumber("SandboxCustomer.CustomerNumber", c.CustomerNumber); err != nil {
		return nil, nil, err
	}
	if !c.CustomerType.Valid() {
		return nil, nil, invalid("SandboxCustomer.CustomerType", "must be PRIVATE or CORPORATE")
	}
	if err := checkNonBlank("SandboxCustomer.Name", c.Name, max70Text); err != nil {
		return nil, nil, err
	}
	href := "/v1/sandbox/customers"
	if update {
		href += "/" + pathSegment(c.CustomerNumber)
	}
	body := struct {
		CustomerNumber string `json:"customerNumber"`
		Name           string `json:"name"`
		Type           string `json:"type"`
	}{c.CustomerNumber, c.Name, strings.ToLower(string(c.CustomerType))}
	out, resp, err := doAs[SandboxCustomer](ctx, s.client, &request{op: op, method: method, href: href, body: body})
	if out != nil {
		fillAccountOwner(out)
	}
	return out, resp, err
}

// CreateAccount creates an account for a.CustomerNumber with POST
// /v1/sandbox/accounts, or with Card a card account with POST
// /v1/sandbox/card-accounts, in the scripts' shape, checked before sending
// (docs/interface.md SB7, SB9). IBAN is never sent; the result's ResourceID
// is the mockAccountId. a is not modified.
func (s *SandboxService) CreateAccount(ctx context.Context, a *SandboxAccount) (*SandboxAccount, *Response, error) {
	return s.sendAccount(ctx, "sandbox.createAccount", http.MethodPost, a, true)
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

// sendAccount checks a and sends it in the scripts' shape to the accounts
// (with Card, the card accounts): with create, to the list with owner, number
// and currency, else to a.ResourceID. It reads the account back.
func (s *SandboxService) sendAccount(ctx context.Context, op, method string, a *SandboxAccount, create bool) (*SandboxAccount, *Response, error) {
	if err := validateSandboxAccount(a, create); err != nil {
		return nil, nil, err
	}
	href := "/v1/sandbox/accounts"
	body := sandboxAccountBody{AccountName: a.Name, Product: a.Product, CashAccountType: a.CashAccountType, MaskedPAN: a.MaskedPAN}
	if a.Card { // a card account's name is "name"
		href, body.AccountName, body.Name = "/v1/sandbox/card-accounts", "", a.Name
	}
	if create {
		body.CustomerNumber, body.BBAN, body.Currency = a.CustomerNumber, a.BBAN, a.Currency
	} else {
		href += "/" + pathSegment(a.ResourceID)
	}
	if a.CreditLimit != "" {
		body.CreditLimit = &Amount{Currency: a.Currency, Amount: a.CreditLimit}
	}
	if a.Balance != "" {
		body.Balances = []sandboxBalance{{"EXPECTED", Amount{Currency: a.Currency, Amount: a.Balance}}}
	}
	out, resp, err := doAs[SandboxAccount](ctx, s.client, &request{op: op, method: method, href: href, body: body})
	if err != nil {
		return nil, resp, err
	}
	out.CustomerNumber = cmp.Or(out.CustomerNumber, a.CustomerNumber)
	out.CashAccountType = cmp.Or(out.CashAccountType, a.CashAccountType)
	return out, resp, nil
}

// validateSandboxAccount checks a for CreateAccount or, unless create, for
// UpdateAccount, which names the account by ResourceID, changes the name
// only when set, needs Currency only with an amount, and never sends BBAN.
func validateSandboxAccount(a *SandboxAccount, create bool) error {
	const f = "SandboxAccount"
	if a == nil {
		return invalid(f, "is required")
	}
	owner := checkCustomerNumber(f+".CustomerNumber", a.CustomerNumber)
	name := checkNonBlank(f+".Name", a.Name, max70Text)
	if !create {
		owner = checkSandboxID(f+".ResourceID", a.ResourceID)
		if a.Name == "" {
			name = nil
		}
	}
	if err := firstError(
		owner,
		checkCurrency(f+".Currency", a.Currency, create || a.Balance != "" || a.CreditLimit != ""),
		name,
		checkTexts(f,
			textRule{".Product", a.Product, max70Text},
			textRule{".CashAccountType", a.CashAccountType, max70Text},
			textRule{".MaskedPAN", a.MaskedPAN, max70Text}),
	); err != nil {
		return err
	}
	switch {
	case create && a.BBAN != "" && a.Card:
		return invalid(f+".BBAN", "must be empty for a card account")
	case create && a.BBAN != "" && !ValidBBAN(a.BBAN):
		return invalid(f+".BBAN", "must be a Norwegian account number of 11 digits with a valid MOD11 control digit")
	case a.Balance != "" && !amountPattern.MatchString(a.Balance):
		return invalid(f+".Balance", "must be a decimal number with up to 14 digits before and 3 after a '.'")
	case !a.Card && a.MaskedPAN != "":
		return invalid(f+".MaskedPAN", "is only for a card account (Card)")
	case !a.Card && a.CreditLimit != "":
		return invalid(f+".CreditLimit", "is only for a card account (Card)")
	case a.CreditLimit != "" && (a.CreditLimit[0] == '-' || !amountPattern.MatchString(a.CreditLimit)):
		return invalid(f+".CreditLimit", "must be a non-negative decimal number")
	}
	return nil
}

// CreateAgreement creates a corporate agreement owned by a.CustomerNumber with
// POST /v1/sandbox/agreements, in the scripts' shape, checked before sending
// (docs/interface.md SB10); Accounts, Members and SignersRequired, the fake
// bank's own members, are sent only when set. a is not modified.
func (s *SandboxService) CreateAgreement(ctx context.Context, a *SandboxAgreement) (*SandboxAgreement, *Response, error) {
	return s.sendAgreement(ctx, "sandbox.createAgreement", http.MethodPost, a, false)
}

// validateEngagements checks each engagement: an 11-digit customer, an account
// named by IBAN, BBAN or MaskedPAN alone, and known roles.
func validateEngagements(field string, es []SandboxEngagement) error {
	return checkEach(field, es, func(f string, e SandboxEngagement) error {
		if err := checkCustomerNumber(f+".Customer", e.Customer); err != nil {
			return err
		}
		if e.Account.PAN != "" || e.Account.MSISDN != "" {
			return invalid(f+".Account", "must name the account by IBAN, BBAN or MaskedPAN")
		}
		if err := e.Account.validate(f + ".Account"); err != nil {
			return err
		}
		return checkEach(f+".Roles", e.Roles, func(f string, r EngagementRole) error {
			if !r.Valid() {
				return invalid(f, "must be VIEW or REGISTER")
			}
			return nil
		})
	})
}

// sendAgreement checks a, sends it in the scripts' shape (to the agreement's
// own path when update is set) and reads the agreement back.
func (s *SandboxService) sendAgreement(ctx context.Context, op, method string, a *SandboxAgreement, update bool) (*SandboxAgreement, *Response, error) {
	const f = "SandboxAgreement"
	if a == nil {
		return nil, nil, invalid(f, "is required")
	}
	var id error
	href := "/v1/sandbox/agreements"
	if update {
		id = checkSandboxID(f+".ID", a.ID)
		href += "/" + pathSegment(a.ID)
	}
	if err := firstError(id,
		checkCustomerNumber(f+".CustomerNumber", a.CustomerNumber),
		checkNonBlank(f+".Name", a.Name, max70Text),
		checkEach(f+".Accounts", a.Accounts, checkSandboxID),
		checkEach(f+".Members", a.Members, checkCustomerNumber)); err != nil {
		return nil, nil, err
	}
	if a.SignersRequired < 0 {
		return nil, nil, invalid(f+".SignersRequired", "must not be negative")
	}
	if err := validateEngagements(f+".Engagements", a.Engagements); err != nil {
		return nil, nil, err
	}
	body := struct {
		Owner           string              `json:"owner"`
		Name            string              `json:"name"`
		Engagements     []SandboxEngagement `json:"engagements,omitempty"`
		Accounts        []string            `json:"accounts,omitempty"`
		SignersRequired int                 `json:"signersRequired,omitempty"`
		Members         []string            `json:"members,omitempty"`
	}{a.CustomerNumber, a.Name, a.Engagements, a.Accounts, a.SignersRequired, a.Members}
	return doAs[SandboxAgreement](ctx, s.client, &request{op: op, method: method, href: href, body: body})
}

// CreateTransaction creates one mock transaction on the account mockAccountID
// (a ResourceID): CreateTransactions with tx alone. tx is not modified;
// TransactionID is never sent.
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

// CreateTransactions creates txs, in order, on the account mockAccountID with
// one POST /v1/sandbox/accounts/{mockAccountId}/transactions of a JSON array
// (docs/interface.md SB4, SB11, PO2), each checked before sending. The result
// follows the order of txs; txs is not modified; TransactionID is never sent.
func (s *SandboxService) CreateTransactions(ctx context.Context, mockAccountID string, txs []SandboxTransaction) ([]SandboxTransaction, *Response, error) {
	return s.createTransactions(ctx, "sandbox.createTransactions", "/v1/sandbox/accounts/", mockAccountID, txs, "")
}

// CreateCardTransactions is CreateTransactions for the card account
// mockCardAccountID, with POST
// /v1/sandbox/card-accounts/{mockCardAccountId}/transactions (docs/interface.md
// SB11). TransactionDate, OriginalAmount and TransactionDetails are the card
// transaction's members.
func (s *SandboxService) CreateCardTransactions(ctx context.Context, mockCardAccountID string, txs []SandboxTransaction) ([]SandboxTransaction, *Response, error) {
	return s.createTransactions(ctx, "sandbox.createCardTransactions", "/v1/sandbox/card-accounts/", mockCardAccountID, txs, "")
}

// createTransactions checks txs (naming the fields one as field, or
// SandboxTransactions[i] when field is ""), sends them as one array to base +
// id + "/transactions" and reads the created ones back.
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
		if err := validateSandboxTransaction(&txs[i], cmp.Or(field, fmt.Sprintf("SandboxTransactions[%d]", i)), today); err != nil {
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

// decodeSandboxTransactions reads the answer to a transactions POST: an array
// of n transactions, or one object when n is 1.
func decodeSandboxTransactions(raw json.RawMessage, n int) ([]SandboxTransaction, error) {
	var out []SandboxTransaction
	into := any(&out)
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '{' && n == 1 {
		out = make([]SandboxTransaction, 1)
		into = &out[0]
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return nil, err
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d transactions for %d sent", len(out), n)
	}
	return out, nil
}

// validateSandboxTransaction checks tx, named f, with today the date at the
// bank: BookingDate (default today) and ValueDate (default BookingDate) not
// after today nor ValueDate before BookingDate (docs/interface.md PO2, SB11).
func validateSandboxTransaction(tx *SandboxTransaction, f string, today Date) error {
	if err := firstError(
		tx.TransactionAmount.validate(f+".TransactionAmount"),
		validateSet(f+".OriginalAmount", tx.OriginalAmount),
		checkDate(f+".BookingDate", tx.BookingDate),
		checkDate(f+".ValueDate", tx.ValueDate),
		checkDate(f+".TransactionDate", tx.TransactionDate),
	); err != nil {
		return err
	}
	booking := cmp.Or(tx.BookingDate, today)
	value := cmp.Or(tx.ValueDate, booking)
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
	return firstError(
		validateSet(f+".CreditorAccount", tx.CreditorAccount),
		validateSet(f+".DebtorAccount", tx.DebtorAccount),
		checkTexts(f,
			textRule{".CreditorName", tx.CreditorName, max70Text},
			textRule{".DebtorName", tx.DebtorName, max70Text},
			textRule{".RemittanceInformationUnstructured", tx.RemittanceInformationUnstructured, max140Text},
			textRule{".ProprietaryBankTransactionCode.Value", tx.ProprietaryBankTransactionCode.Value, max35Text},
			textRule{".ProprietaryBankTransactionCode.Code", tx.ProprietaryBankTransactionCode.Code, max35Text},
			textRule{".AdditionalInformation", tx.AdditionalInformation, max500Text},
			textRule{".TransactionDetails", tx.TransactionDetails, max1000Text}))
}

// SetBalance sets the booked balance of the account mockAccountID (a
// ResourceID) with PUT /v1/sandbox/accounts/{mockAccountId}/balances and the
// body {"balanceAmount":{"amount","currency"}} (docs/interface.md PO2). The
// amount must be a valid Amount; the sandbox refuses another currency than the
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
	return s.client.do(ctx, &request{op: "sandbox.setBalance", method: http.MethodPut,
		href: "/v1/sandbox/accounts/" + pathSegment(mockAccountID) + "/balances", body: b}, nil)
}

// checkCustomerNumber checks a sandbox customer number: the mock national id,
// 11 digits (docs/interface.md SB2).
func checkCustomerNumber(field, n string) error {
	if len(n) != 11 || !allDigits(n) {
		return invalid(field, "must be 11 digits (the mock national identification number)")
	}
	return nil
}

// checkNonBlank is checkText for a field that must not be blank.
func checkNonBlank(field, s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return invalid(field, "is required")
	}
	return checkText(field, s, max)
}

// checkSandboxID checks an opaque resource id used as one path segment
// (path-escaped when sent): 1 to 200 printable ASCII characters (ids look like
// "enc!!..."), not "." or "..".
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
// booking and value dates. Without a zone database the later Norwegian offset
// (CEST, UTC+2) is used, so no date that is today in Oslo is refused locally.
var sandboxZone = func() *time.Location {
	if loc, err := time.LoadLocation("Europe/Oslo"); err == nil {
		return loc
	}
	return time.FixedZone("CEST", 2*60*60)
}()

// sandboxToday is the date at the bank at instant now.
func sandboxToday(now time.Time) Date { return DateOf(now.In(sandboxZone)) }
