package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/tppkit/xs2a"
)

// ExampleCallbackHandler wires the TPP-Redirect-URI handler to a
// SessionManager: a completed SCA makes its TPP-Session-ID the active one, a
// failed SCA is aborted and the earlier session stays valid. The bank's
// redirects are played with httptest.
func ExampleCallbackHandler() {
	ctx := context.Background()
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	sessions := xs2a.NewSessionManager(nil, func() time.Time { return start })

	// In a TPP the user key and the pending session id come from the TPP's
	// own login session (a cookie); here they are plain variables.
	const user = "user-42"
	var pending string

	handler := xs2a.CallbackHandler(
		func(w http.ResponseWriter, r *http.Request, cb *xs2a.Callback) {
			if err := sessions.Complete(r.Context(), user, cb.TPPSessionID); err != nil {
				http.Error(w, "unknown SCA session", http.StatusBadRequest)
				return
			}
			// Persist cb.PSUID (and cb.PSUCorporateID) for the user here:
			// it is the PSU-ID of every later request.
			fmt.Println("SCA completed, context", cb.Context)
			http.Redirect(w, r, "/accounts", http.StatusSeeOther)
		},
		func(w http.ResponseWriter, r *http.Request, err error) {
			var failure *xs2a.SCAFailedError
			if errors.As(err, &failure) {
				fmt.Println("bank reported:", failure.Code)
			}
			if err := sessions.Abort(r.Context(), user, pending); err != nil {
				fmt.Println("abort:", err)
			}
			http.Redirect(w, r, "/sca-failed", http.StatusSeeOther)
		},
	)
	redirect := func(q url.Values) *http.Response {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sca/callback?"+q.Encode(), nil))
		return rec.Result()
	}

	// First SCA: the request goes out with TPP-Session-ID: first, the bank answers
	// with a scaRedirect, the PSU authenticates and comes back.
	startfirst, _ := sessions.Begin(ctx, user, "consent")
	first := startfirst.SessionID
	pending = first
	res := redirect(url.Values{
		"psu-id":         {"3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"},
		"tpp-session-id": {first},
		"context":        {"PRIVATE"},
	})
	fmt.Println(res.StatusCode, res.Header.Get("Cache-Control"), res.Header.Get("Referrer-Policy"))
	current, ok, _ := sessions.Current(ctx, user)
	fmt.Println("active session is the first:", ok && current == first)

	// A new session within the hour needs a new SCA; this one fails.
	startsecond, _ := sessions.Begin(ctx, user, "consent")
	second := startsecond.SessionID
	pending = second
	res = redirect(url.Values{
		"status":  {"400"},
		"code":    {"PAYMENT_FAILED"},
		"message": {"Payment rejected"},
	})
	fmt.Println(res.StatusCode)
	stillValid, _ := sessions.Valid(ctx, user, first)
	secondValid, _ := sessions.Valid(ctx, user, second)
	fmt.Println("first still valid:", stillValid, "second valid:", secondValid)

	// Output:
	// SCA completed, context PRIVATE
	// 303 no-store no-referrer
	// active session is the first: true
	// bank reported: PAYMENT_FAILED
	// 303
	// first still valid: true second valid: false
}
