package xs2atest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Payment initiation: single, periodic and bulk payments, authorisations
// (SCA, multi-signature), status, cancellation, signing baskets.

var paymentServices = []string{"payments", "periodic-payments", "bulk-payments"}

type payment struct {
	id, service, product, tpp string
	customer, agreement       string // initiating PSU ("" until bound at SCA); agreement id in corporate context
	raw                       map[string]any
	status                    string
	funds                     *bool
	entries                   []*paymentFacts
	debtor                    string          // resource id of the debtor (card) account; "" until the PSU picks it at SCA
	debtorRef                 *accountRefJSON // debtorAccount of a payment not bound yet: checked at its SCA
	execDate                  time.Time
	dateMoved                 bool // execDate was moved at SCA (see moveExecDateLocked)
	signers                   []string
	signersRequired           int
	fee                       int64
	auths                     map[string]*authorisation
	authOrder                 []string
	dupes                     []dupKey
}

// bound reports whether the payment belongs to a customer: initiated with a
// PSU-ID, or authorised since by the PSU who signed in at its SCA.
func (p *payment) bound() bool { return p.customer != "" }

type authorisation struct{ id, status string } // started, finalised, failed

type dupKey struct{ creditor, kid, invoice string }

type basket struct {
	id, tpp           string
	paymentIDs        []string
	status, scaStatus string
	authID            string
	deleted           bool // DELETE: gone for the TPP
}

var finalStatus = map[string]bool{"ACSC": true, "ACCC": true, "RJCT": true, "CANC": true, "PART": true}

func (s *Server) pisRoutes(m *http.ServeMux) {
	for _, svc := range paymentServices {
		base := "/v1/" + svc + "/{product}"
		m.HandleFunc("POST "+base, s.initiate)
		m.HandleFunc("GET "+base+"/{paymentId}", s.getPayment)
		m.HandleFunc("DELETE "+base+"/{paymentId}", s.cancelPayment)
		m.HandleFunc("GET "+base+"/{paymentId}/status", s.paymentStatus)
		m.HandleFunc("POST "+base+"/{paymentId}/authorisations", s.startAuthorisation)
		m.HandleFunc("GET "+base+"/{paymentId}/authorisations", s.listAuthorisations)
		m.HandleFunc("GET "+base+"/{paymentId}/authorisations/{authorisationId}", s.getAuthorisation)
	}
	m.HandleFunc("POST /v1/signing-baskets", s.createBasket)
	m.HandleFunc("GET /v1/signing-baskets/{basketId}", s.getBasket)
	m.HandleFunc("GET /v1/signing-baskets/{basketId}/status", s.basketStatus)
	m.HandleFunc("DELETE /v1/signing-baskets/{basketId}", s.deleteBasket)
	m.HandleFunc("POST /v1/signing-baskets/{basketId}/authorisations", s.startBasketAuthorisation)
	m.HandleFunc("GET /v1/signing-baskets/{basketId}/authorisations/{authorisationId}", s.getBasketAuthorisation)
}

func serviceOf(r *http.Request) string {
	// /v1/<service>/...
	p := r.URL.Path[len("/v1/"):]
	for _, svc := range paymentServices {
		if len(p) > len(svc) && p[:len(svc)+1] == svc+"/" {
			return svc
		}
	}
	return ""
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	writeError(w, e.status, e.code, e.path, e.text)
}

// POST /v1/{payments|periodic-payments|bulk-payments}/{product}. With a
// PSU-ID the payment belongs to that PSU and is checked at once. Without one
// (a PISP-only journey, docs/interface.md Flow 5) it is created unbound: the PSU who
// signs in at its SCA gets it, and its debtorAccount is checked then (see
// bindingLocked).
func (s *Server) initiate(w http.ResponseWriter, r *http.Request) {
	svc, product := serviceOf(r), r.PathValue("product")
	if !products[product] {
		writeError(w, http.StatusBadRequest, "PRODUCT_UNKNOWN", "", "unknown payment product")
		return
	}
	if svc != "payments" && product == ProductInstant {
		writeError(w, http.StatusBadRequest, "PRODUCT_INVALID", "", "instant payments are single payments only")
		return
	}
	if r.Header.Get("PSU-IP-Address") == "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "PSU-IP-Address",
			"PSU-IP-Address is required: payment initiation needs the PSU present")
		return
	}
	allowDup := false
	if v := r.URL.Query().Get("allowLogicalDuplicate"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "allowLogicalDuplicate", "allowLogicalDuplicate must be true or false")
			return
		}
		allowDup = b
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var psu *psuCtx // nil: no PSU-ID, the payment is bound at its SCA
	if psuIDOf(r) != "" {
		var ok bool
		if psu, ok = s.resolvePSULocked(w, r, scaUser); !ok {
			return
		}
	} else if corporateIDOf(r) != "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "PSU-CORPORATE-ID", "PSU-CORPORATE-ID needs the PSU-ID it belongs to")
		return
	}
	today := dateOf(s.now())
	var entries []*paymentFacts
	var debtorRef *accountRefJSON
	p := &payment{service: svc, product: product, tpp: info(r).tpp, status: "RCVD",
		auths: map[string]*authorisation{}, signersRequired: 1}
	if psu != nil {
		p.customer = psu.rec.customer
		if psu.agreement != nil {
			p.agreement = psu.agreement.id
			p.signersRequired = psu.agreement.signersRequired
		}
	}
	switch svc {
	case "bulk-payments":
		var req bulkReq
		if !decodeBody(w, r, &req) {
			return
		}
		if len(req.Payments) == 0 {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "payments", "a bulk payment needs at least one payment")
			return
		}
		if req.DebtorAccount == nil {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "debtorAccount", "a bulk payment needs a debtorAccount")
			return
		}
		debtorRef = req.DebtorAccount
		for i := range req.Payments {
			e := &req.Payments[i]
			if e.RequestedExecutionDate == "" {
				e.RequestedExecutionDate = req.RequestedExecutionDate
			}
			f, err := validatePayment(e, "payments["+strconv.Itoa(i)+"].", product, today)
			if err != nil {
				writeAPIError(w, err)
				return
			}
			entries = append(entries, f)
		}
	default:
		var req paymentReq
		if !decodeBody(w, r, &req) {
			return
		}
		f, err := validatePayment(&req, "", product, today)
		if err != nil {
			writeAPIError(w, err)
			return
		}
		if svc == "periodic-payments" {
			if err := validatePeriodic(&req, today); err != nil {
				writeAPIError(w, err)
				return
			}
			f.execDate, _ = parseDate(req.StartDate)
		} else if req.Frequency != "" || req.StartDate != "" || len(req.MonthsOfExecution) > 0 {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "frequency", "periodic fields belong to /v1/periodic-payments")
			return
		}
		debtorRef = req.DebtorAccount
		entries = []*paymentFacts{f}
	}
	switch {
	case debtorRef == nil:
	case psu == nil:
		if debtorRef.BBAN == "" && debtorRef.IBAN == "" && debtorRef.MaskedPan == "" {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "debtorAccount", "debtorAccount names no account (bban, iban or maskedPan)")
			return
		}
		p.debtorRef = debtorRef
	default:
		a, err := s.debtorOfLocked(psu.rec.customer, psu.agreement, debtorRef)
		if err != nil {
			writeAPIError(w, err)
			return
		}
		p.debtor = a.id
	}
	dupes, dupErr := s.duplicateLocked(svc, entries, allowDup)
	if dupErr != nil {
		writeAPIError(w, dupErr)
		return
	}
	p.dupes = dupes
	p.entries = entries
	p.execDate = entries[0].execDate
	p.fee = feeOf(product, entries, s.debtorCurrencyLocked(p, debtorRef))
	if err := s.fundsCheckLocked(p, p.debtor); err != nil {
		writeAPIError(w, err)
		return
	}
	var raw map[string]any
	_ = json.Unmarshal(info(r).body, &raw)
	p.raw = raw
	p.id = s.newID()
	s.payments[p.id] = p
	s.paymentOrder = append(s.paymentOrder, p.id)
	for _, k := range p.dupes {
		s.dupes[k] = append(s.dupes[k], p.id)
	}
	base := paymentPath(p)
	w.Header().Set("Location", s.URL()+base) // absolute: a Location path would resolve outside the base path
	writeJSON(w, http.StatusCreated, map[string]any{
		"paymentId":               p.id,
		"transactionStatus":       p.status,
		"transactionFees":         amountJSON{formatAmount(p.fee), "NOK"},
		"transactionFeeIndicator": p.fee > 0,
		"_links":                  paymentLinks(p, true),
	})
}

// duplicateLocked returns the invoice keys (creditor, KID, invoice number) of
// entries, or without allowDup the refusal of an entry whose invoice a live
// payment (neither cancelled nor rejected) already pays: 400 PAYMENT_FAILED
// at the entry's remittanceInformationStructuredArray. Every earlier payment
// of the invoice counts, not only the latest.
func (s *Server) duplicateLocked(svc string, entries []*paymentFacts, allowDup bool) ([]dupKey, *apiError) {
	var keys []dupKey
	for i, f := range entries {
		if f.kid == "" || f.invoice == "" {
			continue
		}
		k := dupKey{f.creditor, f.kid, f.invoice}
		if !allowDup && s.invoicePaidLocked(k) {
			path := "remittanceInformationStructuredArray"
			if svc == "bulk-payments" {
				path = "payments[" + strconv.Itoa(i) + "]." + path
			}
			return nil, &apiError{http.StatusBadRequest, "PAYMENT_FAILED", path,
				"logical duplicate: an earlier payment has the same invoice number, KID and creditor; repeat with allowLogicalDuplicate=true if this payment is intended"}
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// invoicePaidLocked reports whether a payment of invoice k is live: neither
// cancelled nor rejected.
func (s *Server) invoicePaidLocked(k dupKey) bool {
	for _, id := range s.dupes[k] {
		if p := s.payments[id]; p != nil && p.status != "CANC" && p.status != "RJCT" {
			return true
		}
	}
	return false
}

// fundsCheckLocked: the instant product is executed at authorisation, so a
// payment of it that the debtor account cannot pay (amount and fee) is
// refused before it is created or bound (doc.go, "Lack of funds").
func (s *Server) fundsCheckLocked(p *payment, debtorID string) *apiError {
	executedAtAuthorisation := p.product == ProductInstant && !p.execDate.After(dateOf(s.now()))
	a := s.accounts[debtorID]
	if executedAtAuthorisation && a != nil && !canPay(a, p.totalIn(a.currency)) {
		return &apiError{http.StatusBadRequest, "FUNDS_NOT_AVAILABLE", "instructedAmount",
			"insufficient funds: the debtorAccount cannot pay the amount and the fee of this instant payment"}
	}
	return nil
}

func paymentPath(p *payment) string {
	return "/v1/" + p.service + "/" + p.product + "/" + pathSeg(p.id)
}

// contextAccountsLocked lists the open accounts and card accounts of a
// context: a private customer's own (ag nil), or the accounts of the
// agreement a corporate PSU acts for. The PSU may consent to them and pay
// from them (docs/interface.md, Sandbox: payments from card accounts are supported).
func (s *Server) contextAccountsLocked(customerNumber string, ag *agreement) []string {
	var ids []string
	if ag != nil {
		ids = ag.accounts
	} else if c := s.customers[customerNumber]; c != nil && c.kind == customerPrivate {
		ids = c.accounts
	}
	var out []string
	for _, id := range ids {
		if a := s.accounts[id]; a != nil && !a.closed {
			out = append(out, id)
		}
	}
	return out
}

// debtorOfLocked finds the account a debtorAccount names (bban, iban or a
// card account's maskedPan) among those the customer may pay from in the
// context ag (nil: private): 400 FORMAT_ERROR when it names none of them or
// gives another currency.
func (s *Server) debtorOfLocked(customerNumber string, ag *agreement, ref *accountRefJSON) (*account, *apiError) {
	for _, id := range s.contextAccountsLocked(customerNumber, ag) {
		a := s.accounts[id]
		if !a.is(ref) {
			continue
		}
		if ref.Currency != "" && ref.Currency != a.currency {
			return nil, formatErr("debtorAccount.currency", "debtorAccount currency does not match the account")
		}
		return a, nil
	}
	return nil, formatErr("debtorAccount", "debtorAccount is not an account the PSU may pay from")
}

// debtorRefOf is how a payment shows its debtor account: the bban, or the
// maskedPan of a card account.
func debtorRefOf(a *account) accountRefJSON {
	if a.card {
		return accountRefJSON{MaskedPan: a.maskedPan, Currency: a.currency}
	}
	return accountRefJSON{BBAN: a.bban, Currency: a.currency}
}

// paymentLocked finds the payment of the path for the requesting TPP, or
// answers 404 RESOURCE_UNKNOWN (or 400 for the PSU headers, see
// psuHeadersValidLocked).
func (s *Server) paymentLocked(w http.ResponseWriter, r *http.Request) *payment {
	if !s.psuHeadersValidLocked(w, r) {
		return nil
	}
	p := s.payments[r.PathValue("paymentId")]
	if p == nil || p.tpp != info(r).tpp || p.service != serviceOf(r) || p.product != r.PathValue("product") {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "paymentId", "unknown payment")
		return nil
	}
	return p
}

// hiddenBeforeApproval: for domestic-norway-credit-transfers, status and
// details are unavailable before the payment is approved: while it waits
// for its SCA (RCVD) and while only some of its signers have signed (PATC).
func hiddenBeforeApproval(w http.ResponseWriter, p *payment) bool {
	if p.product == ProductDomesticNorway && (p.status == "RCVD" || p.status == "PATC") {
		writeError(w, http.StatusBadRequest, "RESOURCE_UNKNOWN", "paymentId",
			"status and details of this product are unavailable before the payment is approved")
		return true
	}
	return false
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil || hiddenBeforeApproval(w, p) {
		return
	}
	out := map[string]any{}
	for k, v := range p.raw {
		out[k] = v
	}
	if a := s.accounts[p.debtor]; a != nil && out["debtorAccount"] == nil {
		out["debtorAccount"] = debtorRefOf(a)
	}
	out["paymentId"] = p.id
	out["transactionStatus"] = p.status
	if p.funds != nil {
		out["fundsAvailable"] = *p.funds
	}
	if p.dateMoved { // a bulk payment's date is at its top level too
		out["requestedExecutionDate"] = fmtDate(p.execDate)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) paymentStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil || hiddenBeforeApproval(w, p) {
		return
	}
	out := map[string]any{"paymentId": p.id, "transactionStatus": p.status, "_links": paymentLinks(p, false)}
	if p.funds != nil {
		out["fundsAvailable"] = *p.funds
	}
	if p.dateMoved {
		out["requestedExecutionDate"] = fmtDate(p.execDate)
	}
	writeJSON(w, http.StatusOK, out)
}

// paymentLinks are the _links of a payment's initiation (initiation true) or
// status answer: self, status, and startAuthorisation, the last in a status
// answer only while the payment waits for a signer (RCVD, PATC).
func paymentLinks(p *payment, initiation bool) map[string]link {
	base := paymentPath(p)
	out := map[string]link{
		"self":   {Href: base, Verbs: []string{"GET", "DELETE"}},
		"status": {Href: base + "/status", Verbs: []string{"GET"}},
	}
	if initiation || p.status == "RCVD" || p.status == "PATC" {
		out["startAuthorisation"] = link{Href: base + "/authorisations", Verbs: []string{"POST"}}
	}
	return out
}

// DELETE .../{paymentId}: cancels (CANC, 204) unless the status is final.
func (s *Server) cancelPayment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil {
		return
	}
	if finalStatus[p.status] {
		writeError(w, http.StatusBadRequest, "CANCELLATION_INVALID", "paymentId", "the payment has a final status and cannot be cancelled")
		return
	}
	p.status = "CANC"
	w.WriteHeader(http.StatusNoContent)
}

// POST .../authorisations: a scaRedirect for the next signer.
func (s *Server) startAuthorisation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil {
		return
	}
	if p.status != "RCVD" && p.status != "PATC" {
		writeError(w, http.StatusBadRequest, "STATUS_INVALID", "paymentId", "the payment is not waiting for authorisation")
		return
	}
	a := &authorisation{id: s.newID(), status: "started"}
	p.auths[a.id] = a
	p.authOrder = append(p.authOrder, a.id)
	href := s.newSCALocked(r, scaPayment, nil)
	rec := s.scas[href[len(s.URL())+len("/sca/"):]]
	rec.paymentID, rec.authID = p.id, a.id
	writeJSON(w, http.StatusCreated, map[string]any{
		"scaStatus":       a.status,
		"authorisationId": a.id,
		"_links": map[string]link{
			"scaRedirect": {Href: href, Verbs: []string{"GET"}},
			"scaStatus":   {Href: paymentPath(p) + "/authorisations/" + pathSeg(a.id), Verbs: []string{"GET"}},
		},
	})
}

func (s *Server) listAuthorisations(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"authorisationIds": append([]string{}, p.authOrder...)})
}

func (s *Server) getAuthorisation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paymentLocked(w, r)
	if p == nil {
		return
	}
	a := p.auths[r.PathValue("authorisationId")]
	if a == nil {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "authorisationId", "unknown authorisation")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"scaStatus": a.status})
}

// signPaymentLocked records a signature: ACTC when all required (distinct)
// signers have signed (ACWC when the execution date had to move), PATC
// before that. Instant payments execute at once. An authorised e-invoice is
// processed at the invoice scheme.
func (s *Server) signPaymentLocked(p *payment, customerNumber string) {
	if p.status != "RCVD" && p.status != "PATC" {
		return
	}
	if !contains(p.signers, customerNumber) {
		p.signers = append(p.signers, customerNumber)
	}
	if len(p.signers) < p.signersRequired {
		p.status = "PATC"
		return
	}
	p.status = "ACTC"
	if s.moveExecDateLocked(p) {
		p.status = "ACWC" // accepted with a change: the date
	}
	s.processInvoicesLocked(p)
	if p.product == ProductInstant && !p.execDate.After(dateOf(s.now())) {
		s.executeLocked(p, s.now())
	}
}

// moveExecDateLocked moves the requestedExecutionDate of a single or bulk
// payment that is no longer possible when its last signer signs (in the
// past by now, or not a banking day) to the next banking day from today,
// and reports whether it moved it. An instant payment runs every day: only
// a past date moves, to today. Status and details then report the new
// date.
func (s *Server) moveExecDateLocked(p *payment) bool {
	if p.execDate.IsZero() || p.service == "periodic-payments" {
		return false
	}
	d := p.execDate
	if today := dateOf(s.now()); d.Before(today) {
		d = today
	}
	if p.product != ProductInstant { // instant payments run every day
		d = nextBankingDay(d)
	}
	if d.Equal(p.execDate) {
		return false
	}
	p.execDate, p.dateMoved = d, true
	for _, e := range p.entries {
		e.execDate = d
	}
	return true
}

// processInvoicesLocked marks the invoices an authorised payment pays as
// processed at the invoice scheme: an e-invoice payment (CINV and SCOR).
func (s *Server) processInvoicesLocked(p *payment) {
	for _, e := range p.entries {
		if e.invoice != "" {
			s.processedInvoices[e.invoice] = true
		}
	}
}

// EInvoiceProcessed reports whether the e-invoice with this invoice number
// (the CINV reference) is processed at the invoice scheme: set when the PSU
// has authorised a payment of it (all its signers signed), as the bank does;
// the TPP has no call to change it. Initialize clears it.
func (s *Server) EInvoiceProcessed(invoiceNumber string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.processedInvoices[invoiceNumber]
}

// POST /v1/signing-baskets {"paymentIds":[...]}: single payments of this TPP
// only; a bulk or periodic payment gives 400 REFERENCE_MIX_INVALID.
func (s *Server) createBasket(w http.ResponseWriter, r *http.Request) {
	var req struct {
		PaymentIDs []string `json:"paymentIds"`
		ConsentIDs []string `json:"consentIds"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.psuHeadersValidLocked(w, r) {
		return
	}
	if len(req.PaymentIDs) == 0 || len(req.ConsentIDs) > 0 {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "paymentIds", "a signing basket holds one or more paymentIds (consents are bank-offered)")
		return
	}
	for _, id := range req.PaymentIDs {
		p := s.payments[id]
		if p == nil || p.tpp != info(r).tpp {
			writeError(w, http.StatusBadRequest, "RESOURCE_UNKNOWN", "paymentIds", "unknown payment")
			return
		}
		if p.service != "payments" {
			writeError(w, http.StatusBadRequest, "REFERENCE_MIX_INVALID", "paymentIds", "bulk and periodic payments cannot be put in a signing basket")
			return
		}
		if p.status != "RCVD" || p.debtor == "" || !p.bound() {
			writeError(w, http.StatusBadRequest, "REFERENCE_STATUS_INVALID", "paymentIds",
				"every payment must be received, not yet authorised, initiated with a PSU-ID and a debtorAccount")
			return
		}
	}
	b := &basket{id: s.newID(), tpp: info(r).tpp, paymentIDs: append([]string{}, req.PaymentIDs...), status: "RCVD"}
	s.baskets[b.id] = b
	writeJSON(w, http.StatusCreated, map[string]any{"basketId": b.id, "transactionStatus": b.status, "_links": basketLinks(b)})
}

func basketPath(b *basket) string { return "/v1/signing-baskets/" + pathSeg(b.id) }

// basketLinks are the _links of a basket: self (GET, and DELETE while it
// may be deleted), status, and startAuthorisation while it waits for one.
func basketLinks(b *basket) map[string]link {
	base := basketPath(b)
	out := map[string]link{"self": {Href: base, Verbs: []string{"GET"}}, "status": {Href: base + "/status", Verbs: []string{"GET"}}}
	if b.status == "RCVD" {
		out["self"] = link{Href: base, Verbs: []string{"GET", "DELETE"}}
		out["startAuthorisation"] = link{Href: base + "/authorisations", Verbs: []string{"POST"}}
	}
	return out
}

// basketLocked finds the basket of the path for the requesting TPP, or
// answers 404 RESOURCE_UNKNOWN (also for a deleted one).
func (s *Server) basketLocked(w http.ResponseWriter, r *http.Request) *basket {
	if !s.psuHeadersValidLocked(w, r) {
		return nil
	}
	b := s.baskets[r.PathValue("basketId")]
	if b == nil || b.tpp != info(r).tpp || b.deleted {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "basketId", "unknown signing basket")
		return nil
	}
	return b
}

// GET /v1/signing-baskets/{basketId}: the Berlin Group basket, its payment
// ids, status and links.
func (s *Server) getBasket(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.basketLocked(w, r); b != nil {
		writeJSON(w, http.StatusOK, map[string]any{
			"payments": b.paymentIDs, "transactionStatus": b.status, "_links": basketLinks(b),
		})
	}
}

// GET /v1/signing-baskets/{basketId}/status: {"transactionStatus"} only.
func (s *Server) basketStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.basketLocked(w, r); b != nil {
		writeJSON(w, http.StatusOK, map[string]any{"transactionStatus": b.status})
	}
}

// DELETE /v1/signing-baskets/{basketId}: 204, the basket is gone (later
// calls 404) and its payments stay as they are; refused (400
// CANCELLATION_INVALID) once the basket is authorised. An SCA of it under
// way then fails.
func (s *Server) deleteBasket(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.basketLocked(w, r); b != nil {
		if b.status != "RCVD" {
			writeError(w, http.StatusBadRequest, "CANCELLATION_INVALID", "basketId", "the basket is authorised already")
			return
		}
		b.deleted = true
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) startBasketAuthorisation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.basketLocked(w, r)
	if b == nil {
		return
	}
	if b.status != "RCVD" {
		writeError(w, http.StatusBadRequest, "STATUS_INVALID", "basketId", "the basket is not waiting for authorisation")
		return
	}
	b.authID, b.scaStatus = s.newID(), "started"
	href := s.newSCALocked(r, scaBasket, nil)
	s.scas[href[len(s.URL())+len("/sca/"):]].basketID = b.id
	writeJSON(w, http.StatusCreated, map[string]any{
		"scaStatus": b.scaStatus, "authorisationId": b.authID,
		"_links": map[string]link{
			"scaRedirect": {Href: href, Verbs: []string{"GET"}},
			"scaStatus":   {Href: basketPath(b) + "/authorisations/" + pathSeg(b.authID), Verbs: []string{"GET"}},
		},
	})
}

func (s *Server) getBasketAuthorisation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.basketLocked(w, r)
	if b == nil {
		return
	}
	if b.authID == "" || r.PathValue("authorisationId") != b.authID {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "authorisationId", "unknown authorisation")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"scaStatus": b.scaStatus})
}

// PaymentStatus is the status of a payment as GET .../status reports it
// (also before approval), "" when unknown.
func (s *Server) PaymentStatus(paymentID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.payments[paymentID]; p != nil {
		return p.status
	}
	return ""
}

// PaymentCount is the number of payments the bank holds (any status), so a
// test can prove a payment was created once, not twice.
func (s *Server) PaymentCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.payments)
}

func (s *Server) paymentViewLocked(p *payment) paymentView {
	total := int64(0)
	for _, e := range p.entries {
		total += convert(e.amount, e.currency, "NOK")
	}
	v := paymentView{Amount: formatAmount(total) + " NOK", Status: p.status}
	if p.fee > 0 {
		v.Fee = formatAmount(p.fee) + " NOK"
	}
	if len(p.entries) == 1 {
		e := p.entries[0]
		v.Amount = formatAmount(e.amount) + " " + e.currency
		v.Creditor, v.CreditorAccount, v.Text = e.creditorName, e.creditor, e.remittance
		if e.kid != "" {
			v.Text = "KID " + e.kid
		}
	} else {
		v.Creditor = strconv.Itoa(len(p.entries)) + " creditors"
	}
	if p.execDate.IsZero() {
		v.Date = "as soon as possible"
	} else {
		v.Date = fmtDate(p.execDate)
	}
	if a := s.accounts[p.debtor]; a != nil {
		v.Debtor = accountLabel(a)
	}
	return v
}
