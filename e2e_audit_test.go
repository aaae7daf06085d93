package xs2a_test

import (
	"context"
	"crypto/x509/pkix"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/testcert"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestPaymentRightsWithdrawn: the bank withdraws the payment right on an
// account that stays listed and readable (docs/interface.md SCA6). A payment
// naming it is refused with an error that says so, which is not taken for
// a consent problem; an SCA that picks it fails; another account still
// pays.
func TestPaymentRightsWithdrawn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	blocked, other := b.account(t, xs2atest.PrivateCustomer1, 0), b.account(t, xs2atest.PrivateCustomer1, 1)
	require.True(t, b.WithdrawPaymentRights(blocked.ResourceID))

	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Contains(t, resourceIDs(accounts), blocked.ResourceID, "still listed")
	_, _, err = b.c.Accounts.Balances(ctx, psu, blocked.ResourceID)
	require.NoError(t, err, "still readable")

	_, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", blocked.BBAN), nil)
	e := requireBankError(t, err, http.StatusForbidden, xs2a.CodeServiceBlocked)
	assert.Equal(t, "debtorAccount", e.Messages[0].Path)
	assert.NotErrorIs(t, err, xs2a.ErrConsentInvalid, "the consent is not the cause")
	assert.Contains(t, err.Error(), "payments from this account are not allowed")

	// the PSU picks it at the SCA
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", ""), nil)
	require.NoError(t, err)
	links, _, err := b.c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	u, err := b.CompleteSCA(ctx, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1, xs2atest.Accounts(blocked.ResourceID))
	require.NoError(t, err)
	_, err = xs2a.ParseCallback(u.Query())
	var f *xs2a.SCAFailedError
	require.ErrorAs(t, err, &f)
	assert.Equal(t, xs2a.CodeServiceBlocked, f.Code)

	ini, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", other.BBAN), nil)
	require.NoError(t, err, "another account still pays")
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)

	require.True(t, b.RestorePaymentRights(blocked.ResourceID))
	_, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", blocked.BBAN), nil)
	require.NoError(t, err)
}

// TestCardAccountsOutsideThePSD2Channel: a bank whose card accounts left
// the PSD2 channel answers 404 on /v1/card-accounts (release 1.19.0); the
// SDK's list is empty, without error, and a card read is ErrNotFound.
func TestCardAccountsOutsideThePSD2Channel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithoutCardAccounts())
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	card := b.account(t, xs2atest.PrivateCustomer1, 2)
	require.True(t, card.Card)

	cards, _, err := b.c.CardAccounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Empty(t, cards)
	assert.Equal(t, 1, b.RequestCount(http.MethodGet, "/v1/card-accounts"), "asked once")
	_, _, err = b.c.CardAccounts.Balances(ctx, psu, card.ResourceID)
	requireBankError(t, err, http.StatusNotFound, xs2a.CodeResourceUnknown)
	require.ErrorIs(t, err, xs2a.ErrNotFound)
	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Len(t, accounts, 2, "the accounts are unaffected")
}

// TestPaymentSCAExemption: the bank exempts a payment (no
// startAuthorisation, already accepted), requires SCA at once (a
// scaRedirect in the initiation answer), or asks for it to be started; the
// SDK reports which (docs/interface.md PS1, SCA1).
func TestPaymentSCAExemption(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN

	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", debtor), nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.InitiationSCAStart, ini.SCA(), "the default")

	b.SetPaymentSCA(xs2atest.PaymentSCAExempt)
	ini, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "11.00", debtor), nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.InitiationSCAExempt, ini.SCA())
	assert.True(t, ini.Links.StartAuthorisation.IsZero())
	assert.Contains(t, accepted, ini.TransactionStatus, "accepted at once")
	b.RunBatch()
	st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, fastPoll(nil))
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus, "executed without an SCA")

	b.SetPaymentSCA(xs2atest.PaymentSCARedirect)
	mark := b.RequestCount(http.MethodPost, "/v1/payments")
	ini, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "12.00", debtor), nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.InitiationSCARedirect, ini.SCA())
	assert.True(t, ini.Links.StartAuthorisation.IsZero())
	cb := b.sca(t, ini.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	assert.Equal(t, psu.ID, cb.PSUID)
	assert.Equal(t, mark+1, b.RequestCount(http.MethodPost, "/v1/payments"), "no startAuthorisation sent")
	auth, _, err := b.c.Payments.AuthorisationStatus(ctx, psu, ini.Links.SCAStatusLink)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusFinalised, auth.SCAStatus)
	assert.Contains(t, accepted, b.status(t, psu, ini).TransactionStatus, "signed")
}

// accepted are the statuses of a payment accepted but not yet executed.
var accepted = []xs2a.TransactionStatus{xs2a.TransactionStatusACTC, xs2a.TransactionStatusACCP, xs2a.TransactionStatusPDNG, xs2a.TransactionStatusACWC}

// TestPaymentChangedOrCancelledElsewhere: a payment the PSU changes or
// cancels in the bank's own channels keeps its paymentId (release 1.18.0):
// the TPP's reads under that id show the new amount, and CANC, which ends
// a poll.
func TestPaymentChangedOrCancelledElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", debtor), nil)
	require.NoError(t, err)
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)

	require.True(t, b.ChangePaymentElsewhere(ini.PaymentID, "250.00"))
	got, _, err := b.c.Payments.Get(ctx, psu, ini.Links.Self)
	require.NoError(t, err)
	require.NotNil(t, got.Payment)
	assert.Equal(t, "250.00", got.Payment.InstructedAmount.Amount, "the change shows under the same id")
	assert.Equal(t, ini.PaymentID, got.PaymentID)
	st := b.status(t, psu, ini)
	assert.Equal(t, ini.PaymentID, st.PaymentID)

	require.True(t, b.CancelPaymentElsewhere(ini.PaymentID))
	st, _, err = b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, fastPoll(nil))
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusCANC, st.TransactionStatus)
	assert.True(t, st.TransactionStatus.Final())
	assert.False(t, b.ChangePaymentElsewhere(ini.PaymentID, "1.00"), "a cancelled payment stays cancelled")
	b.RunBatch()
	assert.Equal(t, "CANC", b.PaymentStatus(ini.PaymentID), "the batch does not execute it")
}

// TestTPPRoles: a TPP certificate's PSD2 QCStatement names its roles; the
// bank refuses account information without PSP_AI and payments without
// PSP_PI with 401 ROLE_INVALID, which the SDK reports as the bank's error,
// neither an SCA to start nor a consent problem. A certificate without a
// QCStatement keeps working (docs/interface.md AUTH2).
func TestTPPRoles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		roles          []string
		noAIS, noPayPI bool
	}{
		{"PISP only", []string{testcert.RolePSPPI}, true, false},
		{"AISP only", []string{testcert.RolePSPAI}, false, true},
		{"AISP and PISP", []string{testcert.RolePSPAI, testcert.RolePSPPI}, false, false},
		{"card issuer only", []string{testcert.RolePSPIC}, true, true},
		{"no QCStatement", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := newBank(t)
			pair, err := testcert.New(testcert.Options{
				Subject:   pkix.Name{CommonName: "role test TPP - TEST ONLY", Country: []string{"NO"}},
				Issuer:    pkix.Name{CommonName: "role test CA - TEST ONLY", Country: []string{"NO"}},
				PSD2Roles: tt.roles,
			})
			require.NoError(t, err)
			s, err := xs2a.NewSigner(pair.Key, pair.Cert, nil)
			require.NoError(t, err)
			c, err := b.Client(s, xs2a.WithHTTPClient(&http.Client{Transport: b.rec}))
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}

			_, _, err = c.Accounts.List(ctx, psu)
			if tt.noAIS {
				requireBankError(t, err, http.StatusUnauthorized, xs2a.CodeRoleInvalid)
				assert.NotErrorIs(t, err, xs2a.ErrSCARequired)
				assert.NotErrorIs(t, err, xs2a.ErrConsentInvalid)
			} else {
				requireSCA(t, err)
			}
			_, _, err = c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", ""), nil)
			if tt.noPayPI {
				requireBankError(t, err, http.StatusUnauthorized, xs2a.CodeRoleInvalid)
				assert.NotErrorIs(t, err, xs2a.ErrOutcomeUnknown, "refused: nothing was created")
				assert.Zero(t, b.PaymentCount())
			} else {
				require.NoError(t, err, "a payment of a PSU without PSU-ID (Flow 5)")
			}
		})
	}
}
