package xs2atest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

func TestConsentFlowAndAccountShapes(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)

	r := c.do("GET", "/v1/accounts", nil)
	require.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, "PSU_CREDENTIALS_INVALID", r.code())
	href := r.link(t, "scaRedirect")
	assert.True(t, strings.HasPrefix(href, s.URL()+"/sca/"), href)

	q := c.scaFlow(href, PrivateCustomer1)
	psuID := q.Get("psu-id")
	assert.Regexp(t, uuidRE, psuID)
	assert.Equal(t, "PRIVATE", q.Get("context"))
	assert.Equal(t, "", q.Get("psu-corporate-id"))
	_, has := q["tpp-session-id"]
	assert.True(t, has, "tpp-session-id is always present")
	assert.Equal(t, PSUID(c.tpp.keyID, PrivateCustomer1), psuID, "psu-id is stable per TPP and customer")

	accts := c.accounts(psuID)
	require.Len(t, accts, 2, "card accounts are listed under /v1/card-accounts")
	a := accts[0]
	for _, k := range []string{"resourceId", "bban", "iban", "currency", "name", "product", "cashAccountType", "bic", "ownerName", "_links"} {
		assert.Contains(t, a, k)
	}
	assert.True(t, strings.HasPrefix(a["resourceId"].(string), "enc!!"))
	assert.True(t, validBBAN(a["bban"].(string)))
	assert.Equal(t, bank.IBANOf(a["bban"].(string)), a["iban"])
	assert.Equal(t, "BRUK", a["cashAccountType"])
	assert.Equal(t, "Kari Nordmann", a["ownerName"])
	links := a["_links"].(map[string]any)
	assert.Equal(t, "/v1/accounts/"+pathSeg(a["resourceId"].(string))+"/balances", links["balances"].(map[string]any)["href"])
	assert.Equal(t, []any{"GET"}, links["transactions"].(map[string]any)["verbs"])
	assert.Len(t, []rune(accts[1]["name"].(string)), 35, "names truncated to 35 without longer-names")

	iso := c.accounts(psuID, "X-Accept-Fix", "longer-names, cash-account-type-iso")
	assert.Equal(t, "CACC", iso[0]["cashAccountType"])
	assert.Equal(t, "SVGS", iso[1]["cashAccountType"])
	assert.Equal(t, "Sparekonto for felles husholdning og ferie", iso[1]["name"])

	// a second SCA with only one account ticked narrows the consent
	q = c.consentWithPSU(psuID, PrivateCustomer1, Accounts(a["resourceId"].(string)))
	assert.Equal(t, psuID, q.Get("psu-id"))
	assert.Len(t, c.accounts(psuID), 1)
}

// consentWithPSU runs POST /v1/consents for a known PSU.
func (c *testClient) consentWithPSU(psuID, customer string, opts ...SCAOption) url.Values {
	c.t.Helper()
	r := c.do("POST", "/v1/consents", `{"access":{"allPsd2":"allAccounts"}}`, "PSU-ID", psuID)
	require.Equal(c.t, http.StatusCreated, r.status, "body: %s", r.body)
	assert.Equal(c.t, "received", r.json(c.t)["consentStatus"])
	return c.scaFlow(r.link(c.t, "scaRedirect"), customer, opts...)
}

func TestLongerNamesTruncatesAt70(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer2)
	accts := c.accounts(psu, "X-Accept-Fix", "longer-names")
	assert.Len(t, []rune(accts[1]["name"].(string)), 70)
	assert.Equal(t, "Høyrentekonto med bundet rente og ekstra lang produktbetegnelse for te", accts[1]["name"])
}

func TestBalancesAndDetails(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	id := c.accounts(psu)[0]["resourceId"].(string)
	r := c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status, "%s", r.body)
	m := r.json(t)
	assert.Equal(t, "NOK", m["account"].(map[string]any)["currency"])
	bals := m["balances"].([]any)
	require.Len(t, bals, 3)
	b0 := bals[0].(map[string]any)
	assert.Equal(t, "closingBooked", b0["balanceType"])
	assert.Equal(t, map[string]any{"amount": "25345.12", "currency": "NOK"}, b0["balanceAmount"])
	for _, b := range bals {
		assert.Equal(t, "NOK", b.(map[string]any)["balanceAmount"].(map[string]any)["currency"])
	}
	r = c.do("GET", "/v1/accounts/"+pathSeg(id), nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status)
	assert.Equal(t, id, r.json(t)["account"].(map[string]any)["resourceId"])

	r = c.do("GET", "/v1/accounts/enc!!nope/balances", nil, "PSU-ID", psu)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "RESOURCE_UNKNOWN", r.code())
}

func TestTransactionsPagingAndPending(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	q := c.consent(PrivateCustomer1, []string{"PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", "s1"})
	psu := q.Get("psu-id")
	present := []string{"PSU-ID", psu, "PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", "s1"}
	id := c.accounts(psu, present[2:]...)[0]["resourceId"].(string)

	// booked: 1100 entries in 3 pages of 499, 499, 102, newest first, stable ids
	next := "/v1/accounts/" + pathSeg(id) + "/transactions?bookingStatus=both"
	var sizes []int
	var previous []string // each page's previous link ("" for none)
	firstIDs := map[string]string{}
	seen := map[string]bool{}
	pendingPages := 0
	last := "9999-12-31"
	for next != "" {
		r := c.do("GET", next, nil, present...)
		require.Equal(t, 200, r.status, "%s", r.body)
		m := r.json(t)
		tx := m["transactions"].(map[string]any)
		booked := tx["booked"].([]any)
		sizes = append(sizes, len(booked))
		for _, e := range booked {
			e := e.(map[string]any)
			assert.False(t, seen[e["transactionId"].(string)])
			seen[e["transactionId"].(string)] = true
			assert.LessOrEqual(t, e["bookingDate"].(string), last)
			last = e["bookingDate"].(string)
			assert.Contains(t, e, "valueDate")
		}
		if p := tx["pending"].([]any); len(p) > 0 {
			pendingPages++
			assert.Len(t, p, 2)
			assert.NotContains(t, p[0].(map[string]any), "valueDate")
		}
		firstIDs[next] = booked[0].(map[string]any)["transactionId"].(string)
		next = ""
		l := tx["_links"].(map[string]any)
		assert.Equal(t, "/v1/accounts/"+pathSeg(id), l["account"].(map[string]any)["href"], "Berlin Group: the account link, always")
		if n, ok := l["next"].(map[string]any); ok {
			next = n["href"].(string)
			assert.True(t, strings.HasPrefix(next, "/v1/accounts/"+pathSeg(id)+"/transactions?"), next)
		}
		p, _ := l["previous"].(map[string]any)
		prev, _ := p["href"].(string)
		previous = append(previous, prev)
	}
	assert.Equal(t, []int{499, 499, 102}, sizes)
	assert.Equal(t, 3, pendingPages, "all pending entries come on every page")
	base := "/v1/accounts/" + pathSeg(id) + "/transactions?bookingStatus=both&limit=499"
	assert.Equal(t, []string{"", base + "&offset=0", base + "&offset=499"}, previous, "previous links, as member banks document")
	r := c.do("GET", previous[2], nil, present...)
	require.Equal(t, 200, r.status)
	second := r.json(t)["transactions"].(map[string]any)
	assert.Equal(t, firstIDs[base+"&offset=499"], second["booked"].([]any)[0].(map[string]any)["transactionId"], "previous leads back a page")
	assert.Equal(t, base+"&offset=998", second["_links"].(map[string]any)["next"].(map[string]any)["href"])

	// pending is not filtered by dates or limit, for pending and both alike
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions?bookingStatus=pending&dateFrom=2000-01-01&dateTo=2000-01-02&limit=1", nil, present...)
	require.Equal(t, 200, r.status)
	tx := r.json(t)["transactions"].(map[string]any)
	assert.Len(t, tx["pending"].([]any), 2)
	assert.NotContains(t, tx, "booked")
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions?bookingStatus=both&dateTo=2000-01-02&limit=1", nil, present...)
	require.Equal(t, 200, r.status)
	tx = r.json(t)["transactions"].(map[string]any)
	assert.Len(t, tx["pending"].([]any), 2, "dateTo does not filter pending entries")
	assert.Empty(t, tx["booked"], "dateTo filters booked ones")

	// limit and dates filter booked; default status is booked
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions?limit=5", nil, present...)
	tx = r.json(t)["transactions"].(map[string]any)
	assert.Len(t, tx["booked"].([]any), 5)
	assert.NotContains(t, tx, "pending")

	for _, bad := range []string{"bookingStatus=any", "dateFrom=12-03-2025", "limit=0", "limit=x", "offset=-1", "dateFrom=2025-03-10&dateTo=2025-03-01"} {
		r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions?"+bad, nil, present...)
		assert.Equal(t, 400, r.status, bad)
		assert.Equal(t, "FORMAT_ERROR", r.code(), bad)
	}

	// transaction details
	var tid string
	for k := range seen {
		tid = k
		break
	}
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions/"+pathSeg(tid), nil, present...)
	require.Equal(t, 200, r.status)
	assert.Equal(t, tid, r.json(t)["transactionsDetails"].(map[string]any)["transactionId"])
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions/enc!!missing", nil, present...)
	assert.Equal(t, 404, r.status)
}

func TestPSUNotPresentLimits(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	id := c.accounts(psu)[0]["resourceId"].(string)
	other := c.accounts(psu)[1]["resourceId"].(string)
	for i := range 4 {
		r := c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu)
		require.Equal(t, 200, r.status, "call %d", i+1)
	}
	r := c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu)
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "ACCESS_EXCEEDED", r.code())
	// per account and endpoint
	assert.Equal(t, 200, c.do("GET", "/v1/accounts/"+pathSeg(other)+"/balances", nil, "PSU-ID", psu).status)
	assert.Equal(t, 200, c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions", nil, "PSU-ID", psu).status)
	// the PSU present is not limited
	q := c.consentWithPSU(psu, PrivateCustomer1)
	assert.Equal(t, 200, c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu,
		"PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", q.Get("tpp-session-id")).status)
	// rolling 24 hours
	clock.Advance(24*time.Hour + time.Minute)
	assert.Equal(t, 200, c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu).status)

	// 90 days without the PSU present
	old := bank.DateOf(clock.Now()).AddDate(0, 0, -91).Format(time.DateOnly)
	r = c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions?dateFrom="+old, nil, "PSU-ID", psu)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "PERIOD_INVALID", r.code())
	r = c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions?dateFrom="+old, nil, "PSU-ID", psu,
		"PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", q.Get("tpp-session-id"))
	assert.Equal(t, 401, r.status, "the session of the earlier SCA has expired by now")
	q = c.consentWithPSU(psu, PrivateCustomer1)
	r = c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions?dateFrom="+old, nil, "PSU-ID", psu,
		"PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", q.Get("tpp-session-id"))
	assert.Equal(t, 200, r.status)
	// without dateFrom, PSU not present: only the last 90 days
	r = c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status)
	limit := bank.DateOf(clock.Now()).AddDate(0, 0, -90).Format(time.DateOnly)
	for _, e := range r.json(t)["transactions"].(map[string]any)["booked"].([]any) {
		assert.GreaterOrEqual(t, e.(map[string]any)["bookingDate"], limit)
	}
	// an account not SCA'd for 90 days needs SCA again
	clock.Advance(91 * 24 * time.Hour)
	r = c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions", nil, "PSU-ID", psu)
	assert.Equal(t, 401, r.status)
	assert.NotEmpty(t, r.link(t, "scaRedirect"))
}

// TestNinetyDaysCountFromLastOnlineAccessWithSCA: docs/interface.md, Limits:
// transactions without the PSU present are read for "accounts the PSU
// accessed online with SCA within the last 90 days". The 90 days count from
// the later of the consent SCA and the last request for the account with the
// PSU present under a valid SCA session, not from the consent alone.
func TestNinetyDaysCountFromLastOnlineAccessWithSCA(t *testing.T) {
	t.Parallel()
	const ip = "192.0.2.7"
	tests := []struct {
		name   string
		day80  func(c *testClient, psu, acc, other string) // after a new session SCA (TPP-Session-ID s2) on day 80
		status int                                         // of the PSU-not-present read of acc on day 95
	}{
		{"no online access: counts from the consent SCA", func(*testClient, string, string, string) {}, 401},
		{"online transactions read under the new session", func(c *testClient, psu, acc, _ string) {
			r := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu, "PSU-IP-Address", ip, "TPP-Session-ID", "s2")
			require.Equal(c.t, 200, r.status, "%s", r.body)
		}, 200},
		{"online balances read under the new session", func(c *testClient, psu, acc, _ string) {
			r := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/balances", nil, "PSU-ID", psu, "PSU-IP-Address", ip, "TPP-Session-ID", "s2")
			require.Equal(c.t, 200, r.status, "%s", r.body)
		}, 200},
		{"online read of another account", func(c *testClient, psu, _, other string) {
			r := c.do("GET", "/v1/accounts/"+pathSeg(other)+"/transactions", nil, "PSU-ID", psu, "PSU-IP-Address", ip, "TPP-Session-ID", "s2")
			require.Equal(c.t, 200, r.status, "%s", r.body)
		}, 401},
		{"online read under the old, invalidated session", func(c *testClient, psu, acc, _ string) {
			r := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu, "PSU-IP-Address", ip, "TPP-Session-ID", "s1")
			require.Equal(c.t, 401, r.status, "%s", r.body)
		}, 401},
		{"PSU-not-present read", func(c *testClient, psu, acc, _ string) {
			r := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu)
			require.Equal(c.t, 200, r.status, "%s", r.body)
		}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(wednesday10)
			s := NewServer(t, WithClock(clock.Now))
			c := newTestClient(t, s)
			kari := customerOf(t, s, PrivateCustomer1)
			acc, other := kari.Accounts[0].ResourceID, kari.Accounts[1].ResourceID
			// day 0: consent with SCA under session s1
			psu := c.consent(PrivateCustomer1, []string{"PSU-IP-Address", ip, "TPP-Session-ID", "s1"}).Get("psu-id")
			require.NotEmpty(t, psu)

			// day 80: a new SCA session s2 (not a consent), then the case's requests
			clock.Advance(80 * 24 * time.Hour)
			u := c.do("GET", "/v1/users", nil, "PSU-ID", psu, "TPP-Session-ID", "s2")
			require.Equal(t, 200, u.status, "%s", u.body)
			assert.Equal(t, "s2", c.scaFlow(u.link(t, "scaRedirect"), PrivateCustomer1).Get("tpp-session-id"))
			tt.day80(c, psu, acc, other)

			// day 95: PSU not present
			clock.Advance(15 * 24 * time.Hour)
			r := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu)
			assert.Equal(t, tt.status, r.status, "%s", r.body)
			if tt.status == 401 {
				assert.Equal(t, "CONSENT_EXPIRED", r.code())
				assert.NotEmpty(t, r.link(t, "scaRedirect"))
				return
			}
			// day 171: 91 days after the online access, the rule applies again
			clock.Advance(76 * 24 * time.Hour)
			r = c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu)
			assert.Equal(t, 401, r.status, "%s", r.body)
		})
	}
}

// The SCA renewal of PSU-not-present reads: 90 days after the PSU's last
// access with SCA by default, as the interface says; WithSCARenewal sets
// another period, such as the 180 days member banks' portals give.
func TestSCARenewalOption(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tests := []struct {
		name   string
		opts   []Option
		served []time.Duration // reads after the consent SCA that are served
		sca    time.Duration   // the first read that needs an SCA again
	}{
		{"default 90 days", nil, []time.Duration{90 * day}, 90*day + time.Minute},
		{"180 days", []Option{WithSCARenewal(180 * day)}, []time.Duration{91 * day, 180 * day}, 180*day + time.Minute},
		{"zero keeps the default", []Option{WithSCARenewal(0)}, []time.Duration{90 * day}, 90*day + time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(wednesday10)
			s := NewServer(t, append([]Option{WithClock(clock.Now)}, tt.opts...)...)
			c := newTestClient(t, s)
			psu := c.privatePSU(PrivateCustomer1)
			acc := customerOf(t, s, PrivateCustomer1).Accounts[0].ResourceID
			read := func(at time.Duration) *res {
				clock.Advance(wednesday10.Add(at).Sub(clock.Now()))
				return c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, "PSU-ID", psu)
			}
			for _, at := range tt.served {
				r := read(at)
				assert.Equal(t, 200, r.status, "after %v: %s", at, r.body)
			}
			r := read(tt.sca)
			assert.Equal(t, 401, r.status, "%s", r.body)
			assert.Equal(t, "CONSENT_EXPIRED", r.code())
			assert.NotEmpty(t, r.link(t, "scaRedirect"))
		})
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	ip := []string{"PSU-IP-Address", "192.0.2.1"}
	q := c.consent(PrivateCustomer1, append(ip, "TPP-Session-ID", "A"))
	psu := q.Get("psu-id")
	assert.Equal(t, "A", q.Get("tpp-session-id"))
	get := func(session string) *res {
		return c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", session)
	}
	assert.Equal(t, 200, get("A").status)
	// a new session id within the hour needs SCA
	r := get("B")
	require.Equal(t, 401, r.status)
	hrefB := r.link(t, "scaRedirect")
	// aborting that SCA keeps A valid
	cb, err := s.CompleteSCA(t.Context(), hrefB, PrivateCustomer1, Cancel())
	require.NoError(t, err)
	assert.Equal(t, "401", cb.Query().Get("status"))
	assert.Equal(t, "SCA_INVALID", cb.Query().Get("code"))
	assert.NotEmpty(t, cb.Query().Get("message"))
	assert.Empty(t, cb.Query().Get("psu-id"))
	assert.Equal(t, 200, get("A").status)
	// completing it invalidates A
	r = get("B")
	q = c.scaFlow(r.link(t, "scaRedirect"), PrivateCustomer1)
	assert.Equal(t, "B", q.Get("tpp-session-id"))
	assert.Equal(t, 200, get("B").status)
	assert.Equal(t, 401, get("A").status)
	// one hour later B has expired; the PSU-not-present path still works
	clock.Advance(time.Hour)
	assert.Equal(t, 401, get("B").status)
	assert.Equal(t, 200, c.do("GET", "/v1/accounts", nil, "PSU-ID", psu).status)
}

// The PSU's account-information session (TPP-Session-ID A) ends only when
// the SCA of a new TPP-Session-ID completes (docs/interface.md CS4): not at a
// payment SCA without TPP-Session-ID, and not at an SCA of a new id that the
// PSU aborts after signing in, whether it would consent or sign.
func TestSessionsAndOtherSCAs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		session string // TPP-Session-ID of the second SCA's request
		payment bool   // the second SCA signs a payment; else a consent
		abort   bool   // the PSU cancels after signing in
		aValid  bool   // session A afterwards
	}{
		{"payment SCA without TPP-Session-ID", "", true, false, true},
		{"payment SCA of a new id", "B", true, false, false},
		{"payment SCA of a new id aborted after sign-in", "B", true, true, true},
		{"consent SCA of a new id aborted after sign-in", "B", false, true, true},
		{"consent SCA of a new id", "B", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			c := newTestClient(t, s)
			ip := []string{"PSU-IP-Address", "192.0.2.1"}
			psu := c.consent(PrivateCustomer1, append(ip, "TPP-Session-ID", "A")).Get("psu-id")
			get := func(session string) int {
				return c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "PSU-IP-Address", "192.0.2.1", "TPP-Session-ID", session).status
			}
			require.Equal(t, 200, get("A"))
			hdr := append([]string{"PSU-ID", psu}, ip...)
			if tt.session != "" {
				hdr = append(hdr, "TPP-Session-ID", tt.session)
			}
			var href string
			if tt.payment {
				r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00",
					withDebtor(customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN)), hdr...)
				require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
				href = c.do("POST", r.link(t, "startAuthorisation"), nil, hdr...).link(t, "scaRedirect")
			} else {
				r := c.do("GET", "/v1/accounts", nil, hdr...)
				require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
				href = r.link(t, "scaRedirect")
			}
			if tt.abort {
				b := &browser{t: t, hc: s.browser}
				status, _, _ := b.post(href, url.Values{"step": {"login"}, "nationalId": {PrivateCustomer1}})
				require.Equal(t, http.StatusSeeOther, status)
				_, _, page := b.get(href)
				require.NotContains(t, page, `value="login"`, "signed in")
				status, loc, _ := b.post(href, url.Values{"action": {"cancel"}})
				require.Equal(t, http.StatusSeeOther, status)
				assert.Contains(t, loc, "code=SCA_INVALID")
			} else {
				q := c.scaFlow(href, PrivateCustomer1)
				require.Equal(t, psu, q.Get("psu-id"))
			}
			want := map[bool]int{true: 200, false: 401}
			assert.Equal(t, want[tt.aValid], get("A"), "session A")
			if tt.session != "" {
				assert.Equal(t, want[!tt.abort], get(tt.session), "session "+tt.session)
			}
		})
	}
}

func TestConsentErrors(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	accts := c.accounts(psu)

	t.Run("bad PSU-ID format", func(t *testing.T) {
		r := c.do("GET", "/v1/accounts", nil, "PSU-ID", "13039319955")
		assert.Equal(t, 400, r.status)
		assert.Equal(t, "FORMAT_ERROR", r.code())
	})
	t.Run("unknown PSU-ID", func(t *testing.T) {
		r := c.do("GET", "/v1/accounts", nil, "PSU-ID", "0b8f0f8e-2a11-4c4e-9d61-6f7e4b1c5a2d")
		assert.Equal(t, 401, r.status)
		assert.NotEmpty(t, r.link(t, "scaRedirect"))
	})
	t.Run("PSU-ID of another TPP", func(t *testing.T) {
		other := newTestClient(t, s)
		other.tpp = rsaTPP2
		r := other.do("GET", "/v1/accounts", nil, "PSU-ID", psu)
		assert.Equal(t, 401, r.status)
	})
	t.Run("unprocessable text", func(t *testing.T) {
		r := c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "TPP-Session-ID", "s😀")
		assert.Equal(t, 400, r.status)
		assert.Equal(t, "FORMAT_ERROR", r.code())
	})
	t.Run("closed account", func(t *testing.T) {
		s2 := NewServer(t)
		c2 := newTestClient(t, s2)
		p2 := c2.privatePSU(PrivateCustomer2)
		for _, a := range c2.accounts(p2) {
			require.True(t, s2.CloseAccount(a["resourceId"].(string)))
		}
		r := c2.do("GET", "/v1/accounts", nil, "PSU-ID", p2)
		require.Equal(t, 200, r.status)
		assert.JSONEq(t, `{"accounts":[]}`, string(r.body))
	})
	t.Run("revoked at the bank", func(t *testing.T) {
		s2 := NewServer(t)
		c2 := newTestClient(t, s2)
		p2 := c2.privatePSU(PrivateCustomer2)
		id := c2.accounts(p2)[0]["resourceId"].(string)
		s2.RevokeConsent(PrivateCustomer2)
		for _, path := range []string{"/v1/accounts", "/v1/accounts/" + pathSeg(id) + "/balances"} {
			r := c2.do("GET", path, nil, "PSU-ID", p2)
			assert.Equal(t, 403, r.status, path)
			assert.Equal(t, "CONSENT_UNKNOWN", r.code())
		}
		c2.consentWithPSU(p2, PrivateCustomer2)
		assert.Len(t, c2.accounts(p2), 2)
	})
	t.Run("account without consent", func(t *testing.T) {
		other := customerOf(t, s, PrivateCustomer2).Accounts[0].ResourceID
		r := c.do("GET", "/v1/accounts/"+pathSeg(other)+"/balances", nil, "PSU-ID", psu)
		assert.Equal(t, 401, r.status)
		assert.Equal(t, "CONSENT_INVALID", r.code())
	})
	t.Run("unknown endpoint", func(t *testing.T) {
		r := c.do("GET", "/v1/nothing", nil)
		assert.Equal(t, 404, r.status)
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	})
	_ = accts
}

func TestCardAccounts(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	r := c.do("GET", "/v1/card-accounts", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status, "%s", r.body)
	cards := r.json(t)["cardAccounts"].([]any)
	require.Len(t, cards, 1)
	card := cards[0].(map[string]any)
	for _, k := range []string{"resourceId", "maskedPan", "currency", "name", "product", "creditLimit", "balances", "_links"} {
		assert.Contains(t, card, k)
	}
	id := card["resourceId"].(string)
	href := card["_links"].(map[string]any)["transactions"].(map[string]any)["href"].(string)
	assert.Equal(t, "/v1/card-accounts/"+pathSeg(id)+"/transactions", href)

	legacy := c.do("GET", href+"?limit=60", nil, "PSU-ID", psu, "PSU-IP-Address", "192.0.2.9", "TPP-Session-ID", "other")
	require.Equal(t, 401, legacy.status, "PSU present without a session")
	q := c.consentWithPSU(psu, PrivateCustomer1)
	hdr := []string{"PSU-ID", psu, "PSU-IP-Address", "192.0.2.9", "TPP-Session-ID", q.Get("tpp-session-id")}
	legacy = c.do("GET", href+"?limit=60", nil, hdr...)
	fixed := c.do("GET", href+"?limit=60", nil, append(hdr, "X-Accept-Fix", "cardaccount-switch-originalamount-and-transactionamount")...)
	require.Equal(t, 200, legacy.status, "%s", legacy.body)
	lm, fm := legacy.json(t), fixed.json(t)
	assert.Equal(t, "541275******1234", lm["cardAccount"].(map[string]any)["maskedPan"])
	lb := lm["cardTransactions"].(map[string]any)["booked"].([]any)
	fb := fm["cardTransactions"].(map[string]any)["booked"].([]any)
	require.Len(t, fb, 60)
	foreign := 0
	for i := range fb {
		f, l := fb[i].(map[string]any), lb[i].(map[string]any)
		assert.Equal(t, "NOK", f["transactionAmount"].(map[string]any)["currency"], "fixed: transactionAmount in the account currency")
		assert.Equal(t, f["transactionAmount"], l["originalAmount"])
		assert.Equal(t, f["originalAmount"], l["transactionAmount"])
		if f["originalAmount"].(map[string]any)["currency"] != "NOK" {
			foreign++
		}
		for _, k := range []string{"cardTransactionId", "transactionDate", "bookingDate", "transactionDetails"} {
			assert.Contains(t, f, k)
		}
	}
	assert.Positive(t, foreign)
	// offset and limit page card transactions
	r = c.do("GET", href+"?limit=25&offset=50", nil, hdr...)
	require.Equal(t, 200, r.status)
	ct := r.json(t)["cardTransactions"].(map[string]any)
	assert.Len(t, ct["booked"].([]any), 10)
	assert.Equal(t, map[string]any{
		"self":     map[string]any{"href": href + "?limit=25&offset=50", "verbs": []any{"GET"}},
		"previous": map[string]any{"href": href + "?bookingStatus=booked&limit=25&offset=25", "verbs": []any{"GET"}},
	}, ct["_links"], "the last page: a self link (Berlin Group: _links is required) and previous, no next")

	// card pending entries are filtered by dateTo (transactionDate), unlike an account's
	r = c.do("GET", href+"?bookingStatus=both", nil, hdr...)
	require.Equal(t, 200, r.status)
	pending := r.json(t)["cardTransactions"].(map[string]any)["pending"].([]any)
	require.NotEmpty(t, pending)
	newest := ""
	for _, p := range pending {
		newest = max(newest, p.(map[string]any)["transactionDate"].(string))
	}
	day, err := time.Parse(time.DateOnly, newest)
	require.NoError(t, err)
	r = c.do("GET", href+"?bookingStatus=both&dateTo="+day.AddDate(0, 0, -1).Format(time.DateOnly), nil, hdr...)
	require.Equal(t, 200, r.status)
	before := r.json(t)["cardTransactions"].(map[string]any)["pending"].([]any)
	assert.Less(t, len(before), len(pending), "a pending card entry after dateTo is left out")
	for _, p := range before {
		assert.Less(t, p.(map[string]any)["transactionDate"].(string), newest)
	}
}

func TestCorporateContext(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	cust := customerOf(t, s, CorporateCustomer2)
	require.Len(t, cust.Agreements, 2)
	main := cust.Agreements[0]

	q := c.consent(CorporateCustomer2, nil, Corporate(main.ID))
	psu, corp := q.Get("psu-id"), q.Get("psu-corporate-id")
	assert.Equal(t, "CORPORATE", q.Get("context"))
	assert.Equal(t, CorporateID(c.tpp.keyID, main.ID), corp)

	r := c.do("GET", "/v1/accounts", nil, "PSU-ID", psu)
	assert.Equal(t, 400, r.status)
	assert.Equal(t, "CORPORATE_ID_INVALID", r.code())

	accts := c.accounts(psu, "PSU-Corporate-ID", corp)
	require.Len(t, accts, 1)
	assert.Equal(t, main.Accounts[0], accts[0]["resourceId"])
	assert.Equal(t, "Fjellvind Shipping AS", accts[0]["ownerName"])

	// agreements: ids are psu-corporate-ids
	r = c.do("GET", "/v1/agreements", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status)
	ags := r.json(t)["agreements"].([]any)
	require.Len(t, ags, 2)
	second := ags[1].(map[string]any)
	assert.Equal(t, CorporateID(c.tpp.keyID, cust.Agreements[1].ID), second["id"])
	assert.NotEmpty(t, second["organisationNumber"])

	// an agreement without consent: a consent flow where the agreement is preselected
	r = c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "PSU-Corporate-ID", second["id"].(string))
	require.Equal(t, 401, r.status)
	q = c.scaFlow(r.link(t, "scaRedirect"), CorporateCustomer2)
	assert.Equal(t, second["id"], q.Get("psu-corporate-id"))
	assert.Len(t, c.accounts(psu, "PSU-Corporate-ID", second["id"].(string)), 1)

	r = c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "PSU-Corporate-ID", "0b8f0f8e-2a11-4c4e-9d61-6f7e4b1c5a2d")
	assert.Equal(t, "CORPORATE_ID_INVALID", r.code())

	// a corporate customer has no private context
	r = c.do("GET", "/v1/accounts", nil)
	_, err := s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), CorporateCustomer1, Private())
	assert.Error(t, err)
}

func TestUsersAndAgreementsNeedPSU(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	for _, path := range []string{"/v1/users", "/v1/user"} {
		r := c.do("GET", path, nil, "TPP-Session-ID", "reg-1")
		require.Equal(t, 200, r.status, path)
		q := c.scaFlow(r.link(t, "scaRedirect"), PrivateCustomer2)
		assert.Equal(t, PSUID(c.tpp.keyID, PrivateCustomer2), q.Get("psu-id"))
		assert.Equal(t, "reg-1", q.Get("tpp-session-id"))
	}
	r := c.do("GET", "/v1/agreements", nil)
	assert.Equal(t, 401, r.status)
	// a registered PSU without consent has no accounts yet
	r = c.do("GET", "/v1/accounts", nil, "PSU-ID", PSUID(c.tpp.keyID, PrivateCustomer2))
	assert.Equal(t, 401, r.status)
	assert.Equal(t, "CONSENT_INVALID", r.code())
	r = c.do("GET", "/v1/agreements", nil, "PSU-ID", PSUID(c.tpp.keyID, PrivateCustomer2))
	require.Equal(t, 200, r.status)
	assert.JSONEq(t, `{"agreements":[]}`, string(r.body))
}

// TestCardAccountsNotLimited: docs/interface.md's Limits name only
// /v1/accounts/{id}/balances and /v1/accounts/{id}/transactions, so card
// account calls without the PSU present are neither counted (4 per 24 h)
// nor held to the 90-day rules.
func TestCardAccountsNotLimited(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	card := customerOf(t, s, PrivateCustomer1).Accounts[2]
	require.True(t, card.Card)
	base := "/v1/card-accounts/" + pathSeg(card.ResourceID)
	for i := range 6 {
		r := c.do("GET", base+"/transactions", nil, "PSU-ID", psu)
		require.Equal(t, 200, r.status, "transactions call %d: %s", i+1, r.body)
		r = c.do("GET", base+"/balances", nil, "PSU-ID", psu)
		require.Equal(t, 200, r.status, "balances call %d: %s", i+1, r.body)
	}
	// no 90-day window: dateFrom may be older, and without it every entry comes
	old := bank.DateOf(clock.Now()).AddDate(0, 0, -119).Format(time.DateOnly)
	r := c.do("GET", base+"/transactions?dateFrom="+old, nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status, "body: %s", r.body)
	r = c.do("GET", base+"/transactions", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status)
	booked := r.json(t)["cardTransactions"].(map[string]any)["booked"].([]any)
	assert.Len(t, booked, card.Booked, "no default window of 90 days")
	// no SCA needed again after 90 days
	clock.Advance(91 * 24 * time.Hour)
	r = c.do("GET", base+"/transactions", nil, "PSU-ID", psu)
	assert.Equal(t, 200, r.status, "body: %s", r.body)
	// the account endpoints still are limited
	id := customerOf(t, s, PrivateCustomer1).Accounts[0].ResourceID
	r = c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions", nil, "PSU-ID", psu)
	assert.Equal(t, 401, r.status, "an account not SCA'd within 90 days")
}

// TestPSUIDAnyCase: a UUID's hex digits compare case-insensitively, so an
// upper-case PSU-ID (and PSU-Corporate-ID) works on every endpoint alike.
func TestPSUIDAnyCase(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	cust := customerOf(t, s, CorporateCustomer2)
	require.Len(t, cust.Agreements, 2)
	q := c.consent(CorporateCustomer2, nil, Corporate(cust.Agreements[0].ID))
	psu := strings.ToUpper(q.Get("psu-id"))
	corp := strings.ToUpper(q.Get("psu-corporate-id"))
	require.NotEqual(t, q.Get("psu-id"), psu, "the bank gives lower-case ids")

	r := c.do("GET", "/v1/agreements", nil, "PSU-ID", psu)
	require.Equal(t, 200, r.status, "body: %s", r.body)
	ags := r.json(t)["agreements"].([]any)
	require.Len(t, ags, 2)
	assert.Len(t, c.accounts(psu, "PSU-Corporate-ID", corp), 1)

	// the consent flow preselects the agreement named by PSU-Corporate-ID
	second := strings.ToUpper(ags[1].(map[string]any)["id"].(string))
	r = c.do("POST", "/v1/consents", map[string]any{}, "PSU-ID", psu, "PSU-Corporate-ID", second)
	require.Equal(t, 201, r.status, "body: %s", r.body)
	q = c.scaFlow(r.link(t, "scaRedirect"), CorporateCustomer2)
	assert.Equal(t, strings.ToLower(second), q.Get("psu-corporate-id"))
}
