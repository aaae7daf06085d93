package xs2a

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/xs2a/internal/inert"
)

// Sentinel errors. Callers branch on them with errors.Is; the concrete error
// (*Error, *SCARequiredError, *ValidationError, *TransportError, ...) carries
// the details and is reached with errors.As.
var (
	// ErrSCARequired: the bank asks for SCA; the error is a *SCARequiredError.
	ErrSCARequired = errors.New("xs2a: SCA required")
	// ErrSignatureInvalid: the bank refused the request's signature, or the response's failed.
	ErrSignatureInvalid = errors.New("xs2a: signature invalid")
	// ErrAccessExceeded: the PSU-not-present limit (docs/interface.md L1) is used up, here or at the bank.
	ErrAccessExceeded = errors.New("xs2a: access exceeded")
	// ErrOutcomeUnknown: a payment left the client and no answer, or a 5xx,
	// came back: the bank may have acted on it (docs/interface.md E18). Do not
	// send it again blindly: see PaymentsService.ResolveEInvoice (E19) and
	// "Payments sent once" in the package documentation.
	ErrOutcomeUnknown = errors.New("xs2a: outcome unknown")
	// ErrDuplicatePayment: the bank refused a payment as a logical duplicate
	// of a live one (docs/interface.md E14); the error is an *Error.
	ErrDuplicatePayment = errors.New("xs2a: logical duplicate of an earlier payment")
	// ErrConsentInvalid: consent is missing, expired or revoked at the bank
	// (docs/interface.md CS2): the PSU must consent again. A *SCARequiredError
	// whose tppMessages give a consent code (CONSENT_EXPIRED) is one too.
	ErrConsentInvalid = errors.New("xs2a: consent invalid")
	// ErrCorporateIDRequired: a corporate PSU's request lacked PSU-CORPORATE-ID (docs/interface.md E6).
	ErrCorporateIDRequired = errors.New("xs2a: PSU-CORPORATE-ID required: pick an agreement from Users.Agreements")
	// ErrInsufficientFunds: the payment was refused for lack of funds.
	ErrInsufficientFunds = errors.New("xs2a: insufficient funds")
	// ErrReferenceMixInvalid: a bulk or periodic payment was put into a signing basket (docs/interface.md E8).
	ErrReferenceMixInvalid = errors.New("xs2a: signing basket holds a bulk or periodic payment")
	// ErrNotFound: the resource does not exist (404).
	ErrNotFound = errors.New("xs2a: not found")
	// ErrCrossOrigin: a request or link leaves the base address; nothing is sent there (docs/interface.md PRQ6).
	ErrCrossOrigin = errors.New("xs2a: refusing to send a signed request to another origin")
	// ErrSCARedirectInvalid: an scaRedirect unsafe for the PSU's browser, not handed out (SCARedirectError).
	ErrSCARedirectInvalid = errors.New("xs2a: scaRedirect is not a safe web address")
	// ErrUnknownStatus: with PollOptions.Strict, an unknown transactionStatus (TransactionStatus.Known).
	ErrUnknownStatus = errors.New("xs2a: unknown transaction status")
	// ErrPollAttempts: PollStatus read the status PollOptions.MaxAttempts times, and it was not final.
	ErrPollAttempts = errors.New("xs2a: payment status still not final after the last poll")
	// ErrSCAFailed: the bank sent the PSU back from SCA with an error
	// (docs/interface.md CB2); the error is a *SCAFailedError.
	ErrSCAFailed = errors.New("xs2a: SCA failed")
	// ErrInvalidCallback: a request to the TPP-Redirect-URI carried no
	// well-formed SCA result (a *CallbackError), or, to SessionManager.Callback,
	// a state no SCA has (also ErrUnknownSession). Never act on such a request.
	ErrInvalidCallback = errors.New("xs2a: invalid SCA callback")
	// ErrUnknownSession: SessionManager.Complete or Abort was given a
	// TPP-Session-ID that is not the user's Pending one (docs/interface.md CS5).
	ErrUnknownSession = errors.New("xs2a: unknown TPP-Session-ID")
)

// Error codes of the Berlin Group NextGenPSD2 implementation guidelines, as
// sent in tppMessages[].code. The bank may send codes not listed here; they
// are kept as they are in Error.Code and TPPMessage.Code.
const (
	CodeFormatError                  = "FORMAT_ERROR"
	CodeParameterNotConsistent       = "PARAMETER_NOT_CONSISTENT"
	CodeParameterNotSupported        = "PARAMETER_NOT_SUPPORTED"
	CodePSUCredentialsInvalid        = "PSU_CREDENTIALS_INVALID"
	CodeServiceInvalid               = "SERVICE_INVALID"
	CodeServiceBlocked               = "SERVICE_BLOCKED"
	CodeCorporateIDInvalid           = "CORPORATE_ID_INVALID"
	CodeConsentUnknown               = "CONSENT_UNKNOWN"
	CodeConsentInvalid               = "CONSENT_INVALID"
	CodeConsentExpired               = "CONSENT_EXPIRED"
	CodeTokenUnknown                 = "TOKEN_UNKNOWN"
	CodeTokenInvalid                 = "TOKEN_INVALID"
	CodeTokenExpired                 = "TOKEN_EXPIRED"
	CodeResourceUnknown              = "RESOURCE_UNKNOWN"
	CodeResourceExpired              = "RESOURCE_EXPIRED"
	CodeResourceBlocked              = "RESOURCE_BLOCKED"
	CodeTimestampInvalid             = "TIMESTAMP_INVALID"
	CodePeriodInvalid                = "PERIOD_INVALID"
	CodeSCAMethodUnknown             = "SCA_METHOD_UNKNOWN"
	CodeSCAInvalid                   = "SCA_INVALID"
	CodeStatusInvalid                = "STATUS_INVALID"
	CodeCertificateInvalid           = "CERTIFICATE_INVALID"
	CodeCertificateExpired           = "CERTIFICATE_EXPIRED"
	CodeCertificateBlocked           = "CERTIFICATE_BLOCKED"
	CodeCertificateRevoked           = "CERTIFICATE_REVOKED"
	CodeCertificateMissing           = "CERTIFICATE_MISSING"
	CodeSignatureInvalid             = "SIGNATURE_INVALID"
	CodeSignatureMissing             = "SIGNATURE_MISSING"
	CodeRoleInvalid                  = "ROLE_INVALID"
	CodeProductInvalid               = "PRODUCT_INVALID"
	CodeProductUnknown               = "PRODUCT_UNKNOWN"
	CodePaymentFailed                = "PAYMENT_FAILED"
	CodeKIDMissing                   = "KID_MISSING"
	CodeExecutionDateInvalid         = "EXECUTION_DATE_INVALID"
	CodeCancellationInvalid          = "CANCELLATION_INVALID"
	CodeSessionsNotSupported         = "SESSIONS_NOT_SUPPORTED"
	CodeAccessExceeded               = "ACCESS_EXCEEDED"
	CodeRequestedFormatsInvalid      = "REQUESTED_FORMATS_INVALID"
	CodeReferenceMixInvalid          = "REFERENCE_MIX_INVALID"
	CodeReferenceStatusInvalid       = "REFERENCE_STATUS_INVALID"
	CodeFundsNotAvailable            = "FUNDS_NOT_AVAILABLE"
	CodeBeneficiaryWhitelistRequired = "BENEFICIARY_WHITELISTING_REQUIRED"
	CodeServiceUnavailable           = "SERVICE_UNAVAILABLE"
)

// TPPMessage is one entry of the tppMessages array of an error body.
type TPPMessage struct {
	Category string `json:"category,omitempty"` // ERROR or WARNING
	Code     string `json:"code,omitempty"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

// maxErrorBody caps how much of an error body is read and kept in Error.Body.
const maxErrorBody = 1 << 20

// Error is an answer of the bank with status 400 or above (other than one that
// asks for SCA, a *SCARequiredError; docs/interface.md E16, E17). Inspect it with
// errors.As, or test it against the sentinels with errors.Is:
//
//	var e *xs2a.Error
//	if errors.As(err, &e) && e.Code == xs2a.CodeFormatError { ... }
//
// Its message, in every fmt verb, holds neither the body nor any identifier
// (see Error.Error); Code, Messages and Body keep the bank's raw text: do not log them.
type Error struct {
	StatusCode int           // HTTP status
	Code       string        // the first tppMessage's code ("" when none); raw
	Messages   []TPPMessage  // all tppMessages, in order; raw
	RequestID  string        // X-Request-ID of the call
	Body       []byte        // the raw body, at most 1 MiB; may hold personal data: do not log it
	RetryAfter time.Duration // the wait the bank asked for in Retry-After (0 when none)
	Method, Op string        // name the call ("GET", "accounts.balances")

	ids callIDs // the call's ids, redacted from the message
}

// Error names the operation, status, code (at most 100 characters) and the
// first tppMessage's text (at most 200), never the body; the bank's text is
// inert and redacted (callIDs.text, docs/interface.md E16).
func (e *Error) Error() string {
	s := "xs2a: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	s += strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	if e.Code != "" {
		s += ": " + e.ids.text(e.Code, 100)
	}
	if len(e.Messages) > 0 && e.Messages[0].Text != "" {
		s += ": " + e.ids.text(e.Messages[0].Text, 200)
	}
	if e.Is(ErrOutcomeUnknown) {
		s += "; outcome unknown: the bank may have acted on the request, do not send it again blindly"
	}
	if e.HasCode(CodeServiceBlocked) { // docs/interface.md SCA6
		s += "; payments from this account are not allowed (it may still be read for account information)"
	}
	return withRequestID(s, e.RequestID)
}

// GoString and Format print the message alone in every fmt verb (formatError).
func (e *Error) GoString() string              { return goString("Error", e.Error()) }
func (e *Error) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// HasCode reports whether any tppMessage carries code.
func (e *Error) HasCode(code string) bool {
	return slices.ContainsFunc(e.Messages, func(m TPPMessage) bool { return m.Code == code })
}

// Is maps the bank's answer onto the package's sentinel errors. Where the
// interface names no code, a 400 whose tppMessage without a code has the path
// "Signature" (ErrSignatureInvalid) or "PSU-CORPORATE-ID"
// (ErrCorporateIDRequired) matches. ErrOutcomeUnknown matches a 5xx to a
// request that is not idempotent (docs/interface.md E18); ErrDuplicatePayment a
// 400 PAYMENT_FAILED at a remittanceInformationStructuredArray (E14) only;
// ErrConsentInvalid a CONSENT_* code, or a 403 whose code blames neither the
// TPP nor a withdrawn payment right (CS2, SCA6).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrDuplicatePayment: // the path, or its last part, names the array
		return e.StatusCode == http.StatusBadRequest && slices.ContainsFunc(e.Messages, func(m TPPMessage) bool {
			return m.Code == CodePaymentFailed &&
				strings.HasSuffix("."+strings.ToLower(m.Path), ".remittanceinformationstructuredarray")
		})
	case ErrOutcomeUnknown:
		return e.StatusCode >= 500 && e.Method != "" && !idempotent(e.Method)
	case ErrSignatureInvalid:
		return e.HasCode(CodeSignatureInvalid) || e.HasCode(CodeSignatureMissing) || e.badRequestAt("Signature")
	case ErrAccessExceeded:
		return e.StatusCode == http.StatusTooManyRequests || e.HasCode(CodeAccessExceeded)
	case ErrConsentInvalid:
		return e.HasCode(CodeConsentInvalid) || e.HasCode(CodeConsentExpired) || e.HasCode(CodeConsentUnknown) ||
			e.StatusCode == http.StatusForbidden && !e.blamesTPP() && !e.HasCode(CodeServiceBlocked)
	case ErrCorporateIDRequired:
		return e.HasCode(CodeCorporateIDInvalid) || e.badRequestAt("PSU-CORPORATE-ID")
	case ErrInsufficientFunds:
		return e.HasCode(CodeFundsNotAvailable)
	case ErrReferenceMixInvalid:
		return e.HasCode(CodeReferenceMixInvalid)
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	}
	return false
}

// badRequestAt reports a 400 with a tppMessage that has no code and whose
// path names field (a message with a code is judged by its code).
func (e *Error) badRequestAt(field string) bool {
	return e.StatusCode == http.StatusBadRequest && slices.ContainsFunc(e.Messages, func(m TPPMessage) bool {
		return m.Code == "" && strings.EqualFold(m.Path, field)
	})
}

// blamesTPP reports a code about the TPP itself (certificate, role,
// signature) rather than the PSU's consent.
func (e *Error) blamesTPP() bool {
	return slices.ContainsFunc(e.Messages, func(m TPPMessage) bool {
		return strings.HasPrefix(m.Code, "CERTIFICATE_") || strings.HasPrefix(m.Code, "SIGNATURE_") || m.Code == CodeRoleInvalid
	})
}

// parseErrorBody fills Messages and Code from an error body. It accepts the
// Berlin Group form {"tppMessages":[...]}, a lone "tppMessage" object, and
// RFC 7807 problem+json ({"type","title","detail","code"} or
// {"additionalErrors":[...]}); anything else (HTML, text, invalid JSON) is
// kept only in Body.
func parseErrorBody(contentType string, body []byte) []TPPMessage {
	var doc struct {
		TPPMessages []TPPMessage `json:"tppMessages"`
		TPPMessage  *TPPMessage  `json:"tppMessage"`
		// RFC 7807 and the Berlin Group's problem+json variant.
		Type             string       `json:"type"`
		Title            string       `json:"title"`
		Detail           string       `json:"detail"`
		Code             string       `json:"code"`
		AdditionalErrors []TPPMessage `json:"additionalErrors"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil // no JSON, or a JSON value that is not an object
	}
	msgs := doc.TPPMessages
	if doc.TPPMessage != nil {
		msgs = append(msgs, *doc.TPPMessage)
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if len(msgs) == 0 && (doc.Code != "" || doc.Title != "" || doc.Detail != "" || mt == "application/problem+json") {
		text, code := cmp.Or(doc.Detail, doc.Title), doc.Code
		if code == "" && doc.Type != "" && !strings.Contains(doc.Type, "/") {
			code = doc.Type
		}
		if code != "" || text != "" {
			msgs = append(msgs, TPPMessage{Category: "ERROR", Code: code, Text: text})
		}
	}
	for _, m := range doc.AdditionalErrors {
		m.Category = cmp.Or(m.Category, "ERROR")
		msgs = append(msgs, m)
	}
	return msgs
}

// newError builds an *Error from a response whose body has been read (and
// capped) already.
func newError(resp *http.Response, body []byte, requestID string, now time.Time) *Error {
	e := &Error{StatusCode: resp.StatusCode, RequestID: requestID, Body: body, RetryAfter: retryAfter(resp.Header, now),
		Messages: parseErrorBody(resp.Header.Get("Content-Type"), body)}
	if len(e.Messages) > 0 {
		e.Code = e.Messages[0].Code
	}
	return e
}

// ValidationError reports input that the SDK refused before sending anything.
// Field names the offending field in Go terms ("Payment.InstructedAmount.Amount",
// "PSU.IPAddress"); Reason says what is wrong. It never repeats the value.
type ValidationError struct {
	Field  string
	Reason string
}

// Error names the field and the reason, never the value.
func (e *ValidationError) Error() string {
	return "xs2a: invalid " + e.Field + ": " + e.Reason
}

// GoString and Format print the message alone in every fmt verb (formatError).
func (e *ValidationError) GoString() string              { return goString("ValidationError", e.Error()) }
func (e *ValidationError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// invalid is shorthand for a *ValidationError.
func invalid(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// SCARequiredError says the bank wants the PSU to authenticate: send the PSU's
// browser to Redirect.Href, then take the psu-id from the callback (see
// ParseCallback) and repeat the call. It answers errors.Is(err, ErrSCARequired).
type SCARequiredError struct {
	Redirect   Link         // the scaRedirect link (for the PSU's browser): https on any host, http on loopback; a relative link is resolved
	StatusCode int          // 401 usually; 200/201 when a data call answered with a redirect
	RequestID  string       // X-Request-ID of the call
	Messages   []TPPMessage // the tppMessages of the answer, if any
}

// Error says SCA is needed and gives the X-Request-ID.
func (e *SCARequiredError) Error() string {
	return withRequestID("xs2a: SCA required: send the PSU to the scaRedirect link", e.RequestID)
}

// Is reports ErrSCARequired, and ErrConsentInvalid when the bank says why
// in a consent code (CONSENT_EXPIRED on a call without the PSU, CS2): the
// PSU must consent again, as after a revoked consent.
func (e *SCARequiredError) Is(target error) bool {
	return target == ErrSCARequired || target == ErrConsentInvalid && slices.ContainsFunc(e.Messages, func(m TPPMessage) bool {
		return m.Code == CodeConsentExpired || m.Code == CodeConsentInvalid || m.Code == CodeConsentUnknown
	})
}

// GoString and Format print the message alone (formatError).
func (e *SCARequiredError) GoString() string              { return goString("SCARequiredError", e.Error()) }
func (e *SCARequiredError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// TransportError is a call that got no answer from the bank: the connection
// failed, was lost, or the context ended. Sent is true when a request that is
// not idempotent may have reached the bank; the error then answers
// errors.Is(err, ErrOutcomeUnknown) (docs/interface.md E18). Its message, in
// every fmt verb, quotes no URL and no identifier (callIDs.causeText); Err is
// the cause as it was, ids included.
type TransportError struct {
	Method    string
	Op        string
	RequestID string
	Sent      bool  // the request was written, in whole or in part
	Attempts  int   // the tries, each written at most once (as Response.Attempts)
	Err       error // the cause; its text is raw

	ids callIDs // the call's ids, redacted from the message
}

// Error says what failed, the cause's text inert, redacted and cut at 300
// characters.
func (e *TransportError) Error() string {
	s := "xs2a: " + e.Op + ": "
	if e.Is(ErrOutcomeUnknown) {
		s += "outcome unknown, the bank may have acted on the request: "
	}
	if e.Err != nil {
		s += e.ids.causeText(e.Err, maxCauseText)
	}
	return withRequestID(s, e.RequestID)
}

// Unwrap returns the underlying error (often a *url.Error).
func (e *TransportError) Unwrap() error { return e.Err }

// GoString and Format print the message alone in every fmt verb (formatError).
func (e *TransportError) GoString() string              { return goString("TransportError", e.Error()) }
func (e *TransportError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// Is reports ErrOutcomeUnknown for a sent request other than GET or HEAD.
func (e *TransportError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.Sent && e.Method != http.MethodGet && e.Method != http.MethodHead
}

// SignatureError: a response's Signature or Digest failed verification; it is
// ErrSignatureInvalid.
type SignatureError struct {
	Reason    string
	RequestID string
}

// Error gives the failure's reason, inert, identifiers redacted.
func (e *SignatureError) Error() string {
	return withRequestID("xs2a: response signature invalid: "+bankText(e.Reason, maxCauseText), e.RequestID)
}

// Is reports target == ErrSignatureInvalid; GoString and Format print the message alone (formatError).
func (e *SignatureError) Is(target error) bool          { return target == ErrSignatureInvalid }
func (e *SignatureError) GoString() string              { return goString("SignatureError", e.Error()) }
func (e *SignatureError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// AccessExceededError is a PSU-not-present call the access budget refused
// locally, before anything was sent: the endpoint already had AccessLimit
// calls for this PSU and account in the last AccessWindow (docs/interface.md
// L1). It answers errors.Is(err, ErrAccessExceeded) and names neither the PSU
// nor the account.
type AccessExceededError struct {
	Endpoint BudgetEndpoint // the counted endpoint
	Next     time.Time      // when the next call is allowed
	// Kept is the calls left when a walk stopped to keep them
	// (TransactionsOptions.KeepCalls); 0 when the budget is spent.
	Kept int
}

// Error names the endpoint and the next allowed call (UTC, rounded up to a
// whole second, so never before the call is really allowed).
func (e *AccessExceededError) Error() string {
	next := e.Next.Add(time.Second - 1).Truncate(time.Second) // rounded up
	ep := inert.Text(string(e.Endpoint), 64)
	if e.Kept > 0 {
		return fmt.Sprintf("xs2a: walk stopped to keep %d of the %d calls without the PSU present in 24h to %s; next call frees at %s",
			e.Kept, AccessLimit, ep, next.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("xs2a: access exceeded: %d calls without the PSU present in 24h to %s; next call allowed at %s",
		AccessLimit, ep, next.UTC().Format(time.RFC3339))
}

// Is reports target == ErrAccessExceeded; GoString and Format print the message alone (formatError).
func (e *AccessExceededError) Is(target error) bool          { return target == ErrAccessExceeded }
func (e *AccessExceededError) GoString() string              { return goString("AccessExceededError", e.Error()) }
func (e *AccessExceededError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// SCAFailedError is the result of a failed SCA: the bank sent the PSU to the
// TPP-Redirect-URI with the failure parameters (docs/interface.md CB2, CB5). It
// answers errors.Is(err, ErrSCAFailed). Message is the bank's wording, decoded
// and inert; show it to the PSU if you like.
type SCAFailedError struct {
	System  string // system: the bank's internal system that failed (server errors)
	Status  int    // status: the HTTP status (0 when the bank sent none)
	Code    string // code, for example PAYMENT_FAILED
	Message string // message, decoded and inert; the callback's tpp-session-id (4 characters or more) in it reads [redacted]
}

// Error reads "xs2a: SCA failed: <status> <code>: <message>", the message cut
// to 200 characters; code and message inert and redacted (bankText).
func (e *SCAFailedError) Error() string {
	s, sep := "xs2a: SCA failed", ": "
	if e.Status != 0 {
		s += sep + strconv.Itoa(e.Status)
		sep = " "
	}
	if e.Code != "" {
		s += sep + bankText(e.Code, 100)
	}
	if e.Message != "" {
		s += ": " + bankText(e.Message, 200)
	}
	return s
}

// Is reports target == ErrSCAFailed; GoString and Format print the message alone (formatError).
func (e *SCAFailedError) Is(target error) bool          { return target == ErrSCAFailed }
func (e *SCAFailedError) GoString() string              { return goString("SCAFailedError", e.Error()) }
func (e *SCAFailedError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// CallbackError reports a callback that ParseCallback refused
// (docs/interface.md CB3). Param names the query parameter ("query" when the
// query string itself is malformed), Reason what is wrong; it never repeats
// the value. It answers errors.Is(err, ErrInvalidCallback).
type CallbackError struct {
	Param  string
	Reason string
}

// Error reads "xs2a: invalid SCA callback: <param>: <reason>".
func (e *CallbackError) Error() string {
	return "xs2a: invalid SCA callback: " + e.Param + ": " + e.Reason
}

// Is reports target == ErrInvalidCallback; GoString and Format print the message alone (formatError).
func (e *CallbackError) Is(target error) bool          { return target == ErrInvalidCallback }
func (e *CallbackError) GoString() string              { return goString("CallbackError", e.Error()) }
func (e *CallbackError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// SCARedirectError is an answer whose scaRedirect link is no web address the
// PSU's browser may be sent to (docs/interface.md SCA2). The link is not handed
// out, and its text is in no message. It answers errors.Is(err,
// ErrSCARedirectInvalid), not ErrSCARequired; for a payment or consent,
// ErrOutcomeUnknown as well.
type SCARedirectError struct {
	Op         string // the call ("accounts.list")
	StatusCode int    // the status of the answer
	RequestID  string // X-Request-ID of the call
	Reason     string // what is wrong with the link, without its text
}

// Error names the call and the reason, never the link.
func (e *SCARedirectError) Error() string {
	s := "xs2a: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	return withRequestID(s+"refusing the bank's scaRedirect: the link "+e.Reason, e.RequestID)
}

// Is reports target == ErrSCARedirectInvalid; GoString and Format print the message alone (formatError).
func (e *SCARedirectError) Is(target error) bool          { return target == ErrSCARedirectInvalid }
func (e *SCARedirectError) GoString() string              { return goString("SCARedirectError", e.Error()) }
func (e *SCARedirectError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// RequestIDOf returns the X-Request-ID of the call err comes from, for every
// error of a call that made its request: a refusal of the bank, SCA
// required, no answer, an answer that could not be read, trusted or decoded.
// It is "" for an error raised before a request was made (a
// *ValidationError, a budget refusal) and for an error not the SDK's.
func RequestIDOf(err error) string {
	var e interface{ callRequestID() string }
	if errors.As(err, &e) {
		return e.callRequestID()
	}
	return ""
}

func (e *Error) callRequestID() string            { return e.RequestID }
func (e *SCARequiredError) callRequestID() string { return e.RequestID }
func (e *TransportError) callRequestID() string   { return e.RequestID }
func (e *SignatureError) callRequestID() string   { return e.RequestID }
func (e *SCARedirectError) callRequestID() string { return e.RequestID }
func (e *redactedError) callRequestID() string    { return e.requestID }

// withRequestID appends " (X-Request-ID <id>)" to an error message, unless id is "".
func withRequestID(msg, id string) string {
	if id == "" {
		return msg
	}
	return msg + " (X-Request-ID " + id + ")"
}
