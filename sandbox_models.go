package xs2a

import (
	"encoding/json"
	"strings"
)

// Models of the platform's own sandbox mock-data operations, not Berlin Group
// shapes (docs/interface.md, Sandbox; Production, Other endpoints). Each model
// carries docs/interface.md's JSON field names, so it marshals back to the
// JSON the sandbox uses.

// CustomerType is the kind of a sandbox customer, sent and returned as
// customerType (docs/interface.md, Sandbox: "two private customers ... and two
// corporate customers"; Errors: "Sandbox: invalid CustomerType" is a
// validation error). Unknown values decode without error and stay visible.
type CustomerType string

// The customer types of docs/interface.md, Sandbox.
const (
	// CustomerPrivate is a private person (a natural person PSU).
	CustomerPrivate CustomerType = "PRIVATE"
	// CustomerCorporate is a company; it acts through corporate agreements
	// (docs/interface.md, Flows 2: corporate context).
	CustomerCorporate CustomerType = "CORPORATE"
)

// Valid reports whether t is one of the customer types the sandbox accepts
// (docs/interface.md, Errors: "Sandbox: invalid CustomerType" is a validation error).
func (t CustomerType) Valid() bool { return t == CustomerPrivate || t == CustomerCorporate }

// UnmarshalJSON reads a customer type in any case: the platform's scripts
// and answers write "private" and "corporate" (docs/interface.md SB9), which
// decode to CustomerPrivate and CustomerCorporate. Another value stays as
// it came.
func (t *CustomerType) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*t = CustomerType(s)
	if u := CustomerType(strings.ToUpper(s)); u.Valid() {
		*t = u
	}
	return nil
}

// Sandbox customer numbers after SandboxService.Initialize (docs/interface.md, Production,
// Other endpoints). Each is the 11-digit mock national identification number
// typed on the sandbox SCA page (docs/interface.md, Sandbox).
const (
	SandboxPrivateCustomer1   = "13039319955"
	SandboxPrivateCustomer2   = "12085592767"
	SandboxCorporateCustomer1 = "18129215603"
	SandboxCorporateCustomer2 = "20079518612"
)

// SandboxCustomer is a sandbox customer as GET /v1/sandbox/customers lists it
// and POST /v1/sandbox/customers creates it (docs/interface.md, Sandbox).
// CreateCustomer sends only CustomerNumber, CustomerType and Name; Accounts
// and Agreements are filled by the sandbox (Customers fills them only when
// CustomersOptions asks for them).
type SandboxCustomer struct {
	// CustomerNumber is the mock national identification number: 11 digits,
	// the number the PSU types on the sandbox SCA page.
	CustomerNumber string       `json:"customerNumber"`
	CustomerType   CustomerType `json:"customerType"`
	Name           string       `json:"name"`
	// Accounts are the customer's accounts and card accounts.
	Accounts []SandboxAccount `json:"accounts,omitempty"`
	// Agreements are the corporate agreements the customer owns or is a
	// member of (corporate customers, and members of their agreements).
	Agreements []SandboxAgreement `json:"agreements,omitempty"`
}

// SandboxAccount is a sandbox account or card account, as listed with a
// SandboxCustomer and as POST /v1/sandbox/accounts creates it (docs/interface.md,
// Sandbox: mock-data operations create accounts; card accounts may be
// inserted as supplementary card accounts).
//
// CreateAccount sends CustomerNumber, BBAN, Currency, Name, Product, Balance,
// CashAccountType, Card, MaskedPAN and CreditLimit; the other fields are set
// by the sandbox.
type SandboxAccount struct {
	// ResourceID is the account's opaque id: the mockAccountId of the
	// sandbox's account paths and the id of /v1/accounts/{id}.
	ResourceID string `json:"resourceId,omitempty"`
	// CustomerNumber is the owner. The sandbox does not send it back; the SDK
	// fills it from the request (CreateAccount) or the enclosing customer
	// (Customers).
	CustomerNumber string `json:"customerNumber,omitempty"`
	// BBAN is the Norwegian account number (11 digits, MOD11). Leave it empty
	// on CreateAccount to let the sandbox pick one; card accounts have none.
	BBAN      string `json:"bban,omitempty"`
	IBAN      string `json:"iban,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"` // card accounts
	Currency  string `json:"currency,omitempty"`  // ISO 4217 code
	Name      string `json:"name,omitempty"`
	Product   string `json:"product,omitempty"`
	// CashAccountType asks for the kind of account on CreateAccount (for
	// example "SVGS" for savings); the sandbox does not send it back.
	CashAccountType string `json:"cashAccountType,omitempty"`
	Card            bool   `json:"card,omitempty"`
	// Balance is the booked balance as a decimal string ("100.26"), in
	// Currency. On CreateAccount it is the opening balance ("" means 0).
	Balance string `json:"balance,omitempty"`
	// CreditLimit is a card account's credit limit as a decimal string.
	CreditLimit string `json:"creditLimit,omitempty"`
	// Closed reports an account closed in the backend (it then disappears
	// from account lists: docs/interface.md, Errors).
	Closed bool `json:"closed,omitempty"`
	// BookedTransactions and PendingTransactions count the account's
	// transactions.
	BookedTransactions  int `json:"bookedTransactions"`
	PendingTransactions int `json:"pendingTransactions"`
}

// UnmarshalJSON decodes an account of a sandbox answer. Balance and
// CreditLimit may come as JSON strings or numbers and must be plain decimals
// in the grammar of Amount.UnmarshalJSON; another value is a
// *json.UnmarshalTypeError whose Field ends in "balance" or "creditLimit".
func (a *SandboxAccount) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	type plain SandboxAccount
	var w struct {
		*plain
		Balance     json.RawMessage `json:"balance"`
		CreditLimit json.RawMessage `json:"creditLimit"`
	}
	*a = SandboxAccount{}
	w.plain = (*plain)(a)
	if err := json.Unmarshal(data, &w); err != nil {
		return plainPath(err)
	}
	var err error
	if a.Balance, err = decimalField(w.Balance, "balance", maxAmountFraction, true); err != nil {
		return err
	}
	a.CreditLimit, err = decimalField(w.CreditLimit, "creditLimit", maxAmountFraction, true)
	return err
}

// SandboxAgreement is a corporate agreement of the sandbox, as POST
// /v1/sandbox/agreements creates it (docs/interface.md, Production, Other endpoints: "POST
// /v1/sandbox/agreements (corporate)"): the accounts a company grants to its
// members, and how many members must sign a payment (docs/interface.md, Flows 2 and
// the multi-signature rows of the payment status table).
//
// CreateAgreement sends CustomerNumber, Name, Accounts, SignersRequired and
// Members; ID and OrganisationNumber are set by the sandbox.
type SandboxAgreement struct {
	ID                 string `json:"id,omitempty"`
	Name               string `json:"name"`
	OrganisationNumber string `json:"organisationNumber,omitempty"`
	// CustomerNumber is the corporate customer that owns the agreement.
	CustomerNumber string `json:"customerNumber"`
	// Accounts are resource ids of the owner's accounts.
	Accounts []string `json:"accounts"`
	// SignersRequired is how many members must sign a payment (0 on
	// CreateAgreement: the sandbox's default, 1).
	SignersRequired int `json:"signersRequired,omitempty"`
	// Members are customer numbers that may act on the agreement; the owner
	// is always one of them.
	Members []string `json:"members,omitempty"`
	// Engagements give customers (PSUs) the owner's accounts, as the
	// platform's scripts do; the sandbox does not send them back.
	Engagements []SandboxEngagement `json:"engagements,omitempty"`
}

// SandboxEngagement connects a customer to an account of a corporate
// agreement (docs/interface.md SB10): Customer, a PSU's 11-digit customer
// number, becomes a member of the agreement and sees Account, an account of
// the agreement's owner named by IBAN, BBAN or MaskedPAN, with Roles. An
// account is one the PSU may consent to and pay from only with both VIEW
// and REGISTER.
type SandboxEngagement struct {
	Customer string           `json:"customer"`
	Account  AccountReference `json:"account"`
	Roles    []EngagementRole `json:"roles,omitempty"`
}

// EngagementRole is a customer's right to an account of an agreement
// (docs/interface.md SB10).
type EngagementRole string

// The engagement roles the platform documents.
const (
	// EngagementView lets the customer see the account.
	EngagementView EngagementRole = "VIEW"
	// EngagementRegister lets the customer register payments from it.
	EngagementRegister EngagementRole = "REGISTER"
)

// Valid reports whether r is a role the sandbox knows.
func (r EngagementRole) Valid() bool { return r == EngagementView || r == EngagementRegister }

// SandboxTransaction is a mock transaction that POST
// /v1/sandbox/accounts/{mockAccountId}/transactions creates (docs/interface.md,
// Sandbox and Endpoints; docs/interface.md, Production: "booking and value date in the past,
// bookingDate <= valueDate"). Its fields are those of a booked transaction of
// the accounts endpoints. A transaction with another account as debtor is
// refused by the sandbox (docs/interface.md, Sandbox).
type SandboxTransaction struct {
	// TransactionID is set by the sandbox; it is never sent.
	TransactionID     string `json:"transactionId,omitempty"`
	TransactionAmount Amount `json:"transactionAmount"`
	// BookingDate zero: the sandbox books it today. ValueDate zero: the
	// booking date. Neither may be in the future, and BookingDate must not
	// be after ValueDate.
	BookingDate Date `json:"bookingDate,omitzero"`
	ValueDate   Date `json:"valueDate,omitzero"`
	// TransactionDate is the card transaction date (card accounts).
	TransactionDate Date              `json:"transactionDate,omitzero"`
	CreditorName    string            `json:"creditorName,omitempty"`
	DebtorName      string            `json:"debtorName,omitempty"`
	CreditorAccount *AccountReference `json:"creditorAccount,omitempty"`
	// DebtorAccount, when set, must be the account the transaction is
	// created for (docs/interface.md, Sandbox).
	DebtorAccount                     *AccountReference `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string            `json:"remittanceInformationUnstructured,omitempty"`
	// ProprietaryBankTransactionCode is the transaction code: a Value
	// alone is sent as a string, a Value with a Code as the object
	// {"value", "code"} (docs/interface.md: "Transaction code can be given with
	// both value and code in the sandbox").
	ProprietaryBankTransactionCode TransactionCode `json:"proprietaryBankTransactionCode,omitzero"`
	AdditionalInformation          string          `json:"additionalInformation,omitempty"`
	// OriginalAmount and TransactionDetails are for card accounts.
	OriginalAmount     *Amount `json:"originalAmount,omitempty"`
	TransactionDetails string  `json:"transactionDetails,omitempty"`
	// Pending creates a pending instead of a booked transaction. The sandbox
	// does not send it back; CreateTransaction copies it from the request.
	Pending bool `json:"pending,omitempty"`
}

// SandboxBalance is the body of PUT /v1/sandbox/accounts/{mockAccountId}/balances
// (docs/interface.md, Endpoints: sandbox balance-update endpoints; docs/interface.md, Production,
// Other endpoints): the account's new booked balance.
type SandboxBalance struct {
	BalanceAmount Amount `json:"balanceAmount"`
}

// CustomersOptions are the boolean query options of GET
// /v1/sandbox/customers (docs/interface.md, Production, Other endpoints: "boolean query
// options to include accounts and agreements"). A nil *CustomersOptions
// lists the customers alone.
type CustomersOptions struct {
	IncludeAccounts   bool // includeAccounts=true
	IncludeAgreements bool // includeAgreements=true
}
