package xs2atest

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDateSkew: a Date further than the allowed skew (5 minutes by
// default) from the bank's clock, and from the host's, gets 400
// SIGNATURE_INVALID with path Date and a text naming the skew; WithDateSkew
// widens it or (0) turns the check off.
func TestDateSkew(t *testing.T) {
	t.Parallel()
	bankNow := time.Date(2031, 6, 2, 12, 0, 0, 0, time.UTC) // far from the host's clock
	clock := WithClock(func() time.Time { return bankNow })
	strict := NewServer(t, clock)
	relaxed := NewServer(t, clock, WithDateSkew(time.Hour))
	off := NewServer(t, clock, WithDateSkew(0))
	date := func(d time.Duration) string { return bankNow.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		name   string
		s      *Server
		date   string
		status int
	}{
		{"on the bank's clock", strict, date(0), 200},
		{"4m59s behind", strict, date(-(5*time.Minute - time.Second)), 200},
		{"5m ahead", strict, date(5 * time.Minute), 200},
		{"5m1s ahead", strict, date(5*time.Minute + time.Second), 400},
		{"6m behind", strict, date(-6 * time.Minute), 400},
		{"a day behind", strict, date(-24 * time.Hour), 400},
		{"the host's clock, the bank's moved", strict, time.Now().UTC().Format(http.TimeFormat), 200},
		{"relaxed: 59m behind", relaxed, date(-59 * time.Minute), 200},
		{"relaxed: 61m behind", relaxed, date(-61 * time.Minute), 400},
		{"off: ten years behind", off, date(-10 * 365 * 24 * time.Hour), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, tc.s)
			r := c.do("GET", "/v1/sandbox/customers", nil, "Date", tc.date)
			require.Equal(t, tc.status, r.status, "%s", r.body)
			if tc.status == 400 {
				assert.Equal(t, "SIGNATURE_INVALID", r.code())
				var e errorBody
				require.NoError(t, json.Unmarshal(r.body, &e))
				assert.Equal(t, "Date", e.TPPMessages[0].Path)
				assert.Contains(t, e.TPPMessages[0].Text, "from the bank's clock ("+bankNow.Format(http.TimeFormat)+")")
				assert.Contains(t, e.TPPMessages[0].Text, "check the TPP's clock")
			}
		})
	}
}

// logLines reads JSON log lines by X-Request-ID.
func logLines(t *testing.T, buf *safeBuffer) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		if id, _ := m["x-request-id"].(string); id != "" {
			out[id] = m
		}
	}
	return out
}

// TestRefusalsExplainThemselves: every refusal of the interface (4xx)
// carries tppMessages with a code and a text naming the reason, and its log
// line names the same code and reason; an SCA page's refusal is logged with
// the reason the page shows. Log lines never hold PSU ids, customer
// numbers or resource ids.
func TestRefusalsExplainThemselves(t *testing.T) {
	t.Parallel()
	var buf safeBuffer
	s := NewServer(t, WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))),
		WithFaults(Fault{Path: "/v1/sandbox/customers", Method: "DELETE", Status: 429}))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	acct := c.accounts(psu)[0]["resourceId"].(string)
	other := rsaTPP2
	huge := strings.Repeat("x", maxBody+1)

	for _, tc := range []struct {
		name   string
		edit   func(*http.Request)
		method string
		path   string
		body   any
		hdr    []string
		status int
		code   string
	}{
		{"unsigned", func(r *http.Request) { r.Header.Del("Signature") }, "GET", "/v1/accounts", nil, nil, 400, "SIGNATURE_MISSING"},
		{"no certificate", func(r *http.Request) { r.Header.Del("TPP-Signature-Certificate") }, "GET", "/v1/accounts", nil, nil, 400, "CERTIFICATE_MISSING"},
		{"wrong digest", func(r *http.Request) { r.Header.Set("Digest", "SHA-256=AAAA") }, "POST", "/v1/consents", `{}`, nil, 400, "SIGNATURE_INVALID"},
		{"header not signed", func(r *http.Request) { r.Header.Set("PSU-ID", psu) }, "GET", "/v1/accounts", nil, nil, 400, "SIGNATURE_INVALID"},
		{"another TPP's certificate", func(r *http.Request) { r.Header.Set("TPP-Signature-Certificate", other.certB64) }, "GET", "/v1/accounts", nil, nil, 400, "SIGNATURE_INVALID"},
		{"stale Date", nil, "GET", "/v1/accounts", nil, []string{"Date", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}, 400, "SIGNATURE_INVALID"},
		{"Date format", nil, "GET", "/v1/accounts", nil, []string{"Date", "yesterday"}, 400, "FORMAT_ERROR"},
		{"PSU-ID format", nil, "GET", "/v1/accounts", nil, []string{"PSU-ID", "kari"}, 400, "FORMAT_ERROR"},
		{"no redirect URI", func(r *http.Request) {}, "GET", "/v1/accounts", nil, []string{"TPP-Redirect-URI", "tpp.example"}, 400, "FORMAT_ERROR"},
		{"body too large", nil, "POST", "/v1/consents", huge, nil, 413, "FORMAT_ERROR"},
		{"body not JSON", nil, "POST", "/v1/payments/" + ProductDomestic, `{`, []string{"PSU-ID", psu, "PSU-IP-Address", "192.0.2.1"}, 400, "FORMAT_ERROR"},
		{"unknown product", nil, "POST", "/v1/payments/cheques", singlePayment("1.00"), []string{"PSU-ID", psu, "PSU-IP-Address", "192.0.2.1"}, 400, "PRODUCT_UNKNOWN"},
		{"no consent", nil, "GET", "/v1/accounts", nil, nil, 401, "PSU_CREDENTIALS_INVALID"},
		{"unknown endpoint", nil, "GET", "/v1/nothing/" + pathSeg(acct), nil, nil, 404, "RESOURCE_UNKNOWN"},
		{"outside the base path", nil, "GET", "/../v1/accounts", nil, nil, 404, "RESOURCE_UNKNOWN"},
		{"another TPP's contact", nil, "GET", "/v1/tpps/NO-FSA-1/contact-information", nil, nil, 0, ""},
		{"a fault", nil, "DELETE", "/v1/sandbox/customers", nil, nil, 429, "ACCESS_EXCEEDED"},
		{"PSU not present: 90 days", nil, "GET", "/v1/accounts/" + pathSeg(acct) + "/transactions?bookingStatus=booked&dateFrom=2000-01-01", nil, []string{"PSU-ID", psu}, 400, "PERIOD_INVALID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rid := uuid.NewString()
			edit := func(r *http.Request) {
				if tc.edit != nil {
					tc.edit(r)
				}
			}
			path := tc.path
			if strings.HasPrefix(path, "/../") {
				path = strings.TrimSuffix(s.URL(), DefaultBasePath) + strings.TrimPrefix(path, "/..")
			}
			r := c.doWith(edit, tc.method, path, tc.body, append([]string{"X-Request-ID", rid}, tc.hdr...)...)
			if tc.status == 0 { // whatever it is, it is a refusal
				require.GreaterOrEqual(t, r.status, 400, "%s", r.body)
				tc.status, tc.code = r.status, r.code()
			}
			require.Equal(t, tc.status, r.status, "%s", r.body)
			var e errorBody
			require.NoError(t, json.Unmarshal(r.body, &e), "%s", r.body)
			require.NotEmpty(t, e.TPPMessages)
			msg := e.TPPMessages[0]
			assert.Equal(t, tc.code, msg.Code)
			assert.Equal(t, "ERROR", msg.Category)
			assert.GreaterOrEqual(t, len(msg.Text), 10, "a text naming the reason: %q", msg.Text)

			line := logLines(t, &buf)[rid]
			require.NotNil(t, line, "a log line for the request")
			assert.Equal(t, tc.code, line["code"])
			assert.Equal(t, logText(msg.Text), line["reason"])
		})
	}

	t.Run("SCA page", func(t *testing.T) {
		href := c.do("GET", "/v1/accounts", nil).link(t, "scaRedirect")
		b := &browser{t: t, hc: s.browser}
		status, _, page := b.post(href, map[string][]string{"step": {"login"}, "nationalId": {"01010199999"}})
		require.Equal(t, 400, status)
		assert.Contains(t, page, "No customer has this national identity number.")
		assert.Contains(t, buf.String(), `"code":"SCA_PAGE","reason":"No customer has this national identity number."`)
	})

	out := buf.String()
	for _, secret := range []string{psu, acct, PrivateCustomer1, pathSeg(acct)} {
		assert.NotContains(t, out, secret)
	}
}

// TestRequestLogBounded: the request log keeps the latest requests within
// its count and size, dropping the oldest first.
func TestRequestLogBounded(t *testing.T) {
	t.Parallel()
	t.Run("count", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, WithRequestLogLimits(3, 0))
		c := newTestClient(t, s)
		var ids []string
		for range 5 {
			id := uuid.NewString()
			ids = append(ids, id)
			c.do("GET", "/v1/sandbox/customers", nil, "X-Request-ID", id)
		}
		got := s.Requests()
		require.Len(t, got, 3)
		for i, r := range got {
			assert.Equal(t, ids[2+i], r.RequestID, "the latest, oldest first")
		}
		assert.Equal(t, 3, s.RequestCount("GET", "/v1/"))
	})
	t.Run("size", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, WithRequestLogLimits(1000, 2000))
		c := newTestClient(t, s)
		long := "/v1/" + strings.Repeat("n", 700) // 404, and logged with its long path twice
		for range 4 {
			c.do("GET", long, nil)
		}
		got := s.Requests()
		total := 0
		for i := range got {
			total += requestSize(&got[i])
		}
		assert.Len(t, got, 1, "two entries would be over 2000 bytes")
		assert.LessOrEqual(t, total, 2000)
		c.do("GET", "/v1/sandbox/customers", nil)
		got = s.Requests()
		require.Len(t, got, 2, "a small entry fits beside it")
		assert.Equal(t, "/v1/sandbox/customers", got[1].Path)
	})
	t.Run("one entry over the bound is not kept", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, WithRequestLogLimits(10, 100))
		c := newTestClient(t, s)
		c.do("GET", "/v1/"+strings.Repeat("n", 200), nil)
		assert.Empty(t, s.Requests())
	})
}
