package xs2a_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// The journeys of the recorded production traffic, end to end through the
// fake bank: bank-offered consent with PSU-Context, single-resource reads,
// card balances, paging with pending entries on every page, bookingStatus
// all, ids with "+", "/" and "=" in every path.

// TestFlowBankOfferedConsent: the context asked for with PSU-Context is
// preselected on the SCA page (CompleteSCA takes what is checked), the
// callback reports it, and the consent opens the accounts.
func TestFlowBankOfferedConsent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	corp := b.account(t, xs2atest.CorporateCustomer1, 0)
	ag, _, err := b.c.Sandbox.CreateAgreement(ctx, &xs2a.SandboxAgreement{Name: "Kari Nordmann ENK",
		CustomerNumber: xs2atest.CorporateCustomer1, Accounts: []string{corp.ResourceID},
		Members: []string{xs2atest.PrivateCustomer1}})
	require.NoError(t, err)

	for _, tt := range []struct {
		context xs2a.PSUContext
		first   string // resource id of the first account listed
	}{
		{xs2a.ContextPrivate, b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID},
		{xs2a.ContextCorporate, corp.ResourceID},
	} {
		t.Run(string(tt.context), func(t *testing.T) {
			mark := b.rec.len()
			psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP, Context: tt.context}
			links, resp, err := b.c.Consents.CreateBankOffered(ctx, psu)
			require.NoError(t, err)
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
			sent := b.rec.since(mark, http.MethodPost, "/v1/bank-offered-consents")
			require.Len(t, sent, 1)
			assert.Equal(t, string(tt.context), sent[0].Header.Get("PSU-Context"))

			cb := b.sca(t, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
			assert.Equal(t, tt.context, cb.Context, "the preselected context")
			if tt.context == xs2a.ContextCorporate {
				assert.Equal(t, xs2atest.CorporateID(signer(t).KeyID(), ag.ID), cb.PSUCorporateID)
			}
			psu = cb.PSU(psuIP)
			assert.Equal(t, tt.context, psu.Context)

			accounts, _, err := b.c.Accounts.List(ctx, psu)
			require.NoError(t, err)
			require.NotEmpty(t, accounts)
			assert.Equal(t, tt.first, accounts[0].ResourceID)
			one, _, err := b.c.Accounts.Get(ctx, psu, accounts[0].ResourceID)
			require.NoError(t, err)
			assert.Equal(t, accounts[0], *one, "GET /v1/accounts/{id} answers the listed account")
		})
	}

	_, _, err = b.c.Consents.CreateBankOffered(ctx, xs2a.PSU{Context: "private"})
	requireInvalid(t, err, "PSU.Context")
	a := b.raw(t, http.MethodPost, "/v1/bank-offered-consents", nil, "PSU-Context", "BUSINESS")
	assert.Equal(t, http.StatusBadRequest, a.Status, "the bank refuses another context")
	assert.Equal(t, xs2a.CodeFormatError, a.code())
}

// TestFlowCardAccountReads: CardAccounts.Get and Balances of the consented
// card account; the balances answer is the production shape
// {"cardAccount":{"maskedPan"},"balances"} and every field of it reaches
// the caller, the card type nonInvoiced included; its id holds characters
// a path must escape.
func TestFlowCardAccountReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	card := b.account(t, xs2atest.PrivateCustomer1, 2)
	require.True(t, card.Card)
	require.True(t, strings.HasPrefix(card.ResourceID, "enc!!") && strings.HasSuffix(card.ResourceID, "="), card.ResourceID)

	ca, _, err := b.c.CardAccounts.Get(ctx, psu, card.ResourceID)
	require.NoError(t, err)
	assert.Equal(t, card.ResourceID, ca.ResourceID)
	assert.Equal(t, card.MaskedPan, ca.MaskedPAN)

	bal, _, err := b.c.CardAccounts.Balances(ctx, psu, card.ResourceID)
	require.NoError(t, err)
	assert.Equal(t, xs2a.AccountReference{MaskedPAN: card.MaskedPan}, bal.Account, "cardAccount holds the maskedPan only")
	assert.Empty(t, bal.Extra, "nothing left over")
	booked, ok := bal.Find(xs2a.BalanceClosingBooked)
	require.True(t, ok)
	assert.Equal(t, b.Balance(card.ResourceID), booked.BalanceAmount.Amount)
	other, ok := bal.Find(xs2a.BalanceNonInvoiced)
	require.True(t, ok, "the Berlin Group's card type")
	assert.Equal(t, booked.BalanceAmount, other.BalanceAmount)
	sent := b.raw(t, "GET", "/v1/card-accounts/"+url.PathEscape(card.ResourceID)+"/balances", nil,
		"PSU-ID", psu.ID, "TPP-Session-ID", psu.SessionID, "PSU-IP-Address", psuIP)
	require.Equal(t, http.StatusOK, sent.Status)
	assert.Equal(t, map[string]any{"maskedPan": card.MaskedPan}, sent.Body["cardAccount"])
	assert.Len(t, sent.Body, 2, "cardAccount and balances")
	rawBalances, _ := sent.Body["balances"].([]any)
	require.Len(t, bal.Balances, len(rawBalances))
	for i, m := range rawBalances {
		for k := range m.(map[string]any) {
			switch k {
			case "balanceAmount", "balanceType":
			default:
				assert.Contains(t, bal.Balances[i].Extra, k, "a member the model does not name")
			}
		}
	}

	_, _, err = b.c.CardAccounts.Get(ctx, psu, b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID)
	requireBankError(t, err, http.StatusNotFound, xs2a.CodeResourceUnknown)
}

// TestFlowIDsWithReservedCharacters: every account and card account id
// the bank hands out reaches it again, whatever base64 characters it holds.
func TestFlowIDsWithReservedCharacters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	c, ok := b.Customer(xs2atest.PrivateCustomer1)
	require.True(t, ok)
	reserved := 0
	for _, a := range c.Accounts {
		reserved += strings.Count(a.ResourceID, "/") + strings.Count(a.ResourceID, "+")
		if a.Card {
			_, _, err := b.c.CardAccounts.Balances(ctx, psu, a.ResourceID)
			require.NoError(t, err, a.ResourceID)
			continue
		}
		_, _, err := b.c.Accounts.Balances(ctx, psu, a.ResourceID)
		require.NoError(t, err, a.ResourceID)
		_, _, err = b.c.Accounts.Get(ctx, psu, a.ResourceID)
		require.NoError(t, err, a.ResourceID)
	}
	require.Positive(t, reserved, "the seed's ids hold '/' or '+'")
}

// TestFlowBookingStatusAll: with bookingStatus all the bank adds the
// account's standing orders (a periodic payment the PSU authorised) to
// booked and pending entries, on every page; the iterator yields each once.
func TestFlowBookingStatusAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	kari := b.account(t, xs2atest.PrivateCustomer1, 0)
	today := xs2a.DateOf(b.clock.Now().In(oslo))
	order, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.PeriodicPayment{
		Payment: *b.payment(t, "750.00", kari.BBAN), StartDate: today.AddDays(3), Frequency: xs2a.Monthly, DayOfExecution: "5"}, nil)
	require.NoError(t, err)
	b.authorise(t, psu, order, xs2atest.PrivateCustomer1)
	psu = b.signIn(t, xs2atest.PrivateCustomer1)

	mark := b.rec.len()
	count := map[xs2a.BookingStatus]int{}
	var standing xs2a.Transaction
	for tx, err := range b.c.Accounts.Transactions(ctx, psu, kari.ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingAll}) {
		require.NoError(t, err)
		count[tx.BookingStatus]++
		if tx.BookingStatus == xs2a.BookingInformation {
			standing = tx
		}
	}
	assert.Equal(t, map[xs2a.BookingStatus]int{xs2a.BookingBooked: kari.Booked, xs2a.BookingPending: kari.Pending, xs2a.BookingInformation: 1}, count)
	assert.Len(t, b.rec.since(mark, http.MethodGet, "/transactions"), 3, "three pages, pending and standing orders on each")
	assert.Equal(t, "-750.00", standing.TransactionAmount.Amount)
	assert.Equal(t, "Nordlys Bygg AS", standing.CreditorName)
	assert.Contains(t, string(standing.AdditionalInformationStructured), `"frequency":"Monthly"`)

	page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingInformation})
	require.NoError(t, err)
	assert.Empty(t, page.Transactions.Booked)
	assert.Empty(t, page.Transactions.Pending)
	require.Len(t, page.Transactions.Information, 1)
	assert.Equal(t, xs2a.BookingInformation, page.Transactions.Information[0].BookingStatus)
}

// TestFlowPendingOnEveryPage: for both and pending every page carries all
// pending entries, unfiltered; a walk yields them once.
func TestFlowPendingOnEveryPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	kari := b.account(t, xs2atest.PrivateCustomer1, 0)
	for _, st := range []xs2a.BookingStatus{xs2a.BookingBoth, xs2a.BookingPending} {
		t.Run(string(st), func(t *testing.T) {
			q := &xs2a.TransactionsOptions{BookingStatus: st, Limit: 400, Offset: 400}
			page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, q)
			require.NoError(t, err)
			assert.Len(t, page.Transactions.Pending, kari.Pending, "a later page holds every pending entry")
			n := 0
			for tx, err := range b.c.Accounts.Transactions(ctx, psu, kari.ResourceID, &xs2a.TransactionsOptions{BookingStatus: st, Limit: 400}) {
				require.NoError(t, err)
				if tx.BookingStatus == xs2a.BookingPending {
					n++
				}
			}
			assert.Equal(t, kari.Pending, n)
		})
	}
}
