package xs2a

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/tppkit/xs2a/internal/inert"
)

// PSUContext is the context parameter of the TPP redirect (docs/interface.md CB1).
type PSUContext string

// The contexts of docs/interface.md "TPP redirect".
const (
	ContextPrivate   PSUContext = "PRIVATE"   // the PSU acts for themself
	ContextCorporate PSUContext = "CORPORATE" // the PSU acts for a company (see PSUCorporateID)
)

// Valid reports whether c is one of the contexts docs/interface.md defines.
func (c PSUContext) Valid() bool { return c == ContextPrivate || c == ContextCorporate }

// Callback holds the query parameters of a successful SCA's redirect
// (docs/interface.md CB1); ParseCallback returns it only when every field is valid.
type Callback struct {
	// PSUID is the psu-id: an RFC 4122 UUID in lower case, stable for this
	// TPP and bank. Persist it and send it as PSU-ID on later requests. It
	// identifies a person: keep it out of logs.
	PSUID          string
	PSUCorporateID string     // the agreement chosen, set exactly for ContextCorporate
	TPPSessionID   string     // of the request that triggered SCA; pass it to SessionManager.Complete
	Context        PSUContext // the context the PSU selected
}

// PSU returns the PSU a successful SCA callback establishes. Pass the PSU's
// device address as ipAddress when the PSU is present, "" otherwise.
func (cb *Callback) PSU(ipAddress string) PSU {
	return PSU{ID: cb.PSUID, CorporateID: cb.PSUCorporateID, SessionID: cb.TPPSessionID, IPAddress: ipAddress,
		Context: cb.Context}
}

// The query parameters of docs/interface.md "TPP redirect".
const (
	paramPSUID          = "psu-id"
	paramPSUCorporateID = "psu-corporate-id"
	paramTPPSessionID   = "tpp-session-id"
	paramContext        = "context"
	paramSystem         = "system"
	paramStatus         = "status"
	paramCode           = "code"
	paramMessage        = "message"
	paramQuery          = "query" // the query string as a whole
)

var (
	failureParams  = []string{paramSystem, paramStatus, paramCode, paramMessage}
	callbackParams = append([]string{paramPSUID, paramPSUCorporateID, paramTPPSessionID, paramContext, paramState},
		failureParams...)
)

// The reasons a CallbackError gives. They are fixed texts, so an error can
// never carry a parameter's value.
const (
	reasonMissing        = "missing"
	reasonRepeated       = "given more than once"
	reasonNotUUID        = "not an RFC 4122 UUID in 8-4-4-4-12 form"
	reasonNotPrintable   = "not printable ASCII"
	reasonTooLong        = "longer than 200 characters"
	reasonControl        = "contains control characters"
	reasonNotUTF8        = "not valid UTF-8"
	reasonContext        = "not PRIVATE or CORPORATE"
	reasonCorpNotCorp    = "given, but context is not CORPORATE"
	reasonCorpMissing    = "missing, but context is CORPORATE"
	reasonNotStatus      = "not an HTTP status code"
	reasonMixed          = "given together with failure parameters"
	reasonMalformedQuery = "malformed query string"
)

// maxCallbackText caps tpp-session-id, system and code.
const maxCallbackText = 200

// ParseCallback reads the query of a request to the TPP-Redirect-URI, a pure
// function of q: the *Callback of a successful SCA (docs/interface.md CB1, CB4),
// (nil, *SCAFailedError) for a failed one (CB2, CB5), else a *CallbackError
// (CB3). Parameters it does not know are ignored.
func ParseCallback(q url.Values) (*Callback, error) {
	if i := slices.IndexFunc(callbackParams, func(k string) bool { return len(q[k]) > 1 }); i >= 0 {
		return nil, &CallbackError{Param: callbackParams[i], Reason: reasonRepeated}
	}
	if !slices.ContainsFunc(failureParams, func(k string) bool { return q.Get(k) != "" }) {
		return parseSuccess(q)
	}
	if q.Get(paramPSUID) != "" {
		return nil, &CallbackError{Param: paramPSUID, Reason: reasonMixed}
	}
	return parseFailure(q)
}

// parseSuccess reads a successful SCA's parameters; the first rule broken,
// in the order of the cases, names the parameter and the reason.
func parseSuccess(q url.Values) (*Callback, error) {
	psuID, psuIDOK := canonicalUUID(q.Get(paramPSUID))
	corpID, corpIDOK := canonicalUUID(q.Get(paramPSUCorporateID))
	// tpp-session-id echoes the TPP-Session-ID of the request that triggered
	// SCA. That header is optional, so the value may be empty or absent.
	sid, rawContext := q.Get(paramTPPSessionID), q.Get(paramContext)
	// ASCII only (headerSafe first): strings.ToUpper would turn "prıvate"
	// (dotless i) into PRIVATE.
	psuContext := PSUContext(strings.ToUpper(rawContext))
	var param, reason string
	switch {
	case q.Get(paramPSUID) == "":
		param, reason = paramPSUID, reasonMissing
	case !psuIDOK:
		param, reason = paramPSUID, reasonNotUUID
	case q.Get(paramPSUCorporateID) != "" && !corpIDOK:
		param, reason = paramPSUCorporateID, reasonNotUUID
	case len(sid) > maxCallbackText:
		param, reason = paramTPPSessionID, reasonTooLong
	case sid != "" && !headerSafe(sid, maxCallbackText):
		param, reason = paramTPPSessionID, reasonNotPrintable
	case rawContext == "":
		param, reason = paramContext, reasonMissing
	case !headerSafe(rawContext, maxCallbackText) || !psuContext.Valid():
		param, reason = paramContext, reasonContext
	case psuContext == ContextCorporate && corpID == "":
		param, reason = paramPSUCorporateID, reasonCorpMissing
	case psuContext != ContextCorporate && corpID != "":
		param, reason = paramPSUCorporateID, reasonCorpNotCorp
	default:
		return &Callback{PSUID: psuID, PSUCorporateID: corpID, TPPSessionID: sid, Context: psuContext}, nil
	}
	return nil, &CallbackError{Param: param, Reason: reason}
}

func parseFailure(q url.Values) (*Callback, error) {
	f := &SCAFailedError{System: q.Get(paramSystem), Code: q.Get(paramCode)}
	if err := cmp.Or(checkCallbackText(paramSystem, f.System), checkCallbackText(paramCode, f.Code)); err != nil {
		return nil, err
	}
	if s := q.Get(paramStatus); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || len(s) != 3 || s[0] < '1' || s[0] > '5' || n < 100 {
			return nil, &CallbackError{Param: paramStatus, Reason: reasonNotStatus}
		}
		f.Status = n
	}
	f.Message = decodeMessage(q.Get(paramMessage))
	if sid := q.Get(paramTPPSessionID); len(sid) >= minPathID { // a shorter id would wreck the text
		f.Message = replaceFold(f.Message, sid)
	}
	return nil, f
}

// checkCallbackText accepts UTF-8 text of at most 200 bytes without control,
// bidi or other format characters, or line separators (inert.Unsafe).
func checkCallbackText(param, s string) *CallbackError {
	switch {
	case len(s) > maxCallbackText:
		return &CallbackError{Param: param, Reason: reasonTooLong}
	case !utf8.ValidString(s):
		return &CallbackError{Param: param, Reason: reasonNotUTF8}
	case strings.ContainsFunc(s, inert.Unsafe):
		return &CallbackError{Param: param, Reason: reasonControl}
	}
	return nil
}

// decodeMessage decodes and makes inert the message of a failed SCA
// (docs/interface.md CB5).
func decodeMessage(s string) string {
	// A %XX sequence left after the query's decoding ('+' stays as it is).
	if d, err := url.QueryUnescape(s); err == nil && strings.Contains(s, "%") {
		s = d
	}
	if !utf8.ValidString(s) {
		r := make([]rune, len(s))
		for i := range len(s) {
			r[i] = rune(s[i]) // ISO-8859-1 is the first 256 code points
		}
		s = string(r)
	}
	return inert.Text(s, 0)
}

// canonicalUUID checks the 8-4-4-4-12 hex form with the RFC 4122 variant
// and returns s in lower case. Other forms that uuid.Parse accepts (braces,
// urn:uuid:, no dashes) are refused: the bank sends the canonical form.
func canonicalUUID(s string) (string, bool) {
	u, err := uuid.Parse(s)
	if len(s) != 36 || err != nil || u.Variant() != uuid.RFC4122 {
		return "", false
	}
	return u.String(), true
}

// NewSessionID returns a random version 4 UUID for TPP-Session-ID.
func NewSessionID() string { return uuid.NewString() }

// CallbackHandler serves the TPP-Redirect-URI (docs/interface.md CB6): GET
// only, no-store, no-referrer. It calls onSuccess (not nil) with ParseCallback's
// *Callback, or onFailure with its error (nil: the answer is 400). Before
// storing cb.PSUID, onSuccess checks that the callback belongs to the user
// whose browser brought it, as SessionManager.Complete does.
// SessionManager.CallbackHandler also resolves the SCA's state (CB7), so a
// failure names the user and purpose too.
func CallbackHandler(onSuccess func(w http.ResponseWriter, r *http.Request, cb *Callback),
	onFailure func(w http.ResponseWriter, r *http.Request, err error)) http.Handler {
	if onSuccess == nil {
		panic("xs2a: CallbackHandler: nil onSuccess")
	}
	return callbackPage(func(w http.ResponseWriter, r *http.Request) {
		switch _, cb, err := parseCallbackQuery(r.URL.RawQuery); {
		case err == nil:
			onSuccess(w, r, cb)
		case onFailure != nil:
			onFailure(w, r, err)
		case errors.Is(err, ErrSCAFailed):
			http.Error(w, "SCA was not completed", http.StatusBadRequest)
		default:
			http.Error(w, "invalid SCA callback", http.StatusBadRequest)
		}
	})
}

// callbackPage serves a TPP-Redirect-URI with page (docs/interface.md CB6):
// GET only (405 otherwise), and every answer no-store and no-referrer.
func callbackPage(page http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet {
			h.Set("Allow", http.MethodGet)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		page(w, r)
	})
}

// parseCallbackQuery parses a raw query string strictly: when url.ParseQuery
// fails the result is never a success, but a readable failure still counts.
// It returns the query as read, nil when it is refused as malformed.
func parseCallbackQuery(raw string) (url.Values, *Callback, error) {
	q, qerr := url.ParseQuery(raw)
	cb, err := ParseCallback(q)
	if qerr == nil || errors.Is(err, ErrSCAFailed) {
		return q, cb, err
	}
	return nil, nil, &CallbackError{Param: paramQuery, Reason: reasonMalformedQuery}
}
