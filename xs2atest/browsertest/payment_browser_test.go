package browsertest

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// A PISP-only journey in the browser: a payment initiated without PSU-ID and
// without a debtor; at its one SCA the person signs in, chooses the context,
// the account to pay from (not the preselected one) and signs the payment
// the page shows. The bank then books it from that account.
func TestPaymentSCAInBrowser(t *testing.T) {
	browser := startBrowser(t)
	ctx := context.Background()
	tp := newTPP(t)
	bank, c := bankAndClient(t, tp)
	payer, _ := bank.Customer(xs2atest.PrivateCustomer1)
	payee, _ := bank.Customer(xs2atest.CorporateCustomer1)
	amount, err := xs2a.ParseAmount("NOK", "100.00")
	require.NoError(t, err)
	stranger := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP} // no psu-id yet
	ini, _, err := c.Payments.Initiate(ctx, stranger, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount:                  amount,
		CreditorAccount:                   xs2a.AccountReference{BBAN: payee.Accounts[0].BBAN},
		CreditorName:                      payee.Name,
		RemittanceInformationUnstructured: "Husleie mars",
	}, nil)
	require.NoError(t, err)
	links, _, err := c.Payments.StartAuthorisation(ctx, stranger, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	before := map[string]string{}
	for _, a := range payer.Accounts {
		before[a.ResourceID] = bank.Balance(a.ResourceID)
	}

	tab := newTab(t, browser)
	var chosenContext, debtor string
	require.NoError(t, chromedp.Do(tab,
		chromedp.Navigate(links.Links.SCARedirect.Href),
		signIn(xs2atest.PrivateCustomer1),
		chooseContext("PRIVATE", 0, &chosenContext),
		chooseDebtor(1, &debtor),
		signPayment(),
	))
	q, err := tp.wait(tab)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(q)
	require.NoError(t, err)
	assert.Equal(t, stranger.SessionID, cb.TPPSessionID)
	assert.Equal(t, xs2a.ContextPrivate, cb.Context)

	bank.RunBatch()
	st, _, err := c.Payments.Status(ctx, cb.PSU(psuIP), ini.Links.Status)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	for id, was := range before {
		if id == debtor {
			assert.NotEqual(t, was, bank.Balance(id), "paid from the account chosen in the browser")
		} else {
			assert.Equal(t, was, bank.Balance(id), "not paid from an account the person did not choose")
		}
	}
}
