package xs2atest

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/jarcoal/httpmock"
)

// ResponderOption configures Responders.
type ResponderOption func(*mockConfig)

type mockConfig struct {
	customer    string
	status      string
	scaRequired bool
	noFunds     bool
	seed        uint64
}

// MockCustomer serves the accounts of this sandbox customer (default
// PrivateCustomer1).
func MockCustomer(customerNumber string) ResponderOption {
	return func(c *mockConfig) { c.customer = customerNumber }
}

// MockPaymentStatus is the transactionStatus the payment status responder
// reports (default ACSC). fundsAvailable is left out unless
// MockInsufficientFunds is given: a rejection (RJCT) need not be for lack of
// funds.
func MockPaymentStatus(status string) ResponderOption {
	return func(c *mockConfig) { c.status = status }
}

// MockInsufficientFunds makes the payment status responder report
// fundsAvailable false, as the bank does for a payment it could not pay for
// lack of funds (docs/interface.md: "A payment rejected for lack of funds is
// reported with status ACCP and fundsAvailable"). Combine it with
// MockPaymentStatus("ACCP").
func MockInsufficientFunds() ResponderOption { return func(c *mockConfig) { c.noFunds = true } }

// MockSCARequired makes GET /v1/accounts answer 401 with a scaRedirect link,
// as before the PSU's first SCA.
func MockSCARequired() ResponderOption { return func(c *mockConfig) { c.scaRequired = true } }

// Responders registers canned httpmock responses for the main endpoints
// under baseURL, built from the same sandbox data as the fake bank, for
// tests that prefer pure mocks to a server: GET /v1/accounts, GET
// /v1/accounts/{id}/balances, GET /v1/accounts/{id}/transactions (booked,
// paged by offset and limit, every pending one on every page), POST
// /v1/payments/{product} (201, RCVD), POST .../authorisations (201 with
// scaRedirect) and GET .../status. Nothing is checked: no signature, no
// consent, no limits; use NewServer for that.
//
// The responders match by regular expression and httpmock tries regular
// expressions in the order they were registered, so to override one answer
// register an exact-URL responder (it wins over regular expressions), with
// the path as the SDK sends it (ids escaped: "enc%21%21...").
func Responders(mt *httpmock.MockTransport, baseURL string, opts ...ResponderOption) {
	cfg := mockConfig{customer: PrivateCustomer1, status: "ACSC", seed: defaultConfig().seed}
	for _, o := range opts {
		o(&cfg)
	}
	base := strings.TrimSuffix(baseURL, "/")
	// the fixture: an unstarted bank with the sandbox data
	fx := &Server{cfg: defaultConfig()}
	fx.cfg.seed = cfg.seed
	fx.resetLocked()
	dummy, _ := http.NewRequest(http.MethodGet, base, nil)
	c := fx.customers[cfg.customer]
	var accounts []accountJSON
	byID := map[string]*account{}
	if c != nil {
		for _, id := range c.accounts {
			if a := fx.accounts[id]; !a.card {
				accounts = append(accounts, fx.accountJSONLocked(dummy, a))
				byID[id] = a
			}
		}
	}
	re := func(path string) *regexp.Regexp {
		return regexp.MustCompile("^" + regexp.QuoteMeta(base) + path + `(\?.*)?$`)
	}
	json := func(status int, v any) httpmock.Responder {
		return httpmock.NewJsonResponderOrPanic(status, v)
	}

	if cfg.scaRequired {
		mt.RegisterRegexpResponder(http.MethodGet, re(`/v1/accounts`), json(http.StatusUnauthorized, errorBody{
			TPPMessages: []tppMessage{{Category: "ERROR", Code: "PSU_CREDENTIALS_INVALID", Text: "PSU-ID is missing"}},
			Links:       map[string]link{"scaRedirect": {Href: base + "/sca/mock", Verbs: []string{"GET"}}},
		}))
	} else {
		mt.RegisterRegexpResponder(http.MethodGet, re(`/v1/accounts`), json(http.StatusOK, map[string]any{"accounts": accounts}))
	}
	idRE := `/v1/accounts/([^/?]+)`
	mt.RegisterRegexpResponder(http.MethodGet, re(idRE+`/balances`), func(r *http.Request) (*http.Response, error) {
		a := byID[idOf(r, 0)]
		if a == nil {
			return mockUnknown(r)
		}
		return httpmock.NewJsonResponse(http.StatusOK, map[string]any{
			"account":  accountRefJSON{BBAN: a.bban, IBAN: a.iban, Currency: a.currency},
			"balances": balancesOf(a),
		})
	})
	mt.RegisterRegexpResponder(http.MethodGet, re(idRE+`/transactions`), func(r *http.Request) (*http.Response, error) {
		a := byID[idOf(r, 0)]
		if a == nil {
			return mockUnknown(r)
		}
		q := r.URL.Query()
		limit, offset := maxPage, 0
		if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 && n < maxPage {
			limit = n
		}
		if n, err := strconv.Atoi(q.Get("offset")); err == nil && n > 0 {
			offset = n
		}
		report := map[string]any{}
		booked := []txJSON{}
		for i := offset; i < len(a.booked) && i < offset+limit; i++ {
			booked = append(booked, txOf(a.booked[i], true))
		}
		report["booked"] = booked
		if offset+limit < len(a.booked) {
			next := "/v1/accounts/" + pathSeg(a.id) + "/transactions?bookingStatus=booked&limit=" +
				strconv.Itoa(limit) + "&offset=" + strconv.Itoa(offset+limit)
			report["_links"] = map[string]link{"next": {Href: next, Verbs: []string{"GET"}}}
		}
		if st := q.Get("bookingStatus"); st == "both" || st == "pending" || st == "all" {
			pending := []txJSON{}
			for _, t := range a.pending { // all of them, on every page
				pending = append(pending, txOf(t, false))
			}
			report["pending"] = pending
		}
		return httpmock.NewJsonResponse(http.StatusOK, map[string]any{
			"account":      accountRefJSON{BBAN: a.bban, IBAN: a.iban, Currency: a.currency},
			"transactions": report,
		})
	})

	payRE := `/v1/(payments|periodic-payments|bulk-payments)/([^/?]+)`
	var count atomic.Int64 // httpmock calls responders concurrently
	mt.RegisterRegexpResponder(http.MethodPost, re(payRE), func(r *http.Request) (*http.Response, error) {
		svc, product := idOf(r, 0), idOf(r, 1)
		if !products[product] {
			return httpmock.NewJsonResponse(http.StatusBadRequest, errorBody{TPPMessages: []tppMessage{
				{Category: "ERROR", Code: "PRODUCT_UNKNOWN", Text: "unknown payment product"}}})
		}
		id := "enc!!mock-payment-" + strconv.FormatInt(count.Add(1), 10)
		p := "/v1/" + svc + "/" + product + "/" + id
		fee := "0.00"
		if product == ProductInstant {
			fee = "2.00"
		}
		return httpmock.NewJsonResponse(http.StatusCreated, map[string]any{
			"paymentId": id, "transactionStatus": "RCVD",
			"transactionFees": amountJSON{fee, "NOK"}, "transactionFeeIndicator": fee != "0.00",
			"_links": map[string]link{
				"self":               {Href: p, Verbs: []string{"GET", "DELETE"}},
				"status":             {Href: p + "/status", Verbs: []string{"GET"}},
				"startAuthorisation": {Href: p + "/authorisations", Verbs: []string{"POST"}},
			},
		})
	})
	mt.RegisterRegexpResponder(http.MethodPost, re(payRE+`/([^/?]+)/authorisations`), json(http.StatusCreated, map[string]any{
		"scaStatus": "started", "authorisationId": "enc!!mock-authorisation",
		"_links": map[string]link{"scaRedirect": {Href: base + "/sca/mock", Verbs: []string{"GET"}}},
	}))
	status := map[string]any{"transactionStatus": cfg.status}
	if cfg.noFunds {
		status["fundsAvailable"] = false
	}
	mt.RegisterRegexpResponder(http.MethodGet, re(payRE+`/([^/?]+)/status`), json(http.StatusOK, status))
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

func mockUnknown(*http.Request) (*http.Response, error) {
	return httpmock.NewJsonResponse(http.StatusNotFound, errorBody{TPPMessages: []tppMessage{
		{Category: "ERROR", Code: "RESOURCE_UNKNOWN", Text: "unknown account"}}})
}
