package xs2atest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Payment initiation: single, periodic and bulk payments, authorisations
// (SCA, multi-signature), status, cancellation, signing baskets.

var paymentServices = []string{"payments", "periodic-payments", "bulk-payments"}

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

func writeAPIError(w http.ResponseWriter, e *bank.Error) {
	writeError(w, e.Status, e.Code, e.Path, e.Text)
}

// POST /v1/{payments|periodic-payments|bulk-payments}/{product}. With a
// PSU-ID the payment belongs to that PSU and is checked at once. Without one
// (a PISP-only journey, docs/interface.md Flow 5) it is created unbound: the PSU who
// signs in at its SCA gets it, and its debtorAccount is checked then (see
// bindingLocked).
func (s *Server) initiate(w http.ResponseWriter, r *http.Request) {
	svc, product := serviceOf(r), r.PathValue("product")
	allowDup, e := initiationQuery(r, svc, product)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	in := bank.Initiation{Service: svc, Product: product, TPP: info(r).tpp, AllowDuplicate: allowDup}
	if !s.initiatingPSU(w, r, &in) || !parseInitiation(w, r, &in, bank.DateOf(s.now())) {
		return
	}
	p, e := s.bank.Initiate(in)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	w.Header().Set("Location", s.URL()+paymentPath(&p)) // absolute: a Location path would resolve outside the base path
	links := s.initiationLinks(r, &p)
	writeJSON(w, http.StatusCreated, map[string]any{
		"paymentId":               p.ID,
		"transactionStatus":       p.Status,
		"transactionFees":         amountJSON{formatAmount(p.Fee), "NOK"},
		"transactionFeeIndicator": p.Fee > 0,
		"_links":                  links,
	})
}

// initiationQuery checks what an initiation's path, query and headers say
// before its body is read: a known product (instant ones single payments
// only), the PSU present (PSU-IP-Address), and allowLogicalDuplicate.
func initiationQuery(r *http.Request, svc, product string) (allowDup bool, e *bank.Error) {
	switch {
	case !products[product]:
		return false, bank.Refuse("PRODUCT_UNKNOWN", "", "unknown payment product")
	case svc != "payments" && product == ProductInstant:
		return false, bank.Refuse("PRODUCT_INVALID", "", "instant payments are single payments only")
	case r.Header.Get("PSU-IP-Address") == "":
		return false, bank.FormatErr("PSU-IP-Address", "PSU-IP-Address is required: payment initiation needs the PSU present")
	}
	v := r.URL.Query().Get("allowLogicalDuplicate")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, bank.FormatErr("allowLogicalDuplicate", "allowLogicalDuplicate must be true or false")
	}
	return b, nil
}

// initiatingPSU binds the initiation to the PSU of PSU-ID (and the
// agreement of PSU-Corporate-ID); without a PSU-ID it stays unbound. It
// answers the refusal itself and returns false.
func (s *Server) initiatingPSU(w http.ResponseWriter, r *http.Request, in *bank.Initiation) bool {
	if psuIDOf(r) == "" {
		if corporateIDOf(r) != "" {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "PSU-CORPORATE-ID", "PSU-CORPORATE-ID needs the PSU-ID it belongs to")
			return false
		}
		return true
	}
	psu, ok := s.resolvePSU(w, r, scaUser)
	if ok {
		in.Customer, in.Agreement = psu.rec.Customer, psu.agreement
	}
	return ok
}

// parseInitiation decodes and validates the body of an initiation into its
// entries, debtorAccount and raw JSON; it answers a refusal itself and
// returns false.
func parseInitiation(w http.ResponseWriter, r *http.Request, in *bank.Initiation, today time.Time) bool {
	var e *bank.Error
	if in.Service == "bulk-payments" {
		var req bulkReq
		if !decodeBody(w, r, &req) {
			return false
		}
		in.Entries, in.DebtorRef, e = bulkEntries(&req, in.Product, today)
	} else {
		var req paymentReq
		if !decodeBody(w, r, &req) {
			return false
		}
		in.Entries, in.DebtorRef, e = singleEntry(&req, in.Service, in.Product, today)
	}
	if e != nil {
		writeAPIError(w, e)
		return false
	}
	_ = json.Unmarshal(info(r).body, &in.Raw)
	return true
}

// bulkEntries validates a bulk payment: one entry per payment, each with
// the bulk's requestedExecutionDate unless it gives its own.
func bulkEntries(req *bulkReq, product string, today time.Time) ([]*bank.Entry, *bank.AccountRef, *bank.Error) {
	if len(req.Payments) == 0 {
		return nil, nil, bank.FormatErr("payments", "a bulk payment needs at least one payment")
	}
	if req.DebtorAccount == nil {
		return nil, nil, bank.FormatErr("debtorAccount", "a bulk payment needs a debtorAccount")
	}
	var entries []*bank.Entry
	for i := range req.Payments {
		e := &req.Payments[i]
		if e.RequestedExecutionDate == "" {
			e.RequestedExecutionDate = req.RequestedExecutionDate
		}
		f, err := validatePayment(e, "payments["+strconv.Itoa(i)+"].", product, today)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, f)
	}
	return entries, req.DebtorAccount, nil
}

// singleEntry validates a single or periodic payment; the periodic fields
// belong to periodic payments only, which execute from their startDate.
func singleEntry(req *paymentReq, svc, product string, today time.Time) ([]*bank.Entry, *bank.AccountRef, *bank.Error) {
	f, err := validatePayment(req, "", product, today)
	if err != nil {
		return nil, nil, err
	}
	if svc == "periodic-payments" {
		if err := validatePeriodic(req, today); err != nil {
			return nil, nil, err
		}
		f.ExecDate, _ = bank.ParseDate(req.StartDate)
	} else if req.Frequency != "" || req.StartDate != "" || len(req.MonthsOfExecution) > 0 {
		return nil, nil, bank.FormatErr("frequency", "periodic fields belong to /v1/periodic-payments")
	}
	return []*bank.Entry{f}, req.DebtorAccount, nil
}

func paymentPath(p *bank.Payment) string {
	return "/v1/" + p.Service + "/" + p.Product + "/" + pathSeg(p.ID)
}

// debtorRefOf is how a payment shows its debtor account: the bban, or the
// maskedPan of a card account.
func debtorRefOf(a *bank.Account) bank.AccountRef {
	if a.Card {
		return bank.AccountRef{MaskedPan: a.MaskedPan, Currency: a.Currency}
	}
	return bank.AccountRef{BBAN: a.BBAN, Currency: a.Currency}
}

// paymentOf finds the payment of the path for the requesting TPP, or
// answers 404 RESOURCE_UNKNOWN (or 400 for the PSU headers, see
// psuHeadersValid).
func (s *Server) paymentOf(w http.ResponseWriter, r *http.Request) *bank.Payment {
	if !s.psuHeadersValid(w, r) {
		return nil
	}
	p, ok := s.bank.Payment(r.PathValue("paymentId"))
	if !ok || p.TPP != info(r).tpp || p.Service != serviceOf(r) || p.Product != r.PathValue("product") {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "paymentId", "unknown payment")
		return nil
	}
	return &p
}

// hiddenBeforeApproval: for domestic-norway-credit-transfers, status and
// details are unavailable before the payment is approved: while it waits
// for its SCA (RCVD) and while only some of its signers have signed (PATC).
func hiddenBeforeApproval(w http.ResponseWriter, p *bank.Payment) bool {
	if e := p.Hidden(); e != nil {
		writeAPIError(w, e)
		return true
	}
	return false
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil || hiddenBeforeApproval(w, p) {
		return
	}
	out := map[string]any{}
	for k, v := range p.Raw {
		out[k] = v
	}
	if a, ok := s.bank.Account(p.Debtor); ok && out["debtorAccount"] == nil {
		out["debtorAccount"] = debtorRefOf(&a)
	}
	out["paymentId"] = p.ID
	out["transactionStatus"] = p.Status
	if p.Funds != nil {
		out["fundsAvailable"] = *p.Funds
	}
	if p.DateMoved { // a bulk payment's date is at its top level too
		out["requestedExecutionDate"] = bank.FormatDate(p.ExecDate)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) paymentStatus(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil || hiddenBeforeApproval(w, p) {
		return
	}
	out := map[string]any{"paymentId": p.ID, "transactionStatus": p.Status, "_links": paymentLinks(p)}
	if p.Funds != nil {
		out["fundsAvailable"] = *p.Funds
	}
	if p.DateMoved {
		out["requestedExecutionDate"] = bank.FormatDate(p.ExecDate)
	}
	writeJSON(w, http.StatusOK, out)
}

// paymentLinks are the _links of a payment's initiation or status answer:
// self, status, and while the payment waits for a signer (RCVD, PATC)
// startAuthorisation. Once signed (PDNG and on) the self link offers GET
// only, as production banks answer.
func paymentLinks(p *bank.Payment) map[string]link {
	base := paymentPath(p)
	out := map[string]link{
		"self":   {Href: base, Verbs: []string{"GET"}},
		"status": {Href: base + "/status", Verbs: []string{"GET"}},
	}
	if p.WaitingForSigner() {
		out["self"] = link{Href: base, Verbs: []string{"GET", "DELETE"}}
		out["startAuthorisation"] = link{Href: base + "/authorisations", Verbs: []string{"POST"}}
	}
	return out
}

// DELETE .../{paymentId}: cancels (CANC, 204) unless the status is final.
func (s *Server) cancelPayment(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil {
		return
	}
	if e := s.bank.CancelPayment(p.ID); e != nil {
		writeAPIError(w, e)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// POST .../authorisations: a scaRedirect for the next signer.
func (s *Server) startAuthorisation(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil {
		return
	}
	var a bank.Authorisation
	href, e := s.startSCAOf(r, func() (*scaRecord, *bank.Error) {
		var e *bank.Error
		a, e = s.bank.StartAuthorisation(p.ID)
		return &scaRecord{kind: scaPayment, paymentID: p.ID, authID: a.ID}, e
	})
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, s.authorisationAnswer(a.Status, a.ID, href, paymentPath(p)))
}

// authorisationAnswer is the 201 of a startAuthorisation link: scaStatus
// and _links.scaRedirect, as production banks answer; with
// WithFullAuthorisationAnswer also the authorisationId and a scaStatus link
// to the authorisation under base (the payment's or basket's path).
func (s *Server) authorisationAnswer(status, id, href, base string) map[string]any {
	links := map[string]link{"scaRedirect": {Href: href, Verbs: []string{"GET"}}}
	out := map[string]any{"scaStatus": status, "_links": links}
	if s.cfg.fullAuthorisation {
		out["authorisationId"] = id
		links["scaStatus"] = link{Href: base + "/authorisations/" + pathSeg(id), Verbs: []string{"GET"}}
	}
	return out
}

func (s *Server) listAuthorisations(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"authorisationIds": append([]string{}, p.AuthOrder...)})
}

func (s *Server) getAuthorisation(w http.ResponseWriter, r *http.Request) {
	p := s.paymentOf(w, r)
	if p == nil {
		return
	}
	a := p.Auths[r.PathValue("authorisationId")]
	if a == nil {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "authorisationId", "unknown authorisation")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"scaStatus": a.Status})
}

// EInvoiceProcessed reports whether the e-invoice with this invoice number
// (the CINV reference) is processed at the invoice scheme: set when the PSU
// has authorised a payment of it (all its signers signed), as the bank does;
// the TPP has no call to change it. Initialize clears it.
func (s *Server) EInvoiceProcessed(invoiceNumber string) bool {
	return s.bank.InvoiceProcessed(invoiceNumber)
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
	if !s.psuHeadersValid(w, r) {
		return
	}
	if len(req.PaymentIDs) == 0 || len(req.ConsentIDs) > 0 {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "paymentIds", "a signing basket holds one or more paymentIds (consents are bank-offered)")
		return
	}
	b, e := s.bank.NewBasket(info(r).tpp, req.PaymentIDs)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"basketId": b.ID, "transactionStatus": b.Status, "_links": basketLinks(&b)})
}

func basketPath(b *bank.Basket) string { return "/v1/signing-baskets/" + pathSeg(b.ID) }

// basketLinks are the _links of a basket: self (GET, and DELETE while it
// may be deleted), status, and startAuthorisation while it waits for one.
func basketLinks(b *bank.Basket) map[string]link {
	base := basketPath(b)
	out := map[string]link{"self": {Href: base, Verbs: []string{"GET"}}, "status": {Href: base + "/status", Verbs: []string{"GET"}}}
	if b.Status == "RCVD" {
		out["self"] = link{Href: base, Verbs: []string{"GET", "DELETE"}}
		out["startAuthorisation"] = link{Href: base + "/authorisations", Verbs: []string{"POST"}}
	}
	return out
}

// basketOf finds the basket of the path for the requesting TPP, or
// answers 404 RESOURCE_UNKNOWN (also for a deleted one).
func (s *Server) basketOf(w http.ResponseWriter, r *http.Request) *bank.Basket {
	if !s.psuHeadersValid(w, r) {
		return nil
	}
	b, ok := s.bank.Basket(r.PathValue("basketId"))
	if !ok || b.TPP != info(r).tpp || b.Deleted {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "basketId", "unknown signing basket")
		return nil
	}
	return &b
}

// GET /v1/signing-baskets/{basketId}: the Berlin Group basket, its payment
// ids, status and links.
func (s *Server) getBasket(w http.ResponseWriter, r *http.Request) {
	if b := s.basketOf(w, r); b != nil {
		writeJSON(w, http.StatusOK, map[string]any{
			"payments": b.PaymentIDs, "transactionStatus": b.Status, "_links": basketLinks(b),
		})
	}
}

// GET /v1/signing-baskets/{basketId}/status: {"transactionStatus"} only.
func (s *Server) basketStatus(w http.ResponseWriter, r *http.Request) {
	if b := s.basketOf(w, r); b != nil {
		writeJSON(w, http.StatusOK, map[string]any{"transactionStatus": b.Status})
	}
}

// DELETE /v1/signing-baskets/{basketId}: 204, the basket is gone (later
// calls 404) and its payments stay as they are; refused (400
// CANCELLATION_INVALID) once the basket is authorised. An SCA of it under
// way then fails.
func (s *Server) deleteBasket(w http.ResponseWriter, r *http.Request) {
	if b := s.basketOf(w, r); b != nil {
		if e := s.bank.DeleteBasket(b.ID); e != nil {
			writeAPIError(w, e)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) startBasketAuthorisation(w http.ResponseWriter, r *http.Request) {
	found := s.basketOf(w, r)
	if found == nil {
		return
	}
	var b bank.Basket
	href, e := s.startSCAOf(r, func() (*scaRecord, *bank.Error) {
		var e *bank.Error
		b, e = s.bank.StartBasketAuthorisation(found.ID)
		return &scaRecord{kind: scaBasket, basketID: b.ID}, e
	})
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusCreated, s.authorisationAnswer(b.SCAStatus, b.AuthID, href, basketPath(&b)))
}

func (s *Server) getBasketAuthorisation(w http.ResponseWriter, r *http.Request) {
	b := s.basketOf(w, r)
	if b == nil {
		return
	}
	if b.AuthID == "" || r.PathValue("authorisationId") != b.AuthID {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "authorisationId", "unknown authorisation")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"scaStatus": b.SCAStatus})
}

// PaymentStatus is the status of a payment as GET .../status reports it
// (also before approval), "" when unknown.
func (s *Server) PaymentStatus(paymentID string) string {
	if p, ok := s.bank.Payment(paymentID); ok {
		return p.Status
	}
	return ""
}

// PaymentCount is the number of payments the bank holds (any status), so a
// test can prove a payment was created once, not twice.
func (s *Server) PaymentCount() int {
	return s.bank.PaymentCount()
}

func (s *Server) viewOfPayment(p *bank.Payment) paymentView {
	total := int64(0)
	for _, e := range p.Entries {
		total += bank.Convert(e.Amount, e.Currency, "NOK")
	}
	v := paymentView{Amount: formatAmount(total) + " NOK", Status: p.Status}
	if p.Fee > 0 {
		v.Fee = formatAmount(p.Fee) + " NOK"
	}
	if len(p.Entries) == 1 {
		e := p.Entries[0]
		v.Amount = formatAmount(e.Amount) + " " + e.Currency
		v.Creditor, v.CreditorAccount, v.Text = e.CreditorName, e.Creditor, e.Remittance
		if e.KID != "" {
			v.Text = "KID " + e.KID
		}
	} else {
		v.Creditor = strconv.Itoa(len(p.Entries)) + " creditors"
	}
	if p.ExecDate.IsZero() {
		v.Date = "as soon as possible"
	} else {
		v.Date = bank.FormatDate(p.ExecDate)
	}
	if a, ok := s.bank.Account(p.Debtor); ok {
		v.Debtor = accountLabel(&a)
	}
	return v
}
