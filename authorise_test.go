package xs2a_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestAuthoriseAfterLostAnswers: each lost startAuthorisation answer is sent
// again, 3 in all; the payment is sent once whatever happens, and the SCA
// whose link came back resolves to the user and purpose and accepts the
// payment.
func TestAuthoriseAfterLostAnswers(t *testing.T) {
	t.Parallel()
	for _, lost := range []int{0, 1, 2, 3} {
		t.Run(strconv.Itoa(lost)+" lost", func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := newBank(t)
			psu := b.register(t, xs2atest.PrivateCustomer1)
			ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers,
				b.payment(t, "10.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN), nil)
			require.NoError(t, err)
			if lost > 0 {
				b.AddFault(xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: lost})
			}
			sessions := xs2a.NewSessionManager(nil, b.clock.Now)
			link, err := b.c.Payments.Authorise(ctx, sessions, "alice", "payment 1", psu, ini.Links.StartAuthorisation)

			assert.Equal(t, 1, b.PaymentCount(), "the payment is never sent again")
			starts := 0
			for _, r := range b.Requests() {
				if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/authorisations") {
					starts++
				}
			}
			assert.Equal(t, min(lost+1, 3), starts, "startAuthorisations")
			if lost == 3 {
				assert.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)
				assert.Nil(t, link)
				return
			}
			require.NoError(t, err)
			u, err := b.CompleteSCA(ctx, link.Href, xs2atest.PrivateCustomer1)
			require.NoError(t, err)
			res, err := sessions.Callback(ctx, u.Query())
			require.NoError(t, err)
			assert.Equal(t, [2]string{"alice", "payment 1"}, [2]string{res.User, res.Purpose})
			st, _, err := b.c.Payments.Status(ctx, psu, ini.Links.Status)
			require.NoError(t, err)
			assert.Equal(t, xs2a.OutcomeAccepted, st.Outcome())
		})
	}
}

// TestAuthoriseSendsNoPayment: a start link that leads anywhere but to
// an authorisation (the payment's own endpoint, another origin) is refused
// before anything is sent, and an answer without a link for the browser is
// an error, not a nil link.
func TestAuthoriseSendsNoPayment(t *testing.T) {
	t.Parallel()
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 201, `{"scaStatus":"received","_links":{}}`)
	})
	c := hostileClient(t, srv)
	sessions := xs2a.NewSessionManager(nil, nil)
	psu := xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"}
	for _, start := range []string{
		"/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers,
		"/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers + "/p-1",
		"https://bank.example.org/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers + "/p-1/authorisations",
		"",
	} {
		link, err := c.Payments.Authorise(context.Background(), sessions, "alice", "payment 1", psu, xs2a.Link{Href: start})
		assert.Error(t, err, start)
		assert.Nil(t, link)
	}
	assert.Zero(t, srv.hits.Load(), "nothing sent")

	link, err := c.Payments.Authorise(context.Background(), sessions, "alice", "payment 1", psu,
		xs2a.Link{Href: "/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers + "/p-1/authorisations"})
	assert.Nil(t, link)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "no scaRedirect"), err.Error())
	assert.EqualValues(t, 1, srv.hits.Load())
}
