package xs2a

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoPSU carries the ids an echoing bank repeats; echoed below in other
// cases than sent.
var echoPSU = PSU{
	ID:          "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d",
	CorporateID: "0b9e7c52-6a1d-4f3e-8c2b-7d6e5f4a3b21",
	IPAddress:   "192.0.2.7",
	SessionID:   "20250101123456",
}

// echoText holds the three ids of echoPSU in mixed case.
var echoText = "PSU " + strings.ToUpper(echoPSU.ID) + " of agreement 0B9e7C52-6A1D-4f3e-8C2B-7d6e5f4a3b21 in session " + echoPSU.SessionID

// rawAnswer writes the bytes of a whole HTTP/1.1 answer itself, status line
// included, which http.ResponseWriter cannot.
func rawAnswer(answer string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		buf.WriteString(answer)
		buf.Flush()
	}
}

// TestPSUIdsAreRedacted: a bank that echoes the call's PSU-ID,
// PSU-CORPORATE-ID and TPP-Session-ID (in another case) in its text gets
// none of them into err.Error(), %v, %+v or a log line; the raw text stays in
// the documented fields.
func TestPSUIdsAreRedacted(t *testing.T) {
	t.Parallel()
	list := func(c *Client) error { _, _, err := c.Accounts.List(context.Background(), echoPSU); return err }
	pay := func(c *Client) error {
		psu := echoPSU
		_, _, err := c.Payments.Initiate(context.Background(), psu, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
		return err
	}
	bankError := func(t *testing.T, err error) {
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Contains(t, string(e.Body), strings.ToUpper(echoPSU.ID), "Body is raw")
	}
	cause := func(t *testing.T, err error) {
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Contains(t, te.Err.Error(), strings.ToUpper(echoPSU.ID), "Err is raw")
	}
	tests := []struct {
		name     string
		answer   func(http.ResponseWriter, *http.Request, int)
		call     func(*Client) error
		redacted bool                          // the message shows [redacted]
		raw      func(t *testing.T, err error) // where the raw text is
	}{
		{"tppMessages text", reply(400, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","text":"`+echoText+`"}]}`),
			list, true, func(t *testing.T, err error) {
				bankError(t, err)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, echoText, e.Messages[0].Text, "Messages are raw")
			}},
		{"code", reply(400, `{"tppMessages":[{"code":"`+strings.ToUpper(echoPSU.ID)+`"}]}`), list, true,
			func(t *testing.T, err error) {
				bankError(t, err)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, strings.ToUpper(echoPSU.ID), e.Code, "Code is raw")
			}},
		{"problem+json", answer(403, "application/problem+json", `{"title":"denied","detail":"`+echoText+`"}`), list, true, bankError},
		{"html body", answer(500, "text/html", `<html>`+echoText+`</html>`), list, false, bankError},
		{"payment 5xx text", answer(503, "text/plain", echoText), pay, false, bankError},
		{"status line reason", rawAnswer("HTTP/1.1 302 Found " + echoText + "\r\nContent-Length: 0\r\n\r\n"), list, true, cause},
		{"malformed status line", rawAnswer("HTTP/1.1 " + strings.ToUpper(echoPSU.ID) + " x\r\n\r\n"), list, true, cause},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logger, logged := recordingLogger()
			_, c := newBank(t, tc.answer, WithLogger(logger))
			fakeSleep(c)
			err := tc.call(c)
			require.Error(t, err)
			out := map[string]string{
				"Error()": err.Error(), "%v": fmt.Sprintf("%v", err), "%+v": fmt.Sprintf("%+v", err),
				"wrapped %v": fmt.Sprintf("%v", fmt.Errorf("caller: %w", err)), "log": logged(),
			}
			for where, s := range out {
				for _, id := range []string{echoPSU.ID, echoPSU.CorporateID, echoPSU.SessionID} {
					assert.NotContains(t, strings.ToLower(s), strings.ToLower(id), "%s: %s", where, s)
				}
			}
			assert.NotEmpty(t, out["log"])
			if tc.redacted {
				assert.Contains(t, err.Error(), redactedText)
			}
			tc.raw(t, err)
		})
	}
}

// TestRedact pins the replacement: every occurrence, any ASCII case,
// non-ASCII text around it untouched.
func TestRedact(t *testing.T) {
	t.Parallel()
	ids := callIDs{"abc-1", "X"}
	tests := []struct{ in, want string }{
		{"", ""},
		{"no ids", "no ids"},
		{"ABC-1", "[redacted]"},
		{"aBc-1aBC-1 æøå abc-1", "[redacted][redacted] æøå [redacted]"},
		{"abc-", "abc-"},
		{"xİx", "[redacted]İ[redacted]"},
		{"\xffabc-1\xff", "\xff[redacted]\xff"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, ids.redact(tc.in))
		})
	}
	assert.Equal(t, "a", callIDs(nil).redact("a"))
	assert.Equal(t, callIDs{echoPSU.ID, echoPSU.CorporateID, echoPSU.SessionID}, idsOfCall(&echoPSU, "", ""))
}

// TestRedactOverlappingIDs: an id that holds another (a corporate id that
// starts with the PSU-ID) is redacted whole, not left in part around the
// shorter one's [redacted].
func TestRedactOverlappingIDs(t *testing.T) {
	t.Parallel()
	p := PSU{ID: "ola", CorporateID: "OLA-nordmann-as", SessionID: "s-ola-1"}
	tests := []struct{ in, want string }{
		{"corporate ola-nordmann-as refused", "corporate [redacted] refused"},
		{"user ola in session s-ola-1", "user [redacted] in session [redacted]"},
		{"ola ola-nordmann-as", "[redacted] [redacted]"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got := idsOfCall(&p, "", "").redact(tc.in)
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, got, "nordmann")
		})
	}
}
