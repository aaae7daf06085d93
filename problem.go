package xs2a

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// Problem is an error as a TPP backend may tell its own frontend: a fixed
// code, the HTTP status to answer with, the field a *ValidationError names
// and the X-Request-ID for the bank's support. It holds no text of the
// bank's, no PSU id and no account number; its JSON is
// {"error": code, "field": ..., "request_id": ...}.
type Problem struct {
	Status    int    `json:"-"`                    // HTTP status for the backend's answer
	Code      string `json:"error"`                // one of ProblemOf's codes
	Field     string `json:"field,omitempty"`      // ValidationError.Field (README lists them)
	RequestID string `json:"request_id,omitempty"` // RequestIDOf
}

// problemCodes are ProblemOf's codes, the first that matches an error.
var problemCodes = []struct {
	code   string
	status int
	is     func(error) bool
}{
	{"outcome_unknown", http.StatusBadGateway, isErr(ErrOutcomeUnknown)},
	{"validation", http.StatusBadRequest, isType[*ValidationError]},
	{"consent_invalid", http.StatusConflict, isErr(ErrConsentInvalid)},
	{"sca_required", http.StatusConflict, isErr(ErrSCARequired)},
	{"sca_failed", http.StatusForbidden, isErr(ErrSCAFailed)},
	{"invalid_callback", http.StatusBadRequest, isErr(ErrInvalidCallback)},
	{"sca_outdated", http.StatusConflict, isErr(ErrUnknownSession)},
	{"budget_exceeded", http.StatusTooManyRequests, isErr(ErrAccessExceeded)},
	{"corporate_id_required", http.StatusBadRequest, isErr(ErrCorporateIDRequired)},
	{"duplicate_payment", http.StatusConflict, isErr(ErrDuplicatePayment)},
	{"insufficient_funds", http.StatusUnprocessableEntity, isErr(ErrInsufficientFunds)},
	{"not_found", http.StatusNotFound, isErr(ErrNotFound)},
	{"timeout", http.StatusGatewayTimeout, isErr(context.DeadlineExceeded)},
	{"canceled", http.StatusServiceUnavailable, isErr(context.Canceled)},
	{"bank_unavailable", http.StatusServiceUnavailable, bankUnavailable},
}

// ProblemOf describes err for a frontend (nil: the zero Problem). The code
// and status are the first of these that matches, else bank_error (502):
//
//	outcome_unknown        502  never send it again on your own: ask the customer
//	validation             400  a *ValidationError; Field names the field
//	consent_invalid        409  the customer consents again
//	sca_required           409  begin an SCA (CallPresent does)
//	sca_failed             403  the customer did not approve at the bank
//	invalid_callback       400  forged, replayed or expired: never act on it
//	sca_outdated           409  a later SCA of the user's replaced it, or it is over an hour old
//	budget_exceeded        429  the day's calls without the customer are spent
//	corporate_id_required  400  pick an agreement (Users.Agreements)
//	duplicate_payment      409  a live payment is the same
//	insufficient_funds     422
//	not_found              404
//	timeout                504  the call's context's deadline passed
//	canceled               503  the call's context was canceled
//	bank_unavailable       503  no answer, or a 5xx to a call that may be retried
func ProblemOf(err error) Problem {
	if err == nil {
		return Problem{}
	}
	p := Problem{Status: http.StatusBadGateway, Code: "bank_error", RequestID: RequestIDOf(err)}
	for _, c := range problemCodes {
		if c.is(err) {
			p.Status, p.Code = c.status, c.code
			break
		}
	}
	if v, ok := errors.AsType[*ValidationError](err); ok && safeField(v.Field) {
		p.Field = v.Field
	}
	return p
}

func isType[E error](err error) bool { _, ok := errors.AsType[E](err); return ok }

func isErr(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// bankUnavailable reports no answer, or a 5xx answer.
func bankUnavailable(err error) bool {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.StatusCode >= 500
	}
	return isType[*TransportError](err)
}

// safeField reports a field path of the SDK's spelling (letters, digits,
// '.', '_', '[', ']'), which a TPP's own ValidationError may not have.
func safeField(f string) bool {
	for i := range len(f) {
		if c := f[i]; !isAlnum(c) && strings.IndexByte("._[]", c) < 0 {
			return false
		}
	}
	return len(f) <= 64
}
