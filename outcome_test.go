package xs2a_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestPaymentsOutcome: a payment whose status the bank does not know before
// approval is waiting for signature, then accepted once signed; each product
// the same way.
func TestPaymentsOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
	for _, product := range []string{xs2a.DomesticNorwayCreditTransfers, xs2a.NorwegianDomesticCreditTransfers} {
		t.Run(product, func(t *testing.T) {
			ini, _, err := b.c.Payments.Initiate(ctx, psu, product, b.payment(t, "10.00", debtor.BBAN), nil)
			require.NoError(t, err)
			outcome, err := b.c.Payments.Outcome(ctx, psu, ini.Links.Status)
			require.NoError(t, err)
			assert.Equal(t, xs2a.OutcomeWaitingForSignature, outcome)
			b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)
			outcome, err = b.c.Payments.Outcome(ctx, psu, ini.Links.Status)
			require.NoError(t, err)
			assert.Equal(t, xs2a.OutcomeAccepted, outcome)
		})
	}
}

// TestPaymentsOutcomeRefusals: only the bank's "no such status yet" reads
// as waiting; a refusal, an outage or a link to something else is an error
// with OutcomeUnknown, never an outcome made up.
func TestPaymentsOutcomeRefusals(t *testing.T) {
	t.Parallel()
	statusHref := "/v1/payments/" + xs2a.DomesticNorwayCreditTransfers + "/p-1/status"
	other := "/v1/payments/" + xs2a.NorwegianDomesticCreditTransfers + "/p-1/status"
	tests := []struct {
		name   string
		status int
		code   string
		href   string
		want   xs2a.PaymentOutcome
		err    bool
	}{
		{"not yet: 404", 404, xs2a.CodeResourceUnknown, statusHref, xs2a.OutcomeWaitingForSignature, false},
		{"not yet: 403 RESOURCE_UNKNOWN", 403, xs2a.CodeResourceUnknown, statusHref, xs2a.OutcomeWaitingForSignature, false},
		{"consent: 401", 401, xs2a.CodeConsentInvalid, statusHref, xs2a.OutcomeUnknown, true},
		{"an outage", 503, "SERVICE_UNAVAILABLE", statusHref, xs2a.OutcomeUnknown, true},
		{"a funds refusal", 400, xs2a.CodeFundsNotAvailable, statusHref, xs2a.OutcomeUnknown, true},
		{"a link to an account", 404, xs2a.CodeResourceUnknown, "/v1/accounts/a1/balances", xs2a.OutcomeUnknown, true},
		{"a 404 of a product that always has a status", 404, xs2a.CodeResourceUnknown, other, xs2a.OutcomeUnknown, true},
		{"a bulk payment's 404", 404, xs2a.CodeResourceUnknown,
			"/v1/bulk-payments/" + xs2a.DomesticNorwayCreditTransfers + "/p-1/status", xs2a.OutcomeUnknown, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				reply(w, tt.status, `{"tppMessages":[{"category":"ERROR","code":"`+tt.code+`"}]}`)
			})
			c := hostileClient(t, srv, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 1}))
			outcome, err := c.Payments.Outcome(context.Background(), xs2a.PSU{ID: hostilePSUID}, xs2a.Link{Href: tt.href})
			assert.Equal(t, tt.want, outcome)
			assert.Equal(t, tt.err, err != nil, "%v", err)
		})
	}
}
