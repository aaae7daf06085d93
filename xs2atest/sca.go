package xs2atest

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/xs2a/internal/inert"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// The SCA redirect: a small HTML application at /sca/<token> that the PSU's
// browser (or Server.CompleteSCA) walks through: sign in with the national
// id, choose the context, tick accounts or review the payment, confirm or
// cancel; then a 303 to the TPP-Redirect-URI with the callback parameters.

type scaKind string

const (
	scaConsent scaKind = "consent" // account access: consent is collected
	scaUser    scaKind = "user"    // PSU registration (GET /v1/users, /v1/user, payment with an unknown PSU-ID)
	scaPayment scaKind = "payment" // payment authorisation
	scaBasket  scaKind = "basket"  // signing-basket authorisation
)

const (
	stageLogin    = "login"
	stageApp      = "app" // TPP-Redirect-Preferred: False: the PSU confirms in the bank's app
	stageContext  = "context"
	stageAccounts = "accounts"
	stageDebtor   = "debtor"
	stageConfirm  = "confirm"
	stageDone     = "done"
)

// scaRecord is one SCA under way: the face's state, guarded by Server.mu
// (the functions named ...Locked expect it held); what the SCA decides at
// the bank goes through the bank's methods.
type scaRecord struct {
	token                          string
	kind                           scaKind
	tpp, redirectURI, tppSessionID string
	preset                         *bank.Agreement // agreement chosen already (PSU-CORPORATE-ID on the request)
	wantContext                    string          // PSU-Context of the request (PRIVATE, CORPORATE): preselected on the page
	paymentID, basketID, authID    string
	stage                          string
	customer                       string
	agreement                      *bank.Agreement // chosen context: nil = PRIVATE
	bind                           bool            // the payment has no customer yet: this SCA binds it to the PSU
	debtor                         string          // debtor account chosen or checked in this SCA, set on the payment at the end
	app                            bool            // TPP-Redirect-Preferred: False: app biometrics after sign-in
	created                        time.Time
	tppName                        string // the organisation (or CN) of the certificate that started it, inert
	// browserKey is the cookie of the browser that opened the page first,
	// pageToken the hidden field of its forms: a POST needs both ("" until
	// the page is opened).
	browserKey, pageToken string
}

// The tie of an SCA page to the browser that opened it: a cookie set on the
// first GET (HttpOnly, SameSite=Strict, scoped to the page's path) and a
// per-page token in a hidden field, both checked on every POST.
const (
	scaCookie      = "xs2atest-sca"
	pageTokenField = "pageToken"
)

// scaTokenValidity is how long an unused SCA link stays usable.
const scaTokenValidity = time.Hour

// newSCA registers an SCA of kind started by request r and returns the
// absolute scaRedirect URL.
func (s *Server) newSCA(r *http.Request, kind scaKind, preset *bank.Agreement) string {
	return s.startSCA(r, &scaRecord{kind: kind, preset: preset})
}

// startSCA registers rec, its kind and what it authorises set, as an SCA
// started by request r and returns the absolute scaRedirect URL.
func (s *Server) startSCA(r *http.Request, rec *scaRecord) string {
	href, _ := s.startSCAOf(r, func() (*scaRecord, *bank.Error) { return rec, nil })
	return href
}

// startSCAOf starts what an SCA authorises (start, which returns the SCA's
// record or the bank's refusal) and registers the SCA, in one step under
// s.mu: Initialize, which takes it, cannot come between and leave an SCA of
// something the bank no longer has. It returns the scaRedirect URL.
func (s *Server) startSCAOf(r *http.Request, start func() (*scaRecord, *bank.Error)) (string, *bank.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, e := start()
	if e != nil {
		return "", e
	}
	rec.token, rec.tpp = s.bank.NewToken(), info(r).tpp
	rec.redirectURI, rec.tppSessionID = r.Header.Get("TPP-Redirect-URI"), r.Header.Get("TPP-Session-ID")
	rec.stage, rec.created = stageLogin, s.now()
	rec.wantContext = strings.ToUpper(r.Header.Get("PSU-Context"))
	rec.app = strings.EqualFold(r.Header.Get("TPP-Redirect-Preferred"), "false")
	rec.tppName = tppNameOf(r)
	s.scas[rec.token] = rec
	return s.URL() + "/sca/" + rec.token, nil
}

// scaOf is what the SCA's PSU has done so far, for the bank.
func scaOf(rec *scaRecord) bank.SCA {
	return bank.SCA{TPP: rec.tpp, PSUID: psuIDFor(rec.tpp, rec.customer), Customer: rec.customer,
		SessionID: rec.tppSessionID, Agreement: agreementID(rec.agreement)}
}

// agreementID is the id of ag, "" for nil (private context).
func agreementID(ag *bank.Agreement) string {
	if ag == nil {
		return ""
	}
	return ag.ID
}

// agreementByID is a copy of the agreement with this id, nil for none.
func (s *Server) agreementByID(id string) *bank.Agreement {
	if ag, ok := s.bank.Agreement(id); ok {
		return &ag
	}
	return nil
}

// tppNameOf names the TPP of a verified request for the SCA page: the
// organisation of its signing certificate's subject, else its common name,
// inert and at most 100 characters (html/template escapes it).
func tppNameOf(r *http.Request) string {
	cert := signingCertificate(r)
	if cert == nil {
		return ""
	}
	name := cert.Subject.CommonName
	if len(cert.Subject.Organization) > 0 && strings.TrimSpace(cert.Subject.Organization[0]) != "" {
		name = cert.Subject.Organization[0]
	}
	return inert.Text(strings.TrimSpace(name), 100)
}

func parseAbsURL(v string) (*url.URL, error) {
	u, err := url.Parse(v)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not an absolute http(s) URL")
	}
	return u, nil
}

func (s *Server) serveSCA(w *bufWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	token := strings.TrimPrefix(r.URL.Path, "/sca/")
	rec := s.scas[token]
	if rec == nil || strings.Contains(token, "/") {
		s.renderPage(w, http.StatusNotFound, &pageData{Error: "This authentication link is unknown."})
		return
	}
	if rec.stage == stageDone {
		s.renderPage(w, http.StatusGone, &pageData{Error: "This authentication is finished. Start again from the service you came from."})
		return
	}
	if s.now().Sub(rec.created) > scaTokenValidity {
		s.redirectFailure(w, rec, http.StatusUnauthorized, "SCA_INVALID", "The authentication link has expired.")
		return
	}
	if b, _ := s.bank.Basket(rec.basketID); rec.kind == scaBasket && b.Deleted {
		s.cancelSCALocked(rec)
		s.redirectFailure(w, rec, http.StatusUnauthorized, "SCA_INVALID", "The signing basket was deleted.")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if !s.tieBrowser(w, r, rec) {
			return
		}
		s.renderStage(w, rec, http.StatusOK, "")
	case http.MethodPost:
		r.Body = http.MaxBytesReader(nil, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			s.renderStage(w, rec, http.StatusBadRequest, "The form could not be read.")
			return
		}
		if msg := tiedPost(r, rec); msg != "" {
			s.renderPage(w, http.StatusForbidden, &pageData{Error: msg})
			return
		}
		s.postStage(w, r, rec)
	default:
		w.Header().Set("Allow", "GET, POST")
		s.renderPage(w, http.StatusMethodNotAllowed, &pageData{Error: "Method not allowed."})
	}
}

// tieBrowser ties the page to the browser that opens it first: it sets the
// page's cookie; a later GET must carry it. False when it answered a
// refusal (403: opened in another browser).
func (s *Server) tieBrowser(w *bufWriter, r *http.Request, rec *scaRecord) bool {
	if rec.browserKey == "" {
		rec.browserKey, rec.pageToken = rand.Text(), rand.Text()
		http.SetCookie(w, &http.Cookie{Name: scaCookie, Value: rec.browserKey, Path: s.cfg.basePath + "/sca/" + rec.token,
			MaxAge: int(scaTokenValidity / time.Second), HttpOnly: true, Secure: s.cfg.tls, SameSite: http.SameSiteStrictMode})
		return true
	}
	if !sameSecret(cookieValue(r, scaCookie), rec.browserKey) {
		s.renderPage(w, http.StatusForbidden, &pageData{Error: "This authentication page was opened in another browser. " +
			"Start again from the service you came from."})
		return false
	}
	return true
}

// tiedPost checks that a POST comes from the page the browser that opened
// it shows: the page's cookie and its hidden token. It returns why not, or
// "".
func tiedPost(r *http.Request, rec *scaRecord) string {
	switch {
	case rec.browserKey == "":
		return "Open the authentication page before you answer it."
	case !sameSecret(cookieValue(r, scaCookie), rec.browserKey):
		return "This form was not sent by the browser that opened the authentication page " +
			"(its cookie is missing): a form posted from elsewhere cannot complete it."
	case !sameSecret(r.PostForm.Get(pageTokenField), rec.pageToken):
		return "This form does not belong to this authentication page."
	}
	return ""
}

// cookieValue is the value of the request's cookie name, "" without one.
func cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// sameSecret compares a secret in constant time; "" never matches.
func sameSecret(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func (s *Server) postStage(w *bufWriter, r *http.Request, rec *scaRecord) {
	f := r.PostForm
	if f.Get("action") == "cancel" {
		s.cancelSCALocked(rec)
		s.redirectFailure(w, rec, http.StatusUnauthorized, "SCA_INVALID", "The PSU cancelled the authentication.")
		return
	}
	if step := f.Get("step"); step != rec.stage {
		s.renderStage(w, rec, http.StatusConflict, "This page is out of date; continue here.")
		return
	}
	var answered bool
	switch rec.stage {
	case stageLogin:
		answered = s.postLogin(w, rec, f)
	case stageApp:
		s.afterLogin(rec)
	case stageContext:
		answered = s.postContext(w, rec, f)
	case stageAccounts:
		answered = s.postAccounts(w, rec, f)
	case stageDebtor:
		answered = s.postDebtor(w, rec, f)
	case stageConfirm:
		s.completeLocked(w, rec, nil)
		answered = true
	}
	if !answered {
		w.Header().Set("Location", s.cfg.basePath+"/sca/"+rec.token)
		w.WriteHeader(http.StatusSeeOther)
	}
}

// postLogin signs the customer of the national id in (on to the bank's app
// when the SCA is decoupled); true when it answered a refusal itself.
func (s *Server) postLogin(w *bufWriter, rec *scaRecord, f url.Values) bool {
	id := strings.TrimSpace(f.Get("nationalId"))
	if len(id) != 11 || !allDigits(id) {
		s.renderStage(w, rec, http.StatusBadRequest, "The national identity number must have 11 digits.")
		return true
	}
	if _, ok := s.bank.Customer(id); !ok {
		s.renderStage(w, rec, http.StatusBadRequest, "No customer has this national identity number.")
		return true
	}
	if msg := s.mayAuthoriseLocked(rec, id); msg != "" {
		s.renderStage(w, rec, http.StatusForbidden, msg)
		return true
	}
	rec.customer = id
	if rec.app {
		rec.stage = stageApp
	} else {
		s.afterLogin(rec)
	}
	return false
}

// postContext takes the chosen context and moves on: to the accounts of a
// consent, the binding of an unbound payment, or the confirmation; true
// when it answered itself.
func (s *Server) postContext(w *bufWriter, rec *scaRecord, f url.Values) bool {
	ag, ok := s.chosenContext(rec, f)
	if !ok {
		s.renderStage(w, rec, http.StatusBadRequest, "Choose one of the offered contexts.")
		return true
	}
	rec.agreement = ag
	switch {
	case rec.kind == scaConsent:
		rec.stage = stageAccounts
	case rec.bind:
		return !s.bindingLocked(w, rec)
	default:
		rec.stage = stageConfirm
	}
	return false
}

// postAccounts completes a consent with the ticked accounts (the bank
// refuses one not offered); it always answers.
func (s *Server) postAccounts(w *bufWriter, rec *scaRecord, f url.Values) bool {
	s.completeLocked(w, rec, f["account"])
	return true
}

// postDebtor takes the offered account to pay from; true when it answered
// a refusal itself.
func (s *Server) postDebtor(w *bufWriter, rec *scaRecord, f url.Values) bool {
	id := f.Get("debtor")
	if !contains(s.offered(rec), id) {
		s.renderStage(w, rec, http.StatusBadRequest, "Choose one of the offered accounts.")
		return true
	}
	rec.debtor = id
	rec.stage = stageConfirm
	return false
}

// mayAuthoriseLocked: for a payment or basket, may this customer sign it?
// The refusal is the bank's (bank.MaySign); "" when it may.
func (s *Server) mayAuthoriseLocked(rec *scaRecord, customerNumber string) string {
	if e := s.bank.MaySign(s.paymentIDsOf(rec), customerNumber); e != nil {
		return e.Text
	}
	return ""
}

// bindingLocked checks a payment initiated without PSU-ID once the PSU who
// signed in has chosen its context, as initiate checks one with a PSU-ID:
// its debtorAccount must be an account the PSU may pay from there, and an
// instant payment must be payable. A payment that names no debtor goes on to
// the debtor choice. On failure the payment is rejected (RJCT) and the SCA
// ends with a failure redirect carrying the status, code and text initiate
// would have answered; it returns false, having answered.
func (s *Server) bindingLocked(w *bufWriter, rec *scaRecord) bool {
	debtor, e := s.bank.Bind(scaOf(rec), rec.paymentID, rec.authID)
	switch {
	case e != nil: // the bank has rejected the payment, or another PSU's SCA came first
		s.redirectFailure(w, rec, e.Status, e.Code, e.Text)
		return false
	case debtor == "":
		rec.stage = stageDebtor
	default:
		rec.debtor, rec.stage = debtor, stageConfirm
	}
	return true
}

func (s *Server) afterLogin(rec *scaRecord) {
	switch rec.kind {
	case scaPayment, scaBasket:
		if rec.kind == scaPayment {
			p, _ := s.bank.Payment(rec.paymentID)
			if !p.Bound() {
				rec.bind = true
				rec.stage = stageContext
				return
			}
			if p.Agreement != "" {
				rec.agreement = s.agreementByID(p.Agreement)
			}
			if p.Debtor == "" {
				rec.stage = stageDebtor
				return
			}
		} else if b, _ := s.bank.Basket(rec.basketID); len(b.PaymentIDs) > 0 {
			if p, _ := s.bank.Payment(b.PaymentIDs[0]); p.Agreement != "" {
				rec.agreement = s.agreementByID(p.Agreement)
			}
		}
		rec.stage = stageConfirm
		return
	}
	if rec.preset != nil && contains(rec.preset.Members, rec.customer) {
		rec.agreement = rec.preset
		if rec.kind == scaConsent {
			rec.stage = stageAccounts
		} else {
			rec.stage = stageConfirm
		}
		return
	}
	rec.stage = stageContext
}

type option struct {
	Value, Label string
	Checked      bool
}

// contextOptions: PRIVATE for private customers, then each agreement.
// The first option of the context the request asked for (PSU-Context) is
// checked, else the first one.
func (s *Server) contextOptions(rec *scaRecord) []option {
	var out []option
	c, _ := s.bank.Customer(rec.customer)
	if c.Kind == bank.CustomerPrivate {
		out = append(out, option{Value: "PRIVATE", Label: "Private: " + c.Name})
	}
	for _, ag := range s.agreementsOf(rec.customer) {
		out = append(out, option{Value: "CORPORATE:" + ag.ID, Label: "Corporate: " + ag.Name + " (org. no. " + ag.OrgNumber + ")"})
	}
	checked := 0
	for i, o := range out {
		if rec.wantContext != "" && strings.HasPrefix(o.Value, rec.wantContext) {
			checked = i
			break
		}
	}
	if len(out) > 0 {
		out[checked].Checked = true
	}
	return out
}

// chosenContext reads choice=PRIVATE|CORPORATE:<agreement id>, or
// context=PRIVATE|CORPORATE with agreement=<id>.
func (s *Server) chosenContext(rec *scaRecord, f url.Values) (*bank.Agreement, bool) {
	choice := f.Get("choice")
	if choice == "" {
		choice = strings.ToUpper(f.Get("context"))
		if choice == "CORPORATE" {
			choice += ":" + f.Get("agreement")
		}
	}
	for _, o := range s.contextOptions(rec) {
		if o.Value == choice {
			if ag, ok := strings.CutPrefix(choice, "CORPORATE:"); ok {
				return s.agreementByID(ag), true
			}
			return nil, true
		}
	}
	return nil, false
}

// offered lists the accounts (and card accounts) of the context the
// PSU chose at SCA: those it may consent to, and those offered as debtor for
// a payment that names none (bank.ContextAccounts).
func (s *Server) offered(rec *scaRecord) []string {
	return s.bank.ContextAccounts(rec.customer, agreementID(rec.agreement))
}

// cancelSCALocked ends an SCA without success: its authorisation failed.
func (s *Server) cancelSCALocked(rec *scaRecord) {
	rec.stage = stageDone
	switch rec.kind {
	case scaPayment:
		s.bank.FailSCA(rec.paymentID, rec.authID, "")
	case scaBasket:
		s.bank.FailSCA("", "", rec.basketID)
	}
}

// completeLocked finishes a successful SCA at the bank (PSU registration,
// session, consent or signature), then redirects with psu-id and friends.
// A refusal ends the SCA with a failure redirect, but ticked accounts not
// offered get the page again.
func (s *Server) completeLocked(w *bufWriter, rec *scaRecord, ticked []string) {
	sca := scaOf(rec)
	var e *bank.Error
	switch rec.kind {
	case scaConsent:
		if e = s.bank.CompleteConsent(sca, ticked); e != nil {
			s.renderStage(w, rec, http.StatusBadRequest, "An account that was not offered was ticked.")
			return
		}
	case scaUser:
		s.bank.CompleteUser(sca)
	case scaPayment:
		e = s.bank.CompletePayment(sca, rec.paymentID, rec.authID, rec.bind, rec.debtor)
	case scaBasket:
		s.bank.CompleteBasket(sca, rec.basketID)
	}
	if e != nil {
		s.redirectFailure(w, rec, e.Status, e.Code, e.Text)
		return
	}
	rec.stage = stageDone
	q := url.Values{}
	q.Set("psu-id", sca.PSUID)
	q.Set("tpp-session-id", rec.tppSessionID)
	q.Set("context", "PRIVATE")
	if rec.agreement != nil {
		q.Set("context", "CORPORATE")
		q.Set("psu-corporate-id", corporateIDFor(rec.tpp, rec.agreement.ID))
	}
	s.redirectTPP(w, rec, q)
}

func (s *Server) redirectFailure(w *bufWriter, rec *scaRecord, status int, code, message string) {
	rec.stage = stageDone
	q := url.Values{}
	q.Set("status", strconv.Itoa(status))
	q.Set("code", code)
	q.Set("message", message)
	s.redirectTPP(w, rec, q)
}

func (s *Server) redirectTPP(w *bufWriter, rec *scaRecord, q url.Values) {
	u, err := url.Parse(rec.redirectURI)
	if err != nil {
		s.renderPage(w, http.StatusBadRequest, &pageData{Error: "The TPP's redirect address is invalid."})
		return
	}
	// As the member banks do: the TPP-Redirect-URI as given, its own
	// query kept byte for byte, the callback's parameters after it.
	u.RawQuery = strings.TrimSuffix(u.RawQuery, "&")
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += q.Encode()
	u.ForceQuery = false
	w.Header().Set("Location", u.String())
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusSeeOther)
}

type paymentView struct {
	Amount, Fee, Creditor, CreditorAccount, Debtor, Date, Text, Status string
}

type pageData struct {
	Title, Purpose, Error, Action, Step string
	TPP, PageToken                      string
	Customers                           []string
	Options                             []option
	Accounts                            []option
	Payments                            []paymentView
	Finished                            bool
	App                                 bool // the app-biometrics variant
}

func (s *Server) renderStage(w *bufWriter, rec *scaRecord, status int, errMsg string) {
	d := &pageData{Error: errMsg, Action: s.cfg.basePath + "/sca/" + rec.token, Step: rec.stage, App: rec.app,
		Purpose: s.purposeOf(rec), TPP: rec.tppName, PageToken: rec.pageToken}
	if d.TPP == "" {
		d.TPP = "A third-party provider"
	}
	switch rec.stage {
	case stageLogin:
		d.Customers = s.bank.CustomerNumbers()
	case stageContext:
		d.Options = s.contextOptions(rec)
	case stageAccounts:
		prev, _ := s.bank.Consent(bank.ConsentKey{TPP: rec.tpp, Customer: rec.customer, Agreement: agreementID(rec.agreement)})
		for _, id := range s.offered(rec) {
			_, had := prev.Granted()[id]
			d.Accounts = append(d.Accounts, option{Value: id, Label: s.labelOf(id), Checked: had})
		}
	case stageDebtor:
		for i, id := range s.offered(rec) {
			d.Accounts = append(d.Accounts, option{Value: id, Label: s.labelOf(id), Checked: i == 0})
		}
	case stageConfirm:
		for _, id := range s.paymentIDsOf(rec) {
			p, _ := s.bank.Payment(id)
			v := s.viewOfPayment(&p)
			if a, ok := s.bank.Account(rec.debtor); ok && v.Debtor == "" {
				v.Debtor = accountLabel(&a)
			}
			d.Payments = append(d.Payments, v)
		}
	}
	s.renderPage(w, status, d)
}

// purposeOf says on the SCA pages what the TPP asks for (after its name):
// access to account information, in which context where the request named
// one; identification; or the payments, with amount and creditor.
func (s *Server) purposeOf(rec *scaRecord) string {
	switch rec.kind {
	case scaConsent:
		switch {
		case rec.agreement != nil:
			return "asks for access to the account information of " + rec.agreement.Name + " (corporate)."
		case rec.preset != nil:
			return "asks for access to the account information of " + rec.preset.Name + " (corporate)."
		case rec.wantContext == "CORPORATE":
			return "asks for access to your account information, in a corporate context."
		case rec.wantContext == "PRIVATE":
			return "asks for access to your private account information."
		}
		return "asks for access to your account information."
	case scaUser:
		return "asks to identify you."
	}
	ids := s.paymentIDsOf(rec)
	var parts []string
	for i, id := range ids {
		if i == 3 {
			parts = append(parts, "and "+strconv.Itoa(len(ids)-3)+" more")
			break
		}
		p, _ := s.bank.Payment(id)
		v := s.viewOfPayment(&p)
		parts = append(parts, v.Amount+" to "+v.Creditor)
	}
	if rec.kind == scaBasket {
		return "asks you to authorise " + strconv.Itoa(len(ids)) + " payments: " + strings.Join(parts, "; ") + "."
	}
	return "asks you to authorise a payment of " + strings.Join(parts, "; ") + "."
}

// paymentIDsOf lists the payments an SCA authorises: its payment, or its
// basket's; none for a consent or registration.
func (s *Server) paymentIDsOf(rec *scaRecord) []string {
	switch rec.kind {
	case scaPayment:
		return []string{rec.paymentID}
	case scaBasket:
		b, _ := s.bank.Basket(rec.basketID)
		return b.PaymentIDs
	}
	return nil
}

// labelOf is how the SCA pages show the account with this id.
func (s *Server) labelOf(id string) string {
	a, _ := s.bank.Account(id)
	return accountLabel(&a)
}

func accountLabel(a *bank.Account) string {
	if a.Card {
		return a.Name + " " + a.MaskedPan
	}
	return a.Name + " " + a.BBAN
}

func (s *Server) renderPage(w *bufWriter, status int, d *pageData) {
	if status >= 400 {
		w.reason = d.Error
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(&w.body, d); err != nil {
		w.body.Reset()
		w.body.WriteString("template error")
	}
}

var pageTemplate = template.Must(template.New("sca").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fake bank: authentication</title>
<style>body{font-family:sans-serif;max-width:40em;margin:2em auto;padding:0 1em}.error{color:#a00;font-weight:bold}
.notice{background:#fe9;padding:.5em}label{display:block;margin:.4em 0}table td{padding:.2em .6em}</style></head>
<body><h1>Fake bank</h1>
<p class="notice">xs2atest sandbox: test customers only, no real money.</p>
{{if .Error}}<p class="error" id="error">{{.Error}}</p>{{end}}
{{if .Step}}<p class="purpose"><strong class="tpp" id="tpp">{{.TPP}}</strong> {{.Purpose}}</p>
<form method="post" action="{{.Action}}">
<input type="hidden" name="step" value="{{.Step}}">
<input type="hidden" name="pageToken" value="{{.PageToken}}">
{{if eq .Step "login"}}<label>National identity number (11 digits)
<input type="text" name="nationalId" inputmode="numeric" pattern="[0-9]{11}" autocomplete="off" autofocus></label>
<p>Sandbox customers: {{range .Customers}}<code>{{.}}</code> {{end}}</p>
{{if .App}}<p class="app">After you sign in, you confirm in the bank's app with your fingerprint or face.</p>{{end}}
<button type="submit" name="action" value="next">Sign in</button>
{{else if eq .Step "app"}}<p class="app" id="app">Open the Fake bank app on your phone and confirm there with your fingerprint or face (biometrics). Then continue here.</p>
<button type="submit" name="action" value="confirm">I have confirmed in the app</button>
{{else if eq .Step "context"}}<fieldset><legend>Act as</legend>
{{range .Options}}<label><input type="radio" name="choice" value="{{.Value}}"{{if .Checked}} checked{{end}}> {{.Label}}</label>
{{else}}<p>No context is available for this customer.</p>{{end}}</fieldset>
<button type="submit" name="action" value="next">Continue</button>
{{else if eq .Step "accounts"}}<fieldset><legend>Accounts the provider may read</legend>
{{range .Accounts}}<label><input type="checkbox" name="account" value="{{.Value}}"{{if .Checked}} checked{{end}}> {{.Label}}</label>
{{else}}<p>No accounts are available.</p>{{end}}</fieldset>
<button type="submit" name="action" value="confirm">Confirm</button>
{{else if eq .Step "debtor"}}<fieldset><legend>Pay from</legend>
{{range .Accounts}}<label><input type="radio" name="debtor" value="{{.Value}}"{{if .Checked}} checked{{end}}> {{.Label}}</label>
{{end}}</fieldset>
<button type="submit" name="action" value="next">Continue</button>
{{else if eq .Step "confirm"}}{{range .Payments}}<table class="payment">
<tr><td>Amount</td><td>{{.Amount}}</td></tr>{{if .Fee}}<tr><td>Fee</td><td>{{.Fee}}</td></tr>{{end}}<tr><td>To</td><td>{{.Creditor}} {{.CreditorAccount}}</td></tr>
<tr><td>From</td><td>{{.Debtor}}</td></tr><tr><td>Date</td><td>{{.Date}}</td></tr><tr><td>Message</td><td>{{.Text}}</td></tr>
<tr><td>Status</td><td>{{.Status}}</td></tr></table>{{end}}
<button type="submit" name="action" value="confirm">{{if .Payments}}Sign{{else}}Confirm{{end}}</button>
{{end}}
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</form>{{end}}
</body></html>
`))
