package xs2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// hostileText is what a bank's answer may hold that a frontend must never
// see: a psu-id, an account number, markup and a control character.
const hostileText = `PSU 01017012345 account 86011117947 <script>alert(1)</script>` + "\x1b[2J"

// problemJSON is every Problem's JSON: a code, a field path, an id.
var problemJSON = regexp.MustCompile(`^\{"error":"[a-z_]+"(,"field":"[A-Za-z0-9._\[\]]+")?(,"request_id":"[0-9a-f-]{36}")?\}$`)

// TestProblemOf: each error the SDK returns, from a bank's answer or from a
// check, becomes its code and status, with the X-Request-ID the SDK sent and
// no word of the bank's, whatever the answer holds.
func TestProblemOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	answer := func(status int, code string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-ID", "<script>01017012345") // an echo the SDK must not take
			w.WriteHeader(status)
			body, _ := json.Marshal(map[string]any{"tppMessages": []map[string]string{
				{"category": "ERROR", "code": code, "text": hostileText, "path": hostileText}}})
			_, _ = w.Write(body)
		}
	}
	get := func(c *xs2a.Client) error { _, _, err := c.Accounts.List(ctx, xs2a.PSU{ID: hostilePSUID}); return err }
	post := func(c *xs2a.Client) error {
		_, _, err := c.Payments.Initiate(ctx, xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"},
			xs2a.NorwegianDomesticCreditTransfers, hostilePayment(t), nil)
		return err
	}
	tests := []struct {
		name   string
		answer http.HandlerFunc
		call   func(*xs2a.Client) error
		code   string
		status int
	}{
		{"consent expired", answer(401, xs2a.CodeConsentExpired), get, "consent_invalid", 409},
		{"consent invalid", answer(403, xs2a.CodeConsentInvalid), get, "consent_invalid", 409},
		{"access exceeded", answer(429, xs2a.CodeAccessExceeded), get, "budget_exceeded", 429},
		{"not found", answer(404, xs2a.CodeResourceUnknown), get, "not_found", 404},
		{"bank down", answer(503, "SERVICE_UNAVAILABLE"), get, "bank_unavailable", 503},
		{"format error", answer(400, xs2a.CodeFormatError), get, "bank_error", 502},
		{"funds", answer(400, xs2a.CodeFundsNotAvailable), post, "insufficient_funds", 422},
		{"payment's answer lost", answer(500, "INTERNAL_ERROR"), post, "outcome_unknown", 502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sent := make(chan string, 8)
			srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				sent <- r.Header.Get("X-Request-ID")
				tt.answer(w, r)
			})
			err := tt.call(hostileClient(t, srv, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 1})))
			require.Error(t, err)
			p := xs2a.ProblemOf(err)
			assert.Equal(t, tt.code, p.Code, "%v", err)
			assert.Equal(t, tt.status, p.Status)
			assert.Equal(t, <-sent, p.RequestID, "the X-Request-ID the SDK sent")
			requireProblemJSON(t, p)
		})
	}
}

// TestProblemOfChecksAndContexts: errors raised before or around a request.
func TestProblemOfChecksAndContexts(t *testing.T) {
	t.Parallel()
	srv := newHostileServer(t, answerNothing)
	c := hostileClient(t, srv)
	_, _, invalid := c.Accounts.Balances(context.Background(), xs2a.PSU{ID: hostilePSUID}, "")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, stopped := c.Accounts.List(canceled, xs2a.PSU{ID: hostilePSUID})
	late, cancelLate := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelLate()
	_, _, timedOut := c.Accounts.List(late, xs2a.PSU{ID: hostilePSUID})
	lost := &xs2a.Error{StatusCode: 500, Method: http.MethodPost}
	tests := []struct {
		name string
		err  error
		want xs2a.Problem
	}{
		{"nil", nil, xs2a.Problem{}},
		{"validation", invalid, xs2a.Problem{Status: 400, Code: "validation", Field: "accountID"}},
		{"wrapped", fmt.Errorf("sync: %w", invalid), xs2a.Problem{Status: 400, Code: "validation", Field: "accountID"}},
		{"lost answer wins over a check", errors.Join(invalid, lost),
			xs2a.Problem{Status: 502, Code: "outcome_unknown", Field: "accountID"}},
		{"canceled", stopped, xs2a.Problem{Status: 503, Code: "canceled"}},
		{"deadline", timedOut, xs2a.Problem{Status: 504, Code: "timeout"}},
		{"SCA required", &xs2a.SCARequiredError{StatusCode: 401}, xs2a.Problem{Status: 409, Code: "sca_required"}},
		{"SCA failed", &xs2a.SCAFailedError{Code: "PAYMENT_FAILED", Message: hostileText},
			xs2a.Problem{Status: 403, Code: "sca_failed"}},
		{"forged callback", &xs2a.CallbackError{Param: "xs2a-state", Reason: hostileText},
			xs2a.Problem{Status: 400, Code: "invalid_callback"}},
		{"outdated SCA", fmt.Errorf("%w: replaced", xs2a.ErrUnknownSession), xs2a.Problem{Status: 409, Code: "sca_outdated"}},
		{"a TPP's own ValidationError naming a value", &xs2a.ValidationError{Field: "PSU 01017012345"},
			xs2a.Problem{Status: 400, Code: "validation"}},
		{"not the SDK's", errors.New(hostileText), xs2a.Problem{Status: 502, Code: "bank_error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := xs2a.ProblemOf(tt.err)
			tt.want.RequestID = xs2a.RequestIDOf(tt.err) // a call that began has one
			assert.Equal(t, tt.want, p)
			if tt.err != nil {
				requireProblemJSON(t, p)
			}
		})
	}
	assert.Zero(t, srv.hits.Load(), "no call reached the bank")
}

// answerNothing is a bank no call should reach.
func answerNothing(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }

func requireProblemJSON(t *testing.T, p xs2a.Problem) {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Regexp(t, problemJSON, string(b))
}

func ExampleProblemOf() {
	_, err := xs2a.ParsePaymentAmount("NOK", "12,50")
	p := xs2a.ProblemOf(err)
	b, _ := json.Marshal(p) // what a backend answers its frontend, with p.Status
	fmt.Println(p.Status, string(b))
	// Output: 400 {"error":"validation","field":"Amount.Amount"}
}
