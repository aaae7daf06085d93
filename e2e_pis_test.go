package xs2a_test

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Flow 3: a single payment. A PISP-only TPP registers the PSU through GET
// /v1/users; then POST payment, startAuthorisation, the PSU's SCA, and the
// status polled until the bank accepts it: PDNG, as production answers once
// the PSU has signed, even for today's date; then, on request
// (UntilSettled), until the batch run books it (ACSC). (The journey without
// registering first is Flow 5's.)
func TestFlow3SinglePayment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
	creditor := b.account(t, xs2atest.CorporateCustomer1, 0)
	require.Equal(t, "25345.12", b.Balance(debtor.ResourceID))
	require.Equal(t, "482500.00", b.Balance(creditor.ResourceID))

	// a psu-id the bank does not know for this TPP: the PSU must register first
	p := b.payment(t, "1500.50", debtor.BBAN)
	_, _, err := b.c.Payments.Initiate(ctx, xs2a.PSU{ID: uuid.NewString(), IPAddress: psuIP}, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	sca := requireSCA(t, err)
	assert.Equal(t, http.StatusUnauthorized, sca.StatusCode)
	assert.Zero(t, b.PaymentCount())

	psu := b.register(t, xs2atest.PrivateCustomer1)
	ini, resp, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, xs2a.TransactionStatusRCVD, ini.TransactionStatus)
	assert.NotEmpty(t, ini.PaymentID)
	assert.False(t, ini.Links.StartAuthorisation.IsZero())
	assert.False(t, ini.Links.Status.IsZero())
	require.NotNil(t, ini.TransactionFeeIndicator)
	assert.False(t, *ini.TransactionFeeIndicator, "no fee on a domestic payment")
	assert.Equal(t, 1, b.PaymentCount())
	assert.Equal(t, xs2a.TransactionStatusRCVD, b.status(t, psu, ini).TransactionStatus)

	cb := b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)
	assert.Equal(t, psu.ID, cb.PSUID)
	assert.Equal(t, psu.SessionID, cb.TPPSessionID)

	st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusPDNG, st.TransactionStatus, "signed and accepted: the poll ends at once")
	assert.True(t, st.Links.StartAuthorisation.IsZero(), "no signer is due")
	assert.Equal(t, []string{http.MethodGet}, st.Links.Self.Verbs, "no DELETE once signed")
	assert.Equal(t, "25345.12", b.Balance(debtor.ResourceID), "not executed before the batch run")

	var seen []xs2a.TransactionStatus
	st, _, err = b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, settlePoll(b, func(s *xs2a.PaymentStatus) {
		seen = append(seen, s.TransactionStatus)
	}))
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	require.NotNil(t, st.FundsAvailable)
	assert.True(t, *st.FundsAvailable)
	assert.False(t, st.InsufficientFunds())
	assert.Equal(t, []xs2a.TransactionStatus{xs2a.TransactionStatusPDNG, xs2a.TransactionStatusACSC}, seen)
	assert.Equal(t, "23844.62", b.Balance(debtor.ResourceID))
	assert.Equal(t, "484000.50", b.Balance(creditor.ResourceID))

	t.Run("PSU-IP-Address required", func(t *testing.T) {
		away := psu
		away.IPAddress = ""
		mark := b.rec.len()
		_, _, err := b.c.Payments.Initiate(ctx, away, xs2a.NorwegianDomesticCreditTransfers, p, nil)
		requireInvalid(t, err, "PSU.IPAddress")
		assert.Equal(t, mark, b.rec.len(), "nothing sent")
		a := b.raw(t, "POST", "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers, p, "PSU-ID", psu.ID)
		assert.Equal(t, http.StatusBadRequest, a.Status)
		require.NotEmpty(t, a.TPPMessages)
		assert.Equal(t, xs2a.TPPMessage{Category: "ERROR", Code: xs2a.CodeFormatError, Path: "PSU-IP-Address",
			Text: "PSU-IP-Address is required: payment initiation needs the PSU present"}, a.TPPMessages[0])
	})

	t.Run("domestic-norway-credit-transfers: no status before approval", func(t *testing.T) {
		ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.DomesticNorwayCreditTransfers, b.payment(t, "10.00", debtor.BBAN), nil)
		require.NoError(t, err)
		_, _, err = b.c.Payments.Status(ctx, psu, ini.Links.Status)
		requireBankError(t, err, http.StatusBadRequest, xs2a.CodeResourceUnknown)
		_, _, err = b.c.Payments.Get(ctx, psu, ini.Links.Self)
		requireBankError(t, err, http.StatusBadRequest, xs2a.CodeResourceUnknown)
		b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)
		st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, settlePoll(b, nil))
		require.NoError(t, err)
		assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	})

	t.Run("an AISP+PISP registers through the account flow", func(t *testing.T) {
		psu := b.signIn(t, xs2atest.PrivateCustomer2) // consent SCA, no GET /v1/users
		from := b.account(t, xs2atest.PrivateCustomer2, 0)
		p := b.payment(t, "99.90", from.BBAN)
		p.CreditorAccount = xs2a.AccountReference{BBAN: debtor.BBAN}
		ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.InstantNorwegianDomesticCreditTransfersStraks, p, nil)
		require.NoError(t, err)
		require.NotNil(t, ini.TransactionFees)
		assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: "2.00"}, *ini.TransactionFees, "the instant product has a fee")
		b.authorise(t, psu, ini, xs2atest.PrivateCustomer2)
		assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, ini).TransactionStatus, "instant: booked at once")
		page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, from.ResourceID, &xs2a.TransactionsOptions{Limit: 2})
		require.NoError(t, err)
		var amounts []string
		for _, tx := range page.Transactions.Booked {
			amounts = append(amounts, tx.TransactionAmount.Amount)
		}
		assert.Equal(t, []string{"-99.90", "-2.00"}, amounts, "the payment and its fee show in the account")
	})
}

// Flow 4: an electronic invoice (KID and invoice number, debtor chosen by
// the PSU). The first attempt goes without allowLogicalDuplicate; after the
// PSU aborted its SCA, a new attempt is refused as a logical duplicate, and
// the retry with allowLogicalDuplicate=true is accepted.
func TestFlow4ElectronicInvoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	sparekonto := b.account(t, xs2atest.PrivateCustomer1, 1)
	inv := xs2a.EInvoice{KID: "12345678903", InvoiceNumber: "F-2025-0042"}
	p := b.payment(t, "842.50", "")
	p.RemittanceInformationUnstructured = ""
	p.CreditorName = "Fjordkraft AS"
	mark := b.rec.len()

	first, _, err := b.c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, inv, nil)
	require.NoError(t, err)
	body, _, err := b.c.Payments.Get(ctx, psu, first.Links.Self)
	require.NoError(t, err)
	require.NotNil(t, body.Payment)
	assert.Equal(t, []xs2a.StructuredRemittance{
		{Reference: "12345678903", ReferenceType: "SCOR"},
		{Reference: "F-2025-0042", ReferenceType: "CINV", ReferenceIssuer: xs2a.DefaultInvoiceIssuer},
	}, body.Payment.RemittanceInformationStructuredArray)
	assert.Nil(t, body.Payment.DebtorAccount, "the PSU chooses the account")

	failure := b.scaFails(t, startAuth(t, b, psu, first), xs2atest.PrivateCustomer1)
	assert.Equal(t, xs2a.CodeSCAInvalid, failure.Code)

	_, _, err = b.c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, inv, nil)
	e := requireBankError(t, err, http.StatusBadRequest, xs2a.CodePaymentFailed)
	assert.Contains(t, e.Messages[0].Text, "logical duplicate")

	retry, _, err := b.c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, inv, &xs2a.InitiateOptions{AllowLogicalDuplicate: true})
	require.NoError(t, err)
	b.authorise(t, psu, retry, xs2atest.PrivateCustomer1, xs2atest.Accounts(sparekonto.ResourceID))
	assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, retry).TransactionStatus)
	paid, _, err := b.c.Payments.Get(ctx, psu, retry.Links.Self)
	require.NoError(t, err)
	require.NotNil(t, paid.Payment)
	require.NotNil(t, paid.Payment.DebtorAccount)
	assert.Equal(t, sparekonto.BBAN, paid.Payment.DebtorAccount.BBAN, "the account the PSU picked")

	var queries []string
	for _, r := range b.rec.since(mark, http.MethodPost, "/v1/payments/") {
		if !strings.HasSuffix(r.Path, "/authorisations") {
			queries = append(queries, r.RawQuery)
		}
	}
	assert.Equal(t, []string{"", "", "allowLogicalDuplicate=true"}, queries, "the flag only on the retry")
}

// An e-invoice payment whose answer was lost: ResolveEInvoice sends the
// invoice again without allowLogicalDuplicate and tells whether the lost
// attempt landed (the bank refuses a duplicate) or creates the payment
// itself; either way the bank holds exactly one payment of the invoice.
func TestErrorsEInvoiceOutcomeResolved(t *testing.T) {
	t.Parallel()
	post := func(f xs2atest.Fault) xs2atest.Fault {
		f.Method, f.Path, f.Times = http.MethodPost, "/v1/payments/", 1
		return f
	}
	tests := []struct {
		name   string
		fault  xs2atest.Fault
		hangUp bool // the client gives up once the request is written
		landed bool // the lost attempt made the payment
	}{
		{"answer dropped after the bank made the payment", post(xs2atest.Fault{Drop: true}), false, true},
		{"gateway timeout before the bank saw it", post(xs2atest.Fault{Status: http.StatusGatewayTimeout}), false, false},
		{"connection lost before the bank acted", post(xs2atest.Fault{Delay: time.Hour}), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, xs2atest.WithFaults(tt.fault))
			psu := b.register(t, xs2atest.PrivateCustomer1)
			p, inv := b.payment(t, "842.50", ""), xs2a.EInvoice{KID: "12345678903", InvoiceNumber: "F-2025-0042"}
			p.RemittanceInformationUnstructured = ""
			mark := b.rec.len()

			_, _, err := b.c.Payments.InitiateEInvoice(lostAnswerContext(t, tt.hangUp), psu, xs2a.NorwegianDomesticCreditTransfers, p, inv, nil)
			require.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)
			if !tt.landed {
				assert.Zero(t, b.PaymentCount(), "the bank never acted on the lost attempt")
			}
			// The bank must be done with the lost attempt (it logs a hang-up
			// once it notices it), or the attempt sent next could take the
			// fault meant for it.
			for b.RequestCount(http.MethodPost, "/v1/payments/") == 0 {
				runtime.Gosched()
			}

			res, resp, err := b.c.Payments.ResolveEInvoice(context.Background(), psu, xs2a.NorwegianDomesticCreditTransfers, p, inv)
			require.NoError(t, err)
			require.NotNil(t, resp)
			assert.Equal(t, 1, b.PaymentCount(), "one payment of the invoice")
			sent := b.rec.since(mark, http.MethodPost, "/v1/payments/")
			require.Len(t, sent, 2)
			assert.Empty(t, sent[1].RawQuery, "sent again without allowLogicalDuplicate")
			assert.Equal(t, tt.landed, res.Landed)
			if tt.landed {
				assert.Nil(t, res.Initiation)
				require.NotNil(t, res.Refusal)
				assert.ErrorIs(t, res.Refusal, xs2a.ErrDuplicatePayment)
				assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
				return
			}
			require.NotNil(t, res.Initiation)
			assert.Nil(t, res.Refusal)
			b.authorise(t, psu, res.Initiation, xs2atest.PrivateCustomer1)
			assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, res.Initiation).TransactionStatus)
		})
	}
}

// lostAnswerContext is the context of a call whose answer gets lost: with
// hangUp, it ends as soon as the request is written, so the client gives
// up while the bank still waits (no timing involved).
func lostAnswerContext(t *testing.T, hangUp bool) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if !hangUp {
		return ctx
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { cancel() },
	})
}

func startAuth(t *testing.T, b *bank, psu xs2a.PSU, ini *xs2a.Initiation) string {
	t.Helper()
	links, _, err := b.c.Payments.StartAuthorisation(context.Background(), psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	return links.Links.SCARedirect.Href
}

// Flow 5: single SCA for PISP-only journeys (release 1.17.0). A PISP-only
// TPP initiates the payment of a PSU it has never seen without PSU-ID; the
// PSU signs in at the payment's own SCA, chooses its context (and the
// debtor where the payment names none) and signs: one SCA, no GET
// /v1/users first, and the payment reaches a final status. The callback's
// psu-id registers the PSU, so later payments go with it. A PSU registered
// already takes one SCA per payment and one per signing basket.
func TestFlow5SingleSCAPISPOnly(t *testing.T) {
	t.Parallel()
	t.Run("new PSU: one SCA, no registration first", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		b := newBank(t)
		debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
		stranger := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP} // no psu-id yet

		ini, resp, err := b.c.Payments.Initiate(ctx, stranger, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "1500.50", debtor.BBAN), nil)
		require.NoError(t, err, "accepted without PSU-ID")
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Equal(t, xs2a.TransactionStatusRCVD, ini.TransactionStatus)
		assert.Equal(t, xs2a.TransactionStatusRCVD, b.status(t, stranger, ini).TransactionStatus)

		cb := b.authorise(t, stranger, ini, xs2atest.PrivateCustomer1) // the one SCA
		scas := 1
		assert.Equal(t, xs2atest.PSUID(signer(t).KeyID(), xs2atest.PrivateCustomer1), cb.PSUID)
		assert.Equal(t, stranger.SessionID, cb.TPPSessionID)
		assert.Equal(t, xs2a.ContextPrivate, cb.Context)

		st, _, err := b.c.Payments.PollStatus(ctx, stranger, ini.Links.Status, settlePoll(b, nil))
		require.NoError(t, err)
		assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
		assert.True(t, st.TransactionStatus.Final())
		assert.Equal(t, "23844.62", b.Balance(debtor.ResourceID))
		assert.Equal(t, 1, scas)
		assert.Zero(t, b.RequestCount("GET", "/v1/users"), "no registration SCA")

		// the callback registered the PSU: its psu-id serves the next payment
		psu := cb.PSU(psuIP)
		next, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", debtor.BBAN), nil)
		require.NoError(t, err)
		assert.Equal(t, xs2a.TransactionStatusRCVD, b.status(t, psu, next).TransactionStatus)
	})

	t.Run("new corporate PSU: context and debtor chosen in the one SCA", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		b := newBank(t)
		fjellvind, _ := b.Customer(xs2atest.CorporateCustomer2)
		driftskonto := b.account(t, xs2atest.CorporateCustomer2, 0)
		stranger := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}

		ini, _, err := b.c.Payments.Initiate(ctx, stranger, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "2500.00", ""), nil)
		require.NoError(t, err)
		cb := b.authorise(t, stranger, ini, xs2atest.CorporateCustomer2,
			xs2atest.Corporate(fjellvind.Agreements[0].ID), xs2atest.Accounts(driftskonto.ResourceID))
		assert.Equal(t, xs2a.ContextCorporate, cb.Context)
		assert.Equal(t, xs2atest.CorporateID(signer(t).KeyID(), fjellvind.Agreements[0].ID), cb.PSUCorporateID)

		psu := cb.PSU(psuIP)
		st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, settlePoll(b, nil))
		require.NoError(t, err)
		assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
		assert.Equal(t, "1247500.00", b.Balance(driftskonto.ResourceID), "paid from the account the PSU chose")
		assert.Zero(t, b.RequestCount("GET", "/v1/users"))

		// registered in corporate context: PSU-CORPORATE-ID goes with the psu-id
		_, _, err = b.c.Payments.Status(ctx, xs2a.PSU{ID: psu.ID}, ini.Links.Status)
		require.ErrorIs(t, err, xs2a.ErrCorporateIDRequired)
	})

	t.Run("registered PSU: one SCA per payment, one per signing basket", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		b := newBank(t)
		psu := b.register(t, xs2atest.PrivateCustomer1)
		debtor := b.account(t, xs2atest.PrivateCustomer1, 0)
		scas := 1

		for _, amount := range []string{"10.00", "20.00"} {
			ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, amount, debtor.BBAN), nil)
			require.NoError(t, err, "no new registration")
			cb := b.authorise(t, psu, ini, xs2atest.PrivateCustomer1)
			scas++
			assert.Equal(t, psu.ID, cb.PSUID)
			assert.Equal(t, psu.SessionID, cb.TPPSessionID)
			assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, ini).TransactionStatus)
		}

		var basket []*xs2a.Initiation
		for _, amount := range []string{"30.00", "40.00", "50.00"} {
			ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, amount, debtor.BBAN), nil)
			require.NoError(t, err)
			basket = append(basket, ini)
		}
		bi, _, err := b.c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: basket})
		require.NoError(t, err)
		assert.Equal(t, xs2a.TransactionStatusRCVD, bi.TransactionStatus)
		links, _, err := b.c.Payments.StartAuthorisation(ctx, psu, bi.Links.StartAuthorisation)
		require.NoError(t, err)
		b.sca(t, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
		scas++
		for _, ini := range basket {
			assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, ini).TransactionStatus, "one SCA for the basket")
		}
		assert.Equal(t, 4, scas, "registration, two payments, one basket of three")
		assert.Equal(t, 5, b.PaymentCount())

		_, _, err = b.c.Accounts.List(ctx, psu)
		requireSCA(t, err) // a PISP-only registration gives no account access
	})
}

// Payment cancellation by DELETE, available for all payment products in the
// sandbox, unless the payment is final.
func TestPaymentCancellation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	today := xs2a.DateOf(b.clock.Now().In(oslo))

	single, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", debtor), nil)
	require.NoError(t, err)
	periodic, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.PeriodicPayment{
		Payment: *b.payment(t, "20.00", debtor), StartDate: today.AddDays(1), Frequency: xs2a.Weekly}, nil)
	require.NoError(t, err)
	for _, ini := range []*xs2a.Initiation{single, periodic} {
		resp, err := b.c.Payments.Cancel(ctx, psu, ini.Links.Self)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode)
		assert.Equal(t, xs2a.TransactionStatusCANC, b.status(t, psu, ini).TransactionStatus)
	}

	booked, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.InstantNorwegianDomesticCreditTransfersStraks, b.payment(t, "30.00", debtor), nil)
	require.NoError(t, err)
	b.authorise(t, psu, booked, xs2atest.PrivateCustomer1)
	require.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, booked).TransactionStatus)
	_, err = b.c.Payments.Cancel(ctx, psu, booked.Links.Self)
	requireBankError(t, err, http.StatusBadRequest, xs2a.CodeCancellationInvalid)
}

// Payment status PATC: a payment on an account that needs two signers stays
// PATC until the second signs through the same startAuthorisation link. PATC
// is not accepted: the poll goes on until the last signature makes the
// payment PDNG.
func TestPaymentStatusPATC(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	fjellvind, _ := b.Customer(xs2atest.CorporateCustomer2)
	shared := fjellvind.Agreements[1]
	require.Equal(t, 2, shared.SignersRequired)
	invest := b.account(t, xs2atest.CorporateCustomer2, 1)
	psu := b.register(t, xs2atest.CorporateCustomer2, xs2atest.Corporate(shared.ID))

	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "250000.00", invest.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, ini, xs2atest.CorporateCustomer2)
	patc := 0
	var seen []xs2a.TransactionStatus
	st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{
		MinDelay: time.Millisecond, Backoff: 1, MaxAttempts: 10,
		OnPATC: func(st *xs2a.PaymentStatus) {
			patc++
			b.authorise(t, psu, ini, xs2atest.CorporateCustomer1) // the second signer
		},
		OnStatus: func(st *xs2a.PaymentStatus) { seen = append(seen, st.TransactionStatus) },
	})
	require.NoError(t, err)
	assert.Equal(t, 1, patc)
	assert.Equal(t, xs2a.TransactionStatusPDNG, st.TransactionStatus)
	assert.Equal(t, []xs2a.TransactionStatus{xs2a.TransactionStatusPATC, xs2a.TransactionStatusPDNG}, seen)
	st, _, err = b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, settlePoll(b, nil))
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
}

// Limits: the sandbox's batch runs 5 times a day (06:00, 09:00, 12:00, 15:00,
// 18:00 in Oslo). An approved payment is booked by the first run after it,
// with no RunBatch: the clock only moves.
func TestLimitsBatchRuns(t *testing.T) {
	t.Parallel()
	at := func(day, h, m int) time.Time { return time.Date(2025, 3, day, h, m, 0, 0, oslo) }
	tests := []struct {
		name                 string
		authorised, lastWait time.Time // lastWait: the payment is still PDNG
		run                  time.Time
	}{
		{"06:00", at(12, 0, 30), at(12, 5, 59), at(12, 6, 0)},
		{"09:00", at(12, 6, 1), at(12, 8, 59), at(12, 9, 0)},
		{"12:00", at(12, 9, 1), at(12, 11, 59), at(12, 12, 0)},
		{"15:00", at(12, 12, 1), at(12, 14, 59), at(12, 15, 0)},
		{"18:00", at(12, 15, 1), at(12, 17, 59), at(12, 18, 0)},
		{"none in the night", at(12, 18, 1), at(13, 5, 59), at(13, 6, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBankAt(t, tt.authorised)
			psu := b.register(t, xs2atest.PrivateCustomer2)
			debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
			ini, _, err := b.c.Payments.Initiate(context.Background(), psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", debtor.BBAN), nil)
			require.NoError(t, err)
			b.authorise(t, psu, ini, xs2atest.PrivateCustomer2)
			b.clock.Set(tt.lastWait)
			assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, ini).TransactionStatus)
			assert.Equal(t, "10026.00", b.Balance(debtor.ResourceID))
			b.clock.Set(tt.run)
			assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, ini).TransactionStatus)
			assert.Equal(t, "9926.00", b.Balance(debtor.ResourceID))
		})
	}
}

// Limits: periodic payments are left out of the batch runs.
func TestLimitsBatchExcludesPeriodic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer2)
	debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
	today := xs2a.DateOf(b.clock.Now().In(oslo))

	periodic, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.PeriodicPayment{
		Payment: *b.payment(t, "500.00", debtor.BBAN), StartDate: today, Frequency: xs2a.Monthly, DayOfExecution: "12",
	}, nil)
	require.NoError(t, err)
	single, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", debtor.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, periodic, xs2atest.PrivateCustomer2)
	b.authorise(t, psu, single, xs2atest.PrivateCustomer2)

	b.clock.Advance(26 * time.Hour) // every run of today and tomorrow
	b.RunBatch()
	assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, single).TransactionStatus)
	assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, psu, periodic).TransactionStatus)
	assert.Equal(t, "9926.00", b.Balance(debtor.ResourceID), "only the single payment was booked")
}

// Errors: insufficient funds is not a 500; the status is ACCP with
// fundsAvailable false, which is not final: PollStatus ends there with the
// status (the bank decided), and the next batch run books the payment once
// the money is there.
func TestErrorsInsufficientFunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer2)
	debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
	_, err := b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "100.00")})
	require.NoError(t, err)

	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "500.00", debtor.BBAN), nil)
	require.NoError(t, err, "accepted: funds are checked at execution")
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer2)
	st, _, err := b.c.Payments.PollStatus(ctx, psu, ini.Links.Status, settlePoll(b, nil))
	require.NoError(t, err, "PollStatus stops on fundsAvailable false and reports the status")
	assert.Equal(t, xs2a.TransactionStatusACCP, st.TransactionStatus)
	require.NotNil(t, st.FundsAvailable)
	assert.False(t, *st.FundsAvailable)
	assert.True(t, st.InsufficientFunds())
	assert.Equal(t, "100.00", b.Balance(debtor.ResourceID))

	_, err = b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "1000.00")})
	require.NoError(t, err)
	b.clock.Set(time.Date(2025, 3, 12, 12, 0, 0, 0, oslo)) // the 12:00 run
	st = b.status(t, psu, ini)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	assert.False(t, st.InsufficientFunds())
	assert.Equal(t, "500.00", b.Balance(debtor.ResourceID))
}

// What fundsAvailable false asks for: cancel the waiting payment before a new attempt,
// so that the money arriving later books only the new one.
func TestErrorsInsufficientFundsCancelThenRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer2)
	debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
	_, err := b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "100.00")})
	require.NoError(t, err)

	first, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "500.00", debtor.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, first, xs2atest.PrivateCustomer2)
	st, _, err := b.c.Payments.PollStatus(ctx, psu, first.Links.Status, settlePoll(b, nil))
	require.NoError(t, err)
	require.True(t, st.InsufficientFunds())
	_, err = b.c.Payments.Cancel(ctx, psu, first.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusCANC, b.status(t, psu, first).TransactionStatus)

	_, err = b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "1000.00")})
	require.NoError(t, err)
	retry, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "500.00", debtor.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, retry, xs2atest.PrivateCustomer2)
	st, _, err = b.c.Payments.PollStatus(ctx, psu, retry.Links.Status, settlePoll(b, nil))
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	assert.Equal(t, xs2a.TransactionStatusCANC, b.status(t, psu, first).TransactionStatus, "the cancelled attempt stays cancelled")
	assert.Equal(t, "500.00", b.Balance(debtor.ResourceID), "paid once")
}

// A connection dropped after the payment POST reached the bank: the SDK says
// the outcome is unknown, does not send it again, and the bank holds exactly
// one payment.
func TestErrorsPaymentOutcomeUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFaults(
		xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1},
		xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Status: http.StatusServiceUnavailable, Times: 1},
	))
	psu := b.register(t, xs2atest.PrivateCustomer1)
	p := b.payment(t, "75.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN)

	_, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	require.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)
	var te *xs2a.TransportError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.Sent)
	assert.Equal(t, 1, b.PaymentCount(), "the bank has the payment")
	assert.Equal(t, 1, b.RequestCount("POST", "/v1/payments/"), "sent once, never again")
	log := b.Requests()
	last := log[len(log)-1]
	assert.True(t, last.Dropped)
	assert.Equal(t, last.RequestID, te.RequestID, "the X-Request-ID to quote to the bank")

	// a 503 answer to a POST is not retried either
	_, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	requireBankError(t, err, http.StatusServiceUnavailable, xs2a.CodeServiceUnavailable)
	assert.Equal(t, 2, b.RequestCount("POST", "/v1/payments/"))
	assert.Equal(t, 1, b.PaymentCount())
}
