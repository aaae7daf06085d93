package xs2a

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testPSUID  = "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"
	testCorpID = "a1b2c3d4-e5f6-4a7b-9c8d-0e1f2a3b4c5d"
)

func TestPSUContextValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    PSUContext
		want bool
	}{
		{ContextPrivate, true},
		{ContextCorporate, true},
		{"private", false},
		{"", false},
		{"BUSINESS", false},
	} {
		t.Run(string(tc.c), func(t *testing.T) {
			assert.Equal(t, tc.want, tc.c.Valid())
		})
	}
}

func TestParseCallbackSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		query string
		want  Callback
	}{
		{
			name:  "private",
			query: "psu-id=" + testPSUID + "&tpp-session-id=s-1&context=PRIVATE",
			want:  Callback{PSUID: testPSUID, TPPSessionID: "s-1", Context: ContextPrivate},
		},
		{
			// TPP-Session-ID is optional on requests; the bank echoes it as it was.
			name:  "no session id on the triggering request",
			query: "psu-id=" + testPSUID + "&tpp-session-id=&context=PRIVATE",
			want:  Callback{PSUID: testPSUID, Context: ContextPrivate},
		},
		{
			name:  "session id absent",
			query: "psu-id=" + testPSUID + "&context=PRIVATE",
			want:  Callback{PSUID: testPSUID, Context: ContextPrivate},
		},
		{
			name:  "corporate",
			query: "psu-id=" + testPSUID + "&psu-corporate-id=" + testCorpID + "&tpp-session-id=s-2&context=CORPORATE",
			want:  Callback{PSUID: testPSUID, PSUCorporateID: testCorpID, TPPSessionID: "s-2", Context: ContextCorporate},
		},
		{
			name:  "upper-case ids and lower-case context are made canonical",
			query: "psu-id=" + strings.ToUpper(testPSUID) + "&psu-corporate-id=" + strings.ToUpper(testCorpID) + "&tpp-session-id=S&context=Corporate",
			want:  Callback{PSUID: testPSUID, PSUCorporateID: testCorpID, TPPSessionID: "S", Context: ContextCorporate},
		},
		{
			name:  "empty psu-corporate-id counts as absent",
			query: "psu-id=" + testPSUID + "&psu-corporate-id=&tpp-session-id=s&context=private",
			want:  Callback{PSUID: testPSUID, TPPSessionID: "s", Context: ContextPrivate},
		},
		{
			name:  "the TPP's own parameters are ignored, even repeated",
			query: "state=a&state=b&psu-id=" + testPSUID + "&tpp-session-id=s&context=PRIVATE&x=%00",
			want:  Callback{PSUID: testPSUID, TPPSessionID: "s", Context: ContextPrivate},
		},
		{
			name:  "empty failure parameters do not make a failure",
			query: "psu-id=" + testPSUID + "&tpp-session-id=s&context=PRIVATE&status=&code=&message=&system=",
			want:  Callback{PSUID: testPSUID, TPPSessionID: "s", Context: ContextPrivate},
		},
		{
			name:  "session id with spaces and symbols, 200 characters",
			query: "psu-id=" + testPSUID + "&context=PRIVATE&tpp-session-id=" + url.QueryEscape("a b~!"+strings.Repeat("x", 195)),
			want:  Callback{PSUID: testPSUID, TPPSessionID: "a b~!" + strings.Repeat("x", 195), Context: ContextPrivate},
		},
		{
			name:  "variant digits 8, 9, a, b all accepted (b)",
			query: "psu-id=00000000-0000-0000-b000-000000000000&tpp-session-id=s&context=PRIVATE",
			want:  Callback{PSUID: "00000000-0000-0000-b000-000000000000", TPPSessionID: "s", Context: ContextPrivate},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			cb, err := ParseCallback(q)
			require.NoError(t, err)
			assert.Equal(t, tc.want, *cb)
		})
	}
}

func TestParseCallbackFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		query   string
		want    SCAFailedError
		wantErr string
	}{
		{
			name:    "all parameters",
			query:   "system=PAYMENTS&status=400&code=PAYMENT_FAILED&message=Not%20enough%20funds",
			want:    SCAFailedError{System: "PAYMENTS", Status: 400, Code: "PAYMENT_FAILED", Message: "Not enough funds"},
			wantErr: "xs2a: SCA failed: 400 PAYMENT_FAILED: Not enough funds",
		},
		{
			name:    "double-encoded message is decoded once more",
			query:   "status=500&code=INTERNAL&message=Betaling%2520avvist%253A%2520for%2520lite%2520dekning",
			want:    SCAFailedError{Status: 500, Code: "INTERNAL", Message: "Betaling avvist: for lite dekning"},
			wantErr: "xs2a: SCA failed: 500 INTERNAL: Betaling avvist: for lite dekning",
		},
		{
			name:  "double-encoded UTF-8",
			query: "code=X&message=Bel%25C3%25B8p%2Bfor%2Bh%25C3%25B8yt",
			want:  SCAFailedError{Code: "X", Message: "Beløp for høyt"},
		},
		{
			name:  "a percent sign that is no escape stays",
			query: "code=X&message=100%25%20sure",
			want:  SCAFailedError{Code: "X", Message: "100% sure"},
		},
		{
			name:  "an escape next to a lone percent sign stays undecoded",
			query: "code=X&message=%2541%20and%2050%25",
			want:  SCAFailedError{Code: "X", Message: "%41 and 50%"},
		},
		{
			name:  "ISO-8859-1 text",
			query: "code=X&message=P%E5%20kontoen",
			want:  SCAFailedError{Code: "X", Message: "På kontoen"},
		},
		{
			name:    "line breaks in the message become spaces, other controls visible escapes",
			query:   "status=400&message=line1%0Aline2%1B%5B31m",
			want:    SCAFailedError{Status: 400, Message: `line1 line2\x1b[31m`},
			wantErr: `xs2a: SCA failed: 400: line1 line2\x1b[31m`,
		},
		{
			name:    "bidi and format characters in the message are escaped",
			query:   "status=400&message=" + url.QueryEscape("evil\u202etxt.exe\u2028next\u200b"),
			want:    SCAFailedError{Status: 400, Message: `evil\u202etxt.exe next\u200b`},
			wantErr: `xs2a: SCA failed: 400: evil\u202etxt.exe next\u200b`,
		},
		{
			name:    "only a code",
			query:   "code=SCA_INVALID",
			want:    SCAFailedError{Code: "SCA_INVALID"},
			wantErr: "xs2a: SCA failed: SCA_INVALID",
		},
		{
			name:    "only a message",
			query:   "message=cancelled",
			want:    SCAFailedError{Message: "cancelled"},
			wantErr: "xs2a: SCA failed: cancelled",
		},
		{
			name:  "empty status counts as absent",
			query: "status=&code=X",
			want:  SCAFailedError{Code: "X"},
		},
		{
			name:  "tpp-session-id and context alongside are allowed",
			query: "tpp-session-id=s&context=PRIVATE&status=401&code=PSU_CREDENTIALS_INVALID",
			want:  SCAFailedError{Status: 401, Code: "PSU_CREDENTIALS_INVALID"},
		},
		{
			name:    "long message is cut in Error, kept whole in Message",
			query:   "status=400&message=" + strings.Repeat("é", 250),
			want:    SCAFailedError{Status: 400, Message: strings.Repeat("é", 250)},
			wantErr: "xs2a: SCA failed: 400: " + strings.Repeat("é", 200) + "…",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			cb, err := ParseCallback(q)
			require.Nil(t, cb)
			var f *SCAFailedError
			require.ErrorAs(t, err, &f)
			assert.Equal(t, tc.want, *f)
			assert.ErrorIs(t, err, ErrSCAFailed)
			assert.NotErrorIs(t, err, ErrInvalidCallback)
			if tc.wantErr != "" {
				assert.Equal(t, tc.wantErr, err.Error())
			}
		})
	}
}

func TestParseCallbackInvalid(t *testing.T) {
	t.Parallel()
	ok := url.Values{"psu-id": {testPSUID}, "tpp-session-id": {"s"}, "context": {"PRIVATE"}}
	corp := url.Values{"psu-id": {testPSUID}, "psu-corporate-id": {testCorpID}, "tpp-session-id": {"s"}, "context": {"CORPORATE"}}
	with := func(base url.Values, kv ...string) url.Values {
		q := url.Values{}
		for k, v := range base {
			q[k] = slices.Clone(v)
		}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "\x00delete" {
				q.Del(kv[i])
				continue
			}
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	twice := func(base url.Values, k string) url.Values {
		q := with(base)
		q.Add(k, q.Get(k))
		return q
	}
	const del = "\x00delete"
	for _, tc := range []struct {
		name   string
		q      url.Values
		param  string
		reason string
	}{
		{"empty query", url.Values{}, "psu-id", reasonMissing},
		{"psu-id missing", with(ok, "psu-id", del), "psu-id", reasonMissing},
		{"psu-id empty", with(ok, "psu-id", ""), "psu-id", reasonMissing},
		{"psu-id not a UUID", with(ok, "psu-id", "12345678901"), "psu-id", reasonNotUUID},
		{"psu-id without dashes", with(ok, "psu-id", strings.ReplaceAll(testPSUID, "-", "")), "psu-id", reasonNotUUID},
		{"psu-id in braces", with(ok, "psu-id", "{"+testPSUID+"}"), "psu-id", reasonNotUUID},
		{"psu-id as URN", with(ok, "psu-id", "urn:uuid:"+testPSUID), "psu-id", reasonNotUUID},
		{"psu-id with space", with(ok, "psu-id", " "+testPSUID[1:]), "psu-id", reasonNotUUID},
		{"psu-id with a non-hex digit", with(ok, "psu-id", "g"+testPSUID[1:]), "psu-id", reasonNotUUID},
		{"psu-id with a control character", with(ok, "psu-id", testPSUID[:35]+"\n"), "psu-id", reasonNotUUID},
		{"psu-id nil UUID (variant 0)", with(ok, "psu-id", "00000000-0000-0000-0000-000000000000"), "psu-id", reasonNotUUID},
		{"psu-id Microsoft variant", with(ok, "psu-id", "3f6c1b2a-9d4e-4c1a-cb7f-0e2d5a6c7b8d"), "psu-id", reasonNotUUID},
		{"psu-id twice", twice(ok, "psu-id"), "psu-id", reasonRepeated},
		{"psu-corporate-id not a UUID", with(corp, "psu-corporate-id", "1234"), "psu-corporate-id", reasonNotUUID},
		{"psu-corporate-id twice", twice(corp, "psu-corporate-id"), "psu-corporate-id", reasonRepeated},
		{"psu-corporate-id with PRIVATE", with(corp, "context", "PRIVATE"), "psu-corporate-id", reasonCorpNotCorp},
		{"CORPORATE without psu-corporate-id", with(corp, "psu-corporate-id", del), "psu-corporate-id", reasonCorpMissing},
		{"tpp-session-id twice", twice(ok, "tpp-session-id"), "tpp-session-id", reasonRepeated},
		{"tpp-session-id too long", with(ok, "tpp-session-id", strings.Repeat("x", 201)), "tpp-session-id", reasonTooLong},
		{"tpp-session-id control character", with(ok, "tpp-session-id", "a\rb"), "tpp-session-id", reasonNotPrintable},
		{"tpp-session-id DEL", with(ok, "tpp-session-id", "a\x7f"), "tpp-session-id", reasonNotPrintable},
		{"tpp-session-id non-ASCII", with(ok, "tpp-session-id", "økt"), "tpp-session-id", reasonNotPrintable},
		{"context missing", with(ok, "context", del), "context", reasonMissing},
		{"context unknown", with(ok, "context", "BUSINESS"), "context", reasonContext},
		{"context with dotless i", with(ok, "context", "prıvate"), "context", reasonContext},
		{"context with control character", with(ok, "context", "PRIVATE\x00"), "context", reasonContext},
		{"context twice", twice(ok, "context"), "context", reasonRepeated},
		{"psu-id with failure code", with(ok, "code", "PAYMENT_FAILED"), "psu-id", reasonMixed},
		{"psu-id with failure status", with(ok, "status", "400"), "psu-id", reasonMixed},
		{"status not a number", url.Values{"status": {"bad"}, "code": {"X"}}, "status", reasonNotStatus},
		{"status signed", url.Values{"status": {"+40"}}, "status", reasonNotStatus},
		{"status out of range", url.Values{"status": {"600"}}, "status", reasonNotStatus},
		{"status too small", url.Values{"status": {"099"}}, "status", reasonNotStatus},
		{"status too long", url.Values{"status": {"4000"}}, "status", reasonNotStatus},
		{"status twice", url.Values{"status": {"400", "500"}}, "status", reasonRepeated},
		{"code twice", url.Values{"code": {"A", "B"}}, "code", reasonRepeated},
		{"message twice", url.Values{"message": {"a", "b"}}, "message", reasonRepeated},
		{"system twice", url.Values{"system": {"a", ""}}, "system", reasonRepeated},
		{"code with control character", url.Values{"code": {"A\nB"}}, "code", reasonControl},
		{"code with C1 control", url.Values{"code": {"A\u0085B"}}, "code", reasonControl},
		{"code with a bidi override", url.Values{"code": {"A\u202eB"}}, "code", reasonControl},
		{"system with a line separator", url.Values{"system": {"core\u2028x"}}, "system", reasonControl},
		{"system with control character", url.Values{"system": {"core\x1b"}}, "system", reasonControl},
		{"system not UTF-8", url.Values{"system": {"\xff"}}, "system", reasonNotUTF8},
		{"code too long", url.Values{"code": {strings.Repeat("A", 201)}}, "code", reasonTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cb, err := ParseCallback(tc.q)
			require.Nil(t, cb)
			var ce *CallbackError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.param, ce.Param)
			assert.Equal(t, tc.reason, ce.Reason)
			assert.ErrorIs(t, err, ErrInvalidCallback)
			assert.NotErrorIs(t, err, ErrSCAFailed)
			assert.Equal(t, "xs2a: invalid SCA callback: "+tc.param+": "+tc.reason, err.Error())
			for _, v := range tc.q["psu-id"] {
				if len(v) >= 8 {
					assert.NotContains(t, err.Error(), v)
				}
			}
		})
	}
}

func TestCallbackHandler(t *testing.T) {
	t.Parallel()
	success := "/cb?psu-id=" + strings.ToUpper(testPSUID) + "&tpp-session-id=s-1&context=private"
	type result struct {
		cb  *Callback
		err error
	}
	for _, tc := range []struct {
		name       string
		method     string
		target     string
		nilFailure bool
		wantStatus int
		wantBody   string // for the handler's own answers
		want       result
		wantAllow  string
	}{
		{name: "success", method: http.MethodGet, target: success, wantStatus: http.StatusNoContent,
			want: result{cb: &Callback{PSUID: testPSUID, TPPSessionID: "s-1", Context: ContextPrivate}}},
		{name: "failure", method: http.MethodGet, target: "/cb?status=400&code=PAYMENT_FAILED&message=no",
			wantStatus: http.StatusTeapot,
			want:       result{err: &SCAFailedError{Status: 400, Code: "PAYMENT_FAILED", Message: "no"}}},
		{name: "invalid", method: http.MethodGet, target: "/cb?psu-id=" + testPSUID, wantStatus: http.StatusTeapot,
			want: result{err: &CallbackError{Param: "context", Reason: reasonMissing}}},
		{name: "malformed query is never a success", method: http.MethodGet, target: success + "&x=%zz",
			wantStatus: http.StatusTeapot, want: result{err: &CallbackError{Param: "query", Reason: reasonMalformedQuery}}},
		{name: "malformed query keeps a readable failure", method: http.MethodGet,
			target: "/cb?status=400&code=PAYMENT_FAILED&message=100%", wantStatus: http.StatusTeapot,
			want: result{err: &SCAFailedError{Status: 400, Code: "PAYMENT_FAILED"}}},
		{name: "semicolons are malformed", method: http.MethodGet, target: success + ";x=1",
			wantStatus: http.StatusTeapot, want: result{err: &CallbackError{Param: "query", Reason: reasonMalformedQuery}}},
		{name: "POST", method: http.MethodPost, target: success, wantStatus: http.StatusMethodNotAllowed,
			wantBody: "method not allowed\n", wantAllow: "GET"},
		{name: "HEAD", method: http.MethodHead, target: success, wantStatus: http.StatusMethodNotAllowed, wantAllow: "GET"},
		{name: "nil onFailure, invalid", method: http.MethodGet, target: "/cb?psu-id=" + testPSUID + "&context=x&tpp-session-id=secret-session",
			nilFailure: true, wantStatus: http.StatusBadRequest, wantBody: "invalid SCA callback\n"},
		{name: "nil onFailure, failure", method: http.MethodGet, target: "/cb?code=PAYMENT_FAILED&message=private%20text",
			nilFailure: true, wantStatus: http.StatusBadRequest, wantBody: "SCA was not completed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got result
			calls := 0
			onSuccess := func(w http.ResponseWriter, r *http.Request, cb *Callback) {
				calls++
				assertPrivacyHeaders(t, w.Header())
				got.cb = cb
				w.WriteHeader(http.StatusNoContent)
			}
			onFailure := func(w http.ResponseWriter, r *http.Request, err error) {
				calls++
				assertPrivacyHeaders(t, w.Header())
				got.err = err
				w.WriteHeader(http.StatusTeapot)
			}
			if tc.nilFailure {
				onFailure = nil
			}
			rec := httptest.NewRecorder()
			CallbackHandler(onSuccess, onFailure).ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, nil))
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			assert.Equal(t, tc.wantStatus, res.StatusCode)
			assertPrivacyHeaders(t, res.Header)
			assert.Equal(t, tc.wantAllow, res.Header.Get("Allow"))
			if tc.wantBody != "" {
				assert.Equal(t, tc.wantBody, string(body))
				assert.Equal(t, 0, calls)
				assert.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain"))
			} else if tc.wantStatus != http.StatusMethodNotAllowed {
				assert.Equal(t, 1, calls)
			}
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, string(body), testPSUID)
		})
	}
}

func assertPrivacyHeaders(t *testing.T, h http.Header) {
	t.Helper()
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
}

func TestCallbackHandlerNilSuccessPanics(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "xs2a: CallbackHandler: nil onSuccess", func() { CallbackHandler(nil, nil) })
}

func TestNewSessionID(t *testing.T) {
	t.Parallel()
	a, b := NewSessionID(), NewSessionID()
	assert.NotEqual(t, a, b)
	for _, id := range []string{a, b} {
		c, ok := canonicalUUID(id)
		require.True(t, ok, "not a canonical UUID")
		assert.Equal(t, c, id)
		assert.Equal(t, byte('4'), id[14], "version 4")
	}
}

// isLowerUUID is the fuzz oracle, written apart from canonicalUUID.
func isLowerUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return strings.ContainsRune("89ab", rune(s[19]))
}

var callbackReasons = []string{reasonMissing, reasonRepeated, reasonNotUUID, reasonNotPrintable, reasonTooLong,
	reasonControl, reasonNotUTF8, reasonContext, reasonCorpNotCorp, reasonCorpMissing, reasonNotStatus,
	reasonMixed, reasonMalformedQuery}

func FuzzParseCallback(f *testing.F) {
	for _, s := range []string{
		"psu-id=" + testPSUID + "&tpp-session-id=s-1&context=PRIVATE",
		"psu-id=" + testPSUID + "&psu-corporate-id=" + testCorpID + "&tpp-session-id=s&context=corporate",
		"psu-id=" + strings.ToUpper(testPSUID) + "&tpp-session-id=s&context=CORPORATE",
		"psu-id=" + testPSUID + "&psu-id=" + testPSUID + "&tpp-session-id=s&context=PRIVATE",
		"psu-id=" + testPSUID + "&code=PAYMENT_FAILED",
		"system=PAY&status=400&code=PAYMENT_FAILED&message=Not%2520enough%2520funds",
		"status=abc&message=%E5%0A",
		"message=100%&code=X",
		"psu-id=x;y&context=PRIVATE",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw)
		psuIDs := q["psu-id"]
		cb1, err1 := ParseCallback(q)
		_, cb2, err2 := parseCallbackQuery(raw)
		for _, r := range []struct {
			cb  *Callback
			err error
		}{{cb1, err1}, {cb2, err2}} {
			if (r.cb == nil) == (r.err == nil) {
				t.Fatalf("exactly one of result and error must be set: %v, %v", r.cb, r.err)
			}
			if r.err == nil {
				cb := r.cb
				if !cb.Context.Valid() || !isLowerUUID(cb.PSUID) {
					t.Fatalf("invalid success: %+v", cb)
				}
				if (cb.PSUCorporateID != "") != (cb.Context == ContextCorporate) ||
					(cb.PSUCorporateID != "" && !isLowerUUID(cb.PSUCorporateID)) {
					t.Fatalf("invalid corporate id/context: %+v", cb)
				}
				if len(cb.TPPSessionID) > 200 || (cb.TPPSessionID != "" && !headerSafe(cb.TPPSessionID, 200)) {
					t.Fatalf("invalid session id %q", cb.TPPSessionID)
				}
				continue
			}
			var ce *CallbackError
			var sf *SCAFailedError
			switch {
			case errors.As(r.err, &ce):
				if !slices.Contains(callbackParams, ce.Param) && ce.Param != paramQuery {
					t.Fatalf("unknown param %q", ce.Param)
				}
				if !slices.Contains(callbackReasons, ce.Reason) {
					t.Fatalf("reason is not a fixed text: %q", ce.Reason)
				}
			case errors.As(r.err, &sf):
				if len(psuIDs) == 1 && psuIDs[0] != "" {
					t.Fatalf("failure returned with a psu-id")
				}
				if strings.IndexFunc(sf.Message, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
					t.Fatalf("control character in message %q", sf.Message)
				}
			default:
				t.Fatalf("unexpected error type %T", r.err)
			}
			msg := r.err.Error()
			if !strings.HasPrefix(msg, "xs2a: ") {
				t.Fatalf("error without prefix: %q", msg)
			}
			for _, v := range psuIDs {
				// A short value may occur in the fixed texts by chance; a
				// UUID-like one cannot.
				if len(v) >= 32 && strings.Contains(msg, v) {
					t.Fatalf("error %q echoes the psu-id", msg)
				}
			}
		}
		if cb1 != nil && cb2 != nil && *cb1 != *cb2 {
			t.Fatalf("ParseCallback and parseCallbackQuery disagree: %+v, %+v", cb1, cb2)
		}
	})
}
