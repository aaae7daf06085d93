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
	mux.HandleFunc("POST /connect", b.serve(b.accounts("connect")))
	mux.HandleFunc("GET /accounts", b.serve(b.accounts("accounts")))
	mux.HandleFunc("POST /payments", b.serve(b.pay))
	mux.HandleFunc("GET /payments/{id}", b.serve(b.paymentStatus))
	return mux
}

// customer is a request of the logged-in user, who is present: the PSU
// carries the browser's address.
type customer struct {
	user string
	psu  xs2a.PSU
}

// serve runs h for the logged-in user and answers its error (fail).
func (b *backend) serve(h func(http.ResponseWriter, *http.Request, customer) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		user := userOf(r)
		u, err := b.store.User(r.Context(), user)
		if user == "" || err != nil {
			problem(w, http.StatusUnauthorized, "login_required")
			return
		}
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if err := h(w, r, customer{user, xs2a.PSU{ID: u.PSUID, IPAddress: host}}); err != nil {
			b.fail(w, user, err)
		}
	}
}

// accountView is an account as the frontend shows it.
type accountView struct {
	ID       string       `json:"id"`
	Name     string       `json:"name"`
	BBAN     string       `json:"bban"`
	Balance  *xs2a.Amount `json:"balance,omitempty"`
	Currency string       `json:"currency"`
}

// accounts lists the accounts and balances with the customer present: the
// first time, or when the bank wants SCA again, it answers the bank's link.
func (b *backend) accounts(purpose string) func(http.ResponseWriter, *http.Request, customer) error {
	return func(w http.ResponseWriter, r *http.Request, c customer) error {
		ctx := r.Context()
		views, link, err := xs2a.CallPresent(ctx, b.sessions, c.user, purpose, c.psu,
			func(p xs2a.PSU) (views []accountView, resp *xs2a.Response, err error) {
				list, resp, err := b.client.Accounts.List(ctx, p)
				for i := 0; i < len(list) && err == nil; i++ {
					a := list[i]
					var bal *xs2a.Balances
					if bal, resp, err = b.client.Accounts.Balances(ctx, p, a.ResourceID); err == nil {
						v := accountView{ID: a.ResourceID, Name: a.Name, BBAN: a.BBAN, Currency: a.Currency}
						if len(bal.Balances) > 0 {
							v.Balance = &bal.Balances[0].BalanceAmount
						}
						views = append(views, v)
					}
				}
				return views, resp, err
			})
		switch {
		case err != nil:
			return err
		case link != nil:
			writeJSON(w, http.StatusOK, map[string]string{"redirect": link.Href})
			return nil
		}
		ids := make([]string, len(views))
		for i, v := range views {
			ids[i] = v.ID
		}
		if err := b.store.UpdateUser(ctx, c.user, func(u *User) { u.Accounts, u.NeedsConsent = ids, false }); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string][]accountView{"accounts": views})
		return nil
	}
}

// callback is the TPP-Redirect-URI. The SCA's state resolves success and
// failure alike to the user and purpose it was begun for.
func (b *backend) callback(w http.ResponseWriter, r *http.Request, res *xs2a.SCAResult, err error) {
	if res == nil { // forged, replayed, expired or no callback at all: never act on it
		b.log.Warn("callback refused", "error", err)
		problem(w, http.StatusBadRequest, "invalid_callback")
		return
	}
	answer := map[string]string{"user": res.User, "purpose": res.Purpose, "result": "completed"}
	switch {
	case errors.Is(err, xs2a.ErrSCAFailed): // no need to be logged in to learn of it
		b.log.Info("SCA failed", "user", res.User, "purpose", res.Purpose)
		answer["result"] = "failed"
		writeJSON(w, http.StatusOK, answer)
	case err != nil: // a later SCA replaced this one, or it is over an hour old
		problem(w, http.StatusConflict, "sca_outdated")
	case userOf(r) != res.User: // a psu-id only for the browser that began the SCA (login CSRF)
		problem(w, http.StatusForbidden, "wrong_user")
	default:
		psuID := res.Callback.PSUID
		if err := b.store.UpdateUser(r.Context(), res.User, func(u *User) { u.PSUID = psuID }); err != nil {
			b.fail(w, res.User, err)
			return
		}
		b.log.Info("SCA completed", "user", res.User, "purpose", res.Purpose)
		writeJSON(w, http.StatusOK, answer)
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
func (b *backend) pay(w http.ResponseWriter, r *http.Request, c customer) error {
	var req payRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, "bad_request")
		return nil
	}
	amount, err := xs2a.ParsePaymentAmount(req.Currency, req.Amount)
	if err != nil {
		return err
	}
	ctx := r.Context()
	a := Attempt{ID: rand.Text(), User: c.user, State: "initiating"}
	if err := b.store.PutAttempt(ctx, a); err != nil {
		return err
	}
	ini, _, err := b.client.Payments.Initiate(ctx, c.psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: amount, CreditorName: req.Creditor, RemittanceInformationUnstructured: req.Message,
		DebtorAccount: &xs2a.AccountReference{BBAN: req.From}, CreditorAccount: xs2a.AccountReference{BBAN: req.To},
	}, nil)
	switch {
	case errors.Is(err, xs2a.ErrOutcomeUnknown): // the bank may hold it: ask the user, never send it again
		a.State, a.RequestID = "unknown", xs2a.RequestIDOf(err)
	case err != nil:
		a.State = "refused"
	default:
		a.State, a.Status, a.Start = "initiated", ini.Links.Status, ini.Links.StartAuthorisation
	}
	if perr := b.store.PutAttempt(ctx, a); err != nil || perr != nil {
		return errors.Join(err, perr)
	}
	// startAuthorisation may be sent again after ErrOutcomeUnknown: a second
	// POST starts another SCA of the same payment, and the lost one is never shown.
	start := func(p xs2a.PSU) (*xs2a.SCALinks, *xs2a.Response, error) {
		return b.client.Payments.StartAuthorisation(ctx, p, a.Start)
	}
	var link *xs2a.Link
	for try := 0; try < 3 && (try == 0 || errors.Is(err, xs2a.ErrOutcomeUnknown)); try++ {
		_, link, err = xs2a.CallPresent(ctx, b.sessions, c.user, "payment:"+a.ID, c.psu, start)
	}
	if err == nil && link == nil {
		err = errors.New("the bank started no SCA")
	}
	if err != nil {
		return err
	}
	a.State = "authorising"
	if err := b.store.PutAttempt(ctx, a); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"payment": a.ID, "redirect": link.Href})
	return nil
}

// statusView is a payment's status for people.
type statusView struct {
	Payment   string `json:"payment"`
	State     string `json:"state"`   // Attempt.State
	Outcome   string `json:"outcome"` // an xs2a.PaymentOutcome, or "not_yet"
	RequestID string `json:"request_id,omitempty"`
}

// paymentStatus reads a payment's status at the bank and says what it means.
func (b *backend) paymentStatus(w http.ResponseWriter, r *http.Request, c customer) error {
	a, err := b.store.Attempt(r.Context(), r.PathValue("id"))
	if err != nil || a.User != c.user {
		problem(w, http.StatusNotFound, "not_found")
		return nil
	}
	view := statusView{Payment: a.ID, State: a.State, Outcome: string(xs2a.OutcomeUnknown), RequestID: a.RequestID}
	if !a.Status.IsZero() { // otherwise refused, or its answer was lost: nothing to ask
		st, _, err := b.client.Payments.Status(r.Context(), c.psu, a.Status)
		switch {
		case xs2a.IsNotYet(err): // before the customer signed, the bank may know no status
			view.Outcome = "not_yet"
		case err != nil:
			return err
		default:
			view.Outcome = string(st.Outcome())
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
// X-Request-ID; never the bank's text) and logs it: the SDK's error text
// holds no PSU id or account number.
func (b *backend) fail(w http.ResponseWriter, user string, err error) {
	p := xs2a.ProblemOf(err)
	b.log.Warn("request failed", "user", user, "code", p.Code, "error", err, "request_id", p.RequestID)
	writeJSON(w, p.Status, p)
}

// problem answers one of the backend's own errors in the same shape.
func problem(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, xs2a.Problem{Code: code})
}

// writeJSON answers v, not to be cached: answers hold account numbers.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
