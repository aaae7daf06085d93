package xs2a

import (
	"encoding/json"
	"strings"
)

// Models of the platform's own sandbox mock-data operations, not Berlin Group
// shapes (docs/interface.md SB1 to SB12, PO2).

// CustomerType is the kind of a sandbox customer (docs/interface.md SB8).
// Unknown values decode without error and stay visible.
type CustomerType string

// The customer types of docs/interface.md SB1.
const (
	CustomerPrivate   CustomerType = "PRIVATE"   // a private person (a natural person PSU)
	CustomerCorporate CustomerType = "CORPORATE" // a company, acting through corporate agreements (F2)
)

// Valid reports whether the sandbox accepts t (docs/interface.md SB8).
func (t CustomerType) Valid() bool { return t == CustomerPrivate || t == CustomerCorporate }

// UnmarshalJSON reads a customer type in any case (docs/interface.md SB9):
// "private" decodes to CustomerPrivate; another value stays as it came.
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

// Sandbox customer numbers after SandboxService.Initialize: each the 11-digit
// mock national id typed on the sandbox SCA page (docs/interface.md SB1, SB2).
const (
	SandboxPrivateCustomer1   = "13039319955"
	SandboxPrivateCustomer2   = "12085592767"
	SandboxCorporateCustomer1 = "18129215603"
	SandboxCorporateCustomer2 = "20079518612"
)

// SandboxCustomer is a sandbox customer as GET /v1/sandbox/customers lists it
// and POST /v1/sandbox/customers creates it (docs/interface.md SB3, SB9).
// CreateCustomer sends only CustomerNumber, CustomerType and Name.
type SandboxCustomer struct {
	CustomerNumber string             `json:"customerNumber"` // the mock national id (11 digits) typed at SCA
	CustomerType   CustomerType       `json:"customerType"`
	Name           string             `json:"name"`
	Accounts       []SandboxAccount   `json:"accounts,omitempty"`   // accounts and card accounts
	Agreements     []SandboxAgreement `json:"agreements,omitempty"` // agreements it owns or belongs to
}

// SandboxAccount is a sandbox account or card account, as listed with a
// SandboxCustomer and as CreateAccount creates it (docs/interface.md SB7,
// SB9). ResourceID, IBAN, Closed and the counts are set by the sandbox.
type SandboxAccount struct {
	ResourceID      string `json:"resourceId,omitempty"`     // the mockAccountId, and the id of /v1/accounts/{id}
	CustomerNumber  string `json:"customerNumber,omitempty"` // the owner, filled in by the SDK (PO2)
	BBAN            string `json:"bban,omitempty"`           // 11 digits, MOD11; "" lets CreateAccount pick
	IBAN            string `json:"iban,omitempty"`
	MaskedPAN       string `json:"maskedPan,omitempty"` // card accounts
	Currency        string `json:"currency,omitempty"`  // ISO 4217 code
	Name            string `json:"name,omitempty"`
	Product         string `json:"product,omitempty"`
	CashAccountType string `json:"cashAccountType,omitempty"` // the kind, as "SVGS" (savings)
	Card            bool   `json:"card,omitempty"`
	Balance         string `json:"balance,omitempty"`     // the booked balance ("100.26"; "": 0) in Currency
	CreditLimit     string `json:"creditLimit,omitempty"` // a card account's, a decimal in Currency
	Closed          bool   `json:"closed,omitempty"`      // closed in the backend
	// BookedTransactions and PendingTransactions count its transactions.
	BookedTransactions  int `json:"bookedTransactions"`
	PendingTransactions int `json:"pendingTransactions"`
}

// UnmarshalJSON decodes an account of a sandbox answer. Balance and
// CreditLimit may be JSON strings or numbers, plain decimals as for Amount;
// another value is a *json.UnmarshalTypeError naming the member.
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

// SandboxAgreement is a corporate agreement of the sandbox, as
// CreateAgreement creates it (docs/interface.md SB10, PS4): the accounts a
// company grants to its members, and how many members sign a payment. ID and
// OrganisationNumber are set by the sandbox.
type SandboxAgreement struct {
	ID                 string              `json:"id,omitempty"`
	Name               string              `json:"name"`
	OrganisationNumber string              `json:"organisationNumber,omitempty"`
	CustomerNumber     string              `json:"customerNumber"`            // the corporate customer that owns it
	Accounts           []string            `json:"accounts"`                  // resource ids of the owner's accounts
	SignersRequired    int                 `json:"signersRequired,omitempty"` // members who sign a payment (0: 1)
	Members            []string            `json:"members,omitempty"`         // customers who act, the owner included
	Engagements        []SandboxEngagement `json:"engagements,omitempty"`     // PSUs given the owner's accounts
}

// SandboxEngagement gives Customer, a PSU's 11-digit customer number,
// Account, an account of the agreement's owner named by IBAN, BBAN or
// MaskedPAN, with Roles (docs/interface.md SB10).
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
	EngagementView     EngagementRole = "VIEW"     // the customer sees the account
	EngagementRegister EngagementRole = "REGISTER" // the customer registers payments from it
)

// Valid reports whether r is a role the sandbox knows.
func (r EngagementRole) Valid() bool { return r == EngagementView || r == EngagementRegister }

// SandboxTransaction is a mock transaction, as CreateTransactions creates it
// (docs/interface.md SB4, SB11, PO2), with the fields of a booked transaction
// of the accounts endpoints.
type SandboxTransaction struct {
	TransactionID     string            `json:"transactionId,omitempty"` // set by the sandbox, never sent
	TransactionAmount Amount            `json:"transactionAmount"`
	BookingDate       Date              `json:"bookingDate,omitzero"`     // default: today (PO2)
	ValueDate         Date              `json:"valueDate,omitzero"`       // default: BookingDate
	TransactionDate   Date              `json:"transactionDate,omitzero"` // a card transaction's date
	CreditorName      string            `json:"creditorName,omitempty"`
	DebtorName        string            `json:"debtorName,omitempty"`
	CreditorAccount   *AccountReference `json:"creditorAccount,omitempty"`
	// DebtorAccount, when set, must be the account it is created for (SB4).
	DebtorAccount                     *AccountReference `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string            `json:"remittanceInformationUnstructured,omitempty"`
	// ProprietaryBankTransactionCode: a Value alone is sent as a string, with
	// a Code as the object {"value", "code"} (SB5).
	ProprietaryBankTransactionCode TransactionCode `json:"proprietaryBankTransactionCode,omitzero"`
	AdditionalInformation          string          `json:"additionalInformation,omitempty"`
	// OriginalAmount and TransactionDetails are for card accounts.
	OriginalAmount     *Amount `json:"originalAmount,omitempty"`
	TransactionDetails string  `json:"transactionDetails,omitempty"`
	Pending            bool    `json:"pending,omitempty"` // creates a pending transaction, not a booked one
}

// SandboxBalance is an account's new booked balance (PUT
// /v1/sandbox/accounts/{id}/balances).
type SandboxBalance struct {
	BalanceAmount Amount `json:"balanceAmount"`
}

// CustomersOptions are the query options of GET /v1/sandbox/customers
// (docs/interface.md PO2). A nil *CustomersOptions lists the customers alone.
type CustomersOptions struct {
	IncludeAccounts   bool // includeAccounts=true
	IncludeAgreements bool // includeAgreements=true
}
