package xs2atest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Sandbox mock-data endpoints (docs/interface.md, Sandbox, SB3 and SB9 to
// SB12). They need a valid signature like every other request. Bodies take
// the shapes of the platform's own mock-data scripts as well as the SDK's:
// type or customerType, accountName or name, balances or balance, owner and
// engagements or customerNumber and accounts, transactions one object or an
// array, amounts JSON strings or numbers. A shape the sandbox refuses is a
// 400 FORMAT_ERROR whose path names the member.

func (s *Server) sandboxRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /v1/sandbox/initialize", s.sandboxInitialize)
	m.HandleFunc("GET /v1/sandbox/customers", s.sandboxCustomers)
	m.HandleFunc("POST /v1/sandbox/customers", s.sandboxAddCustomer)
	m.HandleFunc("PUT /v1/sandbox/customers/{customerNumber}", s.sandboxUpdateCustomer)
	m.HandleFunc("POST /v1/sandbox/accounts", s.sandboxAddAccount(false))
	m.HandleFunc("PUT /v1/sandbox/accounts/{mockAccountId}", s.sandboxUpdateAccount(false))
	m.HandleFunc("POST /v1/sandbox/card-accounts", s.sandboxAddAccount(true))
	m.HandleFunc("PUT /v1/sandbox/card-accounts/{mockCardAccountId}", s.sandboxUpdateAccount(true))
	m.HandleFunc("POST /v1/sandbox/agreements", s.sandboxAddAgreement)
	m.HandleFunc("PUT /v1/sandbox/agreements/{mockAgreementId}", s.sandboxUpdateAgreement)
	m.HandleFunc("POST /v1/sandbox/agreements/{mockAgreementId}/engagements", s.sandboxEngage)
	m.HandleFunc("POST /v1/sandbox/accounts/{mockAccountId}/transactions", s.sandboxAddTransactions(false))
	m.HandleFunc("POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", s.sandboxAddTransactions(true))
	m.HandleFunc("PUT /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId}", s.sandboxReplaceTransaction)
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

// sandboxCustomerReq is the body of POST /v1/sandbox/customers and of PUT
// /v1/sandbox/customers/{customerNumber}: the platform's scripts send type
// ("private", "corporate"); customerType is the earlier name of the same
// member. Either is read without regard to case.
type sandboxCustomerReq struct {
	CustomerNumber string `json:"customerNumber"`
	Type           string `json:"type"`
	CustomerType   string `json:"customerType"`
	Name           string `json:"name"`
}

// customerKind is the kind the body names (bank.CustomerPrivate or
// bank.CustomerCorporate), "" when it names none; 400 FORMAT_ERROR naming
// the member for an unknown type or for type and customerType that differ.
func (req *sandboxCustomerReq) customerKind() (string, *bank.Error) {
	path, v := "type", req.Type
	switch {
	case req.Type == "":
		path, v = "customerType", req.CustomerType
	case req.CustomerType != "" && !strings.EqualFold(req.Type, req.CustomerType):
		return "", bank.FormatErr("customerType", "type and customerType name different customer types")
	}
	switch k := strings.ToUpper(v); {
	case v == "":
		return "", nil
	case k == bank.CustomerPrivate || k == bank.CustomerCorporate:
		return k, nil
	}
	return "", bank.FormatErr(path, "invalid CustomerType: want private or corporate")
}

// checkCustomerNumber refuses a customer number that is not the 11-digit
// mock national identification number: 400 FORMAT_ERROR naming path.
func checkCustomerNumber(path, n string) *bank.Error {
	if len(n) != 11 || !allDigits(n) {
		return bank.FormatErr(path, path+" must have 11 digits (the mock national identification number)")
	}
	return nil
}

// POST /v1/sandbox/customers {customerNumber, type (or customerType), name}
func (s *Server) sandboxAddCustomer(w http.ResponseWriter, r *http.Request) {
	var req sandboxCustomerReq
	if !decodeBody(w, r, &req) {
		return
	}
	kind, e := req.customerKind()
	switch {
	case e != nil:
	case checkCustomerNumber("customerNumber", req.CustomerNumber) != nil:
		e = checkCustomerNumber("customerNumber", req.CustomerNumber)
	case kind == "":
		e = bank.FormatErr("type", "type is required: private or corporate")
	case strings.TrimSpace(req.Name) == "":
		e = bank.FormatErr("name", "name is required")
	}
	var c bank.Customer
	if e == nil {
		c, e = s.bank.AddCustomer(req.CustomerNumber, kind, req.Name)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, s.publicCustomer(c, true, true))
}

// PUT /v1/sandbox/customers/{customerNumber} {name, type?, customerNumber?}:
// renames a customer (the fake bank's own route). The type, when given,
// must be the customer's; a customerNumber in the body must be the path's.
func (s *Server) sandboxUpdateCustomer(w http.ResponseWriter, r *http.Request) {
	var req sandboxCustomerReq
	if !decodeBody(w, r, &req) {
		return
	}
	number := r.PathValue("customerNumber")
	kind, e := req.customerKind()
	switch {
	case e != nil:
	case checkCustomerNumber("customerNumber", number) != nil:
		e = checkCustomerNumber("customerNumber", number)
	case req.CustomerNumber != "" && req.CustomerNumber != number:
		e = bank.FormatErr("customerNumber", "customerNumber must be the one of the path: a customer number cannot change")
	case strings.TrimSpace(req.Name) == "":
		e = bank.FormatErr("name", "name is required")
	}
	var c bank.Customer
	if e == nil {
		c, e = s.bank.UpdateCustomer(number, kind, req.Name, "type")
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, s.publicCustomer(c, true, true))
}

// PUT /v1/sandbox/accounts/{mockAccountId}/balances
// {"balanceAmount":{"amount","currency"}}, the amount a string or a number
// (the earlier flat {"amount","currency"} is taken too).
func (s *Server) sandboxSetBalance(w http.ResponseWriter, r *http.Request) {
	var req struct {
		BalanceAmount *mockAmountObj `json:"balanceAmount"`
		Amount        *mockAmount    `json:"amount"`
		Currency      string         `json:"currency"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	a, ok := s.accountAt(w, r, "mockAccountId", false)
	if !ok {
		return
	}
	amount, path := req.BalanceAmount, "balanceAmount"
	switch {
	case amount != nil && (req.Amount != nil || req.Currency != ""):
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "amount", "give balanceAmount or amount, not both")
		return
	case amount == nil && req.Amount != nil:
		amount = &mockAmountObj{Amount: *req.Amount, Currency: req.Currency}
	}
	if amount != nil && amount.Currency == "" {
		amount.Currency = a.Currency // the currency may be left out
	}
	v, e := amount.parse(path, a.Currency, true)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	if a, ok = s.bank.SetBalance(a.ID, v); !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "mockAccountId", "unknown account")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"balances": balancesOf(&a)})
}

// accountAt is the account the path parameter param names (with card,
// a card account); false, with a 404 written, when the bank has none.
func (s *Server) accountAt(w http.ResponseWriter, r *http.Request, param string, card bool) (bank.Account, bool) {
	a, ok := s.bank.Account(r.PathValue(param))
	if !ok || card && !a.Card {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", param, "unknown account")
		return a, false
	}
	return a, true
}

// agreementAt is the agreement of the path parameter mockAgreementId;
// false, with a 404 written, when the bank has none.
func (s *Server) agreementAt(w http.ResponseWriter, r *http.Request) (bank.Agreement, bool) {
	ag, ok := s.bank.Agreement(r.PathValue("mockAgreementId"))
	if !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "mockAgreementId", "unknown agreement")
	}
	return ag, ok
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
