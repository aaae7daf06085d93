package xs2atest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// basketOf initiates two payments of customer and puts them in a basket.
func (c *testClient) basketOf(customer string, hdr []string) (basket *res, payments []*res) {
	c.t.Helper()
	debtor := customerOf(c.t, c.s, customer).Accounts[0].BBAN
	var ids []string
	for _, amt := range []string{"1.00", "2.00"} {
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment(amt, withDebtor(debtor)), hdr...)
		require.Equal(c.t, http.StatusCreated, r.status, "%s", r.body)
		ids = append(ids, r.json(c.t)["paymentId"].(string))
		payments = append(payments, r)
	}
	basket = c.do("POST", "/v1/signing-baskets", map[string]any{"paymentIds": ids}, hdr...)
	require.Equal(c.t, http.StatusCreated, basket.status, "%s", basket.body)
	return basket, payments
}

// The basket's resources in the Berlin Group shapes: GET the basket with
// its payments and links, GET status with transactionStatus alone, DELETE
// before authorisation, and the authorisation's scaStatus link.
func TestSigningBasketResources(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFullAuthorisationAnswer()) // reads the authorisation
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	b, payments := c.basketOf(PrivateCustomer1, hdr)
	base := "/v1/signing-baskets/" + pathSeg(b.json(t)["basketId"].(string))
	var ids []any
	for _, p := range payments {
		ids = append(ids, p.json(t)["paymentId"])
	}

	got := c.do("GET", b.link(t, "self"), nil)
	require.Equal(t, http.StatusOK, got.status, "%s", got.body)
	assert.Equal(t, map[string]any{"payments": ids, "transactionStatus": "RCVD", "_links": map[string]any{
		"self":               map[string]any{"href": base, "verbs": []any{"GET", "DELETE"}},
		"status":             map[string]any{"href": base + "/status", "verbs": []any{"GET"}},
		"startAuthorisation": map[string]any{"href": base + "/authorisations", "verbs": []any{"POST"}},
	}}, got.json(t))
	assert.Equal(t, map[string]any{"transactionStatus": "RCVD"}, c.do("GET", b.link(t, "status"), nil).json(t))

	a := c.do("POST", b.link(t, "startAuthorisation"), nil, hdr...)
	require.Equal(t, http.StatusCreated, a.status)
	scaStatus := a.link(t, "scaStatus")
	assert.Equal(t, base+"/authorisations/"+pathSeg(a.json(t)["authorisationId"].(string)), scaStatus)
	assert.Equal(t, "started", c.do("GET", scaStatus, nil).json(t)["scaStatus"])
	c.scaFlow(a.link(t, "scaRedirect"), PrivateCustomer1)
	assert.Equal(t, "finalised", c.do("GET", scaStatus, nil).json(t)["scaStatus"])

	assert.Equal(t, map[string]any{"transactionStatus": "ACTC"}, c.do("GET", b.link(t, "status"), nil).json(t))
	got = c.do("GET", b.link(t, "self"), nil)
	assert.Equal(t, map[string]any{
		"self":   map[string]any{"href": base, "verbs": []any{"GET"}},
		"status": map[string]any{"href": base + "/status", "verbs": []any{"GET"}},
	}, got.json(t)["_links"], "authorised: no DELETE, no startAuthorisation")
	d := c.do("DELETE", b.link(t, "self"), nil)
	assert.Equal(t, http.StatusBadRequest, d.status)
	assert.Equal(t, "CANCELLATION_INVALID", d.code())
}

// DELETE removes a basket that is not authorised: later calls and an SCA
// under way for it fail; the payments in it stay.
func TestSigningBasketDelete(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFullAuthorisationAnswer()) // reads the authorisation
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	b, payments := c.basketOf(PrivateCustomer1, hdr)
	a := c.do("POST", b.link(t, "startAuthorisation"), nil, hdr...)
	require.Equal(t, http.StatusCreated, a.status)

	d := c.do("DELETE", b.link(t, "self"), nil)
	require.Equal(t, http.StatusNoContent, d.status, "%s", d.body)
	assert.Empty(t, d.body)
	for _, call := range []struct{ method, href string }{
		{"GET", b.link(t, "self")}, {"GET", b.link(t, "status")}, {"DELETE", b.link(t, "self")},
		{"POST", b.link(t, "startAuthorisation")},
	} {
		r := c.do(call.method, call.href, nil, hdr...)
		assert.Equal(t, http.StatusNotFound, r.status, call.method+" "+call.href)
		assert.Equal(t, "RESOURCE_UNKNOWN", r.code())
	}
	cb := c.scaFlow(a.link(t, "scaRedirect"), PrivateCustomer1)
	assert.Equal(t, "SCA_INVALID", cb.Get("code"), "the SCA of a deleted basket fails")
	assert.Equal(t, http.StatusNotFound, c.do("GET", a.link(t, "scaStatus"), nil).status, "its authorisation is gone with it")
	for _, p := range payments {
		assert.Equal(t, "RCVD", c.status(p)["transactionStatus"], "the payments stay")
	}
}
