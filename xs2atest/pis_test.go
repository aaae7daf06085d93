package xs2atest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

const creditorBBAN = "86011117947"

func singlePayment(amount string, mod ...func(map[string]any)) map[string]any {
	p := map[string]any{
		"instructedAmount":                  map[string]any{"currency": "NOK", "amount": amount},
		"creditorAccount":                   map[string]any{"bban": creditorBBAN, "currency": "NOK"},
		"creditorName":                      "Fjordkraft AS",
		"creditorAddress":                   map[string]any{"country": "NO"},
		"remittanceInformationUnstructured": "Faktura 2025-03",
	}
	for _, m := range mod {
		m(p)
	}
	return p
}

func withDebtor(bban string) func(map[string]any) {
	return func(p map[string]any) { p["debtorAccount"] = map[string]any{"bban": bban, "currency": "NOK"} }
}

func eInvoice(kid, invoice string) func(map[string]any) {
	return func(p map[string]any) {
		delete(p, "remittanceInformationUnstructured")
		p["remittanceInformationStructuredArray"] = []any{
			map[string]any{"reference": kid, "referenceType": "SCOR"},
			map[string]any{"reference": invoice, "referenceType": "CINV", "referenceIssuer": "BITS-EFAKTURA"},
		}
	}
}

// pisPSU registers a PSU through GET /v1/users and returns its headers for
// payment initiation.
func (c *testClient) pisPSU(customer string, opts ...SCAOption) []string {
	c.t.Helper()
	r := c.do("GET", "/v1/users", nil)
	require.Equal(c.t, 200, r.status)
	q := c.scaFlow(r.link(c.t, "scaRedirect"), customer, opts...)
	h := []string{"PSU-ID", q.Get("psu-id"), "PSU-IP-Address", "192.0.2.7"}
	if cid := q.Get("psu-corporate-id"); cid != "" {
		h = append(h, "PSU-Corporate-ID", cid)
	}
	return h
}

// authorise starts an authorisation and completes its SCA as customer. The
// answer is production's small one (scaStatus, scaRedirect) unless the
// server runs WithFullAuthorisationAnswer, whose authorisation it reads
// after the SCA.
func (c *testClient) authorise(r *res, customer string, hdr []string, opts ...SCAOption) {
	c.t.Helper()
	a := c.do("POST", r.link(c.t, "startAuthorisation"), nil, hdr...)
	require.Equal(c.t, http.StatusCreated, a.status, "%s", a.body)
	m := a.json(c.t)
	assert.Equal(c.t, "started", m["scaStatus"])
	if !c.s.cfg.fullAuthorisation {
		assert.Equal(c.t, []string{"_links", "scaStatus"}, slices.Sorted(maps.Keys(m)), "%s", a.body)
		assert.Equal(c.t, map[string]any{"scaRedirect": map[string]any{"href": a.link(c.t, "scaRedirect"), "verbs": []any{"GET"}}},
			m["_links"])
		c.scaFlow(a.link(c.t, "scaRedirect"), customer, opts...)
		return
	}
	assert.NotEmpty(c.t, m["authorisationId"])
	c.scaFlow(a.link(c.t, "scaRedirect"), customer, opts...)
	st := c.do("GET", a.link(c.t, "scaStatus"), nil)
	require.Equal(c.t, 200, st.status)
	assert.Equal(c.t, "finalised", st.json(c.t)["scaStatus"])
}

func (c *testClient) status(r *res) map[string]any {
	c.t.Helper()
	st := c.do("GET", r.link(c.t, "status"), nil)
	require.Equal(c.t, 200, st.status, "%s", st.body)
	return st.json(c.t)
}

func TestPaymentLifecycleWithBatch(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0]
	before := s.Balance(debtor.ResourceID)

	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1500.50", withDebtor(debtor.BBAN)), hdr...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	m := r.json(t)
	assert.Equal(t, "RCVD", m["transactionStatus"])
	assert.Equal(t, false, m["transactionFeeIndicator"])
	assert.Equal(t, map[string]any{"amount": "0.00", "currency": "NOK"}, m["transactionFees"])
	id := m["paymentId"].(string)
	assert.Equal(t, "/v1/payments/"+ProductDomestic+"/"+pathSeg(id)+"/authorisations", r.link(t, "startAuthorisation"))
	assert.Equal(t, "RCVD", c.status(r)["transactionStatus"])

	c.authorise(r, PrivateCustomer1, hdr)
	assert.Equal(t, "PDNG", c.status(r)["transactionStatus"])
	assert.Equal(t, before, s.Balance(debtor.ResourceID), "nothing moves before a batch run")

	// the 12:00 run on the fake clock books it
	clock.Advance(2*time.Hour + time.Minute)
	st := c.status(r)
	assert.Equal(t, "ACSC", st["transactionStatus"])
	assert.Equal(t, true, st["fundsAvailable"])
	b, _ := parseAmount(before, true)
	assert.Equal(t, formatAmount(b-150050), s.Balance(debtor.ResourceID))

	g := c.do("GET", r.link(t, "self"), nil)
	require.Equal(t, 200, g.status)
	gm := g.json(t)
	assert.Equal(t, "Fjordkraft AS", gm["creditorName"])
	assert.Equal(t, "ACSC", gm["transactionStatus"])

	d := c.do("DELETE", r.link(t, "self"), nil)
	assert.Equal(t, 400, d.status)
	assert.Equal(t, "CANCELLATION_INVALID", d.code())
}

func TestPaymentInsufficientFundsAndFutureDate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer2)
	debtor := customerOf(t, s, PrivateCustomer2).Accounts[1] // 500.00 NOK
	poor := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("900.00", withDebtor(debtor.BBAN)), hdr...)
	require.Equal(t, 201, poor.status, "%s", poor.body)
	tomorrow := bank.DateOf(clock.Now()).AddDate(0, 0, 1).Format(time.DateOnly)
	later := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(debtor.BBAN), func(p map[string]any) {
		p["requestedExecutionDate"] = tomorrow
	}), hdr...)
	require.Equal(t, 201, later.status)
	c.authorise(poor, PrivateCustomer2, hdr)
	c.authorise(later, PrivateCustomer2, hdr)

	s.RunBatch()
	st := c.status(poor)
	assert.Equal(t, "ACCP", st["transactionStatus"])
	assert.Equal(t, false, st["fundsAvailable"])
	assert.Equal(t, "PDNG", c.status(later)["transactionStatus"], "not due yet")

	require.True(t, s.SetBalance(debtor.ResourceID, "1000.00"))
	clock.Advance(24 * time.Hour) // every run of the day catches up lazily
	st = c.status(poor)
	assert.Equal(t, "ACSC", st["transactionStatus"])
	assert.Equal(t, true, st["fundsAvailable"])
	assert.Equal(t, "ACSC", c.status(later)["transactionStatus"])
	assert.Equal(t, "90.00", s.Balance(debtor.ResourceID))
}

func TestInstantPayment(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	from := customerOf(t, s, PrivateCustomer1).Accounts[0]
	to := customerOf(t, s, PrivateCustomer2).Accounts[0]
	toBefore, _ := parseAmount(s.Balance(to.ResourceID), true)
	r := c.do("POST", "/v1/payments/"+ProductInstant, singlePayment("100.00", withDebtor(from.BBAN), func(p map[string]any) {
		p["creditorAccount"] = map[string]any{"bban": to.BBAN}
	}), hdr...)
	require.Equal(t, 201, r.status, "%s", r.body)
	m := r.json(t)
	assert.Equal(t, true, m["transactionFeeIndicator"])
	assert.Equal(t, "2.00", m["transactionFees"].(map[string]any)["amount"])
	c.authorise(r, PrivateCustomer1, hdr)
	assert.Equal(t, "ACSC", c.status(r)["transactionStatus"], "instant: booked right after authorisation")
	assert.Equal(t, formatAmount(toBefore+10000), s.Balance(to.ResourceID), "internal creditor credited")

	r = c.do("POST", "/v1/periodic-payments/"+ProductInstant, singlePayment("1.00"), hdr...)
	assert.Equal(t, "PRODUCT_INVALID", r.code())
}

func TestMultiSignaturePATC(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	owner := customerOf(t, s, CorporateCustomer2)
	dual := owner.Agreements[1]
	require.Equal(t, 2, dual.SignersRequired)
	hdrA := c.pisPSU(CorporateCustomer2, Corporate(dual.ID))
	hdrB := c.pisPSU(CorporateCustomer1, Corporate(dual.ID))
	debtorBBAN := ""
	for _, a := range owner.Accounts {
		if a.ResourceID == dual.Accounts[0] {
			debtorBBAN = a.BBAN
		}
	}
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("5000.00", withDebtor(debtorBBAN)), hdrA...)
	require.Equal(t, 201, r.status, "%s", r.body)

	c.authorise(r, CorporateCustomer2, hdrA)
	assert.Equal(t, "PATC", c.status(r)["transactionStatus"])
	// the same signer again does not count twice
	c.authorise(r, CorporateCustomer2, hdrA)
	assert.Equal(t, "PATC", c.status(r)["transactionStatus"])
	// a customer outside the agreement may not sign
	a := c.do("POST", r.link(t, "startAuthorisation"), nil, hdrA...)
	_, err := s.CompleteSCA(t.Context(), a.link(t, "scaRedirect"), PrivateCustomer1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "permission")

	c.authorise(r, CorporateCustomer1, hdrB)
	assert.Equal(t, "PDNG", c.status(r)["transactionStatus"])
	a = c.do("POST", r.link(t, "startAuthorisation"), nil, hdrA...)
	assert.Equal(t, "STATUS_INVALID", a.code())
}

func TestPaymentValidation(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	foreign := customerOf(t, s, PrivateCustomer2).Accounts[0].BBAN
	tests := []struct {
		name   string
		path   string
		body   any
		hdr    []string
		status int
		code   string
		pathIs string
	}{
		{"unknown product", "/v1/payments/sepa-credit-transfers", singlePayment("1.00"), hdr, 400, "PRODUCT_UNKNOWN", ""},
		{"no PSU-IP-Address", "/v1/payments/" + ProductDomestic, singlePayment("1.00"), hdr[:2], 400, "FORMAT_ERROR", "PSU-IP-Address"},
		{"no PSU-ID: bound at its SCA", "/v1/payments/" + ProductDomestic, singlePayment("1.00"), hdr[2:], 201, "", ""},
		{"unknown PSU-ID", "/v1/payments/" + ProductDomestic, singlePayment("1.00"), []string{"PSU-ID", PSUID("SN=1,CA=CN=other", PrivateCustomer1), hdr[2], hdr[3]},
			401, "PSU_CREDENTIALS_INVALID", ""},
		{"PSU-CORPORATE-ID without PSU-ID", "/v1/payments/" + ProductDomestic, singlePayment("1.00"), append(hdr[2:4:4], "PSU-Corporate-ID", CorporateID("SN=1,CA=CN=x", "a")),
			400, "FORMAT_ERROR", "PSU-CORPORATE-ID"},
		{"no PSU-ID, debtorAccount naming no account", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["debtorAccount"] = map[string]any{"currency": "NOK"}
		}), hdr[2:], 400, "FORMAT_ERROR", "debtorAccount"},
		{"amount as number", "/v1/payments/" + ProductDomestic, `{"instructedAmount":{"currency":"NOK","amount":1.5}}`, hdr, 400, "FORMAT_ERROR", ""},
		{"amount with three decimals", "/v1/payments/" + ProductDomestic, singlePayment("1.005"), hdr, 400, "FORMAT_ERROR", "instructedAmount.amount"},
		{"negative amount", "/v1/payments/" + ProductDomestic, singlePayment("-1.00"), hdr, 400, "FORMAT_ERROR", "instructedAmount.amount"},
		{"zero amount", "/v1/payments/" + ProductDomestic, singlePayment("0.00"), hdr, 400, "FORMAT_ERROR", "instructedAmount.amount"},
		{"EUR", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["instructedAmount"] = map[string]any{"currency": "EUR", "amount": "1.00"}
		}), hdr, 400, "FORMAT_ERROR", "instructedAmount.currency"},
		{"bad creditor bban", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["creditorAccount"] = map[string]any{"bban": "86011117948"}
		}), hdr, 400, "FORMAT_ERROR", "creditorAccount"},
		{"no creditor name", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) { delete(p, "creditorName") }),
			hdr, 400, "FORMAT_ERROR", "creditorName"},
		{"bad country", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["creditorAddress"] = map[string]any{"country": "Norway"}
		}), hdr, 400, "FORMAT_ERROR", "creditorAddress.country"},
		{"past execution date", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["requestedExecutionDate"] = "2001-01-01"
		}), hdr, 400, "EXECUTION_DATE_INVALID", "requestedExecutionDate"},
		{"invalid KID", "/v1/payments/" + ProductDomestic, singlePayment("1.00", eInvoice("0365328", "INV-1")), hdr, 400, "FORMAT_ERROR", "remittanceInformationStructuredArray"},
		{"invalid KID, deprecated field", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["remittanceInformationStructured"] = map[string]any{"reference": "12345678904", "referenceType": "SCOR"}
		}), hdr, 400, "FORMAT_ERROR", "remittanceInformationStructured"},
		{"CINV without issuer", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "INV", "referenceType": "CINV"}}
		}), hdr, 400, "FORMAT_ERROR", "remittanceInformationStructuredArray[0].referenceIssuer"},
		{"CINV without SCOR", "/v1/payments/" + ProductDomestic, singlePayment("1.00", withDebtor(debtor), func(p map[string]any) {
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "INV-3", "referenceType": "CINV", "referenceIssuer": "BITS-EFAKTURA"}}
		}), hdr, 400, "FORMAT_ERROR", "remittanceInformationStructuredArray"},
		{"CINV with the KID only in the deprecated field", "/v1/payments/" + ProductDomestic, singlePayment("1.00", withDebtor(debtor), func(p map[string]any) {
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "INV-4", "referenceType": "CINV", "referenceIssuer": "BITS-EFAKTURA"}}
			p["remittanceInformationStructured"] = map[string]any{"reference": "2440997-", "referenceType": "SCOR"}
		}), hdr, 400, "FORMAT_ERROR", "remittanceInformationStructuredArray"},
		{"KID payment without invoice", "/v1/payments/" + ProductDomestic, singlePayment("1.00", withDebtor(debtor), func(p map[string]any) {
			delete(p, "remittanceInformationUnstructured")
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "2440997-", "referenceType": "SCOR"}}
		}), hdr, 201, "", ""},
		{"debtor of another customer", "/v1/payments/" + ProductDomestic, singlePayment("1.00", withDebtor(foreign)), hdr, 400, "FORMAT_ERROR", "debtorAccount"},
		{"emoji in remittance", "/v1/payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["remittanceInformationUnstructured"] = "Takk 🎉"
		}), hdr, 400, "FORMAT_ERROR", ""},
		{"periodic without frequency", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["startDate"] = "2099-01-01"
		}), hdr, 400, "FORMAT_ERROR", "frequency"},
		{"MonthlyVariable duplicate months", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["startDate"], p["frequency"], p["monthsOfExecution"] = "2099-01-01", "MonthlyVariable", []string{"1", "6", "1"}
		}), hdr, 400, "FORMAT_ERROR", "monthsOfExecution"},
		{"MonthlyVariable without months", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["startDate"], p["frequency"] = "2099-01-01", "MonthlyVariable"
		}), hdr, 400, "FORMAT_ERROR", "monthsOfExecution"},
		{"months with Monthly", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["startDate"], p["frequency"], p["monthsOfExecution"] = "2099-01-01", "Monthly", []string{"1"}
		}), hdr, 400, "FORMAT_ERROR", "monthsOfExecution"},
		{"bad dayOfExecution", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", func(p map[string]any) {
			p["startDate"], p["frequency"], p["dayOfExecution"] = "2099-01-01", "Monthly", "32"
		}), hdr, 400, "FORMAT_ERROR", "dayOfExecution"},
		{"empty bulk", "/v1/bulk-payments/" + ProductDomestic, map[string]any{"debtorAccount": map[string]any{"bban": debtor}, "payments": []any{}},
			hdr, 400, "FORMAT_ERROR", "payments"},
		{"bulk entry invalid", "/v1/bulk-payments/" + ProductDomestic, map[string]any{"debtorAccount": map[string]any{"bban": debtor},
			"payments": []any{singlePayment("1.00"), singlePayment("x")}}, hdr, 400, "FORMAT_ERROR", "payments[1].instructedAmount.amount"},
		{"valid MonthlyVariable", "/v1/periodic-payments/" + ProductDomestic, singlePayment("1.00", withDebtor(debtor), func(p map[string]any) {
			p["startDate"], p["frequency"], p["monthsOfExecution"], p["executionRule"] = "2099-01-01", "MonthlyVariable", []string{"1", "6"}, "following"
		}), hdr, 201, "", ""},
		{"valid KID MOD11 with dash", "/v1/payments/" + ProductDomestic, singlePayment("1.00", eInvoice("2440997-", "INV-9")), hdr, 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", tt.path, tt.body, tt.hdr...)
			assert.Equal(t, tt.status, r.status, "%s", r.body)
			assert.Equal(t, tt.code, r.code())
			if tt.pathIs != "" {
				var e errorBody
				require.NoError(t, json.Unmarshal(r.body, &e))
				assert.Equal(t, tt.pathIs, e.TPPMessages[0].Path)
			}
		})
	}
}

func TestLogicalDuplicate(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	body := singlePayment("420.00", eInvoice("12345678903", "F-2025-17"))
	r := c.do("POST", "/v1/payments/"+ProductDomestic, body, hdr...)
	require.Equal(t, 201, r.status, "%s", r.body)
	r2 := c.do("POST", "/v1/payments/"+ProductDomestic, body, hdr...)
	assert.Equal(t, 400, r2.status)
	assert.Equal(t, "PAYMENT_FAILED", r2.code())
	assert.Contains(t, string(r2.body), "allowLogicalDuplicate")
	r3 := c.do("POST", "/v1/payments/"+ProductDomestic+"?allowLogicalDuplicate=true", body, hdr...)
	assert.Equal(t, 201, r3.status)
	// another invoice number is no duplicate
	r4 := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("420.00", eInvoice("12345678903", "F-2025-18")), hdr...)
	assert.Equal(t, 201, r4.status)
	// the latest payment cancelled, the first still pays the invoice
	require.Equal(t, 204, c.do("DELETE", r3.link(t, "self"), nil).status)
	r5 := c.do("POST", "/v1/payments/"+ProductDomestic, body, hdr...)
	assert.Equal(t, 400, r5.status, "%s", r5.body)
	assert.Equal(t, "PAYMENT_FAILED", r5.code())
	// cancelled payments do not count
	require.Equal(t, 204, c.do("DELETE", r.link(t, "self"), nil).status)
	assert.Equal(t, "CANC", c.status(r)["transactionStatus"])
	assert.Equal(t, 201, c.do("POST", "/v1/payments/"+ProductDomestic, body, hdr...).status)
}

// A bulk entry that repeats the invoice of a live payment is refused at its
// own path.
func TestLogicalDuplicateInBulk(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	paid := singlePayment("420.00", eInvoice("12345678903", "F-2025-17"))
	require.Equal(t, 201, c.do("POST", "/v1/payments/"+ProductDomestic, paid, hdr...).status)
	bulk := map[string]any{
		"debtorAccount": map[string]any{"bban": debtor, "currency": "NOK"},
		"payments":      []any{singlePayment("10.00", eInvoice("2440997-", "INV-9")), paid},
	}
	r := c.do("POST", "/v1/bulk-payments/"+ProductDomestic, bulk, hdr...)
	require.Equal(t, 400, r.status, "%s", r.body)
	var e errorBody
	require.NoError(t, json.Unmarshal(r.body, &e))
	assert.Equal(t, "PAYMENT_FAILED", e.TPPMessages[0].Code)
	assert.Equal(t, "payments[1].remittanceInformationStructuredArray", e.TPPMessages[0].Path)
}

func TestDebtorChosenAtSCA(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	accts := customerOf(t, s, PrivateCustomer1).Accounts
	require.True(t, accts[2].Card)
	tests := []struct {
		name    string
		pick    Account
		shownAs map[string]any
	}{
		{"account", accts[1], map[string]any{"bban": accts[1].BBAN, "currency": "NOK"}},
		{"card account", accts[2], map[string]any{"maskedPan": accts[2].MaskedPan, "currency": "NOK"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("12.00", eInvoice("602243", "X"+strconv.Itoa(i))), hdr...)
			require.Equal(t, 201, r.status, "%s", r.body)
			c.authorise(r, PrivateCustomer1, hdr, Accounts(tt.pick.ResourceID))
			g := c.do("GET", r.link(t, "self"), nil).json(t)
			assert.Equal(t, tt.shownAs, g["debtorAccount"])
		})
	}
}

// docs/interface.md, Sandbox: "Payments from card accounts are supported in the
// sandbox." debtorAccount names an account by bban or iban, a card account
// by maskedPan; only the PSU's own (in its context) are accepted.
func TestPaymentDebtorAccount(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	kari := customerOf(t, s, PrivateCustomer1).Accounts
	ola := customerOf(t, s, PrivateCustomer2).Accounts
	tests := []struct {
		name   string
		ref    map[string]any
		status int
		path   string
	}{
		{"own account by bban", map[string]any{"bban": kari[0].BBAN}, 201, ""},
		{"own account by iban", map[string]any{"iban": kari[0].IBAN, "currency": "NOK"}, 201, ""},
		{"own card account by maskedPan", map[string]any{"maskedPan": kari[2].MaskedPan, "currency": "NOK"}, 201, ""},
		{"own card account, another currency", map[string]any{"maskedPan": kari[2].MaskedPan, "currency": "EUR"}, 400, "debtorAccount.currency"},
		{"another customer's card account", map[string]any{"maskedPan": ola[2].MaskedPan}, 400, "debtorAccount"},
		{"maskedPan and bban of two accounts", map[string]any{"maskedPan": kari[2].MaskedPan, "bban": kari[0].BBAN}, 400, "debtorAccount"},
		{"only a currency", map[string]any{"currency": "NOK"}, 400, "debtorAccount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", func(p map[string]any) {
				p["debtorAccount"] = tt.ref
			}), hdr...)
			require.Equal(t, tt.status, r.status, "%s", r.body)
			if tt.path != "" {
				var e errorBody
				require.NoError(t, json.Unmarshal(r.body, &e))
				assert.Equal(t, "FORMAT_ERROR", e.TPPMessages[0].Code)
				assert.Equal(t, tt.path, e.TPPMessages[0].Path)
			}
		})
	}
}

// A card account pays in the batch like an account: its balance may go down
// to minus its creditLimit; beyond that the payment waits as ACCP with
// fundsAvailable false.
func TestCardAccountPaymentInBatch(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(newFakeClock(wednesday10).Now))
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	card := customerOf(t, s, PrivateCustomer1).Accounts[2]
	require.Equal(t, "-4230.50", card.Balance)
	require.Equal(t, "50000.00", card.CreditLimit)
	fromCard := func(p map[string]any) { p["debtorAccount"] = map[string]any{"maskedPan": card.MaskedPan} }

	upToLimit := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("45769.50", fromCard), hdr...)
	require.Equal(t, 201, upToLimit.status, "%s", upToLimit.body)
	c.authorise(upToLimit, PrivateCustomer1, hdr)
	s.RunBatch()
	st := c.status(upToLimit)
	assert.Equal(t, "ACSC", st["transactionStatus"])
	assert.Equal(t, true, st["fundsAvailable"])
	assert.Equal(t, "-50000.00", s.Balance(card.ResourceID), "down to minus the credit limit")
	assert.Equal(t, card.Booked+1, customerOf(t, s, PrivateCustomer1).Accounts[2].Booked, "the debit is a card transaction")

	beyond := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("0.01", fromCard), hdr...)
	require.Equal(t, 201, beyond.status, "%s", beyond.body)
	c.authorise(beyond, PrivateCustomer1, hdr)
	s.RunBatch()
	st = c.status(beyond)
	assert.Equal(t, "ACCP", st["transactionStatus"])
	assert.Equal(t, false, st["fundsAvailable"])
	assert.Equal(t, "-50000.00", s.Balance(card.ResourceID))
}

// TestDomesticNorwayHiddenBeforeApproval: docs/interface.md, Endpoints: "For
// product domestic-norway-credit-transfers, details and status are
// unavailable before the payment is approved": while it waits for its SCA
// (RCVD) and while only some of the required signers have signed (PATC).
func TestDomesticNorwayHiddenBeforeApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		initiator string
		signers   []string // in order; the payment is approved after the last
		corporate bool     // the shared agreement of CorporateCustomer2 (two signers)
		pending   string   // status while signers are missing
	}{
		{"private, one signer", PrivateCustomer1, []string{PrivateCustomer1}, false, "RCVD"},
		{"corporate, two signers", CorporateCustomer2, []string{CorporateCustomer2, CorporateCustomer1}, true, "PATC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			c := newTestClient(t, s)
			owner := customerOf(t, s, tt.initiator)
			debtor := owner.Accounts[0].BBAN
			var opts []SCAOption
			if tt.corporate {
				dual := owner.Agreements[1]
				require.Equal(t, len(tt.signers), dual.SignersRequired)
				for _, a := range owner.Accounts {
					if a.ResourceID == dual.Accounts[0] {
						debtor = a.BBAN
					}
				}
				opts = append(opts, Corporate(dual.ID))
			}
			hdrs := map[string][]string{}
			for _, who := range tt.signers {
				hdrs[who] = c.pisPSU(who, opts...)
			}
			r := c.do("POST", "/v1/payments/"+ProductDomesticNorway, singlePayment("3.00", withDebtor(debtor)), hdrs[tt.initiator]...)
			require.Equal(t, 201, r.status, "%s", r.body)
			id, _ := r.json(t)["paymentId"].(string)
			hidden := func(when string) {
				t.Helper()
				for _, l := range []string{"status", "self"} {
					g := c.do("GET", r.link(t, l), nil, hdrs[tt.initiator]...)
					assert.Equal(t, 400, g.status, "%s %s: %s", when, l, g.body)
					assert.Equal(t, "RESOURCE_UNKNOWN", g.code())
				}
			}
			for i, who := range tt.signers {
				st := s.PaymentStatus(id)
				want := "RCVD"
				if i > 0 {
					want = tt.pending
				}
				require.Equal(t, want, st, "before signer %d", i+1)
				hidden(fmt.Sprintf("before signer %d (%s)", i+1, st))
				c.authorise(r, who, hdrs[who])
			}
			assert.Equal(t, "PDNG", c.status(r)["transactionStatus"])
			g := c.do("GET", r.link(t, "self"), nil, hdrs[tt.initiator]...)
			assert.Equal(t, 200, g.status, "%s", g.body)
		})
	}
}

func TestPeriodicAndBulkInBatch(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0]
	today := bank.DateOf(clock.Now()).Format(time.DateOnly)
	per := c.do("POST", "/v1/periodic-payments/"+ProductDomestic, singlePayment("100.00", withDebtor(debtor.BBAN), func(p map[string]any) {
		p["startDate"], p["frequency"], p["dayOfExecution"] = today, "Monthly", "12"
	}), hdr...)
	require.Equal(t, 201, per.status, "%s", per.body)
	assert.True(t, strings.HasPrefix(per.link(t, "status"), "/v1/periodic-payments/"))
	bulk := c.do("POST", "/v1/bulk-payments/"+ProductDomestic, map[string]any{
		"paymentInformationId": "batch-1", "debtorAccount": map[string]any{"bban": debtor.BBAN}, "requestedExecutionDate": today,
		"payments": []any{singlePayment("10.00"), singlePayment("20.00")},
	}, hdr...)
	require.Equal(t, 201, bulk.status, "%s", bulk.body)
	c.authorise(per, PrivateCustomer1, hdr)
	c.authorise(bulk, PrivateCustomer1, hdr)
	s.RunBatch()
	assert.Equal(t, "PDNG", c.status(per)["transactionStatus"], "periodic payments are not batch processed")
	assert.Equal(t, "ACSC", c.status(bulk)["transactionStatus"])

	// signing baskets refuse bulk and periodic payments
	single := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1.00", withDebtor(debtor.BBAN)), hdr...)
	pid := single.json(t)["paymentId"].(string)
	r := c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{pid, per.json(t)["paymentId"].(string)}}, hdr...)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "REFERENCE_MIX_INVALID", r.code())
}

func TestSigningBasket(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	var ids []string
	var inits []*res
	for _, amt := range []string{"1.00", "2.00"} {
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment(amt, withDebtor(debtor)), hdr...)
		require.Equal(t, 201, r.status)
		ids = append(ids, r.json(t)["paymentId"].(string))
		inits = append(inits, r)
	}
	b := c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids}, hdr...)
	require.Equal(t, 201, b.status, "%s", b.body)
	bm := b.json(t)
	assert.Equal(t, "RCVD", bm["transactionStatus"])
	assert.NotEmpty(t, bm["basketId"])
	a := c.do("POST", b.link(t, "startAuthorisation"), nil, hdr...)
	require.Equal(t, 201, a.status)
	c.scaFlow(a.link(t, "scaRedirect"), PrivateCustomer1)
	assert.Equal(t, "ACTC", c.do("GET", b.link(t, "status"), nil).json(t)["transactionStatus"])
	for _, r := range inits {
		assert.Equal(t, "PDNG", c.status(r)["transactionStatus"])
	}
	r := c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": []string{"enc!!nope"}}, hdr...)
	assert.Equal(t, 400, r.status)
}

func TestPaymentOfAnotherTPPIsUnknown(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1.00"), hdr...)
	require.Equal(t, 201, r.status)
	other := newTestClient(t, s)
	other.tpp = rsaTPP2
	g := other.do("GET", r.link(t, "status"), nil)
	assert.Equal(t, 404, g.status)
	// the wrong service in the path is unknown too
	g = c.do("GET", strings.Replace(r.link(t, "status"), "/v1/payments/", "/v1/bulk-payments/", 1), nil)
	assert.Equal(t, 404, g.status)
}

// docs/interface.md, Flow 2 and Errors: "Requests for corporate users without
// PSU-CORPORATE-ID get 400", on every call on a payment as on the account
// calls. A call without PSU-ID (status polling) needs no PSU at all.
func TestPaymentCallsOfCorporatePSU(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFullAuthorisationAnswer()) // reads the authorisation
	c := newTestClient(t, s)
	fj := customerOf(t, s, CorporateCustomer2)
	hdr := c.pisPSU(CorporateCustomer2, Corporate(fj.Agreements[0].ID))
	require.Len(t, hdr, 6, "psu-corporate-id in the callback")
	nordlys := customerOf(t, s, CorporateCustomer1).Agreements[0]
	require.NotContains(t, nordlys.Members, CorporateCustomer2)
	headers := []struct {
		name string
		hdr  []string
		ok   bool
	}{
		{"PSU-ID and PSU-CORPORATE-ID", hdr, true},
		{"no PSU headers", nil, true},
		{"PSU-ID without PSU-CORPORATE-ID", hdr[:4], false},
		{"PSU-CORPORATE-ID of another company", append(hdr[:4:4], "PSU-Corporate-ID", CorporateID(c.tpp.keyID, nordlys.ID)), false},
	}
	calls := []struct {
		name, method, link string
		want               int
	}{
		{"status", "GET", "status", 200},
		{"details", "GET", "self", 200},
		{"startAuthorisation", "POST", "startAuthorisation", 201},
		{"authorisations", "GET", "startAuthorisation", 200},
		{"authorisation", "GET", "scaStatus", 200},
		{"cancellation", "DELETE", "self", 204},
		{"signing basket", "POST", "basket", 201},
	}
	for _, call := range calls {
		for _, h := range headers {
			t.Run(call.name+"/"+h.name, func(t *testing.T) {
				r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(fj.Accounts[0].BBAN)), hdr...)
				require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
				var a *res
				switch call.link {
				case "scaStatus":
					started := c.do("POST", r.link(t, "startAuthorisation"), nil, hdr...)
					require.Equal(t, http.StatusCreated, started.status, "%s", started.body)
					a = c.do(call.method, started.link(t, "scaStatus"), nil, h.hdr...)
				case "basket":
					a = c.do(call.method, "/v1/signing-baskets", map[string]any{"paymentIds": []any{r.json(t)["paymentId"]}}, h.hdr...)
				default:
					a = c.do(call.method, r.link(t, call.link), nil, h.hdr...)
				}
				if h.ok {
					assert.Equal(t, call.want, a.status, "%s", a.body)
					return
				}
				assert.Equal(t, http.StatusBadRequest, a.status, "%s", a.body)
				assert.Equal(t, "CORPORATE_ID_INVALID", a.code())
			})
		}
	}

	t.Run("signing basket calls", func(t *testing.T) {
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(fj.Accounts[0].BBAN)), hdr...)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		b := c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": []any{r.json(t)["paymentId"]}}, hdr...)
		require.Equal(t, http.StatusCreated, b.status, "%s", b.body)
		for _, l := range []struct{ method, link string }{{"GET", "self"}, {"GET", "status"}, {"POST", "startAuthorisation"}, {"DELETE", "self"}} {
			a := c.do(l.method, b.link(t, l.link), nil, hdr[:4]...)
			assert.Equal(t, http.StatusBadRequest, a.status, "%s %s: %s", l.method, l.link, a.body)
			assert.Equal(t, "CORPORATE_ID_INVALID", a.code())
		}
		assert.Equal(t, http.StatusOK, c.do("GET", b.link(t, "status"), nil, hdr...).status)
	})
}

// docs/interface.md, Errors: insufficient funds get a proper error response. The
// instant product, executed at authorisation, is refused at initiation with
// 400 FUNDS_NOT_AVAILABLE when its debtorAccount cannot pay amount and fee;
// the other products, and instant payments whose debtor is not known yet or
// that run later, report lack of funds at execution (ACCP, fundsAvailable).
func TestInsufficientFundsAtInitiation(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	accts := customerOf(t, s, PrivateCustomer1).Accounts
	brukskonto, card := accts[0], accts[2]
	tomorrow := bank.DateOf(s.now()).AddDate(0, 0, 1).Format(time.DateOnly)
	fromCard := func(p map[string]any) { p["debtorAccount"] = map[string]any{"maskedPan": card.MaskedPan} }
	tests := []struct {
		name, product, amount string
		set                   Account // its balance is set to balance
		balance               string
		mod                   func(map[string]any)
		refused               bool
	}{
		{"instant, empty account", ProductInstant, "5000.00", brukskonto, "0.00", withDebtor(brukskonto.BBAN), true},
		{"instant, no room for the fee", ProductInstant, "100.00", brukskonto, "100.00", withDebtor(brukskonto.BBAN), true},
		{"instant, amount and fee covered", ProductInstant, "98.00", brukskonto, "100.00", withDebtor(brukskonto.BBAN), false},
		{"instant, card within its credit limit", ProductInstant, "49998.00", card, "0.00", fromCard, false},
		{"instant, card beyond its credit limit", ProductInstant, "49998.01", card, "0.00", fromCard, true},
		{"instant, debtor chosen at SCA", ProductInstant, "5000.00", brukskonto, "0.00", func(map[string]any) {}, false},
		{"instant, executed tomorrow", ProductInstant, "5000.00", brukskonto, "0.00", func(p map[string]any) {
			withDebtor(brukskonto.BBAN)(p)
			p["requestedExecutionDate"] = tomorrow
		}, false},
		{"domestic, checked at the batch run", ProductDomestic, "5000.00", brukskonto, "0.00", withDebtor(brukskonto.BBAN), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, s.SetBalance(tt.set.ResourceID, tt.balance))
			before := s.PaymentCount()
			r := c.do("POST", "/v1/payments/"+tt.product, singlePayment(tt.amount, tt.mod), hdr...)
			if !tt.refused {
				assert.Equal(t, http.StatusCreated, r.status, "%s", r.body)
				assert.Equal(t, before+1, s.PaymentCount())
				return
			}
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "FUNDS_NOT_AVAILABLE", r.code())
			assert.Equal(t, before, s.PaymentCount(), "no payment was created")
		})
	}
}

// present are the headers of a PISP-only TPP's request with the PSU present
// but not known yet: no PSU-ID.
var present = []string{"PSU-IP-Address", "192.0.2.7", "TPP-Session-ID", "journey-1"}

// docs/interface.md, Flow 5 and release 1.17.0: "Single SCA for PISP-only journeys
// is supported." A payment initiated without PSU-ID (single, e-invoice,
// periodic, bulk) is bound to the PSU who signs in at its SCA and chooses a
// context (and a debtor where the payment names none); the success
// callback's psu-id registers the PSU as GET /v1/users does. One SCA in all.
func TestPISPOnlyJourneyOneSCA(t *testing.T) {
	t.Parallel()
	today := bank.DateOf(time.Now()).Format(time.DateOnly)
	type env struct {
		kari, ola, fj Customer
	}
	tests := []struct {
		name, customer, path string
		body                 func(e env) any
		opts                 func(e env) []SCAOption
		agreement            func(e env) string // corporate context: the agreement chosen
		status               string             // after the SCA
		debtor               func(e env) map[string]any
	}{
		{"single payment naming its debtor", PrivateCustomer1, "/v1/payments/" + ProductDomestic,
			func(e env) any { return singlePayment("10.00", withDebtor(e.kari.Accounts[0].BBAN)) },
			nil, nil, "PDNG",
			func(e env) map[string]any { return map[string]any{"bban": e.kari.Accounts[0].BBAN, "currency": "NOK"} }},
		{"single payment, card account chosen at the SCA", PrivateCustomer1, "/v1/payments/" + ProductDomestic,
			func(e env) any { return singlePayment("10.00") },
			func(e env) []SCAOption { return []SCAOption{Accounts(e.kari.Accounts[2].ResourceID)} }, nil, "PDNG",
			func(e env) map[string]any {
				return map[string]any{"maskedPan": e.kari.Accounts[2].MaskedPan, "currency": "NOK"}
			}},
		{"instant payment: final right after the SCA", PrivateCustomer2, "/v1/payments/" + ProductInstant,
			func(e env) any { return singlePayment("10.00", withDebtor(e.ola.Accounts[0].BBAN)) },
			nil, nil, "ACSC",
			func(e env) map[string]any { return map[string]any{"bban": e.ola.Accounts[0].BBAN, "currency": "NOK"} }},
		{"e-invoice, debtor chosen at the SCA", PrivateCustomer2, "/v1/payments/" + ProductDomestic,
			func(e env) any { return singlePayment("842.50", eInvoice("12345678903", "F-1")) },
			func(e env) []SCAOption { return []SCAOption{Accounts(e.ola.Accounts[1].ResourceID)} }, nil, "PDNG",
			func(e env) map[string]any { return map[string]any{"bban": e.ola.Accounts[1].BBAN, "currency": "NOK"} }},
		{"periodic payment", PrivateCustomer1, "/v1/periodic-payments/" + ProductDomestic,
			func(e env) any {
				return singlePayment("100.00", withDebtor(e.kari.Accounts[0].BBAN), func(p map[string]any) {
					p["startDate"], p["frequency"] = today, "Monthly"
				})
			},
			nil, nil, "PDNG",
			func(e env) map[string]any { return map[string]any{"bban": e.kari.Accounts[0].BBAN, "currency": "NOK"} }},
		{"bulk payment", PrivateCustomer1, "/v1/bulk-payments/" + ProductDomestic,
			func(e env) any {
				return map[string]any{"debtorAccount": map[string]any{"iban": e.kari.Accounts[1].IBAN},
					"payments": []any{singlePayment("10.00"), singlePayment("20.00")}}
			},
			nil, nil, "PDNG",
			func(e env) map[string]any { return map[string]any{"iban": e.kari.Accounts[1].IBAN} }},
		{"corporate context, two signers required", CorporateCustomer2, "/v1/payments/" + ProductDomestic,
			func(e env) any { return singlePayment("10.00", withDebtor(e.fj.Accounts[1].BBAN)) },
			func(e env) []SCAOption { return []SCAOption{Corporate(e.fj.Agreements[1].ID)} },
			func(e env) string { return e.fj.Agreements[1].ID }, "PATC",
			func(e env) map[string]any { return map[string]any{"bban": e.fj.Accounts[1].BBAN, "currency": "NOK"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			c := newTestClient(t, s)
			e := env{customerOf(t, s, PrivateCustomer1), customerOf(t, s, PrivateCustomer2), customerOf(t, s, CorporateCustomer2)}
			r := c.do("POST", tt.path, tt.body(e), present...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
			assert.Equal(t, "RCVD", c.status(r)["transactionStatus"], "the creating TPP reads an unbound payment")

			a := c.do("POST", r.link(t, "startAuthorisation"), nil, present...)
			require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
			var opts []SCAOption
			if tt.opts != nil {
				opts = tt.opts(e)
			}
			q := c.scaFlow(a.link(t, "scaRedirect"), tt.customer, opts...)
			assert.Zero(t, s.RequestCount("GET", "/v1/users"), "no registration SCA")

			psuID := PSUID(c.tpp.keyID, tt.customer)
			assert.Equal(t, psuID, q.Get("psu-id"))
			assert.Equal(t, "journey-1", q.Get("tpp-session-id"))
			hdr := []string{"PSU-ID", psuID, "PSU-IP-Address", "192.0.2.7", "TPP-Session-ID", "journey-1"}
			if tt.agreement != nil {
				assert.Equal(t, "CORPORATE", q.Get("context"))
				cid := CorporateID(c.tpp.keyID, tt.agreement(e))
				assert.Equal(t, cid, q.Get("psu-corporate-id"))
				hdr = append(hdr, "PSU-Corporate-ID", cid)
			} else {
				assert.Equal(t, "PRIVATE", q.Get("context"))
				assert.False(t, q.Has("psu-corporate-id"))
			}
			assert.Equal(t, tt.status, c.status(r)["transactionStatus"])
			g := c.do("GET", r.link(t, "self"), nil, hdr...)
			require.Equal(t, http.StatusOK, g.status, "%s", g.body)
			assert.Equal(t, tt.debtor(e), g.json(t)["debtorAccount"])

			// the callback registered the PSU for this TPP, as GET /v1/users does
			ag := c.do("GET", "/v1/agreements", nil, hdr...)
			assert.Equal(t, http.StatusOK, ag.status, "%s", ag.body)
			again := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1.00"), hdr...)
			assert.Equal(t, http.StatusCreated, again.status, "a later payment with the psu-id: %s", again.body)
			if tt.agreement != nil {
				st := c.do("GET", r.link(t, "status"), nil, hdr[:4]...)
				assert.Equal(t, "CORPORATE_ID_INVALID", st.code(), "registered in corporate context")
			}
		})
	}
}

// A payment initiated without PSU-ID is checked at its SCA as a payment
// with a PSU-ID is at initiation: a debtorAccount the PSU may not pay from,
// or an instant payment it cannot pay, ends the SCA with the failure
// redirect (the status, code and text initiation would answer) and rejects
// the payment; the PSU is not registered.
func TestPISPOnlyJourneyRefusedAtSCA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, product, customer string
		body                    func(kari Customer) map[string]any
		code                    string
		funds                   any
	}{
		{"another customer's account", ProductDomestic, PrivateCustomer2,
			func(kari Customer) map[string]any { return singlePayment("10.00", withDebtor(kari.Accounts[0].BBAN)) },
			"FORMAT_ERROR", nil},
		{"an account of the PSU, another currency", ProductDomestic, PrivateCustomer1,
			func(kari Customer) map[string]any {
				return singlePayment("10.00", func(p map[string]any) {
					p["debtorAccount"] = map[string]any{"bban": kari.Accounts[0].BBAN, "currency": "SEK"}
				})
			}, "FORMAT_ERROR", nil},
		{"a private account in corporate context", ProductDomestic, CorporateCustomer1,
			func(kari Customer) map[string]any { return singlePayment("10.00", withDebtor(kari.Accounts[0].BBAN)) },
			"FORMAT_ERROR", nil},
		{"instant payment the account cannot pay", ProductInstant, PrivateCustomer1,
			func(kari Customer) map[string]any {
				return singlePayment("250000.00", withDebtor(kari.Accounts[0].BBAN))
			},
			"FUNDS_NOT_AVAILABLE", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, WithFullAuthorisationAnswer()) // reads the authorisation
			c := newTestClient(t, s)
			r := c.do("POST", "/v1/payments/"+tt.product, tt.body(customerOf(t, s, PrivateCustomer1)), present...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
			a := c.do("POST", r.link(t, "startAuthorisation"), nil, present...)
			require.Equal(t, http.StatusCreated, a.status, "%s", a.body)

			q := c.scaFlow(a.link(t, "scaRedirect"), tt.customer)
			assert.False(t, q.Has("psu-id"))
			assert.Equal(t, "400", q.Get("status"))
			assert.Equal(t, tt.code, q.Get("code"))
			assert.NotEmpty(t, q.Get("message"))
			st := c.status(r)
			assert.Equal(t, "RJCT", st["transactionStatus"])
			assert.Equal(t, tt.funds, st["fundsAvailable"])
			assert.Equal(t, "failed", c.do("GET", a.link(t, "scaStatus"), nil).json(t)["scaStatus"])
			u := c.do("GET", "/v1/agreements", nil, "PSU-ID", PSUID(c.tpp.keyID, tt.customer))
			assert.Equal(t, http.StatusUnauthorized, u.status, "not registered")
		})
	}
}

// An unbound payment belongs to the TPP that created it; the first PSU to
// complete its SCA gets it: an SCA cancelled before leaves it unbound, one
// begun at the same time fails once the other has bound it. Signing
// baskets take bound payments only.
func TestPISPOnlyPaymentBinding(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00"), present...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)

	other := newTestClient(t, s)
	other.tpp = rsaTPP2
	assert.Equal(t, http.StatusNotFound, other.do("GET", r.link(t, "status"), nil).status)
	b := c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": []any{r.json(t)["paymentId"]}}, present...)
	assert.Equal(t, "REFERENCE_STATUS_INVALID", b.code())

	start := func() string {
		a := c.do("POST", r.link(t, "startAuthorisation"), nil, present...)
		require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
		return a.link(t, "scaRedirect")
	}
	cancelled := c.scaFlow(start(), PrivateCustomer2, Cancel())
	assert.Equal(t, "SCA_INVALID", cancelled.Get("code"))

	// Ola signs in first, Kari completes first
	late := start()
	br := &browser{t: t, hc: s.browser}
	status, _, _ := br.post(late, url.Values{"step": {"login"}, "nationalId": {PrivateCustomer2}})
	require.Equal(t, http.StatusSeeOther, status)
	q := c.scaFlow(start(), PrivateCustomer1)
	assert.Equal(t, PSUID(c.tpp.keyID, PrivateCustomer1), q.Get("psu-id"))
	assert.Equal(t, "PDNG", c.status(r)["transactionStatus"])

	status, loc, _ := br.post(late, url.Values{"step": {"context"}, "choice": {"PRIVATE"}})
	require.Equal(t, http.StatusSeeOther, status)
	cb, err := url.Parse(loc)
	require.NoError(t, err)
	assert.Equal(t, "SCA_INVALID", cb.Query().Get("code"))
	assert.False(t, cb.Query().Has("psu-id"))
	assert.Equal(t, "PDNG", c.status(r)["transactionStatus"], "Kari's payment stays as she signed it")
	kari := customerOf(t, s, PrivateCustomer1).Accounts[0]
	assert.Equal(t, kari.BBAN, c.do("GET", r.link(t, "self"), nil).json(t)["debtorAccount"].(map[string]any)["bban"])
}
