package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/tppkit/xs2a"
)

// userCookie is the backend's own login. A real TPP signs its session
// cookie; the example keeps the user's name in clear.
const userCookie = "tpp-user"

// backend serves the frontend's JSON API and the bank's SCA callback.
type backend struct {
	client   *xs2a.Client
	sessions *xs2a.SessionManager
	store    Store
	log      *slog.Logger
}

// Handler routes the backend's endpoints.
func (b *backend) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/xs2a/callback", b.sessions.CallbackHandler(b.callback))
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { // a stand-in for the TPP's login
		http.SetCookie(w, &http.Cookie{Name: userCookie, Value: r.URL.Query().Get("user"), HttpOnly: true})
	})
	mux.HandleFunc("POST /connect", b.serve(b.accounts)) // the first time, the bank's link
	mux.HandleFunc("GET /accounts", b.serve(b.accounts))
	mux.HandleFunc("POST /payments", b.serve(b.pay))
	mux.HandleFunc("GET /payments/{id}", b.serve(b.paymentStatus))
	return mux
}

// serve runs h for the logged-in user, who is present (the PSU carries the
// browser's address), and answers its error (fail).
func (b *backend) serve(h func(w http.ResponseWriter, r *http.Request, user string, psu xs2a.PSU) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user := userOf(r)
		u, err := b.store.User(r.Context(), user)
		if user == "" || err != nil {
			writeJSON(w, http.StatusUnauthorized, xs2a.Problem{Code: "login_required"})
			return
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if err := h(w, r, user, xs2a.PSU{ID: u.PSUID, IPAddress: host}); err != nil {
			b.fail(w, user, err)
		}
	}
}

// accounts lists the accounts and balances with the customer present, as
// the SDK's Account (the bank's JSON: resourceId, bban, name, balances):
// the first time, or when the bank wants SCA again, it answers the bank's link.
func (b *backend) accounts(w http.ResponseWriter, r *http.Request, user string, psu xs2a.PSU) error {
	ctx := r.Context()
	read := func(p xs2a.PSU) ([]xs2a.Account, *xs2a.Response, error) {
		return b.client.Accounts.ListWithBalances(ctx, p)
	}
	list, link, err := xs2a.CallPresent(ctx, b.sessions, user, "accounts", psu, read)
	switch {
	case err != nil:
		return err
	case link != nil:
		writeJSON(w, http.StatusOK, map[string]string{"redirect": link.Href})
		return nil
	}
	ids := make([]string, len(list))
	for i, a := range list {
		ids[i] = a.ResourceID
	}
	if err := b.store.UpdateUser(ctx, user, func(u *User) { u.Accounts, u.NeedsConsent = ids, false }); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string][]xs2a.Account{"accounts": list})
	return nil
}

// callback is the TPP-Redirect-URI. The SCA's state resolves success and
// failure alike to the user and purpose it was begun for; a forged,
// replayed or expired callback resolves to nothing (res == nil).
func (b *backend) callback(w http.ResponseWriter, r *http.Request, res *xs2a.SCAResult, err error) {
	if res != nil {
		b.log.Info("SCA ended", "user", res.User, "purpose", res.Purpose, "code", xs2a.ProblemOf(err).Code)
	}
	switch {
	case err != nil: // invalid_callback, sca_failed or sca_outdated: never acted on
		b.fail(w, userOf(r), err)
	case userOf(r) != res.User: // a psu-id only for the browser that began the SCA (login CSRF)
		writeJSON(w, http.StatusForbidden, xs2a.Problem{Code: "wrong_user"})
	default:
		if err := b.store.UpdateUser(r.Context(), res.User, func(u *User) { u.PSUID = res.Callback.PSUID }); err != nil {
			b.fail(w, res.User, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"user": res.User, "purpose": res.Purpose})
	}
}

// payRequest is what the frontend sends to pay, the amount as typed.
type payRequest struct {
	From     string `json:"from"` // BBAN of the user's account
	To       string `json:"to"`   // BBAN of the payee
	Creditor string `json:"creditor"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
	Message  string `json:"message"`
}

// pay initiates a payment and starts its SCA. The attempt is stored before
// Initiate: after a lost answer it is the only trace of the payment.
func (b *backend) pay(w http.ResponseWriter, r *http.Request, user string, psu xs2a.PSU) error {
	var req payRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, xs2a.Problem{Code: "bad_request"})
		return nil
	}
	amount, err := xs2a.ParsePaymentAmount(req.Currency, req.Amount)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := Attempt{ID: rand.Text(), User: user, State: "initiating"}
	if err := b.store.PutAttempt(ctx, a); err != nil {
		return err
	}
	ini, _, err := b.client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: amount, CreditorName: req.Creditor, RemittanceInformationUnstructured: req.Message,
		DebtorAccount: &xs2a.AccountReference{BBAN: req.From}, CreditorAccount: xs2a.AccountReference{BBAN: req.To},
	}, nil)
	a.State, a.RequestID, a.Initiation = "initiated", xs2a.RequestIDOf(err), ini
	switch {
	case errors.Is(err, xs2a.ErrOutcomeUnknown): // the bank may hold it: ask the user, never send it again
		a.State = "unknown"
	case err != nil:
		a.State = "refused"
	}
	if perr := b.store.PutAttempt(ctx, a); err != nil || perr != nil {
		return errors.Join(err, perr)
	}
	// A startAuthorisation whose answer was lost is sent again: it starts
	// another SCA of the same payment, never another payment.
	link, err := b.client.Payments.Authorise(ctx, b.sessions, user, "payment:"+a.ID, psu, ini.Links.StartAuthorisation)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"payment": a.ID, "redirect": link.Href})
	return nil
}

// statusView is a payment's status for people.
type statusView struct {
	Payment   string              `json:"payment"`
	State     string              `json:"state"` // Attempt.State
	Outcome   xs2a.PaymentOutcome `json:"outcome"`
	RequestID string              `json:"request_id,omitempty"`
}

// paymentStatus reads a payment's status at the bank and says what it means.
func (b *backend) paymentStatus(w http.ResponseWriter, r *http.Request, user string, psu xs2a.PSU) error {
	a, err := b.store.Attempt(r.Context(), r.PathValue("id"))
	if err != nil || a.User != user {
		writeJSON(w, http.StatusNotFound, xs2a.Problem{Code: "not_found"})
		return nil
	}
	view := statusView{Payment: a.ID, State: a.State, Outcome: xs2a.OutcomeUnknown, RequestID: a.RequestID}
	if a.Initiation != nil { // otherwise refused, or its answer was lost: nothing to ask
		if view.Outcome, err = b.client.Payments.Outcome(r.Context(), psu, a.Initiation.Links.Status); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, view)
	return nil
}

func userOf(r *http.Request) string {
	if c, err := r.Cookie(userCookie); err == nil {
		return c.Value
	}
	return ""
}

// fail answers err as the SDK's Problem (a code, the field, the
// X-Request-ID; never the bank's text), the shape of the backend's own
// errors too, and logs it: the SDK's error text holds no PSU id or account
// number.
func (b *backend) fail(w http.ResponseWriter, user string, err error) {
	p := xs2a.ProblemOf(err)
	b.log.Warn("request failed", "user", user, "code", p.Code, "error", err, "request_id", p.RequestID)
	writeJSON(w, p.Status, p)
}

// writeJSON answers v, not to be cached: answers hold account numbers.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
