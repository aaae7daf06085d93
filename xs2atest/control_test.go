package xs2atest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ctl is a test in another language driving the control API: plain,
// unsigned JSON over HTTP.
type ctl struct {
	t *testing.T
	s *Server
}

func (c ctl) do(method, path, body string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.s.ControlURL()+path, strings.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.s.HTTPClient().Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	assert.Equal(c.t, "application/json", resp.Header.Get("Content-Type"), "%s", b)
	var m map[string]any
	require.NoError(c.t, json.Unmarshal(b, &m), "%s", b)
	return resp.StatusCode, m
}

// refusal is the first tppMessage of a control answer: code, path, text.
func refusalOf(t *testing.T, m map[string]any) (string, string, string) {
	t.Helper()
	msgs, ok := m["tppMessages"].([]any)
	require.True(t, ok, "no tppMessages in %v", m)
	msg := msgs[0].(map[string]any)
	path, _ := msg["path"].(string)
	return msg["code"].(string), path, msg["text"].(string)
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestControlSCA: POST /_control/sca completes or cancels the SCA behind a
// scaRedirect as the customer (national id or index), in a context, ticking
// accounts or the debtor, and answers the callback a browser would have
// been sent to; a refusal names its field or the page's reason.
func TestControlSCA(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithControl())
	c := newTestClient(t, s)
	api := ctl{t, s}
	first := customerOf(t, s, PrivateCustomer1)
	corp := customerOf(t, s, CorporateCustomer2)

	consentHref := func() string {
		r := c.do("GET", "/v1/accounts", nil)
		require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
		return r.link(t, "scaRedirect")
	}
	callback := func(m map[string]any) url.Values {
		cb, err := url.Parse(m["callback"].(string))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(cb.String(), DefaultRedirectURI), "%s", cb)
		return cb.Query()
	}

	t.Run("consent, private, ticked accounts", func(t *testing.T) {
		status, m := api.do("POST", "/sca", jsonBody(t, map[string]any{"scaRedirect": consentHref(),
			"customer": PrivateCustomer1, "context": "private", "accounts": []string{first.Accounts[0].ResourceID}}))
		require.Equal(t, 200, status, "%v", m)
		q := callback(m)
		assert.Equal(t, "PRIVATE", q.Get("context"))
		assert.Equal(t, PSUID(c.tpp.keyID, PrivateCustomer1), q.Get("psu-id"))
		accts := c.accounts(q.Get("psu-id"))
		require.Len(t, accts, 1)
		assert.Equal(t, first.Accounts[0].ResourceID, accts[0]["resourceId"])
	})
	t.Run("customer by index, corporate agreement", func(t *testing.T) {
		numbers := s.bank.CustomerNumbers()
		idx := -1
		for i, n := range numbers {
			if n == CorporateCustomer2 {
				idx = i
			}
		}
		require.GreaterOrEqual(t, idx, 0)
		status, m := api.do("POST", "/sca", jsonBody(t, map[string]any{"scaRedirect": consentHref(),
			"customer": idx, "context": "CORPORATE", "agreement": corp.Agreements[1].ID}))
		require.Equal(t, 200, status, "%v", m)
		q := callback(m)
		assert.Equal(t, "CORPORATE", q.Get("context"))
		assert.Equal(t, CorporateID(c.tpp.keyID, corp.Agreements[1].ID), q.Get("psu-corporate-id"))
	})
	t.Run("payment without PSU-ID, debtor picked", func(t *testing.T) {
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00"), "PSU-IP-Address", "192.0.2.7")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		a := c.do("POST", r.link(t, "startAuthorisation"), nil, "PSU-IP-Address", "192.0.2.7")
		require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
		status, m := api.do("POST", "/sca", jsonBody(t, map[string]any{"scaRedirect": a.link(t, "scaRedirect"),
			"customer": PrivateCustomer1, "context": "private", "debtor": first.Accounts[1].ResourceID}))
		require.Equal(t, 200, status, "%v", m)
		assert.NotEmpty(t, callback(m).Get("psu-id"))
		p, ok := s.bank.Payment(r.json(t)["paymentId"].(string))
		require.True(t, ok)
		assert.Equal(t, first.Accounts[1].ResourceID, p.Debtor, "the debtor the control ticked")
		assert.Equal(t, "PDNG", p.Status)
	})
	t.Run("cancel", func(t *testing.T) {
		status, m := api.do("POST", "/sca", jsonBody(t, map[string]any{"scaRedirect": consentHref(),
			"customer": PrivateCustomer1, "outcome": "cancel"}))
		require.Equal(t, 200, status, "%v", m)
		q := callback(m)
		assert.Equal(t, "SCA_INVALID", q.Get("code"))
		assert.Equal(t, "401", q.Get("status"))
	})

	for _, tc := range []struct {
		name                   string
		body                   map[string]any
		status                 int
		code, path, textPrefix string
	}{
		{"no scaRedirect", map[string]any{"customer": PrivateCustomer1}, 400, "FORMAT_ERROR", "scaRedirect", "scaRedirect is required"},
		{"no customer", map[string]any{"scaRedirect": "x"}, 400, "FORMAT_ERROR", "customer", "customer is required"},
		{"index out of range", map[string]any{"scaRedirect": "x", "customer": 99}, 400, "FORMAT_ERROR", "customer", "customer index 99 is out of range"},
		{"bad context", map[string]any{"scaRedirect": "x", "customer": PrivateCustomer1, "context": "family"}, 400, "FORMAT_ERROR", "context", "context must be"},
		{"agreement in private", map[string]any{"scaRedirect": "x", "customer": PrivateCustomer1, "context": "private", "agreement": "a"}, 400, "FORMAT_ERROR", "agreement", "an agreement belongs"},
		{"accounts and debtor", map[string]any{"scaRedirect": "x", "customer": PrivateCustomer1, "accounts": []string{}, "debtor": "d"}, 400, "FORMAT_ERROR", "debtor", "give accounts"},
		{"bad outcome", map[string]any{"scaRedirect": "x", "customer": PrivateCustomer1, "outcome": "maybe"}, 400, "FORMAT_ERROR", "outcome", "outcome must be"},
		{"unknown field", map[string]any{"scaRedirect": "x", "customer": PrivateCustomer1, "psu": "x"}, 400, "FORMAT_ERROR", "", `the body is not valid: unknown field "psu"`},
		{"unknown national id", map[string]any{"scaRedirect": "", "customer": "01010199999"}, 0, "", "", ""},
		{"unknown link", map[string]any{"scaRedirect": s.URL() + "/sca/nothing", "customer": PrivateCustomer1}, 409, "SCA_INVALID", "scaRedirect", "SCA page answered 404: This authentication link is unknown."},
		{"account not offered", map[string]any{"scaRedirect": "", "customer": PrivateCustomer1, "accounts": []string{"enc!!forged"}}, 409, "SCA_INVALID", "scaRedirect", "the SCA page does not offer account enc!!forged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.body["scaRedirect"] == "" {
				tc.body["scaRedirect"] = consentHref()
			}
			if tc.status == 0 {
				tc.status, tc.code, tc.path, tc.textPrefix = 409, "SCA_INVALID", "scaRedirect", "SCA page answered 400: No customer has this national identity number."
			}
			status, m := api.do("POST", "/sca", jsonBody(t, tc.body))
			assert.Equal(t, tc.status, status, "%v", m)
			code, path, text := refusalOf(t, m)
			assert.Equal(t, tc.code, code)
			assert.Equal(t, tc.path, path)
			assert.True(t, strings.HasPrefix(text, tc.textPrefix), "%q", text)
		})
	}
}

// TestControlClockAndBatch: POST /_control/clock sets or advances the
// bank's clock (only forward), and the batch runs that fell due run;
// POST /_control/batch runs one now.
func TestControlClockAndBatch(t *testing.T) {
	t.Parallel()
	oslo, _ := time.LoadLocation("Europe/Oslo")
	start := time.Date(2025, 3, 12, 10, 30, 0, 0, oslo) // a Wednesday, between the 09:00 and 12:00 runs
	s := NewServer(t, WithControl(), WithClock(func() time.Time { return start }))
	c := newTestClient(t, s)
	api := ctl{t, s}
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	pay := func() *res {
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(debtor)), hdr...)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		c.authorise(r, PrivateCustomer1, hdr)
		require.Equal(t, "PDNG", c.status(r)["transactionStatus"])
		return r
	}

	r := pay()
	status, m := api.do("POST", "/batch", "")
	require.Equal(t, 200, status, "%v", m)
	assert.Equal(t, "ACSC", c.status(r)["transactionStatus"], "the batch ran now")

	r = pay()
	status, m = api.do("POST", "/clock", `{"advance":"90m"}`)
	require.Equal(t, 200, status, "%v", m)
	assert.Equal(t, start.Add(90*time.Minute).Format(time.RFC3339Nano), m["now"])
	assert.Equal(t, "ACSC", c.status(r)["transactionStatus"], "the 12:00 run fell due")

	status, m = api.do("POST", "/clock", `{"set":"2025-03-13T06:30:00+01:00"}`)
	require.Equal(t, 200, status, "%v", m)
	_, now := api.do("GET", "/clock", "")
	assert.Equal(t, time.Date(2025, 3, 13, 6, 30, 0, 0, oslo).Format(time.RFC3339Nano), now["now"])
	assert.Equal(t, time.Date(2025, 3, 13, 6, 30, 0, 0, oslo).Unix(), s.now().Unix(), "the bank's clock")

	for _, tc := range []struct{ name, body, path, text string }{
		{"back", `{"advance":"-1h"}`, "", "the bank's clock only moves forward"},
		{"set back", `{"set":"2025-03-12T10:30:00+01:00"}`, "", "the bank's clock only moves forward"},
		{"neither", `{}`, "", "give one of set"},
		{"both", `{"set":"2025-03-14T10:00:00Z","advance":"1h"}`, "", "give one of set"},
		{"bad time", `{"set":"tomorrow"}`, "set", "set must be an RFC 3339 time"},
		{"bad duration", `{"advance":"a day"}`, "advance", "advance must be a duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := api.do("POST", "/clock", tc.body)
			assert.Equal(t, 400, status)
			code, path, text := refusalOf(t, m)
			assert.Equal(t, "FORMAT_ERROR", code)
			assert.Equal(t, tc.path, path)
			assert.Contains(t, text, tc.text)
		})
	}
}

// TestControlFaults: faults added at runtime (POST /_control/faults, and
// AddFault) apply to the next requests, with the keys of -fault; DELETE
// (and ClearFaults) removes them all, those of WithFaults too.
func TestControlFaults(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithControl(), WithFaults(Fault{Path: "/v1/sandbox/accounts", Status: 500}))
	c := newTestClient(t, s)
	api := ctl{t, s}
	customers := func() int { return c.do("GET", "/v1/sandbox/customers", nil).status }

	require.Equal(t, 200, customers())
	status, m := api.do("POST", "/faults", `{"path":"/v1/sandbox/customers","method":"get","status":503,"times":1,"retry-after":"2s"}`)
	require.Equal(t, 200, status, "%v", m)
	assert.Len(t, m["faults"], 2, "WithFaults' and the new one")
	r := c.do("GET", "/v1/sandbox/customers", nil)
	assert.Equal(t, 503, r.status)
	assert.Equal(t, "2", r.header.Get("Retry-After"))
	assert.Equal(t, 200, customers(), "times 1")

	s.AddFault(Fault{Path: "/v1/sandbox/customers", Status: 429})
	assert.Equal(t, 429, customers())
	status, m = api.do("DELETE", "/faults", "")
	require.Equal(t, 200, status, "%v", m)
	assert.Empty(t, m["faults"])
	assert.Equal(t, 200, customers())
	assert.Empty(t, s.Faults(), "WithFaults' fault is gone too")

	s.AddFault(Fault{Status: 502})
	assert.Equal(t, 502, customers())
	s.ClearFaults()
	assert.Equal(t, 200, customers())

	for _, tc := range []struct{ name, body, path, text string }{
		{"unknown key", `{"paht":"/v1"}`, "paht", `unknown key "paht"`},
		{"not an error status", `{"status":200}`, "", "want an error status"},
		{"bad delay", `{"delay":"soon","status":500}`, "delay", `delay: "soon" is not a valid value`},
		{"a list", `{"path":["/v1"]}`, "path", "path must be a string, number or boolean"},
		{"does nothing", `{"path":"/v1"}`, "", "a fault needs a status, a delay or drop"},
		{"rate above 1", `{"status":500,"rate":2}`, "", "want a probability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, m := api.do("POST", "/faults", tc.body)
			assert.Equal(t, 400, status)
			code, path, text := refusalOf(t, m)
			assert.Equal(t, "FORMAT_ERROR", code)
			assert.Equal(t, tc.path, path)
			assert.Contains(t, text, tc.text)
		})
	}
	assert.Empty(t, s.Faults(), "no refused fault was added")
}

// TestControlReset: POST /_control/reset puts the bank back as it started:
// sandbox data, the faults of WithFaults with fresh counts, the clock, the
// request log and the payment SCA mode.
func TestControlReset(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 12, 10, 30, 0, 0, time.UTC)
	s := NewServer(t, WithControl(), WithClock(func() time.Time { return start }),
		WithFaults(Fault{Path: "/v1/sandbox/customers", Status: 503, Times: 1}))
	c := newTestClient(t, s)
	api := ctl{t, s}
	require.Equal(t, 503, c.do("GET", "/v1/sandbox/customers", nil).status)
	psu := c.privatePSU(PrivateCustomer1)
	require.NotEmpty(t, c.accounts(psu))
	s.AddFault(Fault{Path: "/v1/users", Status: 500})
	s.SetPaymentSCA(PaymentSCAExempt)
	api.do("POST", "/clock", `{"advance":"48h"}`)

	status, m := api.do("POST", "/reset", "")
	require.Equal(t, 200, status, "%v", m)
	assert.Equal(t, start.Format(time.RFC3339Nano), m["now"], "the clock is back")
	assert.Empty(t, s.Requests(), "the request log is empty")
	assert.Equal(t, []Fault{{Path: "/v1/sandbox/customers", Status: 503, Times: 1}}, s.Faults())
	assert.Equal(t, 503, c.do("GET", "/v1/sandbox/customers", nil).status, "WithFaults' fault counts again")
	assert.Equal(t, http.StatusUnauthorized, c.do("GET", "/v1/accounts", nil, "PSU-ID", psu).status, "the consent is gone")
	s.mu.Lock()
	assert.Equal(t, PaymentSCAStart, s.paymentSCA)
	s.mu.Unlock()
}

// TestControlRouting: GET /_control describes the API; other paths and
// methods are refused with a reason; it sits outside any base path (the
// root included) and only WithControl serves it; a base path on it is
// refused at Start.
func TestControlRouting(t *testing.T) {
	t.Parallel()
	for _, base := range []string{DefaultBasePath, ""} {
		t.Run("base path "+base, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, WithControl(), WithBasePath(base))
			api := ctl{t, s}
			status, m := api.do("GET", "", "")
			require.Equal(t, 200, status)
			assert.Equal(t, base, m["basePath"])
			assert.Len(t, m["endpoints"], len(controlRoutes))

			status, m = api.do("GET", "/nothing", "")
			assert.Equal(t, 404, status)
			code, _, text := refusalOf(t, m)
			assert.Equal(t, "RESOURCE_UNKNOWN", code)
			assert.Contains(t, text, "GET /_control lists them")

			status, m = api.do("PUT", "/faults", "")
			assert.Equal(t, 405, status)
			_, _, text = refusalOf(t, m)
			assert.Equal(t, "PUT is not offered here: GET, POST, DELETE", text)

			// the interface is where it was
			c := newTestClient(t, s)
			assert.Equal(t, 200, c.do("GET", "/v1/sandbox/customers", nil).status)
		})
	}
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t)
		assert.Empty(t, s.ControlURL())
		resp, err := s.HTTPClient().Post(strings.TrimSuffix(s.URL(), DefaultBasePath)+ControlPrefix+"/reset", "application/json", nil)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 404, resp.StatusCode)
	})
	for _, base := range []string{ControlPrefix, ControlPrefix + "/api", "/"} {
		srv, err := Start(WithControl(), WithBasePath(base))
		if base == "/" {
			require.NoError(t, err)
			srv.Close()
			continue
		}
		assert.ErrorContains(t, err, "control API", base)
	}
}

// TestControlBodyBounded: a control body over 64 KiB is refused unread.
func TestControlBodyBounded(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithControl())
	status, m := ctl{t, s}.do("POST", "/faults", `{"path":"`+string(bytes.Repeat([]byte("a"), 70<<10))+`"}`)
	assert.Equal(t, 400, status)
	_, _, text := refusalOf(t, m)
	assert.Contains(t, text, "over 64 KiB")
}
