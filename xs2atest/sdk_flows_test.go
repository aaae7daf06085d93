package xs2atest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// End-to-end flows of the SDK's services against the fake bank.

// completeSCA follows an SCARequiredError or SCALinks redirect as customer.
func completeSCA(t *testing.T, s *xs2atest.Server, href, customer string, opts ...xs2atest.SCAOption) *xs2a.Callback {
	t.Helper()
	u, err := s.CompleteSCA(context.Background(), href, customer, opts...)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.NoError(t, err)
	return cb
}

func TestSDKAccountFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newCheckedServer(t, xs2atest.WithTLS(), xs2atest.WithResponseSigning())
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: "192.0.2.44"}

	_, _, err = c.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	cb := completeSCA(t, s, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	assert.Equal(t, psu.SessionID, cb.TPPSessionID)
	psu.ID = cb.PSUID

	accts, _, err := c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.Len(t, accts, 2)
	bal, _, err := c.Accounts.Balances(ctx, psu, accts[0].ResourceID)
	require.NoError(t, err)
	require.NotEmpty(t, bal.Balances)

	n, pending := 0, 0
	for tx, err := range c.Accounts.Transactions(ctx, psu, accts[0].ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth}) {
		require.NoError(t, err)
		if tx.ValueDate.IsZero() {
			pending++
		}
		n++
	}
	assert.Equal(t, 1102, n, "1100 booked over three pages and 2 pending, once")
	assert.Equal(t, 2, pending)

	cards, _, err := c.CardAccounts.List(ctx, psu)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	m := 0
	for ct, err := range c.CardAccounts.Transactions(ctx, psu, cards[0].ResourceID, &xs2a.TransactionsOptions{Limit: 25}) {
		require.NoError(t, err)
		assert.Equal(t, "NOK", ct.TransactionAmount.Currency, "the SDK asks for the corrected card amounts")
		m++
	}
	assert.Equal(t, 60, m)

	// PSU not present: the fifth balance call in 24 hours is refused
	away := xs2a.PSU{ID: psu.ID}
	for range 4 {
		_, _, err = c.Accounts.Balances(ctx, away, accts[1].ResourceID)
		require.NoError(t, err)
	}
	_, _, err = c.Accounts.Balances(ctx, away, accts[1].ResourceID)
	assert.ErrorIs(t, err, xs2a.ErrAccessExceeded)

	// consent revoked at the bank
	s.RevokeConsent(xs2atest.PrivateCustomer1)
	_, _, err = c.Accounts.List(ctx, away)
	assert.ErrorIs(t, err, xs2a.ErrConsentInvalid)
	links, _, err := c.Consents.Create(ctx, psu)
	require.NoError(t, err)
	completeSCA(t, s, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	accts, _, err = c.Accounts.List(ctx, away)
	require.NoError(t, err)
	assert.Len(t, accts, 2)
}

func TestSDKCorporateFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newCheckedServer(t)
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := xs2a.PSU{SessionID: "corp-1"}
	links, _, err := c.Users.Register(ctx, psu)
	require.NoError(t, err)
	cb := completeSCA(t, s, links.Links.SCARedirect.Href, xs2atest.CorporateCustomer2)
	assert.Equal(t, xs2a.ContextCorporate, cb.Context)
	psu = cb.PSU("")

	ags, _, err := c.Users.Agreements(ctx, xs2a.PSU{ID: psu.ID})
	require.NoError(t, err)
	require.Len(t, ags, 2)
	assert.Equal(t, cb.PSUCorporateID, ags[0].ID)

	_, _, err = c.Accounts.List(ctx, xs2a.PSU{ID: psu.ID})
	assert.ErrorIs(t, err, xs2a.ErrCorporateIDRequired)
	_, _, err = c.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca, "registered, no consent yet")
	completeSCA(t, s, sca.Redirect.Href, xs2atest.CorporateCustomer2)
	accts, _, err := c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Len(t, accts, 1)
}

func TestSDKPaymentFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	s := newCheckedServer(t, xs2atest.WithClock(now))
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := xs2a.PSU{SessionID: "pay-1", IPAddress: "192.0.2.50"}
	links, _, err := c.Users.Register(ctx, psu)
	require.NoError(t, err)
	psu.ID = completeSCA(t, s, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1).PSUID
	cust, _ := s.Customer(xs2atest.PrivateCustomer1)

	amt, err := xs2a.ParseAmount("NOK", "250.00")
	require.NoError(t, err)
	p := &xs2a.Payment{
		InstructedAmount:                  amt,
		DebtorAccount:                     &xs2a.AccountReference{BBAN: cust.Accounts[0].BBAN},
		CreditorAccount:                   xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:                      "Fjordkraft AS",
		RemittanceInformationUnstructured: "Strøm mars",
	}
	in, _, err := c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatus("RCVD"), in.TransactionStatus)
	auth, _, err := c.Payments.StartAuthorisation(ctx, psu, in.Links.StartAuthorisation)
	require.NoError(t, err)
	completeSCA(t, s, auth.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	st, _, err := c.Payments.Status(ctx, psu, in.Links.Status)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatus("PDNG"), st.TransactionStatus)
	s.RunBatch()
	st, _, err = c.Payments.PollStatus(ctx, psu, in.Links.Status, &xs2a.PollOptions{MinDelay: time.Millisecond, MaxAttempts: 3})
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatus("ACSC"), st.TransactionStatus)

	// an e-invoice twice: the second needs allowLogicalDuplicate
	inv := xs2a.EInvoice{KID: "12345678903", InvoiceNumber: "F-77"}
	p2 := *p
	p2.RemittanceInformationUnstructured = ""
	_, _, err = c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &p2, inv, nil)
	require.NoError(t, err)
	_, _, err = c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &p2, inv, nil)
	var be *xs2a.Error
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "PAYMENT_FAILED", be.Code)
	_, _, err = c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &p2, inv, &xs2a.InitiateOptions{AllowLogicalDuplicate: true})
	require.NoError(t, err)

	// a periodic payment cannot go into a signing basket
	per := &xs2a.PeriodicPayment{Payment: *p, StartDate: xs2a.DateOf(clock.AddDate(0, 0, 1)), Frequency: "Monthly"}
	pin, _, err := c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, per, nil)
	require.NoError(t, err)
	_, _, err = c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: []*xs2a.Initiation{in, pin}})
	var ve *xs2a.ValidationError
	assert.ErrorAs(t, err, &ve, "the SDK refuses it before sending")
	_, _, err = c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{PaymentIDs: []string{pin.PaymentID, in.PaymentID}})
	assert.ErrorIs(t, err, xs2a.ErrReferenceMixInvalid, "the bank refuses what the SDK cannot know")
}

func TestSDKNeverSendsAPaymentTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newCheckedServer(t, xs2atest.WithFaults(xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1}))
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := xs2a.PSU{SessionID: "drop-1", IPAddress: "192.0.2.51"}
	links, _, err := c.Users.Register(ctx, psu)
	require.NoError(t, err)
	psu.ID = completeSCA(t, s, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer2).PSUID
	amt, _ := xs2a.ParseAmount("NOK", "10.00")
	_, _, err = c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: amt, CreditorAccount: xs2a.AccountReference{BBAN: "86011117947"}, CreditorName: "A",
	}, nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, xs2a.ErrOutcomeUnknown), "%v", err)
	assert.Equal(t, 1, s.PaymentCount(), "the bank has the payment")
	assert.Equal(t, 1, s.RequestCount("POST", "/v1/payments/"), "sent once, never retried")
}

func TestSDKSandbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newCheckedServer(t)
	c, err := s.Client(nil)
	require.NoError(t, err)
	cs, _, err := c.Sandbox.Customers(ctx, &xs2a.CustomersOptions{IncludeAccounts: true, IncludeAgreements: true})
	require.NoError(t, err)
	require.Len(t, cs, 4)
	assert.Equal(t, xs2atest.PrivateCustomer1, cs[0].CustomerNumber)
	assert.Len(t, cs[0].Accounts, 3)
	assert.NotEmpty(t, cs[2].Agreements)
	_, err = c.Sandbox.Initialize(ctx)
	require.NoError(t, err)
	nc, _, err := c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: "PRIVATE", Name: "Per Test"})
	require.NoError(t, err)
	assert.Equal(t, "01017012345", nc.CustomerNumber)
}
