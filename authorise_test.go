package xs2a_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
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
		if !errors.Is(err, xs2a.ErrCrossOrigin) {
			requireInvalid(t, err, "start")
		}
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

// TestAuthoriseSendsAtMostThree: however the bank answers (lost answers
// only, or a request for SCA between them, which has CallPresent send again
// under a new session), no more than 3 startAuthorisations go out.
func TestAuthoriseSendsAtMostThree(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		answers []int // by POST, repeated
	}{
		{"lost answers", []int{503}},
		{"SCA asked between lost answers", []int{401, 503}}, // 401, 503 (lost), 401: no link
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var posts atomic.Int32
			srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := posts.Add(1)
				if status := tt.answers[int(n-1)%len(tt.answers)]; status == 401 {
					reply(w, 401, `{"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)
				} else {
					reply(w, status, `{}`)
				}
			})
			c := hostileClient(t, srv)
			ctx := context.Background()
			sessions := xs2a.NewSessionManager(nil, nil)
			start, err := sessions.Begin(ctx, "alice", "consent")
			require.NoError(t, err)
			require.NoError(t, sessions.Complete(ctx, "alice", start.SessionID)) // an Active session
			link, err := c.Payments.Authorise(ctx, sessions, "alice", "payment 1", xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"},
				xs2a.Link{Href: "/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers + "/p-1/authorisations"})
			require.Error(t, err)
			if len(tt.answers) == 1 {
				assert.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)
			}
			assert.Nil(t, link)
			assert.EqualValues(t, 3, posts.Load(), "startAuthorisations sent")
		})
	}
}

// TestAuthoriseBadStartKeepsTheSCAUnderWay: a start link Authorise refuses
// begins no session, so the user's SCA under way (a consent) still
// completes.
func TestAuthoriseBadStartKeepsTheSCAUnderWay(t *testing.T) {
	t.Parallel()
	srv := newHostileServer(t, answerNothing)
	c := hostileClient(t, srv)
	ctx := context.Background()
	sessions := xs2a.NewSessionManager(nil, nil)
	consent, err := sessions.Begin(ctx, "alice", "consent")
	require.NoError(t, err)
	psu := xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.10"}
	for _, start := range []xs2a.Link{{}, {Href: "/v1/accounts/a1/balances"}, {Href: "/v1/payments/x/p-1/authorisations/../../.."}} {
		_, err = c.Payments.Authorise(ctx, sessions, "alice", "payment 1", psu, start)
		requireInvalid(t, err, "start")
	}
	pending, ok, err := sessions.Pending(ctx, "alice")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, consent.SessionID, pending, "the consent's session is still the one under way")
	require.NoError(t, sessions.Complete(ctx, "alice", consent.SessionID))
	assert.Zero(t, srv.hits.Load())
}
