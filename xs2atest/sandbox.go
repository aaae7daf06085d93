package xs2atest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Sandbox mock-data endpoints (docs/interface.md "Sandbox"). They need a valid
// signature like every other request.

func (s *Server) sandboxRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /v1/sandbox/initialize", s.sandboxInitialize)
	m.HandleFunc("GET /v1/sandbox/customers", s.sandboxCustomers)
	m.HandleFunc("POST /v1/sandbox/customers", s.sandboxAddCustomer)
	m.HandleFunc("POST /v1/sandbox/accounts", s.sandboxAddAccount)
	m.HandleFunc("POST /v1/sandbox/agreements", s.sandboxAddAgreement)
	m.HandleFunc("POST /v1/sandbox/accounts/{mockAccountId}/transactions", s.sandboxAddTransaction)
	m.HandleFunc("PUT /v1/sandbox/accounts/{mockAccountId}/balances", s.sandboxSetBalance)
}

// Initialize resets the sandbox as POST /v1/sandbox/initialize does: the
// four sandbox customers with their accounts and agreements; consents,
// sessions, payments and manually created data are gone.
func (s *Server) Initialize() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bank.Reset()
	s.scas = map[string]*scaRecord{}
}

func (s *Server) sandboxInitialize(w http.ResponseWriter, r *http.Request) {
	s.Initialize()
	w.WriteHeader(http.StatusNoContent)
}

// Customers lists the sandbox customers with their accounts and agreements.
func (s *Server) Customers() []Customer { return s.publicCustomers(true, true) }

// publicCustomers is every customer, in creation order, with or without
// accounts and agreements.
func (s *Server) publicCustomers(withAccounts, withAgreements bool) []Customer {
	numbers := s.bank.CustomerNumbers()
	out := make([]Customer, 0, len(numbers))
	for _, n := range numbers {
		if c, ok := s.bank.Customer(n); ok {
			out = append(out, s.publicCustomer(c, withAccounts, withAgreements))
		}
	}
	return out
}

// Customer returns one sandbox customer with accounts and agreements.
func (s *Server) Customer(customerNumber string) (Customer, bool) {
	c, ok := s.bank.Customer(customerNumber)
	if !ok {
		return Customer{}, false
	}
	return s.publicCustomer(c, true, true), true
}

// CloseAccount closes an account in the backend: it disappears from account
// lists (an empty list, never 404) and its own endpoints answer 404.
func (s *Server) CloseAccount(resourceID string) bool { return s.bank.CloseAccount(resourceID) }

func queryBool(r *http.Request, name string) bool {
	b, _ := strconv.ParseBool(r.URL.Query().Get(name))
	return b
}

// GET /v1/sandbox/customers?includeAccounts=true&includeAgreements=true
func (s *Server) sandboxCustomers(w http.ResponseWriter, r *http.Request) {
	out := s.publicCustomers(queryBool(r, "includeAccounts"), queryBool(r, "includeAgreements"))
	writeJSON(w, http.StatusOK, map[string]any{"customers": out})
}

// POST /v1/sandbox/customers {customerNumber, customerType, name}
func (s *Server) sandboxAddCustomer(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CustomerNumber string `json:"customerNumber"`
		CustomerType   string `json:"customerType"`
		Name           string `json:"name"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.CustomerNumber) != 11 || !allDigits(req.CustomerNumber) {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "customerNumber", "customerNumber must have 11 digits")
		return
	}
	if req.CustomerType != bank.CustomerPrivate && req.CustomerType != bank.CustomerCorporate {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "customerType", "invalid CustomerType: want PRIVATE or CORPORATE")
		return
	}
	if strings.TrimSpace(req.Name) == "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "name", "name is required")
		return
	}
	c, e := s.bank.AddCustomer(req.CustomerNumber, req.CustomerType, req.Name)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, s.publicCustomer(c, true, true))
}

// sandboxAccountReq is the body of POST /v1/sandbox/accounts.
type sandboxAccountReq struct {
	CustomerNumber  string `json:"customerNumber"`
	BBAN            string `json:"bban"`
	Currency        string `json:"currency"`
	Name            string `json:"name"`
	Product         string `json:"product"`
	Balance         string `json:"balance"`
	CashAccountType string `json:"cashAccountType"`
	Card            bool   `json:"card"`
	MaskedPan       string `json:"maskedPan"`
	CreditLimit     string `json:"creditLimit"`
}

// POST /v1/sandbox/accounts {customerNumber, bban?, currency, name, balance,
// product?, card?, maskedPan?, creditLimit?}
func (s *Server) sandboxAddAccount(w http.ResponseWriter, r *http.Request) {
	var req sandboxAccountReq
	if !decodeBody(w, r, &req) {
		return
	}
	if _, ok := s.bank.Customer(req.CustomerNumber); !ok {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "customerNumber", "unknown customer")
		return
	}
	a, e := sandboxAccount(&req)
	if e == nil {
		a, e = s.bank.AddAccount(req.CustomerNumber, a)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, publicAccount(&a))
}

// sandboxAccount checks the fields of a sandbox account and builds it for
// the bank, which gives it its ids (and a card account without one its
// maskedPan).
func sandboxAccount(req *sandboxAccountReq) (bank.Account, *bank.Error) {
	a := bank.Account{Currency: req.Currency, Name: req.Name, Product: req.Product, Card: req.Card, Kind: "current"}
	if strings.EqualFold(req.CashAccountType, "savings") || req.CashAccountType == "SVGS" {
		a.Kind = "savings"
	}
	if !currencyRE.MatchString(a.Currency) {
		return a, bank.FormatErr("currency", "currency must be an ISO 4217 code")
	}
	if strings.TrimSpace(a.Name) == "" {
		return a, bank.FormatErr("name", "name is required")
	}
	if a.Product == "" {
		a.Product = truncRunes(a.Name, 35) // Berlin Group: product is Max35Text
	}
	var ok bool
	if req.Balance == "" {
		req.Balance = "0"
	}
	if a.Balance, ok = parseAmount(req.Balance, true); !ok {
		return a, bank.FormatErr("balance", "balance must be an amount string like 100.26")
	}
	switch {
	case a.Card && req.BBAN != "":
		return a, bank.FormatErr("bban", "a card account has no bban")
	case a.Card:
		a.MaskedPan = req.MaskedPan
		if req.CreditLimit != "" {
			if a.CreditLimit, ok = parseAmount(req.CreditLimit, false); !ok {
				return a, bank.FormatErr("creditLimit", "creditLimit must be an amount string")
			}
		}
	case req.BBAN != "" && !validBBAN(req.BBAN):
		return a, bank.FormatErr("bban", "bban must be 11 digits with a valid MOD11 control digit")
	default:
		a.BBAN = req.BBAN
	}
	return a, nil
}

// POST /v1/sandbox/agreements {customerNumber, name, accounts, signersRequired, members?}
func (s *Server) sandboxAddAgreement(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CustomerNumber  string   `json:"customerNumber"`
		Name            string   `json:"name"`
		Accounts        []string `json:"accounts"`
		SignersRequired int      `json:"signersRequired"`
		Members         []string `json:"members"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	c, ok := s.bank.Customer(req.CustomerNumber)
	if !ok || c.Kind != bank.CustomerCorporate {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "customerNumber", "unknown corporate customer")
		return
	}
	if strings.TrimSpace(req.Name) == "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "name", "name is required")
		return
	}
	for _, id := range req.Accounts {
		if !contains(c.Accounts, id) {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "accounts", "every account must belong to the customer")
			return
		}
	}
	members := []string{c.Number}
	for _, m := range req.Members {
		if _, ok := s.bank.Customer(m); !ok {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "members", "unknown member customer")
			return
		}
		if !contains(members, m) {
			members = append(members, m)
		}
	}
	if req.SignersRequired == 0 {
		req.SignersRequired = 1
	}
	if req.SignersRequired < 1 || req.SignersRequired > len(members) {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "signersRequired", "signersRequired must be between 1 and the number of members")
		return
	}
	ag := s.bank.AddAgreement(c.Number, req.Name, req.Accounts, req.SignersRequired, members)
	writeJSON(w, http.StatusCreated, publicAgreement(&ag))
}

type sandboxTx struct {
	TransactionAmount                 *amountJSON      `json:"transactionAmount"`
	BookingDate                       string           `json:"bookingDate"`
	ValueDate                         string           `json:"valueDate"`
	TransactionDate                   string           `json:"transactionDate"`
	CreditorName                      string           `json:"creditorName"`
	DebtorName                        string           `json:"debtorName"`
	CreditorAccount                   *bank.AccountRef `json:"creditorAccount"`
	DebtorAccount                     *bank.AccountRef `json:"debtorAccount"`
	RemittanceInformationUnstructured string           `json:"remittanceInformationUnstructured"`
	ProprietaryBankTransactionCode    json.RawMessage  `json:"proprietaryBankTransactionCode"` // parseTxCode
	AdditionalInformation             string           `json:"additionalInformation"`
	OriginalAmount                    *amountJSON      `json:"originalAmount"`
	TransactionDetails                string           `json:"transactionDetails"`
	Pending                           bool             `json:"pending"`
}

// txCodeJSON is proprietaryBankTransactionCode. docs/interface.md, Resources:
// "Transaction code can be given with both value and code in the sandbox":
// a mock transaction gives it as a string (the value) or as an object
// {"value": ..., "code": ...}, and reads back in the same form. Generated
// and batch-booked transactions carry a value only, written as a string.
type txCodeJSON struct {
	Value string `json:"value,omitempty"`
	Code  string `json:"code,omitempty"`
}

// IsZero reports an absent code (omitzero leaves it out of a transaction).
func (c txCodeJSON) IsZero() bool { return c == txCodeJSON{} }

// MarshalJSON writes the value alone as a string, a code with an object.
func (c txCodeJSON) MarshalJSON() ([]byte, error) {
	if c.Code == "" {
		return json.Marshal(c.Value)
	}
	type plain txCodeJSON
	return json.Marshal(plain(c))
}

// parseTxCode reads proprietaryBankTransactionCode of a mock transaction:
// absent, null, a string, or an object with value and code (strings, at
// least one not empty, no other member).
func parseTxCode(raw json.RawMessage) (txCodeJSON, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return txCodeJSON{}, true
	}
	var c txCodeJSON
	if raw[0] == '"' {
		return c, json.Unmarshal(raw, &c.Value) == nil
	}
	if raw[0] != '{' {
		return c, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) != nil || c.IsZero() {
		return c, false
	}
	return c, true
}

// POST /v1/sandbox/accounts/{mockAccountId}/transactions: a booked (or
// pending) transaction. The debtor account, when given, must be this
// account; dates are in the past and bookingDate <= valueDate. A booked
// transaction moves the balance. proprietaryBankTransactionCode is a string
// or {"value","code"} (txCodeJSON).
func (s *Server) sandboxAddTransaction(w http.ResponseWriter, r *http.Request) {
	var req sandboxTx
	if !decodeBody(w, r, &req) {
		return
	}
	a, ok := s.bank.Account(r.PathValue("mockAccountId"))
	if !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "mockAccountId", "unknown account")
		return
	}
	t, e := sandboxTransaction(&req, &a, bank.DateOf(s.now()))
	if e == nil {
		*t, e = s.bank.AddTransaction(a.ID, *t, req.Pending)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, txOf(t, !req.Pending))
}

// sandboxTransaction checks a sandbox transaction for account a and builds
// it, without an id (the bank gives one as it adds it).
func sandboxTransaction(req *sandboxTx, a *bank.Account, today time.Time) (*bank.Transaction, *bank.Error) {
	amt, e := sandboxTxAmount(req, a)
	if e != nil {
		return nil, e
	}
	bd, vd, e := sandboxTxDates(req, today)
	if e != nil {
		return nil, e
	}
	code, ok := parseTxCode(req.ProprietaryBankTransactionCode)
	if !ok {
		return nil, bank.FormatErr("proprietaryBankTransactionCode", `proprietaryBankTransactionCode must be a string or an object {"value":"...","code":"..."}`)
	}
	t := &bank.Transaction{BookingDate: bd, ValueDate: vd, TransactionDate: bd, Amount: amt,
		Currency: a.Currency, CreditorName: req.CreditorName, DebtorName: req.DebtorName,
		Remittance: req.RemittanceInformationUnstructured, Code: code.Value, CodeID: code.Code,
		Info: req.AdditionalInformation, OrigAmount: amt, OrigCurrency: a.Currency, Details: req.TransactionDetails}
	if req.CreditorAccount != nil {
		t.CreditorBBAN = req.CreditorAccount.BBAN
	}
	if req.DebtorAccount != nil {
		t.DebtorBBAN = req.DebtorAccount.BBAN
	}
	return t, sandboxTxOriginal(req, t)
}

// sandboxTxAmount is the transaction's amount in the account's currency,
// a debit when the account is its debtor.
func sandboxTxAmount(req *sandboxTx, a *bank.Account) (int64, *bank.Error) {
	if req.TransactionAmount == nil {
		return 0, bank.FormatErr("transactionAmount", "transactionAmount is required")
	}
	amt, ok := parseAmount(req.TransactionAmount.Amount, true)
	switch {
	case !ok || amt == 0:
		return 0, bank.FormatErr("transactionAmount.amount", "amount must be a non-zero amount string like -100.26")
	case req.TransactionAmount.Currency != a.Currency:
		return 0, bank.FormatErr("transactionAmount.currency", "currency must be the account currency")
	case req.DebtorAccount != nil && !a.Is(req.DebtorAccount):
		return 0, bank.FormatErr("debtorAccount", "the debtor account must be the account the transaction is created for")
	case req.DebtorAccount != nil && amt > 0:
		amt = -amt
	}
	return amt, nil
}

// sandboxTxDates are the booking and value dates: today unless given, in
// the past, and bookingDate <= valueDate.
func sandboxTxDates(req *sandboxTx, today time.Time) (bd, vd time.Time, e *bank.Error) {
	bd, ok := today, true
	if req.BookingDate != "" {
		if bd, ok = bank.ParseDate(req.BookingDate); !ok || bd.After(today) {
			return bd, vd, bank.FormatErr("bookingDate", "bookingDate must be a date (YYYY-MM-DD) in the past")
		}
	}
	vd = bd
	if req.ValueDate != "" {
		if vd, ok = bank.ParseDate(req.ValueDate); !ok || vd.After(today) {
			return bd, vd, bank.FormatErr("valueDate", "valueDate must be a date (YYYY-MM-DD) in the past")
		}
	}
	if vd.Before(bd) {
		return bd, vd, bank.FormatErr("valueDate", "bookingDate must not be after valueDate")
	}
	return bd, vd, nil
}

// sandboxTxOriginal sets the transactionDate and originalAmount a sandbox
// transaction gives.
func sandboxTxOriginal(req *sandboxTx, t *bank.Transaction) *bank.Error {
	var ok bool
	if req.TransactionDate != "" {
		if t.TransactionDate, ok = bank.ParseDate(req.TransactionDate); !ok {
			return bank.FormatErr("transactionDate", "transactionDate must be YYYY-MM-DD")
		}
	}
	if req.OriginalAmount != nil {
		if t.OrigAmount, ok = parseAmount(req.OriginalAmount.Amount, true); !ok || !currencyRE.MatchString(req.OriginalAmount.Currency) {
			return bank.FormatErr("originalAmount", "originalAmount must be an amount with an ISO 4217 currency")
		}
		t.OrigCurrency = req.OriginalAmount.Currency
	}
	return nil
}

// PUT /v1/sandbox/accounts/{mockAccountId}/balances {"balanceAmount":{"amount","currency"}}
func (s *Server) sandboxSetBalance(w http.ResponseWriter, r *http.Request) {
	var req struct {
		BalanceAmount *amountJSON `json:"balanceAmount"`
		Amount        string      `json:"amount"`
		Currency      string      `json:"currency"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.BalanceAmount != nil {
		req.Amount, req.Currency = req.BalanceAmount.Amount, req.BalanceAmount.Currency
	}
	a, ok := s.bank.Account(r.PathValue("mockAccountId"))
	if !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "mockAccountId", "unknown account")
		return
	}
	v, ok := parseAmount(req.Amount, true)
	if !ok {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "balanceAmount.amount", "amount must be an amount string like 100.26")
		return
	}
	if req.Currency != "" && req.Currency != a.Currency {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "balanceAmount.currency", "currency must be the account currency")
		return
	}
	if a, ok = s.bank.SetBalance(a.ID, v); !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "mockAccountId", "unknown account")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"balances": balancesOf(&a)})
}

// SetBalance sets the booked balance of an account (minor units are not
// used: amount is a string like "100.26"), as PUT
// /v1/sandbox/accounts/{id}/balances does.
func (s *Server) SetBalance(resourceID, amount string) bool {
	v, ok := parseAmount(amount, true)
	if !ok {
		return false
	}
	_, ok = s.bank.SetBalance(resourceID, v)
	return ok
}

// Balance is the booked balance of an account as an amount string, "" when
// the account does not exist.
func (s *Server) Balance(resourceID string) string {
	if a, ok := s.bank.Account(resourceID); ok {
		return formatAmount(a.Balance)
	}
	return ""
}
