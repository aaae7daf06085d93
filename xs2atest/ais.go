package xs2atest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Account information: consents, users, agreements, accounts, balances,
// transactions, card accounts.

func (s *Server) aisRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /v1/consents", s.postConsents)
	m.HandleFunc("POST /v1/bank-offered-consents", s.postConsents)
	m.HandleFunc("GET /v1/users", s.getUsers)
	m.HandleFunc("GET /v1/user", s.getUsers)
	m.HandleFunc("GET /v1/agreements", s.getAgreements)
	m.HandleFunc("GET /v1/accounts", s.listAccounts)
	m.HandleFunc("GET /v1/accounts/{id}", s.getAccount)
	m.HandleFunc("GET /v1/accounts/{id}/balances", s.getBalances)
	m.HandleFunc("GET /v1/accounts/{id}/transactions", s.getTransactions)
	m.HandleFunc("GET /v1/accounts/{id}/transactions/{transactionId}", s.getTransaction)
	m.HandleFunc("GET /v1/card-accounts", s.listCardAccounts)
	m.HandleFunc("GET /v1/card-accounts/{id}", s.getCardAccount)
	m.HandleFunc("GET /v1/card-accounts/{id}/balances", s.getBalances)
	m.HandleFunc("GET /v1/card-accounts/{id}/transactions", s.getCardTransactions)
}

// presetAgreement: PSU-CORPORATE-ID of a known PSU names the agreement,
// so the consent flow need not ask for it again.
func (s *Server) presetAgreement(r *http.Request) *bank.Agreement {
	rec, known := s.bank.PSU(psuIDOf(r))
	cid := corporateIDOf(r)
	if !known || cid == "" || rec.TPP != info(r).tpp {
		return nil
	}
	return s.agreementForCorporateID(rec.TPP, rec.Customer, cid)
}

// POST /v1/consents and POST /v1/bank-offered-consents (the call the
// production banks run): the body is ignored; the answer is an SCA
// redirect. PSU-Context preselects the context on the SCA page.
func (s *Server) postConsents(w http.ResponseWriter, r *http.Request) {
	href := s.newSCA(r, scaConsent, s.presetAgreement(r))
	writeJSON(w, http.StatusCreated, map[string]any{
		"consentStatus": "received",
		"_links":        map[string]link{"scaRedirect": {Href: href, Verbs: []string{"GET"}}},
	})
}

// GET /v1/users and GET /v1/user: 200 with a scaRedirect that registers
// the PSU (and lets it choose a corporate context).
func (s *Server) getUsers(w http.ResponseWriter, r *http.Request) {
	href := s.newSCA(r, scaUser, s.presetAgreement(r))
	writeJSON(w, http.StatusOK, map[string]any{
		"_links": map[string]link{"scaRedirect": {Href: href, Verbs: []string{"GET"}}},
	})
}

// GET /v1/agreements: the corporate agreements of a known PSU, with the
// psu-corporate-id of each as id.
func (s *Server) getAgreements(w http.ResponseWriter, r *http.Request) {
	id := psuIDOf(r)
	rec, known := s.bank.PSU(id)
	if id == "" || !known || rec.TPP != info(r).tpp {
		writeSCARequired(w, "PSU_CREDENTIALS_INVALID", "GET /v1/agreements needs the PSU-ID of a registered PSU",
			s.newSCA(r, scaUser, nil))
		return
	}
	type agJSON struct {
		ID                 string `json:"id"`
		Name               string `json:"name"`
		OrganisationNumber string `json:"organisationNumber"`
	}
	out := []agJSON{}
	for _, ag := range s.agreementsOf(rec.Customer) {
		out = append(out, agJSON{ID: corporateIDFor(rec.TPP, ag.ID), Name: ag.Name, OrganisationNumber: ag.OrgNumber})
	}
	writeJSON(w, http.StatusOK, map[string]any{"agreements": out})
}

type amountJSON struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

type accountJSON struct {
	ResourceID      string          `json:"resourceId"`
	BBAN            string          `json:"bban"`
	IBAN            string          `json:"iban"`
	Currency        string          `json:"currency"`
	Name            string          `json:"name"`
	Product         string          `json:"product"`
	CashAccountType string          `json:"cashAccountType"`
	BIC             string          `json:"bic"`
	OwnerName       string          `json:"ownerName"`
	Links           map[string]link `json:"_links"`
}

func nameLimit(r *http.Request) int {
	if splitFixes(r.Header.Values("X-Accept-Fix"))["longer-names"] {
		return 70
	}
	return 35
}

func (s *Server) accountJSONOf(r *http.Request, a *bank.Account) accountJSON {
	cat := map[string]string{"current": "BRUK", "savings": "SPAR"}[a.Kind]
	if splitFixes(r.Header.Values("X-Accept-Fix"))["cash-account-type-iso"] {
		cat = map[string]string{"current": "CACC", "savings": "SVGS"}[a.Kind]
	}
	base := "/v1/accounts/" + pathSeg(a.ID)
	return accountJSON{
		ResourceID: a.ID, BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency, Name: truncRunes(a.Name, nameLimit(r)),
		Product: a.Product, CashAccountType: cat, BIC: bankBIC, OwnerName: s.bank.OwnerName(a.Owner),
		Links: map[string]link{
			"self":         {Href: base, Verbs: []string{"GET"}},
			"balances":     {Href: base + "/balances", Verbs: []string{"GET"}},
			"transactions": {Href: base + "/transactions", Verbs: []string{"GET"}},
		},
	}
}

// GET /v1/accounts: the open, consented accounts; an empty list (never 404)
// when none is left.
func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) {
	_, c, ok := s.aisAccess(w, r, "")
	if !ok {
		return
	}
	out := []accountJSON{}
	for _, a := range s.bank.Accounts() {
		if _, ok := c.Accounts[a.ID]; ok && !a.Closed && !a.Card {
			out = append(out, s.accountJSONOf(r, &a))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"accounts": out})
}

// openAccount runs the AIS checks for one account of the right kind.
// A request with the PSU present (which aisAccess lets through only
// under a valid SCA session) counts as an online access with SCA for the
// 90-day rule of periodAllowed.
func (s *Server) openAccount(w http.ResponseWriter, r *http.Request, card bool) (*psuCtx, *bank.Account, bool) {
	id := r.PathValue("id")
	p, _, ok := s.aisAccess(w, r, id)
	if !ok {
		return nil, nil, false
	}
	a, ok := s.bank.Account(id)
	if !ok || a.Card != card || a.Closed {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "unknown or closed account")
		return nil, nil, false
	}
	if p.present {
		s.bank.AccessedOnline(p.key(), id)
	}
	return p, &a, true
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) {
	_, a, ok := s.openAccount(w, r, false)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"account": s.accountJSONOf(r, a)})
}

type balanceJSON struct {
	BalanceAmount amountJSON `json:"balanceAmount"`
	BalanceType   string     `json:"balanceType"`
}

func balancesOf(a *bank.Account) []balanceJSON {
	pending := int64(0)
	for _, t := range a.Pending {
		pending += t.Amount
	}
	b := func(v int64, typ string) balanceJSON {
		return balanceJSON{BalanceAmount: amountJSON{formatAmount(v), a.Currency}, BalanceType: typ}
	}
	out := []balanceJSON{
		b(a.Balance, "closingBooked"),
		b(a.Balance+pending, "expected"),
		b(a.Balance+pending+a.CreditLimit, "interimAvailable"),
	}
	if a.Card {
		// the Berlin Group's card type: what is booked but not yet invoiced,
		// here the booked balance
		out = append(out, b(a.Balance, "nonInvoiced"))
	}
	return out
}

// GET /v1/accounts/{id}/balances (and card accounts). PSU not present: at
// most 4 calls per 24 hours to an account's balances; card accounts are not
// counted (docs/interface.md's Limits name only /v1/accounts/{id}/balances).
func (s *Server) getBalances(w http.ResponseWriter, r *http.Request) {
	card := strings.HasPrefix(r.URL.Path, "/v1/card-accounts/")
	p, a, ok := s.openAccount(w, r, card)
	if !ok || (!card && !s.countUsage(w, p, a.ID, "balances")) {
		return
	}
	ref := bank.AccountRef{BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency}
	key := "account"
	if card {
		// as production answers: {"cardAccount":{"maskedPan"},"balances"}
		key, ref = "cardAccount", bank.AccountRef{MaskedPan: a.MaskedPan}
	}
	writeJSON(w, http.StatusOK, map[string]any{key: ref, "balances": balancesOf(a)})
}

type txJSON struct {
	TransactionID                     string           `json:"transactionId,omitempty"`
	BookingDate                       string           `json:"bookingDate,omitempty"`
	ValueDate                         string           `json:"valueDate,omitempty"`
	TransactionAmount                 amountJSON       `json:"transactionAmount"`
	CreditorName                      string           `json:"creditorName,omitempty"`
	DebtorName                        string           `json:"debtorName,omitempty"`
	CreditorAccount                   *bank.AccountRef `json:"creditorAccount,omitempty"`
	DebtorAccount                     *bank.AccountRef `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string           `json:"remittanceInformationUnstructured,omitempty"`
	ProprietaryBankTransactionCode    txCodeJSON       `json:"proprietaryBankTransactionCode,omitzero"`
	AdditionalInformation             string           `json:"additionalInformation,omitempty"`
	CurrencyExchange                  []exchangeJSON   `json:"currencyExchange,omitempty"`
	// proprietary are written as additionalInformationProprietary1, 2, ...
	proprietary []string
}

// MarshalJSON writes the transaction with its proprietary references as
// members additionalInformationProprietary1, 2, ..., where the backend
// has them (docs/interface.md AIS5).
func (t txJSON) MarshalJSON() ([]byte, error) {
	type plain txJSON
	b, err := json.Marshal(plain(t))
	if err != nil || len(t.proprietary) == 0 {
		return b, err
	}
	b = b[:len(b)-1]
	for i, v := range t.proprietary {
		text, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"additionalInformationProprietary`+strconv.Itoa(i+1)+`":`...)
		b = append(b, text...)
	}
	return append(b, '}'), nil
}

// exchangeJSON is a transaction's currency exchange (Berlin Group
// reportExchangeRate).
type exchangeJSON struct {
	SourceCurrency         string `json:"sourceCurrency"`
	ExchangeRate           string `json:"exchangeRate"`
	UnitCurrency           string `json:"unitCurrency"`
	TargetCurrency         string `json:"targetCurrency"`
	QuotationDate          string `json:"quotationDate"`
	ContractIdentification string `json:"contractIdentification,omitempty"`
}

// exchangesOf is the currencyExchange of a transaction: nil when it was
// booked in its own currency.
func exchangesOf(x bank.Exchange) []exchangeJSON {
	if x.Source == "" {
		return nil
	}
	return []exchangeJSON{{SourceCurrency: x.Source, ExchangeRate: x.Rate, UnitCurrency: x.Source, TargetCurrency: x.Target,
		QuotationDate: bank.FormatDate(x.Quoted), ContractIdentification: x.Contract}}
}

func txOf(t *bank.Transaction, booked bool) txJSON {
	out := txJSON{
		TransactionID: t.ID, BookingDate: bank.FormatDate(t.BookingDate),
		TransactionAmount: amountJSON{formatAmount(t.Amount), t.Currency},
		CreditorName:      t.CreditorName, DebtorName: t.DebtorName,
		RemittanceInformationUnstructured: t.Remittance, ProprietaryBankTransactionCode: txCodeJSON{t.Code, t.CodeID},
		AdditionalInformation: t.Info, CurrencyExchange: exchangesOf(t.Exchange), proprietary: t.Proprietary,
	}
	if booked {
		out.ValueDate = bank.FormatDate(t.ValueDate)
	}
	if t.CreditorBBAN != "" {
		out.CreditorAccount = &bank.AccountRef{BBAN: t.CreditorBBAN}
	} else if t.CreditorIBAN != "" {
		out.CreditorAccount = &bank.AccountRef{IBAN: t.CreditorIBAN}
	}
	if t.DebtorBBAN != "" {
		out.DebtorAccount = &bank.AccountRef{BBAN: t.DebtorBBAN}
	}
	return out
}

// txQuery is the query of a transactions request.
type txQuery struct {
	status         string // booked, pending, both, information, all
	from, to       time.Time
	hasFrom, hasTo bool
	limit, offset  int
}

const maxPage = 499

// parseTxQuery reads bookingStatus (default booked), dateFrom, dateTo,
// limit (default and max 499) and offset; bad values give 400 FORMAT_ERROR.
func parseTxQuery(w http.ResponseWriter, r *http.Request) (*txQuery, bool) {
	q := r.URL.Query()
	tq := &txQuery{status: "booked", limit: maxPage}
	bad := func(param, text string) (*txQuery, bool) {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", param, text)
		return nil, false
	}
	if v := q.Get("bookingStatus"); v != "" {
		switch v {
		case "booked", "pending", "both", "all", "information":
			tq.status = v
		default:
			return bad("bookingStatus", "bookingStatus must be booked, pending, both, information or all")
		}
	}
	var ok bool
	if v := q.Get("dateFrom"); v != "" {
		if tq.from, ok = bank.ParseDate(v); !ok {
			return bad("dateFrom", "dateFrom must be YYYY-MM-DD")
		}
		tq.hasFrom = true
	}
	if v := q.Get("dateTo"); v != "" {
		if tq.to, ok = bank.ParseDate(v); !ok {
			return bad("dateTo", "dateTo must be YYYY-MM-DD")
		}
		tq.hasTo = true
	}
	if tq.hasFrom && tq.hasTo && tq.to.Before(tq.from) {
		return bad("dateTo", "dateTo is before dateFrom")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return bad("limit", "limit must be a positive integer")
		}
		tq.limit = min(n, maxPage)
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return bad("offset", "offset must be a non-negative integer")
		}
		tq.offset = n
	}
	return tq, true
}

func (tq *txQuery) in(d time.Time) bool {
	return (!tq.hasFrom || !d.Before(tq.from)) && (!tq.hasTo || !d.After(tq.to))
}

// pageLinks are the paging _links of a page of total entries: next unless
// it is the last page, previous unless it is the first, as member banks
// document them; nil when there is neither.
func (tq *txQuery) pageLinks(base string, total int) map[string]link {
	out := map[string]link{}
	if tq.offset+tq.limit < total {
		out["next"] = link{Href: tq.pageHref(base, tq.offset+tq.limit), Verbs: []string{"GET"}}
	}
	if tq.offset > 0 {
		out["previous"] = link{Href: tq.pageHref(base, max(0, tq.offset-tq.limit)), Verbs: []string{"GET"}}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pageHref is the href of the page at offset, with the query of this one.
func (tq *txQuery) pageHref(base string, offset int) string {
	v := url.Values{}
	v.Set("bookingStatus", tq.status)
	if tq.hasFrom {
		v.Set("dateFrom", bank.FormatDate(tq.from))
	}
	if tq.hasTo {
		v.Set("dateTo", bank.FormatDate(tq.to))
	}
	v.Set("limit", strconv.Itoa(tq.limit))
	v.Set("offset", strconv.Itoa(offset))
	return base + "?" + v.Encode()
}

// periodAllowed applies the PSU-not-present rules to transactions:
// at most 90 days back, and only for accounts the PSU accessed with SCA
// within the renewal period (90 days, WithSCARenewal: the consent SCA for
// the account, or a later online access to it under a valid SCA session:
// consent.lastSCAAccess).
func (s *Server) periodAllowed(w http.ResponseWriter, r *http.Request, p *psuCtx, a *bank.Account, tq *txQuery) bool {
	if p.present {
		return true
	}
	today := bank.DateOf(s.now())
	limit := today.AddDate(0, 0, -90)
	c, _ := s.bank.Consent(p.key())
	if last := c.LastSCAAccess(a.ID); s.now().Sub(last) > s.cfg.scaRenewal {
		writeSCARequired(w, "CONSENT_EXPIRED", "the PSU has not accessed this account with SCA within "+days(s.cfg.scaRenewal),
			s.newSCA(r, scaConsent, p.agreement))
		return false
	}
	if tq != nil {
		if tq.hasFrom && tq.from.Before(limit) {
			writeError(w, http.StatusBadRequest, "PERIOD_INVALID", "dateFrom",
				"without the PSU present, transactions are available for at most 90 days")
			return false
		}
		if !tq.hasFrom {
			tq.from, tq.hasFrom = limit, true
		}
	}
	return true
}

// days writes d in whole days ("90 days"), for the texts of refusals.
func days(d time.Duration) string {
	return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + " days"
}

// GET /v1/accounts/{id}/transactions: booked (paged by offset/limit, newest
// first), pending (for pending, both and all: all of them on every page, not
// filtered) and information (for information and all: the account's
// standing orders, on every page).
func (s *Server) getTransactions(w http.ResponseWriter, r *http.Request) {
	p, a, ok := s.openAccount(w, r, false)
	if !ok {
		return
	}
	tq, ok := parseTxQuery(w, r)
	if !ok || !s.periodAllowed(w, r, p, a, tq) || !s.countUsage(w, p, a.ID, "transactions") {
		return
	}
	report := map[string]any{}
	if tq.status != "pending" && tq.status != "information" {
		bookedPage(report, a, tq)
	}
	if tq.status == "pending" || tq.status == "both" || tq.status == "all" {
		// all of them, unfiltered, on every page
		pend := []txJSON{}
		for _, t := range a.Pending {
			pend = append(pend, txOf(t, false))
		}
		report["pending"] = pend
	}
	if tq.status == "information" || tq.status == "all" {
		report["information"] = s.standingOrders(a)
	}
	// Berlin Group _linksAccountReport: the account link is required
	links, _ := report["_links"].(map[string]link)
	if links == nil {
		links = map[string]link{}
	}
	links["account"] = link{Href: "/v1/accounts/" + pathSeg(a.ID), Verbs: []string{"GET"}}
	report["_links"] = links
	writeJSON(w, http.StatusOK, map[string]any{
		"account":      bank.AccountRef{BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency},
		"transactions": report,
	})
}

// bookedPage puts the page of the account's booked transactions that tq
// asks for in report, with its next and previous links (pageLinks).
func bookedPage(report map[string]any, a *bank.Account, tq *txQuery) {
	var sel []*bank.Transaction
	for _, t := range a.Booked {
		if tq.in(t.BookingDate) {
			sel = append(sel, t)
		}
	}
	page := []txJSON{}
	for i := tq.offset; i < len(sel) && i < tq.offset+tq.limit; i++ {
		page = append(page, txOf(sel[i], true))
	}
	report["booked"] = page
	if links := tq.pageLinks("/v1/accounts/"+pathSeg(a.ID)+"/transactions", len(sel)); links != nil {
		report["_links"] = links
	}
}

// GET /v1/accounts/{id}/transactions/{transactionId}: one booked or
// pending transaction.
func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) {
	p, a, ok := s.openAccount(w, r, false)
	if !ok || !s.periodAllowed(w, r, p, a, nil) {
		return
	}
	tid := r.PathValue("transactionId")
	var found *bank.Transaction
	booked := false
	for _, t := range a.Booked {
		if t.ID == tid {
			found, booked = t, true
		}
	}
	for _, t := range a.Pending {
		if t.ID == tid {
			found = t
		}
	}
	if found == nil {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "transactionId", "unknown transaction")
		return
	}
	if !p.present && booked && found.BookingDate.Before(bank.DateOf(s.now()).AddDate(0, 0, -90)) {
		writeError(w, http.StatusBadRequest, "PERIOD_INVALID", "transactionId",
			"without the PSU present, transactions are available for at most 90 days")
		return
	}
	if !s.countUsage(w, p, a.ID, "transaction-details") {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"transactionsDetails": txOf(found, booked)})
}
