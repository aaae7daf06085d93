// Package mockbank registers canned httpmock answers for the main endpoints
// of the bank's interface, built from the same sandbox data as the fake bank
// of package xs2atest, for tests that prefer pure mocks to a server. It is
// a package of its own so that importing xs2atest does not pull in httpmock.
package mockbank

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jarcoal/httpmock"

	"github.com/tppkit/xs2a/xs2atest"
	"github.com/tppkit/xs2a/xs2atest/internal/fixture"
)

// ResponderOption configures Responders.
type ResponderOption func(*config)

type config struct {
	customer    string
	status      string
	scaRequired bool
	noFunds     bool
}

// MockCustomer serves the accounts of this sandbox customer (default
// xs2atest.PrivateCustomer1).
func MockCustomer(customerNumber string) ResponderOption {
	return func(c *config) { c.customer = customerNumber }
}

// MockPaymentStatus is the transactionStatus the payment status responder
// reports (default ACSC). fundsAvailable is left out unless
// MockInsufficientFunds is given: a rejection (RJCT) need not be for lack of
// funds.
func MockPaymentStatus(status string) ResponderOption {
	return func(c *config) { c.status = status }
}

// MockInsufficientFunds makes the payment status responder report
// fundsAvailable false, as the bank does for a payment it could not pay for
// lack of funds (docs/interface.md: "A payment rejected for lack of funds is
// reported with status ACCP and fundsAvailable"). Combine it with
// MockPaymentStatus("ACCP").
func MockInsufficientFunds() ResponderOption { return func(c *config) { c.noFunds = true } }

// MockSCARequired makes GET /v1/accounts answer 401 with a scaRedirect link,
// as before the PSU's first SCA.
func MockSCARequired() ResponderOption { return func(c *config) { c.scaRequired = true } }

// Responders registers canned httpmock responses for the main endpoints
// under baseURL, built from the same sandbox data as the fake bank: GET
// /v1/accounts, GET /v1/accounts/{id}/balances, GET
// /v1/accounts/{id}/transactions (booked, paged by offset and limit, every
// pending one on every page), POST /v1/payments/{product} (201, RCVD), POST
// .../authorisations (201 with scaRedirect) and GET .../status. Nothing is
// checked: no signature, no consent, no limits; use xs2atest.NewServer for
// that.
//
// The responders match by regular expression and httpmock tries regular
// expressions in the order they were registered, so to override one answer
// register an exact-URL responder (it wins over regular expressions), with
// the path as the SDK sends it: an id as written, only what a path segment
// may not hold escaped ("/v1/accounts/enc!!QUNDVC0x=/balances", a "/" in an
// id as %2F; not url.PathEscape, which escapes "!").
func Responders(mt *httpmock.MockTransport, baseURL string, opts ...ResponderOption) {
	cfg := config{customer: xs2atest.PrivateCustomer1, status: "ACSC"}
	for _, o := range opts {
		o(&cfg)
	}
	m := &mock{mt: mt, base: strings.TrimSuffix(baseURL, "/"), cfg: cfg, data: fixture.Load(cfg.customer)}
	m.accounts()
	m.balances()
	m.transactions()
	m.payments()
}

// mock is one registration of Responders.
type mock struct {
	mt   *httpmock.MockTransport
	base string
	cfg  config
	data fixture.Data
}

const (
	accountRE = `/v1/accounts/([^/?]+)`
	paymentRE = `/v1/(payments|periodic-payments|bulk-payments)/([^/?]+)`
)

// re matches path below the base URL, with any query.
func (m *mock) re(path string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(m.base) + path + `(\?.*)?$`)
}

func (m *mock) scaRedirect() map[string]any {
	return map[string]any{"scaRedirect": link(m.base+"/sca/mock", "GET")}
}

// accounts registers GET /v1/accounts: the list, or 401 with MockSCARequired.
func (m *mock) accounts() {
	if m.cfg.scaRequired {
		m.mt.RegisterRegexpResponder(http.MethodGet, m.re(`/v1/accounts`), httpmock.NewJsonResponderOrPanic(
			http.StatusUnauthorized, errorBody("PSU_CREDENTIALS_INVALID", "PSU-ID is missing", m.scaRedirect())))
		return
	}
	list := []any{}
	for _, a := range m.data.Accounts {
		list = append(list, a.Listed)
	}
	m.mt.RegisterRegexpResponder(http.MethodGet, m.re(`/v1/accounts`),
		httpmock.NewJsonResponderOrPanic(http.StatusOK, map[string]any{"accounts": list}))
}

// account is the account of the request's path, or nil.
func (m *mock) account(r *http.Request) *fixture.Account {
	id := idOf(r, 0)
	for i := range m.data.Accounts {
		if m.data.Accounts[i].ID == id {
			return &m.data.Accounts[i]
		}
	}
	return nil
}

// balances registers GET /v1/accounts/{id}/balances.
func (m *mock) balances() {
	m.mt.RegisterRegexpResponder(http.MethodGet, m.re(accountRE+`/balances`), func(r *http.Request) (*http.Response, error) {
		a := m.account(r)
		if a == nil {
			return unknownAccount()
		}
		return httpmock.NewJsonResponse(http.StatusOK, map[string]any{"account": a.Ref, "balances": a.Balances})
	})
}

// transactions registers GET /v1/accounts/{id}/transactions.
func (m *mock) transactions() {
	m.mt.RegisterRegexpResponder(http.MethodGet, m.re(accountRE+`/transactions`), func(r *http.Request) (*http.Response, error) {
		a := m.account(r)
		if a == nil {
			return unknownAccount()
		}
		return httpmock.NewJsonResponse(http.StatusOK, map[string]any{
			"account": a.Ref, "transactions": m.report(a, r.URL.Query()),
		})
	})
}

// report is one page of an account's booked transactions (offset, limit,
// and a next link while more follow) with every pending one when
// bookingStatus asks for them.
func (m *mock) report(a *fixture.Account, q url.Values) map[string]any {
	limit, offset := m.data.MaxPage, 0
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n < m.data.MaxPage {
		limit = n
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 {
		offset = n
	}
	end := min(offset+limit, len(a.Booked))
	report := map[string]any{"booked": append([]any{}, a.Booked[min(offset, end):end]...)}
	if offset+limit < len(a.Booked) {
		next := "/v1/accounts/" + a.PathID + "/transactions?bookingStatus=booked&limit=" +
			strconv.Itoa(limit) + "&offset=" + strconv.Itoa(offset+limit)
		report["_links"] = map[string]any{"next": link(next, "GET")}
	}
	if st := q.Get("bookingStatus"); st == "both" || st == "pending" || st == "all" {
		report["pending"] = append([]any{}, a.Pending...) // all of them, on every page
	}
	return report
}

// payments registers the initiation, its authorisation and its status.
func (m *mock) payments() {
	var count atomic.Int64 // httpmock calls responders concurrently
	m.mt.RegisterRegexpResponder(http.MethodPost, m.re(paymentRE), func(r *http.Request) (*http.Response, error) {
		return m.initiation(r, count.Add(1))
	})
	m.mt.RegisterRegexpResponder(http.MethodPost, m.re(paymentRE+`/([^/?]+)/authorisations`),
		httpmock.NewJsonResponderOrPanic(http.StatusCreated, map[string]any{
			"scaStatus": "started", "_links": m.scaRedirect(), // production's answer: no authorisationId
		}))
	status := map[string]any{"transactionStatus": m.cfg.status}
	if m.cfg.noFunds {
		status["fundsAvailable"] = false
	}
	m.mt.RegisterRegexpResponder(http.MethodGet, m.re(paymentRE+`/([^/?]+)/status`),
		httpmock.NewJsonResponderOrPanic(http.StatusOK, status))
}

// initiation answers the n-th POST /v1/{service}/{product}: 201 RCVD with
// the instant product's fee, or 400 PRODUCT_UNKNOWN.
func (m *mock) initiation(r *http.Request, n int64) (*http.Response, error) {
	svc, product := idOf(r, 0), idOf(r, 1)
	if !m.data.Products[product] {
		return httpmock.NewJsonResponse(http.StatusBadRequest, errorBody("PRODUCT_UNKNOWN", "unknown payment product", nil))
	}
	id := "enc!!mock-payment-" + strconv.FormatInt(n, 10)
	p := "/v1/" + svc + "/" + product + "/" + id
	fee := "0.00"
	if product == m.data.Instant {
		fee = "2.00"
	}
	return httpmock.NewJsonResponse(http.StatusCreated, map[string]any{
		"paymentId": id, "transactionStatus": "RCVD",
		"transactionFees":         map[string]string{"amount": fee, "currency": "NOK"},
		"transactionFeeIndicator": fee != "0.00",
		"_links": map[string]any{
			"self":               link(p, "GET", "DELETE"),
			"status":             link(p+"/status", "GET"),
			"startAuthorisation": link(p+"/authorisations", "POST"),
		},
	})
}

// idOf is the i-th path segment after the /v1/ segment that follows it
// (httpmock does not hand the regexp's submatches to the responder):
// /v1/accounts/{id}/... gives {id} for 0; /v1/payments/{product} gives
// "payments" for 0 and {product} for 1.
// Segments are split in the escaped path: an id may hold "/" (%2F).
func idOf(r *http.Request, i int) string {
	p := r.URL.EscapedPath()
	at := strings.LastIndex(p, "/v1/")
	if at < 0 {
		return ""
	}
	segs := strings.Split(p[at+len("/v1/"):], "/")
	if segs[0] == "accounts" {
		i++
	}
	if i >= len(segs) {
		return ""
	}
	seg, err := url.PathUnescape(segs[i])
	if err != nil {
		return ""
	}
	return seg
}

func link(href string, verbs ...string) map[string]any {
	return map[string]any{"href": href, "verbs": verbs}
}

// errorBody is the bank's error answer: one tppMessage, and links when
// given.
func errorBody(code, text string, links map[string]any) map[string]any {
	b := map[string]any{"tppMessages": []map[string]string{{"category": "ERROR", "code": code, "text": text}}}
	if links != nil {
		b["_links"] = links
	}
	return b
}

func unknownAccount() (*http.Response, error) {
	return httpmock.NewJsonResponse(http.StatusNotFound, errorBody("RESOURCE_UNKNOWN", "unknown account", nil))
}
