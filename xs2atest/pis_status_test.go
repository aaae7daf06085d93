package xs2atest

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// The status answer names the payment and links to it, as production banks
// of the platform answer; startAuthorisation and DELETE only while a signer
// is due. Once all have signed the payment is PDNG, its self link GET only.
func TestPaymentStatusAnswerLinks(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	owner := customerOf(t, s, CorporateCustomer2)
	dual := owner.Agreements[1]
	hdrA := c.pisPSU(CorporateCustomer2, Corporate(dual.ID))
	hdrB := c.pisPSU(CorporateCustomer1, Corporate(dual.ID))
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(owner.Accounts[1].BBAN)), hdrA...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	id := r.json(t)["paymentId"].(string)
	base := "/v1/payments/" + ProductDomestic + "/" + pathSeg(id)
	links := func(start bool) map[string]any {
		out := map[string]any{
			"self":   map[string]any{"href": base, "verbs": []any{"GET"}},
			"status": map[string]any{"href": base + "/status", "verbs": []any{"GET"}},
		}
		if start {
			out["self"] = map[string]any{"href": base, "verbs": []any{"GET", "DELETE"}}
			out["startAuthorisation"] = map[string]any{"href": base + "/authorisations", "verbs": []any{"POST"}}
		}
		return out
	}

	assert.Equal(t, map[string]any{"paymentId": id, "transactionStatus": "RCVD", "_links": links(true)}, c.status(r))
	c.authorise(r, CorporateCustomer2, hdrA)
	patc := c.status(r)
	assert.Equal(t, map[string]any{"paymentId": id, "transactionStatus": "PATC", "_links": links(true)}, patc)

	// the second signer starts from the status answer's link
	start := patc["_links"].(map[string]any)["startAuthorisation"].(map[string]any)["href"].(string)
	a := c.do("POST", start, nil, hdrB...)
	require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
	c.scaFlow(a.link(t, "scaRedirect"), CorporateCustomer1)
	assert.Equal(t, map[string]any{"paymentId": id, "transactionStatus": "PDNG", "_links": links(false)}, c.status(r))
}

// A requestedExecutionDate no longer possible when the last signer signs
// (past by then, or not a banking day) moves to the next banking day: the
// payment is ACWC (accepted with change), and status and details report
// the new date, which the batch runs keep.
func TestExecutionDateMovedAtSCA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, requested string
		signAfter       time.Duration // from Wednesday 2025-03-12 10:00
		status, moved   string        // moved: "" when the date stays
	}{
		{"a banking day stays", "2025-03-14", 0, "PDNG", ""},
		{"past by the time the PSU signs", "2025-03-13", 48 * time.Hour, "ACWC", "2025-03-14"},
		{"past, signed on a Saturday", "2025-03-12", 72 * time.Hour, "ACWC", "2025-03-17"},
		{"Good Friday", "2025-04-18", 0, "ACWC", "2025-04-22"},
		{"a Sunday", "2025-03-16", 0, "ACWC", "2025-03-17"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(wednesday10)
			s := NewServer(t, WithClock(clock.Now))
			c := newTestClient(t, s)
			hdr := c.pisPSU(PrivateCustomer1)
			debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
			r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(debtor), func(p map[string]any) {
				p["requestedExecutionDate"] = tt.requested
			}), hdr...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
			clock.Advance(tt.signAfter)
			c.authorise(r, PrivateCustomer1, hdr)

			st := c.status(r)
			assert.Equal(t, tt.status, st["transactionStatus"])
			details := c.do("GET", r.link(t, "self"), nil).json(t)
			if tt.moved == "" {
				assert.NotContains(t, st, "requestedExecutionDate")
				assert.Equal(t, tt.requested, details["requestedExecutionDate"])
				return
			}
			assert.Equal(t, tt.moved, st["requestedExecutionDate"])
			assert.Equal(t, tt.moved, details["requestedExecutionDate"])
			moved, _ := bank.ParseDate(tt.moved)
			midnight := time.Date(moved.Year(), moved.Month(), moved.Day(), 0, 0, 0, 0, bank.Oslo)
			if before := midnight.Add(-time.Minute); before.After(clock.Now()) {
				clock.Advance(before.Sub(clock.Now()))
				s.RunBatch()
				assert.Equal(t, tt.status, c.status(r)["transactionStatus"], "not booked before the moved date")
			}
			clock.Advance(midnight.Add(12*time.Hour + time.Minute).Sub(clock.Now()))
			assert.Equal(t, "ACSC", c.status(r)["transactionStatus"], "booked by the moved date's 12:00 run")
		})
	}
}

// Authorising an e-invoice payment marks the invoice processed at the
// invoice scheme, for every signer needed; a cancelled SCA does not.
func TestEInvoiceProcessedWhenAuthorised(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("99.00", withDebtor(debtor), eInvoice("0365327", "F-2025-0042")), hdr...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.False(t, s.EInvoiceProcessed("F-2025-0042"))

	a := c.do("POST", r.link(t, "startAuthorisation"), nil, hdr...)
	cb := c.scaFlow(a.link(t, "scaRedirect"), PrivateCustomer1, Cancel())
	require.Equal(t, "SCA_INVALID", cb.Get("code"))
	assert.False(t, s.EInvoiceProcessed("F-2025-0042"), "not by a cancelled SCA")

	c.authorise(r, PrivateCustomer1, hdr)
	assert.True(t, s.EInvoiceProcessed("F-2025-0042"))
	assert.False(t, s.EInvoiceProcessed("F-2025-0043"))

	ini := c.do("POST", "/v1/sandbox/initialize", nil)
	require.Equal(t, http.StatusNoContent, ini.status, "%s", ini.body)
	assert.False(t, s.EInvoiceProcessed("F-2025-0042"), "initialize resets the scheme too")
}

func TestEInvoiceProcessedAfterLastSigner(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	owner := customerOf(t, s, CorporateCustomer2)
	dual := owner.Agreements[1]
	hdrA := c.pisPSU(CorporateCustomer2, Corporate(dual.ID))
	hdrB := c.pisPSU(CorporateCustomer1, Corporate(dual.ID))
	r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(owner.Accounts[1].BBAN), eInvoice("0365327", "F-77")), hdrA...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	c.authorise(r, CorporateCustomer2, hdrA)
	assert.False(t, s.EInvoiceProcessed("F-77"), "PATC: not authorised yet")
	c.authorise(r, CorporateCustomer1, hdrB)
	assert.True(t, s.EInvoiceProcessed("F-77"))
}

// An instant payment runs every day: one dated today on a Saturday, or on a
// public holiday, is executed when the PSU signs, not moved to the next
// banking day.
func TestInstantPaymentNotMovedOffBankingDays(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, today string
	}{
		{"a Saturday", "2025-03-15"},
		{"Good Friday", "2025-04-18"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			day, err := time.ParseInLocation(time.DateOnly, tt.today, bank.Oslo)
			require.NoError(t, err)
			clock := newFakeClock(day.Add(10 * time.Hour))
			s := NewServer(t, WithClock(clock.Now))
			c := newTestClient(t, s)
			hdr := c.pisPSU(PrivateCustomer1)
			debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
			r := c.do("POST", "/v1/payments/"+ProductInstant, singlePayment("10.00", withDebtor(debtor), func(p map[string]any) {
				p["requestedExecutionDate"] = tt.today
			}), hdr...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
			c.authorise(r, PrivateCustomer1, hdr)
			st := c.status(r)
			assert.Equal(t, "ACSC", st["transactionStatus"])
			assert.NotContains(t, st, "requestedExecutionDate")
		})
	}
}

// The answer of a startAuthorisation link is production's small one,
// scaStatus and _links.scaRedirect, for payments and signing baskets alike;
// WithFullAuthorisationAnswer adds authorisationId and the scaStatus link.
func TestAuthorisationAnswer(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{false, true} {
		for _, what := range []string{"payment", "basket"} {
			t.Run(what+"/"+map[bool]string{false: "default", true: "full"}[full], func(t *testing.T) {
				t.Parallel()
				var opts []Option
				if full {
					opts = append(opts, WithFullAuthorisationAnswer())
				}
				s := NewServer(t, opts...)
				c := newTestClient(t, s)
				hdr := c.pisPSU(PrivateCustomer1)
				r, _ := c.basketOf(PrivateCustomer1, hdr)
				base := "/v1/signing-baskets/" + pathSeg(r.json(t)["basketId"].(string))
				if what == "payment" {
					r = c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00"), hdr...)
					require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
					base = "/v1/payments/" + ProductDomestic + "/" + pathSeg(r.json(t)["paymentId"].(string))
				}
				a := c.do("POST", r.link(t, "startAuthorisation"), nil, hdr...)
				require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
				m := a.json(t)
				href := a.link(t, "scaRedirect")
				want := map[string]any{"scaStatus": "started",
					"_links": map[string]any{"scaRedirect": map[string]any{"href": href, "verbs": []any{"GET"}}}}
				if full {
					id, _ := m["authorisationId"].(string)
					require.NotEmpty(t, id)
					want["authorisationId"] = id
					want["_links"].(map[string]any)["scaStatus"] = map[string]any{
						"href": base + "/authorisations/" + pathSeg(id), "verbs": []any{"GET"}}
				}
				assert.Equal(t, want, m)
			})
		}
	}
}
