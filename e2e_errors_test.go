package xs2a_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Errors: a missing or invalid signature is 400. The SDK always signs, so the
// signed request is changed on its way out (a Base transport under the SDK's
// Transport) or sent by a plain http.Client.
func TestErrorsSignatureMissingOrInvalid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	setBody := func(r *http.Request, body string) {
		r.Body = io.NopCloser(strings.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	sigValue := regexp.MustCompile(`signature="[^"]+"`)
	get := func(c *xs2a.Client) error { _, _, err := c.Sandbox.Customers(ctx, nil); return err }
	post := func(c *xs2a.Client) error {
		_, _, err := c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: xs2a.CustomerPrivate, Name: "Per Test"})
		return err
	}
	tests := []struct {
		name   string
		call   func(*xs2a.Client) error
		tamper func(*http.Request)
		code   string
		sig    bool // errors.Is(err, ErrSignatureInvalid)
	}{
		{"missing", get, func(r *http.Request) { r.Header.Del("Signature") }, xs2a.CodeSignatureMissing, true},
		{"signed header changed", get, func(r *http.Request) {
			r.Header.Set("Date", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat))
		}, xs2a.CodeSignatureInvalid, true},
		{"signature bytes changed", get, func(r *http.Request) {
			r.Header.Set("Signature", sigValue.ReplaceAllString(r.Header.Get("Signature"), `signature="AAAA"`))
		}, xs2a.CodeSignatureInvalid, true},
		{"header to sign added after signing", get, func(r *http.Request) { r.Header.Set("PSU-ID", uuid.NewString()) },
			xs2a.CodeSignatureInvalid, true},
		{"body changed after the digest", post, func(r *http.Request) {
			setBody(r, `{"customerNumber":"01017012345","customerType":"CORPORATE","name":"Per Test"}`)
		}, xs2a.CodeSignatureInvalid, true},
		{"digest removed", post, func(r *http.Request) { r.Header.Del("Digest") }, xs2a.CodeSignatureInvalid, true},
		{"certificate missing", get, func(r *http.Request) { r.Header.Del("TPP-Signature-Certificate") }, xs2a.CodeCertificateMissing, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t)
			b.rec.setTamper(tt.tamper, nil)
			err := tt.call(b.c)
			requireBankError(t, err, http.StatusBadRequest, tt.code)
			assert.Equal(t, tt.sig, errors.Is(err, xs2a.ErrSignatureInvalid))
			assert.Len(t, b.Customers(), 4, "nothing was created")
		})
	}

	t.Run("plain http.Client, no signature", func(t *testing.T) {
		t.Parallel()
		b := newBank(t)
		a := doRaw(t, b.HTTPClient(), "GET", b.URL()+"/v1/accounts", nil, "TPP-Redirect-URI", xs2atest.DefaultRedirectURI)
		assert.Equal(t, http.StatusBadRequest, a.Status)
		assert.Equal(t, xs2a.CodeSignatureMissing, a.code())
	})
}

// TPP-Redirect-URI is required on every request: NewClient wants it, and
// the bank refuses a request without it.
func TestErrorsRedirectURIRequired(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	_, err := xs2a.NewClient(b.URL(), signer(t))
	require.Error(t, err)
	hc := &http.Client{Transport: &xs2a.Transport{Base: b.HTTPClient().Transport, Signer: signer(t), Now: b.clock.Now}}
	a := doRaw(t, hc, "GET", b.URL()+"/v1/sandbox/customers", nil)
	assert.Equal(t, http.StatusBadRequest, a.Status)
	require.NotEmpty(t, a.TPPMessages)
	assert.Equal(t, xs2a.CodeFormatError, a.code())
	assert.Equal(t, "TPP-Redirect-URI", a.TPPMessages[0].Path)
}

// Errors: text the bank's backend cannot process (an emoji) is 400. The SDK
// refuses it before sending; the bank refuses it when it gets it anyway.
func TestErrorsUnprocessableText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN

	tests := []struct {
		name  string
		call  func() error
		field string
	}{
		{"remittance", func() error {
			p := b.payment(t, "10.00", debtor)
			p.RemittanceInformationUnstructured = "Takk for middagen 🍕"
			_, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
			return err
		}, "Payment.RemittanceInformationUnstructured"},
		{"creditor name", func() error {
			p := b.payment(t, "10.00", debtor)
			p.CreditorName = "Pizza 🍕 AS"
			_, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
			return err
		}, "Payment.CreditorName"},
		{"TPP-Session-ID", func() error {
			_, _, err := b.c.Accounts.List(ctx, xs2a.PSU{ID: psu.ID, SessionID: "økt-🙂"})
			return err
		}, "PSU.SessionID"},
		{"sandbox customer name", func() error {
			_, _, err := b.c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: xs2a.CustomerPrivate, Name: "Per 🙂"})
			return err
		}, "SandboxCustomer.Name"},
	}
	for _, tt := range tests {
		t.Run("SDK/"+tt.name, func(t *testing.T) {
			mark := b.rec.len()
			requireInvalid(t, tt.call(), tt.field)
			assert.Equal(t, mark, b.rec.len(), "nothing sent")
		})
	}

	t.Run("bank", func(t *testing.T) {
		body := map[string]any{
			"instructedAmount":                  map[string]string{"currency": "NOK", "amount": "10.00"},
			"debtorAccount":                     map[string]string{"bban": debtor},
			"creditorAccount":                   map[string]string{"bban": b.account(t, xs2atest.CorporateCustomer1, 0).BBAN},
			"creditorName":                      "Nordlys Bygg AS",
			"remittanceInformationUnstructured": "Takk for middagen 🍕",
		}
		a := b.raw(t, "POST", "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers, body, "PSU-ID", psu.ID, "PSU-IP-Address", psuIP)
		assert.Equal(t, http.StatusBadRequest, a.Status)
		assert.Equal(t, xs2a.CodeFormatError, a.code())
		a = b.raw(t, "GET", "/v1/accounts", nil, "PSU-ID", psu.ID, "TPP-Session-ID", "økt-🙂")
		assert.Equal(t, http.StatusBadRequest, a.Status)
		assert.Equal(t, xs2a.CodeFormatError, a.code())
		assert.Zero(t, b.PaymentCount())

		body["remittanceInformationUnstructured"] = "Takk for middagen, hilsen Kåre" // Latin-1 is fine
		a = b.raw(t, "POST", "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers, body, "PSU-ID", psu.ID, "PSU-IP-Address", psuIP)
		assert.Equal(t, http.StatusCreated, a.Status)
	})
}

// Errors: a GET on an account resource without valid PSU-ID and consent is
// 401 with a scaRedirect link in the body: *SCARequiredError.
func TestErrorsSCARequired401(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	registered := b.register(t, xs2atest.PrivateCustomer1) // a psu-id, no consent
	first, second := b.account(t, xs2atest.PrivateCustomer2, 0), b.account(t, xs2atest.PrivateCustomer2, 1)
	partial := b.signIn(t, xs2atest.PrivateCustomer2, xs2atest.Accounts(first.ResourceID))

	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"accounts without PSU-ID", func() error { _, _, err := b.c.Accounts.List(ctx, xs2a.PSU{}); return err }, xs2a.CodePSUCredentialsInvalid},
		{"accounts with an unknown PSU-ID", func() error {
			_, _, err := b.c.Accounts.List(ctx, xs2a.PSU{ID: uuid.NewString()})
			return err
		}, xs2a.CodePSUCredentialsInvalid},
		{"accounts without consent", func() error { _, _, err := b.c.Accounts.List(ctx, registered); return err }, xs2a.CodeConsentInvalid},
		{"card accounts without consent", func() error { _, _, err := b.c.CardAccounts.List(ctx, registered); return err }, xs2a.CodeConsentInvalid},
		{"balances of an account not consented to", func() error {
			_, _, err := b.c.Accounts.Balances(ctx, partial, second.ResourceID)
			return err
		}, xs2a.CodeConsentInvalid},
		{"transactions of an account not consented to", func() error {
			_, _, err := b.c.Accounts.TransactionsPage(ctx, partial, second.ResourceID, nil)
			return err
		}, xs2a.CodeConsentInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sca := requireSCA(t, tt.call())
			assert.Equal(t, http.StatusUnauthorized, sca.StatusCode)
			require.NotEmpty(t, sca.Messages)
			assert.Equal(t, tt.code, sca.Messages[0].Code)
			assert.True(t, strings.HasPrefix(sca.Redirect.Href, b.URL()+"/sca/"), "the bank's SCA page")
		})
	}
	accounts, _, err := b.c.Accounts.List(ctx, partial)
	require.NoError(t, err)
	assert.Equal(t, []string{first.ResourceID}, resourceIDs(accounts), "the consent holds the ticked account only")
}

// Errors: a failed SCA redirects to the TPP with status, code and message
// (system comes on server errors only, and a cancel is none); ParseCallback
// and CallbackHandler give a *SCAFailedError.
func TestErrorsFailedSCA(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)

	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err := b.c.Accounts.List(ctx, psu)
	u, err := b.CompleteSCA(ctx, requireSCA(t, err).Redirect.Href, xs2atest.PrivateCustomer1, xs2atest.Cancel())
	require.NoError(t, err)
	assert.False(t, u.Query().Has("psu-id"))
	cb, err := xs2a.ParseCallback(u.Query())
	assert.Nil(t, cb)
	require.ErrorIs(t, err, xs2a.ErrSCAFailed)
	var f *xs2a.SCAFailedError
	require.ErrorAs(t, err, &f)
	assert.Equal(t, xs2a.SCAFailedError{Status: http.StatusUnauthorized, Code: xs2a.CodeSCAInvalid, Message: "The PSU cancelled the authentication."}, *f)

	// the TPP's callback endpoint sees the same
	var got error
	h := xs2a.CallbackHandler(func(http.ResponseWriter, *http.Request, *xs2a.Callback) { t.Error("success on a failed SCA") },
		func(w http.ResponseWriter, r *http.Request, err error) {
			got = err
			w.WriteHeader(http.StatusForbidden)
		})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", u.String(), nil))
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Equal(t, f, got)
	assert.Equal(t, "no-store", w.Header().Get("Cache-Control"))

	// the failed SCA left no access; a payment whose SCA failed waits for another
	_, _, err = b.c.Accounts.List(ctx, psu)
	requireSCA(t, err)
	payer := b.register(t, xs2atest.PrivateCustomer1)
	ini, _, err := b.c.Payments.Initiate(ctx, payer, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN), nil)
	require.NoError(t, err)
	f = b.scaFails(t, startAuth(t, b, payer, ini), xs2atest.PrivateCustomer1)
	assert.Equal(t, xs2a.CodeSCAInvalid, f.Code)
	assert.Equal(t, xs2a.TransactionStatusRCVD, b.status(t, payer, ini).TransactionStatus)
	b.authorise(t, payer, ini, xs2atest.PrivateCustomer1)
	assert.Equal(t, xs2a.TransactionStatusPDNG, b.status(t, payer, ini).TransactionStatus)
}

// Errors: a KID error in a payment is 400. The SDK checks KIDs before
// sending; the bank answers 400 FORMAT_ERROR "invalid KID" to a raw request.
func TestErrorsKID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	const badKID = "12345678904" // the MOD10 and MOD11 controls are 3 and 0

	mark := b.rec.len()
	p := b.payment(t, "10.00", debtor)
	p.RemittanceInformationUnstructured = ""
	_, _, err := b.c.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, xs2a.EInvoice{KID: badKID, InvoiceNumber: "F-1"}, nil)
	requireInvalid(t, err, "EInvoice.KID")
	p.RemittanceInformationStructuredArray = []xs2a.StructuredRemittance{{Reference: badKID, ReferenceType: xs2a.ReferenceTypeSCOR}}
	_, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	requireInvalid(t, err, "Payment.RemittanceInformationStructuredArray[0].Reference")
	p.RemittanceInformationStructuredArray = nil
	p.RemittanceInformationStructured = &xs2a.StructuredRemittance{Reference: badKID, ReferenceType: xs2a.ReferenceTypeSCOR}
	_, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, p, nil)
	requireInvalid(t, err, "Payment.RemittanceInformationStructured.Reference")
	assert.Equal(t, mark, b.rec.len(), "nothing sent")

	for _, field := range []string{"remittanceInformationStructuredArray", "remittanceInformationStructured"} {
		ref := map[string]string{"reference": badKID, "referenceType": "SCOR"}
		body := map[string]any{
			"instructedAmount": map[string]string{"currency": "NOK", "amount": "10.00"},
			"debtorAccount":    map[string]string{"bban": debtor},
			"creditorAccount":  map[string]string{"bban": b.account(t, xs2atest.CorporateCustomer1, 0).BBAN},
			"creditorName":     "Nordlys Bygg AS",
		}
		if field == "remittanceInformationStructured" {
			body[field] = ref
		} else {
			body[field] = []any{ref}
		}
		a := b.raw(t, "POST", "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers, body, "PSU-ID", psu.ID, "PSU-IP-Address", psuIP)
		assert.Equal(t, http.StatusBadRequest, a.Status, field)
		require.Len(t, a.TPPMessages, 1)
		assert.Equal(t, xs2a.TPPMessage{Category: "ERROR", Code: xs2a.CodeFormatError, Path: field, Text: "invalid KID"}, a.TPPMessages[0])
	}
	assert.Zero(t, b.PaymentCount())
}

// Errors: a bulk or periodic payment in a signing basket is 400
// REFERENCE_MIX_INVALID. The SDK refuses a basket of initiations it knows to
// be bulk or periodic; a basket of bare ids reaches the bank.
func TestErrorsBasketReferenceMix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	today := xs2a.DateOf(b.clock.Now().In(oslo))

	single, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", debtor), nil)
	require.NoError(t, err)
	periodic, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.PeriodicPayment{
		Payment: *b.payment(t, "20.00", debtor), StartDate: today.AddDays(1), Frequency: xs2a.Monthly}, nil)
	require.NoError(t, err)
	entry := *b.payment(t, "30.00", "")
	bulk, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.BulkPayment{
		DebtorAccount: xs2a.AccountReference{BBAN: debtor}, Payments: []xs2a.Payment{entry, entry}}, nil)
	require.NoError(t, err)

	for _, tt := range []struct {
		name string
		ini  *xs2a.Initiation
	}{{"periodic", periodic}, {"bulk", bulk}} {
		t.Run(tt.name, func(t *testing.T) {
			mark := b.rec.len()
			_, _, err := b.c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: []*xs2a.Initiation{single, tt.ini}})
			requireInvalid(t, err, "SigningBasket.Payments[1]")
			assert.Equal(t, mark, b.rec.len(), "nothing sent")

			_, _, err = b.c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{PaymentIDs: []string{single.PaymentID, tt.ini.PaymentID}})
			require.ErrorIs(t, err, xs2a.ErrReferenceMixInvalid)
			requireBankError(t, err, http.StatusBadRequest, xs2a.CodeReferenceMixInvalid)
		})
	}
	basket, _, err := b.c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: []*xs2a.Initiation{single}})
	require.NoError(t, err, "single payments only: accepted")
	assert.NotEmpty(t, basket.BasketID)
}

// Errors: a periodic payment with frequency MonthlyVariable and duplicate
// month identifiers is rejected: by the SDK before sending, and by the bank.
func TestErrorsMonthlyVariableDuplicateMonths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN
	start := xs2a.DateOf(b.clock.Now().In(oslo)).AddDays(1)
	order := &xs2a.PeriodicPayment{Payment: *b.payment(t, "400.00", debtor), StartDate: start,
		Frequency: xs2a.MonthlyVariable, MonthsOfExecution: []string{"1", "6", "1"}}

	_, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, order, nil)
	requireInvalid(t, err, "PeriodicPayment.MonthsOfExecution[2]")
	assert.Zero(t, b.RequestCount("POST", "/v1/periodic-payments/"))

	a := b.raw(t, "POST", "/v1/periodic-payments/"+xs2a.NorwegianDomesticCreditTransfers, order, "PSU-ID", psu.ID, "PSU-IP-Address", psuIP)
	assert.Equal(t, http.StatusBadRequest, a.Status)
	require.NotEmpty(t, a.TPPMessages)
	assert.Equal(t, xs2a.CodeFormatError, a.code())
	assert.Equal(t, "monthsOfExecution", a.TPPMessages[0].Path)
	assert.Zero(t, b.PaymentCount())

	order.MonthsOfExecution = []string{"1", "6", "9"}
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, order, nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusRCVD, ini.TransactionStatus)
}

// Errors: insufficient funds is a proper error response. The instant
// product is executed at authorisation, so the bank refuses an initiation
// whose debtor account cannot pay it: 400 FUNDS_NOT_AVAILABLE, which the SDK
// maps to ErrInsufficientFunds. No payment is created; once the money is
// there the same payment is accepted. (Other products report lack of funds
// in the payment status: TestErrorsInsufficientFunds.)
func TestErrorsInsufficientFundsAtInitiation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer2)
	debtor := b.account(t, xs2atest.PrivateCustomer2, 0)
	_, err := b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "0.00")})
	require.NoError(t, err)
	p := b.payment(t, "500.00", debtor.BBAN)

	ini, resp, err := b.c.Payments.Initiate(ctx, psu, xs2a.InstantNorwegianDomesticCreditTransfersStraks, p, nil)
	assert.Nil(t, ini)
	require.ErrorIs(t, err, xs2a.ErrInsufficientFunds)
	e := requireBankError(t, err, http.StatusBadRequest, xs2a.CodeFundsNotAvailable)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.NotEmpty(t, e.Messages[0].Text)
	assert.Zero(t, b.PaymentCount(), "refused: no payment at the bank")

	_, err = b.c.Sandbox.SetBalance(ctx, debtor.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "502.00")})
	require.NoError(t, err)
	ini, _, err = b.c.Payments.Initiate(ctx, psu, xs2a.InstantNorwegianDomesticCreditTransfersStraks, p, nil)
	require.NoError(t, err, "amount and fee covered")
	b.authorise(t, psu, ini, xs2atest.PrivateCustomer2)
	st := b.status(t, psu, ini)
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus)
	assert.False(t, st.InsufficientFunds())
	assert.Equal(t, "0.00", b.Balance(debtor.ResourceID))
}

// Errors (sandbox): an invalid CustomerType and a PSU-ID in the wrong format
// are validation errors, locally and at the bank.
func TestErrorsSandboxValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)

	_, _, err := b.c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: "SOLE_TRADER", Name: "Per Test"})
	requireInvalid(t, err, "SandboxCustomer.CustomerType")
	a := b.raw(t, "POST", "/v1/sandbox/customers", map[string]string{"customerNumber": "01017012345", "customerType": "SOLE_TRADER", "name": "Per Test"})
	assert.Equal(t, http.StatusBadRequest, a.Status)
	require.NotEmpty(t, a.TPPMessages)
	assert.Equal(t, xs2a.CodeFormatError, a.code())
	assert.Contains(t, a.TPPMessages[0].Text, "invalid CustomerType")

	for _, tt := range []struct{ header, field string }{{"PSU-ID", "PSU.ID"}, {"PSU-Corporate-ID", "PSU.CorporateID"}} {
		psu := xs2a.PSU{ID: uuid.NewString()}
		if tt.field == "PSU.ID" {
			psu.ID = xs2atest.PrivateCustomer1 // the national id is not the psu-id
		} else {
			psu.CorporateID = "ORG-918273645"
		}
		_, _, err := b.c.Accounts.List(ctx, psu)
		requireInvalid(t, err, tt.field)

		hdr := []string{"PSU-ID", uuid.NewString(), tt.header, "13039319955"}
		a := b.raw(t, "GET", "/v1/accounts", nil, hdr...)
		assert.Equal(t, http.StatusBadRequest, a.Status, tt.header)
		require.NotEmpty(t, a.TPPMessages)
		assert.Equal(t, xs2a.TPPMessage{Category: "ERROR", Code: xs2a.CodeFormatError, Path: tt.header,
			Text: tt.header + " has the wrong format: want an RFC 4122 UUID"}, a.TPPMessages[0])
	}
}

// A 503 with Retry-After on a GET is waited out and retried, under the same
// X-Request-ID, to success.
func TestErrorsRetry503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFaults(
		xs2atest.Fault{Method: "GET", Path: "/v1/accounts/", Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Times: 1},
		xs2atest.Fault{Method: "GET", Path: "/v1/card-accounts", Status: http.StatusBadGateway, Body: "<html>Bad gateway</html>", Times: 5},
	))
	waited := noWait(b.c)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID

	mark := b.rec.len()
	bal, resp, err := b.c.Accounts.Balances(ctx, psu, account)
	require.NoError(t, err)
	assert.NotEmpty(t, bal.Balances)
	assert.Equal(t, 2, resp.Attempts)
	assert.Equal(t, []time.Duration{time.Second}, waited.all(), "the retry waited the Retry-After")
	reqs := b.rec.since(mark, http.MethodGet, "/balances")
	require.Len(t, reqs, 2)
	assert.Equal(t, resp.RequestID, reqs[0].Header.Get("X-Request-ID"))
	assert.Equal(t, resp.RequestID, reqs[1].Header.Get("X-Request-ID"), "one X-Request-ID across the retries")

	// a gateway that stays down: the last answer after the attempts
	fast := b.client(t, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 3, MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
		MaxRetryAfter: time.Second, Methods: []string{http.MethodGet}}))
	_, _, err = fast.CardAccounts.List(ctx, psu)
	e := requireBankError(t, err, http.StatusBadGateway, "")
	assert.True(t, bytes.Contains(e.Body, []byte("Bad gateway")))
	assert.Equal(t, 3, b.RequestCount("GET", "/v1/card-accounts"))
	cards, _, err := fast.CardAccounts.List(ctx, psu) // the 4th and 5th fail, the 6th passes
	require.NoError(t, err)
	assert.Len(t, cards, 1)
}

// The bank may sign its responses; WithResponseVerification checks them
// (over TLS, as the interface runs).
func TestResponseSigning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithResponseSigning(), xs2atest.WithTLS())
	assert.True(t, strings.HasPrefix(b.URL(), "https://"))
	require.NotNil(t, b.Certificate())

	// Server.Client requires and verifies the bank's signatures
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	_, _, err := b.c.Accounts.Balances(ctx, psu, b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID)
	require.NoError(t, err)
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", b.account(t, xs2atest.PrivateCustomer1, 0).BBAN), nil)
	require.NoError(t, err)
	assert.Equal(t, xs2a.TransactionStatusRCVD, ini.TransactionStatus)

	// an answer changed on the way is refused
	b.rec.setTamper(nil, func(r *http.Response) {
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(bytes.ReplaceAll(body, []byte("NOK"), []byte("SEK"))))
	})
	_, _, err = b.c.Accounts.List(ctx, psu)
	require.ErrorIs(t, err, xs2a.ErrSignatureInvalid)
	var se *xs2a.SignatureError
	require.ErrorAs(t, err, &se)
	b.rec.setTamper(nil, nil)

	// an unsigned answer is refused when signatures are required
	plain := newBank(t)
	c := plain.client(t, xs2a.WithResponseVerification(b.Certificate()))
	_, _, err = c.Sandbox.Customers(ctx, nil)
	require.ErrorAs(t, err, &se)
}
