package xs2atest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Sandbox accounts, card accounts and corporate agreements (docs/interface.md,
// Sandbox, SB9 and SB10).

// sandboxAccountReq is the body of POST and PUT /v1/sandbox/accounts and
// /v1/sandbox/card-accounts. The platform's scripts send accountName,
// balances, iban, creditLine and a card account's creditLimit as an amount
// object, cardId, cardIdVNo, accountNumber, expiry and status; the SDK sends
// name, balance and card. The fake bank keeps what its accounts hold and
// checks the form of the rest.
type sandboxAccountReq struct {
	CustomerNumber  string          `json:"customerNumber"`
	BBAN            string          `json:"bban"`
	IBAN            string          `json:"iban"`
	Currency        string          `json:"currency"`
	Name            string          `json:"name"`
	AccountName     string          `json:"accountName"`
	Product         string          `json:"product"`
	Balance         *mockAmount     `json:"balance"`
	Balances        []mockBalance   `json:"balances"`
	CashAccountType string          `json:"cashAccountType"`
	CreditLine      *mockAmount     `json:"creditLine"`
	Card            *bool           `json:"card"`
	MaskedPan       string          `json:"maskedPan"`
	CreditLimit     json.RawMessage `json:"creditLimit"`
	CardID          string          `json:"cardId"`
	CardIDVNo       string          `json:"cardIdVNo"`
	AccountNumber   string          `json:"accountNumber"`
	Expiry          string          `json:"expiry"`
	Status          string          `json:"status"`
}

// mockBalance is one entry of an account's balances in the scripts' shape.
type mockBalance struct {
	BalanceType              string         `json:"balanceType"`
	BalanceAmount            *mockAmountObj `json:"balanceAmount"`
	ReferenceDate            string         `json:"referenceDate"`
	LastChangeDateTime       string         `json:"lastChangeDateTime"`
	LastCommittedTransaction string         `json:"lastCommittedTransaction"`
}

// mockBalanceTypes are the balance types a mock account's balances may
// give (Berlin Group's, and the platform scripts' upper-case EXPECTED and
// AUTHORISED), compared without regard to case.
var mockBalanceTypes = []string{"closingbooked", "expected", "authorised", "openingbooked", "interimavailable",
	"interimbooked", "forwardavailable", "noninvoiced"}

// name is the account's name: name or accountName (400 when both are
// given and differ).
func (req *sandboxAccountReq) name() (string, *bank.Error) {
	if req.Name != "" && req.AccountName != "" && req.Name != req.AccountName {
		return "", bank.FormatErr("accountName", "name and accountName differ: give one")
	}
	return cmp.Or(req.Name, req.AccountName), nil
}

// balance is the opening balance the body gives (balance, or the first of
// balances), ok false for none.
func (req *sandboxAccountReq) balance(currency string) (v int64, ok bool, e *bank.Error) {
	if req.Balance != nil && len(req.Balances) > 0 {
		return 0, false, bank.FormatErr("balances", "give balance or balances, not both")
	}
	if req.Balance != nil {
		if v, ok = req.Balance.parse(true); !ok {
			return 0, false, bank.FormatErr("balance", "balance must be an amount like 100.26")
		}
		return v, true, nil
	}
	for i, b := range req.Balances {
		path := fmt.Sprintf("balances[%d]", i)
		if !slices.Contains(mockBalanceTypes, strings.ToLower(b.BalanceType)) {
			return 0, false, bank.FormatErr(path+".balanceType", "unknown balanceType: want a Berlin Group balance type such as EXPECTED or closingBooked")
		}
		amt, e := b.BalanceAmount.parse(path+".balanceAmount", currency, true)
		if e != nil {
			return 0, false, e
		}
		if i == 0 {
			v, ok = amt, true
		}
	}
	return v, ok, nil
}

// creditLimit reads a card account's creditLimit: an amount (string or
// number) or an amount object in the account's currency; ok false for none.
func (req *sandboxAccountReq) creditLimit(currency string) (v int64, ok bool, e *bank.Error) {
	raw := bytes.TrimSpace(req.CreditLimit)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	if raw[0] == '{' {
		var o mockAmountObj
		if err := strictJSON(raw, &o); err != nil {
			return 0, false, bank.FormatErr("creditLimit", "creditLimit must be an amount or {\"currency\",\"amount\"}")
		}
		v, e = o.parse("creditLimit", currency, false)
		return v, e == nil, e
	}
	var m mockAmount
	if json.Unmarshal(raw, &m) != nil {
		return 0, false, bank.FormatErr("creditLimit", "creditLimit must be an amount")
	}
	if v, ok = m.parse(false); !ok {
		return 0, false, bank.FormatErr("creditLimit", "creditLimit must be a non-negative amount")
	}
	return v, true, nil
}

// checkForm checks the members that are the same on creation and change:
// iban against bban, card members only on card accounts, text members.
func (req *sandboxAccountReq) checkForm(card bool) *bank.Error {
	if req.Card != nil && *req.Card != card {
		return bank.FormatErr("card", "a card account is created with POST /v1/sandbox/card-accounts or card: true; card: false is an account")
	}
	if req.CreditLine != nil {
		if _, ok := req.CreditLine.parse(false); !ok {
			return bank.FormatErr("creditLine", "creditLine must be a non-negative amount")
		}
	}
	switch {
	case card && req.BBAN != "":
		return bank.FormatErr("bban", "a card account has no bban")
	case card && req.IBAN != "":
		return bank.FormatErr("iban", "a card account has no iban")
	case !card && req.MaskedPan != "":
		return bank.FormatErr("maskedPan", "maskedPan is only for a card account")
	case !card && len(req.CreditLimit) > 0:
		return bank.FormatErr("creditLimit", "creditLimit is only for a card account")
	case req.BBAN != "" && !validBBAN(req.BBAN):
		return bank.FormatErr("bban", "bban must be 11 digits with a valid MOD11 control digit")
	}
	if e := req.checkIBAN(); e != nil {
		return e
	}
	for _, t := range []struct{ path, v string }{{"cardId", req.CardID}, {"cardIdVNo", req.CardIDVNo},
		{"accountNumber", req.AccountNumber}, {"expiry", req.Expiry}, {"status", req.Status}} {
		if t.v != "" && !card {
			return bank.FormatErr(t.path, t.path+" is only for a card account")
		}
	}
	return nil
}

// checkIBAN checks an iban against the bban, and takes the bban from a
// Norwegian iban when none is given.
func (req *sandboxAccountReq) checkIBAN() *bank.Error {
	if req.IBAN == "" {
		return nil
	}
	iban := strings.ToUpper(strings.ReplaceAll(req.IBAN, " ", ""))
	bban := req.BBAN
	if bban == "" && len(iban) == 15 {
		bban = iban[4:]
	}
	if !validBBAN(bban) || bank.IBANOf(bban) != iban {
		return bank.FormatErr("iban", "iban must be the Norwegian IBAN of the account's bban")
	}
	req.BBAN = bban
	return nil
}

// kind is the bank's kind of account for a cashAccountType.
func kindOf(cashAccountType string) string {
	if strings.EqualFold(cashAccountType, "savings") || strings.EqualFold(cashAccountType, "SVGS") {
		return "savings"
	}
	return "current"
}

// POST /v1/sandbox/accounts (card: true, or POST /v1/sandbox/card-accounts,
// a card account).
func (s *Server) sandboxAddAccount(card bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req sandboxAccountReq
		if !decodeBody(w, r, &req) {
			return
		}
		a, e := s.sandboxAccount(&req, card || (req.Card != nil && *req.Card))
		if e == nil {
			a, e = s.bank.AddAccount(req.CustomerNumber, a)
		}
		if e != nil {
			writeAPIError(w, e)
			return
		}
		writeJSON(w, http.StatusCreated, publicAccount(&a))
	}
}

// sandboxAccount checks the fields of a new sandbox account and builds it
// for the bank, which gives it its ids (and a card account without one its
// maskedPan).
func (s *Server) sandboxAccount(req *sandboxAccountReq, card bool) (bank.Account, *bank.Error) {
	a := bank.Account{Currency: req.Currency, Product: req.Product, Card: card, Kind: kindOf(req.CashAccountType)}
	var e *bank.Error
	if e = checkCustomerNumber("customerNumber", req.CustomerNumber); e != nil {
		return a, e
	}
	if _, ok := s.bank.Customer(req.CustomerNumber); !ok {
		return a, bank.FormatErr("customerNumber", "unknown customer")
	}
	if a.Name, e = req.name(); e != nil {
		return a, e
	}
	if e = req.checkForm(card); e != nil {
		return a, e
	}
	switch {
	case !currencyRE.MatchString(a.Currency):
		return a, bank.FormatErr("currency", "currency must be an ISO 4217 code")
	case strings.TrimSpace(a.Name) == "" && card:
		a.Name = a.Product // the scripts' card accounts may give a product alone
	}
	if strings.TrimSpace(a.Name) == "" {
		return a, bank.FormatErr("accountName", "accountName (or name) is required")
	}
	if a.Product == "" {
		a.Product = truncRunes(a.Name, 35) // Berlin Group: product is Max35Text
	}
	if a.Balance, _, e = req.balance(a.Currency); e != nil {
		return a, e
	}
	if a.CreditLimit, _, e = req.creditLimit(a.Currency); e != nil {
		return a, e
	}
	a.BBAN, a.MaskedPan = req.BBAN, req.MaskedPan
	return a, nil
}

// PUT /v1/sandbox/accounts/{mockAccountId} and
// /v1/sandbox/card-accounts/{mockCardAccountId}: the fake bank's own
// routes. Name, product, cashAccountType, a card's maskedPan and
// creditLimit, and the booked balance change; customerNumber, bban, iban
// and currency, when given, must be the account's.
func (s *Server) sandboxUpdateAccount(card bool) http.HandlerFunc {
	param := map[bool]string{false: "mockAccountId", true: "mockCardAccountId"}[card]
	return func(w http.ResponseWriter, r *http.Request) {
		var req sandboxAccountReq
		if !decodeBody(w, r, &req) {
			return
		}
		a, ok := s.accountAt(w, r, param, false) // UpdateAccount tells a card route on an account apart
		if !ok {
			return
		}
		ch, balance, e := accountChange(&req, &a)
		if e == nil {
			a, e = s.bank.UpdateAccount(a.ID, card, ch)
		}
		if e == nil && balance != nil {
			a, _ = s.bank.SetBalance(a.ID, *balance)
		}
		if e != nil {
			writeAPIError(w, e)
			return
		}
		writeJSON(w, http.StatusOK, publicAccount(&a))
	}
}

// accountChange checks a change to account a and returns it, with the new
// booked balance when the body gives one.
func accountChange(req *sandboxAccountReq, a *bank.Account) (bank.AccountChange, *int64, *bank.Error) {
	var ch bank.AccountChange
	if e := req.checkForm(a.Card); e != nil {
		return ch, nil, e
	}
	for _, f := range []struct{ path, got, have string }{{"customerNumber", req.CustomerNumber, a.Owner},
		{"bban", req.BBAN, a.BBAN}, {"currency", req.Currency, a.Currency}} {
		if f.got != "" && f.got != f.have {
			return ch, nil, bank.FormatErr(f.path, f.path+" cannot change: create another account")
		}
	}
	name, e := req.name()
	if e != nil {
		return ch, nil, e
	}
	set := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	ch.Name, ch.Product, ch.MaskedPan = set(name), set(req.Product), set(req.MaskedPan)
	if req.CashAccountType != "" {
		ch.Kind = set(kindOf(req.CashAccountType))
	}
	if v, ok, e := req.creditLimit(a.Currency); e != nil {
		return ch, nil, e
	} else if ok {
		ch.CreditLimit = &v
	}
	v, ok, e := req.balance(a.Currency)
	if e != nil || !ok {
		return ch, nil, e
	}
	return ch, &v, nil
}

// sandboxAgreementReq is the body of POST /v1/sandbox/agreements and PUT
// /v1/sandbox/agreements/{mockAgreementId}. The platform's scripts send
// owner, name and engagements; the SDK's earlier form sends customerNumber,
// accounts, members and signersRequired. Both may be mixed.
type sandboxAgreementReq struct {
	Owner           string          `json:"owner"`
	CustomerNumber  string          `json:"customerNumber"`
	Name            string          `json:"name"`
	Accounts        []string        `json:"accounts"`
	SignersRequired int             `json:"signersRequired"`
	Members         []string        `json:"members"`
	Engagements     []engagementReq `json:"engagements"`
}

// engagementReq is an engagement: the customer (a PSU, member of the
// agreement) who sees the account, the account (of the agreement's owner)
// by iban, bban or maskedPan, and the roles. Only an engagement with both
// VIEW and REGISTER puts the account in the agreement: consents and
// payments see it.
type engagementReq struct {
	Customer      string           `json:"customer"`
	Account       *bank.AccountRef `json:"account"`
	Roles         []string         `json:"roles"`
	RegisterLimit *mockAmount      `json:"registerLimit"`
	ApprovalLimit *mockAmount      `json:"approvalLimit"`
}

// engagementRoles are the roles the platform documents for an engagement.
var engagementRoles = []string{"VIEW", "REGISTER"}

// owner is the agreement's owner: owner or customerNumber (400 when both
// are given and differ).
func (req *sandboxAgreementReq) owner() (string, *bank.Error) {
	if req.Owner != "" && req.CustomerNumber != "" && req.Owner != req.CustomerNumber {
		return "", bank.FormatErr("owner", "owner and customerNumber differ: give one")
	}
	return cmp.Or(req.Owner, req.CustomerNumber), nil
}

// engage checks engagements for an agreement of owner and returns the
// accounts (resource ids) they grant and the customers they make members.
// path prefixes each refusal's path ("engagements" or "").
func (s *Server) engage(owner string, engs []engagementReq, path string) (accounts, members []string, e *bank.Error) {
	for i, g := range engs {
		p := fmt.Sprintf("%s[%d]", path, i)
		if e = checkCustomerNumber(p+".customer", g.Customer); e != nil {
			return nil, nil, e
		}
		if _, ok := s.bank.Customer(g.Customer); !ok {
			return nil, nil, bank.FormatErr(p+".customer", "unknown customer")
		}
		if g.Account == nil {
			return nil, nil, bank.FormatErr(p+".account", "account is required: {\"iban\"}, {\"bban\"} or {\"maskedPan\"}")
		}
		a, ok := s.bank.AccountByRef(*g.Account)
		switch {
		case !ok:
			return nil, nil, bank.FormatErr(p+".account", "an engagement on an unknown account")
		case a.Owner != owner:
			return nil, nil, bank.FormatErr(p+".account", "the account of an engagement must be the agreement owner's")
		}
		for j, role := range g.Roles {
			if !slices.Contains(engagementRoles, role) {
				return nil, nil, bank.FormatErr(fmt.Sprintf("%s.roles[%d]", p, j), "unknown role: want VIEW or REGISTER")
			}
		}
		for _, l := range []struct {
			name string
			v    *mockAmount
		}{{"registerLimit", g.RegisterLimit}, {"approvalLimit", g.ApprovalLimit}} {
			if _, ok := l.v.parse(false); l.v != nil && !ok {
				return nil, nil, bank.FormatErr(p+"."+l.name, l.name+" must be a non-negative amount")
			}
		}
		if slices.Contains(g.Roles, "VIEW") && slices.Contains(g.Roles, "REGISTER") && !slices.Contains(accounts, a.ID) {
			accounts = append(accounts, a.ID)
		}
		if !slices.Contains(members, g.Customer) {
			members = append(members, g.Customer)
		}
	}
	return accounts, members, nil
}

// agreement checks an agreement's body and returns its owner, accounts,
// signers and members (the owner first).
func (s *Server) agreement(req *sandboxAgreementReq) (c bank.Customer, accounts []string, signers int, members []string, e *bank.Error) {
	owner, e := req.owner()
	if e != nil {
		return c, nil, 0, nil, e
	}
	if e = checkCustomerNumber("owner", owner); e != nil {
		return c, nil, 0, nil, e
	}
	c, ok := s.bank.Customer(owner)
	switch {
	case !ok || c.Kind != bank.CustomerCorporate:
		return c, nil, 0, nil, bank.FormatErr("owner", "unknown corporate customer")
	case strings.TrimSpace(req.Name) == "":
		return c, nil, 0, nil, bank.FormatErr("name", "name is required")
	}
	for i, id := range req.Accounts {
		if !contains(c.Accounts, id) {
			return c, nil, 0, nil, bank.FormatErr(fmt.Sprintf("accounts[%d]", i), "every account must belong to the owner")
		}
	}
	accounts = slices.Clone(req.Accounts)
	members = []string{c.Number}
	for i, m := range req.Members {
		if e = checkCustomerNumber(fmt.Sprintf("members[%d]", i), m); e != nil {
			return c, nil, 0, nil, e
		}
		if _, ok := s.bank.Customer(m); !ok {
			return c, nil, 0, nil, bank.FormatErr(fmt.Sprintf("members[%d]", i), "unknown member customer")
		}
		if !contains(members, m) {
			members = append(members, m)
		}
	}
	engAccounts, engMembers, e := s.engage(c.Number, req.Engagements, "engagements")
	if e != nil {
		return c, nil, 0, nil, e
	}
	for _, id := range engAccounts {
		if !contains(accounts, id) {
			accounts = append(accounts, id)
		}
	}
	for _, m := range engMembers {
		if !contains(members, m) {
			members = append(members, m)
		}
	}
	signers = req.SignersRequired
	if signers == 0 {
		signers = 1
	}
	if signers < 1 || signers > len(members) {
		return c, nil, 0, nil, bank.FormatErr("signersRequired", "signersRequired must be between 1 and the number of members")
	}
	return c, accounts, signers, members, nil
}

// POST /v1/sandbox/agreements {owner (or customerNumber), name, engagements?,
// accounts?, signersRequired?, members?}
func (s *Server) sandboxAddAgreement(w http.ResponseWriter, r *http.Request) {
	var req sandboxAgreementReq
	if !decodeBody(w, r, &req) {
		return
	}
	c, accounts, signers, members, e := s.agreement(&req)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	ag := s.bank.AddAgreement(c.Number, req.Name, accounts, signers, members)
	writeJSON(w, http.StatusCreated, publicAgreement(&ag))
}

// PUT /v1/sandbox/agreements/{mockAgreementId}: the fake bank's own route;
// the body replaces the agreement's name, accounts, members and signers.
// Its owner cannot change.
func (s *Server) sandboxUpdateAgreement(w http.ResponseWriter, r *http.Request) {
	var req sandboxAgreementReq
	if !decodeBody(w, r, &req) {
		return
	}
	ag, ok := s.agreementAt(w, r)
	if !ok {
		return
	}
	if owner, e := req.owner(); e == nil && owner == "" {
		req.Owner = ag.Owner
	} else if e == nil && owner != ag.Owner {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "owner", "an agreement's owner cannot change")
		return
	}
	_, accounts, signers, members, e := s.agreement(&req)
	if e == nil {
		ag, e = s.bank.UpdateAgreement(ag.ID, req.Name, accounts, signers, members)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, publicAgreement(&ag))
}

// POST /v1/sandbox/agreements/{mockAgreementId}/engagements: the
// platform's route to add engagements to an agreement; the body is one
// engagement or an array of them.
func (s *Server) sandboxEngage(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decodeBody(w, r, &raw) {
		return
	}
	ag, ok := s.agreementAt(w, r)
	if !ok {
		return
	}
	var engs []engagementReq
	e := decodeOneOrMany(raw, &engs)
	var accounts, members []string
	if e == nil {
		accounts, members, e = s.engage(ag.Owner, engs, "")
	}
	if e == nil {
		ag, e = s.bank.Engage(ag.ID, accounts, members)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, publicAgreement(&ag))
}
