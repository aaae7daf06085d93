package xs2a_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Flow 1: GET /v1/accounts answers 401 with scaRedirect; the PSU's SCA ends
// in the callback with psu-id; the call is repeated with PSU-ID; the other
// account resources follow, also after the PSU's session ended.
func TestFlow1AccountAccess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	kari := b.account(t, xs2atest.PrivateCustomer1, 0)
	sparekonto := b.account(t, xs2atest.PrivateCustomer1, 1)

	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err := b.c.Accounts.List(ctx, psu)
	sca := requireSCA(t, err)
	assert.Equal(t, http.StatusUnauthorized, sca.StatusCode)
	assert.NotEmpty(t, sca.RequestID)

	callback, err := b.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	require.NoError(t, err)
	assert.Equal(t, xs2atest.DefaultRedirectURI, callback.Scheme+"://"+callback.Host+callback.Path)
	cb, err := xs2a.ParseCallback(callback.Query())
	require.NoError(t, err)
	assert.Equal(t, xs2atest.PSUID(signer(t).KeyID(), xs2atest.PrivateCustomer1), cb.PSUID, "stable psu-id for this TPP")
	assert.Equal(t, psu.SessionID, cb.TPPSessionID)
	assert.Equal(t, xs2a.ContextPrivate, cb.Context)
	assert.Empty(t, cb.PSUCorporateID)
	psu = cb.PSU(psuIP) // persisted psu-id, same session

	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.Len(t, accounts, 2, "two accounts; the card account is listed by CardAccounts.List")
	assert.Equal(t, kari.ResourceID, accounts[0].ResourceID)
	assert.Equal(t, kari.BBAN, accounts[0].BBAN)
	assert.Equal(t, kari.IBAN, accounts[0].IBAN)
	assert.Equal(t, sparekonto.ResourceID, accounts[1].ResourceID)
	assert.Equal(t, "Kari Nordmann", accounts[0].OwnerName)

	t.Run("balances", func(t *testing.T) {
		bal, _, err := b.c.Accounts.Balances(ctx, psu, kari.ResourceID)
		require.NoError(t, err)
		booked, ok := bal.Find(xs2a.BalanceClosingBooked)
		require.True(t, ok)
		assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: b.Balance(kari.ResourceID)}, booked.BalanceAmount)
		assert.Equal(t, "NOK", bal.Account.Currency)
		for _, x := range bal.Balances {
			assert.Equal(t, bal.Account.Currency, x.BalanceAmount.Currency, "each balance in the account currency")
		}
	})

	t.Run("three pages of history, pending once", func(t *testing.T) {
		q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth}
		page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, q)
		require.NoError(t, err)
		assert.Len(t, page.Transactions.Booked, 499)
		assert.Len(t, page.Transactions.Pending, 2)
		assert.False(t, page.Transactions.Links.Next.IsZero())

		mark := b.rec.len()
		var booked, pending int
		ids := map[string]bool{}
		for tx, err := range b.c.Accounts.Transactions(ctx, psu, kari.ResourceID, q) {
			require.NoError(t, err)
			switch tx.BookingStatus {
			case xs2a.BookingBooked:
				booked++
				assert.False(t, ids[tx.TransactionID], "booked ids are unique")
				ids[tx.TransactionID] = true
			case xs2a.BookingPending:
				pending++
				assert.True(t, tx.ValueDate.IsZero())
			}
		}
		assert.Equal(t, 1100, booked)
		assert.Equal(t, 2, pending, "pending entries come on every page but are yielded once")
		assert.Len(t, b.rec.since(mark, http.MethodGet, "/transactions"), 3, "pages of 499, 499 and 102")
		// booked transaction ids are stable between reads
		again, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, q)
		require.NoError(t, err)
		for i := range page.Transactions.Booked {
			assert.Equal(t, page.Transactions.Booked[i].TransactionID, again.Transactions.Booked[i].TransactionID)
		}
	})

	t.Run("pending transactions are not filtered by date or limit", func(t *testing.T) {
		q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth, DateFrom: b.clock.Now().AddDate(0, 0, -3), Limit: 1}
		page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, q)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Transactions.Booked), 1)
		assert.Len(t, page.Transactions.Pending, 2)
	})

	t.Run("cash-account-type-iso", func(t *testing.T) {
		for _, iso := range []bool{false, true} {
			ctx := ctx
			want := []xs2a.CashAccountType{"BRUK", "SPAR"}
			if iso {
				ctx = xs2a.ContextWithAcceptFixes(ctx, xs2a.CashAccountTypeISO)
				want = []xs2a.CashAccountType{xs2a.CashAccountCurrent, xs2a.CashAccountSavings}
			}
			accounts, _, err := b.c.Accounts.List(ctx, psu)
			require.NoError(t, err)
			for i, a := range accounts {
				assert.Equal(t, want[i], a.CashAccountType)
				assert.Equal(t, iso, a.CashAccountType.ISO())
			}
		}
	})

	t.Run("transaction details", func(t *testing.T) {
		page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, kari.ResourceID, &xs2a.TransactionsOptions{Limit: 5})
		require.NoError(t, err)
		want := page.Transactions.Booked[3]
		got, _, err := b.c.Accounts.Transaction(ctx, psu, kari.ResourceID, want.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, want.TransactionID, got.TransactionID)
		assert.Equal(t, want.TransactionAmount, got.TransactionAmount)
		assert.Equal(t, want.BookingDate, got.BookingDate)
		assert.Equal(t, want.RemittanceInformationUnstructured, got.RemittanceInformationUnstructured)
	})

	t.Run("after the PSU session ended, within the limits", func(t *testing.T) {
		b.clock.Advance(2 * time.Hour)
		away := xs2a.PSU{ID: psu.ID} // PSU not present: no IP, no session
		_, _, err := b.c.Accounts.Balances(ctx, away, sparekonto.ResourceID)
		require.NoError(t, err)
		n := 0
		for _, err := range b.c.Accounts.Transactions(ctx, away, sparekonto.ResourceID, nil) {
			require.NoError(t, err)
			n++
		}
		assert.Positive(t, n, "the last 90 days of the 120 generated")
		_, _, err = b.c.Accounts.List(ctx, psu)
		requireSCA(t, err) // the PSU is back, but its hour is over
	})
}

// Flow 1, card accounts: transactionAmount is the amount in the card
// account's currency with the accept-fix (which the SDK sends) and without it
// (the bank then swaps the amounts and the SDK swaps them back).
func TestFlow1CardAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	card := b.account(t, xs2atest.PrivateCustomer1, 2)
	require.True(t, card.Card)

	cards, _, err := b.c.CardAccounts.List(ctx, psu)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, card.ResourceID, cards[0].ResourceID)
	assert.Equal(t, card.MaskedPan, cards[0].MaskedPAN)
	assert.Equal(t, "Mastercard Gull", cards[0].Name)

	read := func(ctx context.Context) ([]xs2a.CardTransaction, []sent) {
		mark := b.rec.len()
		var out []xs2a.CardTransaction
		for ct, err := range b.c.CardAccounts.Transactions(ctx, psu, card.ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth, Limit: 25}) {
			require.NoError(t, err)
			out = append(out, ct)
		}
		return out, b.rec.since(mark, http.MethodGet, "/card-accounts/")
	}
	fixed, fixedReqs := read(ctx)
	legacy, legacyReqs := read(xs2a.ContextWithoutAcceptFixes(ctx, xs2a.CardAccountSwitchAmounts))
	require.Len(t, fixed, card.Booked+card.Pending)
	require.Len(t, fixedReqs, 3, "60 booked in pages of 25")
	for _, r := range fixedReqs {
		assert.Contains(t, r.Header.Values("X-Accept-Fix"), string(xs2a.CardAccountSwitchAmounts))
	}
	for _, r := range legacyReqs {
		assert.NotContains(t, r.Header.Values("X-Accept-Fix"), string(xs2a.CardAccountSwitchAmounts))
	}
	assert.Equal(t, fixed, legacy, "the SDK swaps the legacy mapping back")

	foreign := 0
	for _, ct := range fixed {
		assert.Equal(t, "NOK", ct.TransactionAmount.Currency, "transactionAmount in the card account's currency")
		require.NotNil(t, ct.OriginalAmount)
		if ct.OriginalAmount.Currency != "NOK" {
			foreign++
		}
	}
	require.Positive(t, foreign, "purchases abroad make the mapping visible")

	// what the bank sends without the fix: the amounts swapped
	a := b.raw(t, "GET", "/v1/card-accounts/"+url.PathEscape(card.ResourceID)+"/transactions?bookingStatus=booked", nil, "PSU-ID", psu.ID)
	require.Equal(t, http.StatusOK, a.Status)
	swapped := 0
	for _, e := range a.Body["cardTransactions"].(map[string]any)["booked"].([]any) {
		if e.(map[string]any)["transactionAmount"].(map[string]any)["currency"] != "NOK" {
			swapped++
		}
	}
	assert.Positive(t, swapped, "without the fix transactionAmount carries the foreign amount")
}

// Flow 2: the corporate context from the consent callback and from GET
// /v1/agreements; a corporate PSU without PSU-CORPORATE-ID gets 400; a
// PSU-CORPORATE-ID of an agreement without consent starts a consent flow in
// which the agreement is already chosen.
func TestFlow2CorporateContext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	keyID := signer(t).KeyID()
	nordlys, _ := b.Customer(xs2atest.CorporateCustomer1)
	require.Len(t, nordlys.Agreements, 2, "its own and a two-signer agreement of Fjellvind")
	own, shared := nordlys.Agreements[0], nordlys.Agreements[1]

	// consent SCA flow for an AISP: the PSU picks the corporate context
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err := b.c.Accounts.List(ctx, psu)
	cb := b.sca(t, requireSCA(t, err).Redirect.Href, xs2atest.CorporateCustomer1, xs2atest.Corporate(own.ID))
	assert.Equal(t, xs2a.ContextCorporate, cb.Context)
	assert.Equal(t, xs2atest.CorporateID(keyID, own.ID), cb.PSUCorporateID)
	psu = cb.PSU(psuIP)
	assert.Equal(t, cb.PSUCorporateID, psu.CorporateID)

	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.ElementsMatch(t, own.Accounts, resourceIDs(accounts))

	t.Run("without PSU-CORPORATE-ID", func(t *testing.T) {
		noCorp := psu
		noCorp.CorporateID = ""
		_, _, err := b.c.Accounts.List(ctx, noCorp)
		require.ErrorIs(t, err, xs2a.ErrCorporateIDRequired)
		requireBankError(t, err, http.StatusBadRequest, xs2a.CodeCorporateIDInvalid)
		_, _, err = b.c.Accounts.Balances(ctx, noCorp, own.Accounts[0])
		require.ErrorIs(t, err, xs2a.ErrCorporateIDRequired)
	})

	t.Run("agreements", func(t *testing.T) {
		ags, _, err := b.c.Users.Agreements(ctx, xs2a.PSU{ID: psu.ID})
		require.NoError(t, err)
		require.Len(t, ags, 2)
		assert.Equal(t, xs2atest.CorporateID(keyID, own.ID), ags[0].ID)
		assert.Equal(t, xs2atest.CorporateID(keyID, shared.ID), ags[1].ID)
		assert.Equal(t, shared.Name, ags[1].Name)
		assert.Equal(t, shared.OrganisationNumber, ags[1].OrganisationNumber)

		// the other agreement has no consent: a new consent flow, the
		// agreement preselected (no Corporate option given)
		other := xs2a.PSU{ID: psu.ID, CorporateID: ags[1].ID, IPAddress: psuIP, SessionID: xs2a.NewSessionID()}
		_, _, err = b.c.Accounts.List(ctx, other)
		cb := b.sca(t, requireSCA(t, err).Redirect.Href, xs2atest.CorporateCustomer1)
		assert.Equal(t, ags[1].ID, cb.PSUCorporateID, "the agreement need not be picked again")
		other = cb.PSU(psuIP)
		accounts, _, err := b.c.Accounts.List(ctx, other)
		require.NoError(t, err)
		assert.Equal(t, shared.Accounts, resourceIDs(accounts))

		// the consent of the first agreement still holds
		first := other
		first.CorporateID = ags[0].ID
		accounts, _, err = b.c.Accounts.List(ctx, first)
		require.NoError(t, err)
		assert.ElementsMatch(t, own.Accounts, resourceIDs(accounts))
	})

	t.Run("PISP-only users flow", func(t *testing.T) {
		fjellvind, _ := b.Customer(xs2atest.CorporateCustomer2)
		for _, call := range []struct {
			name string
			fn   func(context.Context, xs2a.PSU) (*xs2a.SCALinks, *xs2a.Response, error)
		}{{"GET /v1/users", b.c.Users.Register}, {"GET /v1/user", b.c.Users.ChooseContext}} {
			links, resp, err := call.fn(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID()})
			require.NoError(t, err, call.name)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			cb := b.sca(t, links.Links.SCARedirect.Href, xs2atest.CorporateCustomer2, xs2atest.Corporate(fjellvind.Agreements[1].ID))
			assert.Equal(t, xs2a.ContextCorporate, cb.Context, call.name)
			assert.Equal(t, xs2atest.CorporateID(keyID, fjellvind.Agreements[1].ID), cb.PSUCorporateID, call.name)
			assert.Equal(t, xs2atest.PSUID(keyID, xs2atest.CorporateCustomer2), cb.PSUID)
		}
	})
}

func resourceIDs(accounts []xs2a.Account) []string {
	var out []string
	for _, a := range accounts {
		out = append(out, a.ResourceID)
	}
	return out
}

// Errors: an account list that is empty, or an account closed in the
// backend, is an empty list, not 404.
func TestErrorsClosedAccountEmptyList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer2)
	first, second := b.account(t, xs2atest.PrivateCustomer2, 0), b.account(t, xs2atest.PrivateCustomer2, 1)

	require.True(t, b.CloseAccount(second.ResourceID))
	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Equal(t, []string{first.ResourceID}, resourceIDs(accounts))
	_, _, err = b.c.Accounts.Balances(ctx, psu, second.ResourceID)
	require.ErrorIs(t, err, xs2a.ErrNotFound, "the closed account's own endpoints are gone")

	require.True(t, b.CloseAccount(first.ResourceID))
	accounts, _, err = b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.NotNil(t, accounts)
	assert.Empty(t, accounts)
}

// Errors: a consented user whose consent holds no account gets an empty
// list, not a new SCA. The sandbox's new corporate customer has no accounts
// in its agreement.
func TestErrorsConsentedUserWithoutAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	_, _, err := b.c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: xs2a.CustomerCorporate, Name: "Tomt Selskap AS"})
	require.NoError(t, err)
	psu := b.signIn(t, "01017012345", xs2atest.Corporate(""))
	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.NotNil(t, accounts)
	assert.Empty(t, accounts)
}

// A consent revoked at the bank: 403 CONSENT_UNKNOWN, as production banks
// answer, ErrConsentInvalid; a new consent SCA restores access.
func TestErrorsConsentRevoked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	b.RevokeConsent(xs2atest.PrivateCustomer1)

	_, _, err := b.c.Accounts.List(ctx, psu)
	require.ErrorIs(t, err, xs2a.ErrConsentInvalid)
	requireBankError(t, err, http.StatusForbidden, xs2a.CodeConsentUnknown)

	links, resp, err := b.c.Consents.Create(ctx, psu)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "received", links.ConsentStatus)
	cb := b.sca(t, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	accounts, _, err := b.c.Accounts.List(ctx, cb.PSU(psuIP))
	require.NoError(t, err)
	assert.Len(t, accounts, 2)
}

// Limits: the name field of accounts and card accounts holds 70 characters
// with x-accept-fix longer-names, 35 without.
func TestLimitsNameLength(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	long := "Kredittkort for familie, reiser og netthandel i utlandet, med bonus på" // the SDK's maximum
	require.Len(t, []rune(long), 70)
	_, _, err := b.c.Sandbox.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: xs2atest.PrivateCustomer2,
		Currency: "NOK", Name: long, Card: true, CreditLimit: "10000.00"})
	require.NoError(t, err)
	psu := b.signIn(t, xs2atest.PrivateCustomer2)
	høyrente := b.account(t, xs2atest.PrivateCustomer2, 1).Name
	require.Greater(t, len([]rune(høyrente)), 70)

	tests := []struct {
		name string
		ctx  context.Context
		max  int
	}{
		{"without longer-names", ctx, 35},
		{"with longer-names", xs2a.ContextWithAcceptFixes(ctx, xs2a.LongerNames), 70},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			accounts, resp, err := b.c.Accounts.List(tt.ctx, psu)
			require.NoError(t, err)
			assert.Equal(t, tt.max == 70, slices.Contains(resp.AcceptFixes, xs2a.LongerNames))
			require.Len(t, accounts, 2)
			assert.Equal(t, "Brukskonto", accounts[0].Name, "short names whole")
			assert.Equal(t, string([]rune(høyrente)[:tt.max]), accounts[1].Name)
			cards, _, err := b.c.CardAccounts.List(tt.ctx, psu)
			require.NoError(t, err)
			require.Len(t, cards, 2)
			assert.Equal(t, string([]rune(long)[:tt.max]), cards[1].Name)
		})
	}
	// the client-wide option does the same
	c := b.client(t, xs2a.WithAcceptFixes(xs2a.LongerNames))
	accounts, _, err := c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	assert.Len(t, []rune(accounts[1].Name), 70)
}

// The fake bank sends additionalInformationProprietaryX and currencyExchange
// with contractIdentification where its backend has them (docs/interface.md
// AIS5, AIS7): AvtaleGiro and eFaktura debits carry their agreement
// references, other transactions none; a card purchase abroad carries the
// exchange it was booked at.
func TestTransactionsCarryBackendReferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	byCode := map[string][]xs2a.Transaction{}
	for tx, err := range b.c.Accounts.Transactions(ctx, psu, b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID, nil) {
		require.NoError(t, err)
		byCode[tx.ProprietaryBankTransactionCode.Value] = append(byCode[tx.ProprietaryBankTransactionCode.Value], tx)
	}
	want := map[string][]string{
		"AVTALEGIRO": {"additionalInformationProprietary1"},
		"EFAKTURA":   {"additionalInformationProprietary1", "additionalInformationProprietary2"},
		"VARER":      nil,
		"LØNN":       nil,
	}
	for code, keys := range want {
		require.NotEmpty(t, byCode[code], code)
		for _, tx := range byCode[code] {
			assert.Equal(t, keys, slices.Sorted(maps.Keys(tx.AdditionalInformationProprietary)), code)
		}
	}
	ref := strings.TrimPrefix(byCode["AVTALEGIRO"][0].AdditionalInformation, "Arkivref ")
	assert.Equal(t, "AvtaleGiro-avtale "+ref, byCode["AVTALEGIRO"][0].AdditionalInformationProprietary["additionalInformationProprietary1"])

	card := b.account(t, xs2atest.PrivateCustomer1, 2)
	require.True(t, card.Card)
	abroad := 0
	for tx, err := range b.c.CardAccounts.Transactions(ctx, psu, card.ResourceID, nil) {
		require.NoError(t, err)
		if len(tx.CurrencyExchange) == 0 {
			continue
		}
		abroad++
		x := tx.CurrencyExchange[0]
		assert.NotEqual(t, "NOK", x.SourceCurrency)
		assert.Equal(t, "NOK", x.TargetCurrency)
		assert.Regexp(t, `^FX-[A-Za-z0-9]{1,12}$`, x.ContractIdentification)
		assert.NotEmpty(t, x.ExchangeRate)
		assert.False(t, x.QuotationDate.IsZero())
	}
	assert.Positive(t, abroad, "card purchases abroad carry their exchange")
}

// Paging links: the fake bank sends previous beside next, as member banks
// document, and a page read through TransactionsPage exposes both
// (AccountReport.Links).
func TestTransactionsPreviousLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	id := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	page := func(offset int) xs2a.ReportLinks {
		t.Helper()
		r, _, err := b.c.Accounts.TransactionsPage(ctx, psu, id, &xs2a.TransactionsOptions{Limit: 499, Offset: offset})
		require.NoError(t, err)
		return r.Transactions.Links
	}
	href := func(offset int) string {
		return "/v1/accounts/" + strings.ReplaceAll(id, "/", "%2F") + "/transactions?bookingStatus=booked&limit=499&offset=" + strconv.Itoa(offset)
	}
	first := page(0)
	assert.Equal(t, href(499), first.Next.Href)
	assert.True(t, first.Previous.IsZero(), "the first page has no previous")
	middle := page(499)
	assert.Equal(t, href(998), middle.Next.Href)
	assert.Equal(t, href(0), middle.Previous.Href)
	last := page(998)
	assert.True(t, last.Next.IsZero(), "the last page has no next")
	assert.Equal(t, href(499), last.Previous.Href)
}
