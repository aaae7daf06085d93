package xs2a_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// What production banks of the platform do beyond the interface
// description, through the SDK against the fake bank: the status answer's
// id and links, the authorisation status, the signing basket's resources,
// cross-border fees, the app-biometrics SCA, the moved execution date and
// the e-invoice processed at the scheme.

// Initiate, start the authorisation, read its status before and after the
// PSU's SCA, and read the payment status with its links. The bank gives
// the authorisation's id and link here (WithFullAuthorisationAnswer), as
// production banks do not.
func TestPaymentAuthorisationStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFullAuthorisationAnswer())
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", debtor.BBAN), nil)
	require.NoError(t, err)

	st := b.status(t, psu, ini)
	assert.Equal(t, ini.PaymentID, st.PaymentID)
	assert.Equal(t, ini.Links.Self.Href, st.Links.Self.Href)
	assert.Equal(t, ini.Links.Status.Href, st.Links.Status.Href)
	assert.Equal(t, ini.Links.StartAuthorisation, st.Links.StartAuthorisation, "RCVD: a signer is due")

	cancelled, _, err := b.c.Payments.StartAuthorisation(ctx, psu, st.Links.StartAuthorisation)
	require.NoError(t, err)
	b.scaFails(t, cancelled.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	link, err := cancelled.AuthorisationLink(st.Links.StartAuthorisation)
	require.NoError(t, err)
	as, _, err := b.c.Payments.AuthorisationStatus(ctx, psu, link)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusFailed, as.SCAStatus)
	cancelled.Links.SCAStatusLink = xs2a.Link{} // a bank that sends the id alone
	byID, err := cancelled.AuthorisationLink(st.Links.StartAuthorisation)
	require.NoError(t, err)
	assert.Equal(t, link.Href, byID.Href, "the authorisation lies below the startAuthorisation link")

	sca, _, err := b.c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusStarted, sca.SCAStatus)
	as, resp, err := b.c.Payments.AuthorisationStatus(ctx, xs2a.PSU{ID: psu.ID}, sca.Links.SCAStatusLink)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, xs2a.SCAStatusStarted, as.SCAStatus)
	assert.False(t, as.SCAStatus.Final())

	// the TPP stores the Initiation, with the authorisation's link kept on it
	require.NoError(t, ini.KeepAuthorisation(sca))
	stored, err := json.Marshal(ini)
	require.NoError(t, err)
	var again xs2a.Initiation
	require.NoError(t, json.Unmarshal(stored, &again))
	b.sca(t, sca.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	as, _, err = b.c.Payments.AuthorisationStatus(ctx, xs2a.PSU{ID: psu.ID}, again.Links.SCAStatusLink)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusFinalised, as.SCAStatus)
	assert.True(t, as.SCAStatus.Final())

	st = b.status(t, psu, ini)
	assert.Equal(t, xs2a.TransactionStatusPDNG, st.TransactionStatus)
	assert.Equal(t, ini.PaymentID, st.PaymentID)
	assert.True(t, st.Links.StartAuthorisation.IsZero(), "authorised: no signer is due")
	assert.True(t, st.RequestedExecutionDate.IsZero(), "no date moved")
}

// Production's answer to startAuthorisation names no authorisation: the
// calls that need one say that the bank gave none, and send nothing; the
// payment's status tells the outcome.
func TestAuthorisationWithoutID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	ini := smallPayment(t, b, psu)
	sca, _, err := b.c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusStarted, sca.SCAStatus)
	assert.Empty(t, sca.AuthorisationID)
	assert.True(t, sca.Links.SCAStatusLink.IsZero())
	assert.False(t, sca.Links.SCARedirect.IsZero())

	mark := b.rec.len()
	_, err = sca.AuthorisationLink(ini.Links.StartAuthorisation)
	ve := requireInvalid(t, err, "SCALinks")
	assert.Contains(t, ve.Error(), "gave no authorisationId")
	_, resp, err := b.c.Payments.AuthorisationStatus(ctx, psu, sca.Links.SCAStatusLink)
	ve = requireInvalid(t, err, "link")
	assert.Contains(t, ve.Error(), "gave no authorisationId")
	assert.Nil(t, resp)
	assert.Equal(t, mark, b.rec.len(), "nothing sent")

	b.sca(t, sca.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusPDNG, st.TransactionStatus)
}

// A PATC payment's second signer starts from the status answer alone: a
// TPP that kept only the status link finds startAuthorisation there.
func TestPaymentPATCSecondSignerFromStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFullAuthorisationAnswer()) // reads the second signer's authorisation
	fjellvind, _ := b.Customer(xs2atest.CorporateCustomer2)
	shared := fjellvind.Agreements[1]
	invest := b.account(t, xs2atest.CorporateCustomer2, 1)
	psu := b.register(t, xs2atest.CorporateCustomer2, xs2atest.Corporate(shared.ID))
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "1000.00", invest.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, ini, xs2atest.CorporateCustomer2)
	statusLink := ini.Links.Status // all the TPP stored

	signers := 0
	st, _, err := b.c.Payments.PollStatus(ctx, psu, statusLink, &xs2a.PollOptions{
		MinDelay: time.Millisecond, Backoff: 1, MaxAttempts: 10,
		OnPATC: func(st *xs2a.PaymentStatus) {
			signers++
			next, _, err := b.c.Payments.StartAuthorisation(ctx, psu, st.Links.StartAuthorisation)
			require.NoError(t, err)
			b.sca(t, next.Links.SCARedirect.Href, xs2atest.CorporateCustomer1)
			link, err := next.AuthorisationLink(st.Links.StartAuthorisation)
			require.NoError(t, err)
			as, _, err := b.c.Payments.AuthorisationStatus(ctx, psu, link)
			require.NoError(t, err)
			assert.Equal(t, xs2a.SCAStatusFinalised, as.SCAStatus)
		},
	})
	require.NoError(t, err)
	assert.Equal(t, 1, signers)
	assert.Equal(t, xs2a.TransactionStatusPDNG, st.TransactionStatus, "accepted once the second signer signed")
	assert.Equal(t, ini.PaymentID, st.PaymentID)
}

// A signing basket read, its status, authorised; another one deleted.
func TestSigningBasketReadAndDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFullAuthorisationAnswer()) // reads the basket's authorisation
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
	basket := func() (*xs2a.BasketInitiation, []string) {
		var payments []*xs2a.Initiation
		var ids []string
		for _, amount := range []string{"10.00", "20.00"} {
			ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, amount, debtor.BBAN), nil)
			require.NoError(t, err)
			payments, ids = append(payments, ini), append(ids, ini.PaymentID)
		}
		bi, _, err := b.c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: payments})
		require.NoError(t, err)
		return bi, ids
	}

	signed, ids := basket()
	got, _, err := b.c.SigningBaskets.Get(ctx, psu, signed.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, ids, got.Payments)
	assert.Equal(t, xs2a.TransactionStatusRCVD, got.TransactionStatus)
	assert.Equal(t, signed.Links.StartAuthorisation.Href, got.Links.StartAuthorisation.Href)
	sca, _, err := b.c.Payments.StartAuthorisation(ctx, psu, got.Links.StartAuthorisation)
	require.NoError(t, err)
	b.sca(t, sca.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	link, err := sca.AuthorisationLink(got.Links.StartAuthorisation)
	require.NoError(t, err)
	as, _, err := b.c.Payments.AuthorisationStatus(ctx, psu, link)
	require.NoError(t, err)
	assert.Equal(t, xs2a.SCAStatusFinalised, as.SCAStatus, "a basket's authorisation, through the same call")
	st, _, err := b.c.SigningBaskets.Status(ctx, psu, signed.Links.Status)
	require.NoError(t, err)
	assert.Equal(t, &xs2a.BasketStatus{TransactionStatus: xs2a.TransactionStatusACTC}, st)
	_, err = b.c.SigningBaskets.Cancel(ctx, psu, signed.Links.Self)
	requireBankError(t, err, http.StatusBadRequest, xs2a.CodeCancellationInvalid)

	dropped, ids := basket()
	resp, err := b.c.SigningBaskets.Cancel(ctx, psu, dropped.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	_, _, err = b.c.SigningBaskets.Get(ctx, psu, dropped.Links.Self)
	requireBankError(t, err, http.StatusNotFound, xs2a.CodeResourceUnknown)
	for _, id := range ids {
		assert.Equal(t, string(xs2a.TransactionStatusRCVD), b.PaymentStatus(id), "the payments stay")
	}
}

// A payment abroad in EUR: the transfer and currency fees summed in
// transactionFees, and the debtor charged in NOK with the fees.
func TestCrossBorderPaymentFees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer2)
	debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
	require.Equal(t, "10026.00", b.Balance(debtor.ResourceID))
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.CrossBorderCreditTransfers, &xs2a.Payment{
		InstructedAmount: nok(t, "100.00"),
		DebtorAccount:    &xs2a.AccountReference{BBAN: debtor.BBAN},
		CreditorAccount:  xs2a.AccountReference{IBAN: "DE89370400440532013000"},
		CreditorName:     "Müller Holz GmbH",
		CreditorAddress:  &xs2a.Address{TownName: "Berlin", Country: "DE"},
	}, nil)
	require.NoError(t, err)
	require.NotNil(t, ini.TransactionFees)
	assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: "25.00"}, *ini.TransactionFees, "NOK abroad: the transfer fee")

	eur, err := xs2a.ParseAmount("EUR", "200.00")
	require.NoError(t, err)
	ini, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.CrossBorderCreditTransfers, &xs2a.Payment{
		InstructedAmount: eur,
		DebtorAccount:    &xs2a.AccountReference{BBAN: debtor.BBAN},
		CreditorAccount:  xs2a.AccountReference{IBAN: "DE89370400440532013000"},
		CreditorName:     "Müller Holz GmbH",
		CreditorAddress:  &xs2a.Address{TownName: "Berlin", Country: "DE"},
	}, nil)
	require.NoError(t, err)
	require.NotNil(t, ini.TransactionFees)
	assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: "40.00"}, *ini.TransactionFees, "transfer and currency fee, summed")
	require.NotNil(t, ini.TransactionFeeIndicator)
	assert.True(t, *ini.TransactionFeeIndicator)

	b.authorise(t, psu, ini, xs2atest.PrivateCustomer2)
	b.RunBatch()
	assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, ini).TransactionStatus)
	assert.Equal(t, "7686.00", b.Balance(debtor.ResourceID), "10026.00 - 200 EUR at 11.50 - 40.00")

	reader := b.signIn(t, xs2atest.PrivateCustomer2) // the PSU's consent to read the account
	page, _, err := b.c.Accounts.TransactionsPage(ctx, reader, debtor.ResourceID, &xs2a.TransactionsOptions{Limit: 2})
	require.NoError(t, err)
	var paid *xs2a.Transaction
	for i, tx := range page.Transactions.Booked {
		if tx.TransactionAmount.Amount == "-2300.00" {
			paid = &page.Transactions.Booked[i]
		}
	}
	require.NotNil(t, paid, "the payment in the debtor's account")
	require.Len(t, paid.CurrencyExchange, 1, "booked at the bank's rate, which it reports")
	x := paid.CurrencyExchange[0]
	assert.Equal(t, "EUR", x.SourceCurrency)
	assert.Equal(t, "NOK", x.TargetCurrency)
	assert.Equal(t, "11.500000", x.ExchangeRate)
	assert.Regexp(t, `^FX-[A-Za-z0-9]{1,12}$`, x.ContractIdentification)
	assert.Equal(t, xs2a.DateOf(b.clock.Now().In(oslo)), x.QuotationDate)
}

// TPP-Redirect-Preferred: False: the SCA page asks the PSU to confirm in
// the bank's app; the outcome is the same, and CompleteSCA gets through it.
func TestRedirectPreferredFalseAppSCA(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	app := false
	psu.RedirectPreferred = &app
	ini := smallPayment(t, b, psu)
	sca, _, err := b.c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)

	page := b.scaPageAfterLogin(t, sca.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	assert.Contains(t, page, "confirm there with your fingerprint or face")
	// that page is tied to the browser that opened it: CompleteSCA, another browser, takes a new authorisation
	again, _, err := b.c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	cb := b.sca(t, again.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	assert.Equal(t, psu.ID, cb.PSUID, "the psu-id carried over")
	assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, ini).TransactionStatus)

	psu.RedirectPreferred = nil
	plain, _, err := b.c.Payments.StartAuthorisation(ctx, psu, smallPayment(t, b, psu).Links.StartAuthorisation)
	require.NoError(t, err)
	assert.NotContains(t, b.scaPageAfterLogin(t, plain.Links.SCARedirect.Href, xs2atest.PrivateCustomer1), "fingerprint",
		"without the header: the plain redirect")
}

// scaPageAfterLogin signs in on the SCA page behind href as a browser does
// and returns the page that follows; the SCA itself is left unfinished.
func (b *bank) scaPageAfterLogin(t *testing.T, href, customer string) string {
	t.Helper()
	hc := *b.HTTPClient()          // follows the 303 back to the page
	hc.Jar, _ = cookiejar.New(nil) // the page is tied to the browser that opened it: cookie and page token
	opened, err := hc.Get(href)
	require.NoError(t, err)
	first, err := io.ReadAll(opened.Body)
	opened.Body.Close()
	require.NoError(t, err)
	token := regexp.MustCompile(`name="pageToken" value="([^"]*)"`).FindStringSubmatch(string(first))
	require.NotNil(t, token, "%s", first)
	resp, err := hc.PostForm(href, url.Values{"step": {"login"}, "nationalId": {customer}, "pageToken": {token[1]}})
	require.NoError(t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", page)
	return string(page)
}

// smallPayment initiates a small payment from PrivateCustomer1's first account.
func smallPayment(t *testing.T, b *bank, psu xs2a.PSU) *xs2a.Initiation {
	t.Helper()
	ini, _, err := b.c.Payments.Initiate(context.Background(), psu, xs2a.NorwegianDomesticCreditTransfers,
		b.payment(t, "1.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN), nil)
	require.NoError(t, err)
	return ini
}

// Flow 4's "requestedExecutionDate may be adjusted": a date no longer
// possible when the PSU signs moves to the next banking day, reported in
// the status answer (ACWC); the payment is booked on the new date.
func TestExecutionDateAdjusted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	p := b.payment(t, "75.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN)
	p.RequestedExecutionDate = xs2a.Date{Year: 2025, Month: time.April, Day: 18} // Good Friday
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	require.NoError(t, err)
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)

	st := b.status(t, psu, ini)
	assert.Equal(t, xs2a.TransactionStatusACWC, st.TransactionStatus, "accepted with a change")
	assert.Equal(t, xs2a.Date{Year: 2025, Month: time.April, Day: 22}, st.RequestedExecutionDate, "after Easter Monday")
	details, _, err := b.c.Payments.Get(ctx, psu, ini.Links.Self)
	require.NoError(t, err)
	require.NotNil(t, details.Payment)
	assert.Equal(t, st.RequestedExecutionDate, details.Payment.RequestedExecutionDate)

	b.clock.Set(time.Date(2025, time.April, 22, 12, 30, 0, 0, oslo))
	assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, ini).TransactionStatus, "booked by the 12:00 run of the new date")
}

// Flow 4: authorising an e-invoice payment sets the invoice to processed at
// the invoice scheme; the TPP does nothing for it.
func TestEInvoiceProcessedAtScheme(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	p := b.payment(t, "842.50", "")
	p.RemittanceInformationUnstructured = ""
	inv := xs2a.EInvoice{KID: "12345678903", InvoiceNumber: "F-2025-0099"}
	ini, _, err := b.c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, inv, nil)
	require.NoError(t, err)
	assert.False(t, b.EInvoiceProcessed(inv.InvoiceNumber))
	mark := b.rec.len()
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)
	assert.True(t, b.EInvoiceProcessed(inv.InvoiceNumber))
	assert.Equal(t, 1, b.rec.len()-mark, "the TPP sent the startAuthorisation and nothing more")
}

// TestKeepAuthorisation: without an authorisation id (production, PP3)
// KeepAuthorisation says so and leaves the Initiation as it was; a nil
// Initiation or SCALinks is a *ValidationError.
func TestKeepAuthorisation(t *testing.T) {
	t.Parallel()
	ini := &xs2a.Initiation{Links: xs2a.ResourceLinks{StartAuthorisation: xs2a.Link{Href: "/v1/payments/p/x/authorisations"}}}
	err := ini.KeepAuthorisation(&xs2a.SCALinks{SCAStatus: xs2a.SCAStatusStarted})
	require.Error(t, err)
	assert.True(t, ini.Links.SCAStatusLink.IsZero())
	require.NoError(t, ini.KeepAuthorisation(&xs2a.SCALinks{AuthorisationID: "a1"}))
	assert.Equal(t, "/v1/payments/p/x/authorisations/a1", ini.Links.SCAStatusLink.Href)
	requireInvalid(t, (*xs2a.Initiation)(nil).KeepAuthorisation(&xs2a.SCALinks{}), "Initiation")
	requireInvalid(t, ini.KeepAuthorisation(nil), "SCALinks")
}
