package xs2a

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The payment status with its links, the authorisation status and the
// signing basket's reads, against answers shaped like those a production
// bank of the platform sends (testdata/pis: base path /api, ids
// enc!!<base64>=, every link with href and verbs).

const (
	recordedPaymentID = "enc!!YmV0YWxpbmctNzczMTA="
	recordedPayment   = "/v1/payments/norwegian-domestic-credit-transfers/" + recordedPaymentID
	recordedAuth      = recordedPayment + "/authorisations/enc!!c2lnbmF0dXItMDAwMjE="
	recordedBasket    = "/v1/signing-baskets/enc!!a3Vydi01NTEyMzQ="
)

func TestPaymentStatusRecordedAnswers(t *testing.T) {
	t.Parallel()
	self := Link{Href: recordedPayment, Verbs: []string{"GET", "DELETE"}}
	status := Link{Href: recordedPayment + "/status", Verbs: []string{"GET"}}
	start := Link{Href: recordedPayment + "/authorisations", Verbs: []string{"POST"}}
	tests := []struct {
		fixture string
		want    PaymentStatus
	}{
		{"pis/status_patc.json", PaymentStatus{PaymentID: recordedPaymentID, TransactionStatus: TransactionStatusPATC,
			FundsAvailable: boolPtr(true), Links: ResourceLinks{Self: self, Status: status, StartAuthorisation: start}}},
		{"pis/status_date_moved.json", PaymentStatus{PaymentID: recordedPaymentID, TransactionStatus: TransactionStatusACWC,
			RequestedExecutionDate: Date{2025, time.April, 22}, Links: ResourceLinks{Self: self, Status: status}}},
		{"pis/status_plain.json", PaymentStatus{TransactionStatus: TransactionStatusACCP, FundsAvailable: boolPtr(false)}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + status.Href: serve(t, http.StatusOK, tt.fixture)})
			st, resp, err := c.Payments.Status(context.Background(), aisNotPresent, status)
			require.NoError(t, err)
			assert.Equal(t, tt.want, *st)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, status.Href, bank.only(t).Path, "the href as the bank wrote it")
			again, err := json.Marshal(st)
			require.NoError(t, err)
			assert.JSONEq(t, string(fixture(t, tt.fixture)), string(again), "a stored status marshals back to the bank's JSON")
		})
	}
}

// The next signer of a PATC payment starts from the status answer alone:
// its startAuthorisation link, then the new authorisation's own status.
func TestSecondSignerFromStatusLinks(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET " + recordedPayment + "/status":          serve(t, http.StatusOK, "pis/status_patc.json"),
		"POST " + recordedPayment + "/authorisations": serve(t, http.StatusCreated, "pis/authorisation_started.json"),
		"GET " + recordedAuth:                         serve(t, http.StatusOK, "pis/authorisation_status.json"),
	})
	ctx := context.Background()
	st, _, err := c.Payments.Status(ctx, aisPresent, Link{Href: recordedPayment + "/status"})
	require.NoError(t, err)
	require.Equal(t, TransactionStatusPATC, st.TransactionStatus)

	sca, _, err := c.Payments.StartAuthorisation(ctx, aisPresent, st.Links.StartAuthorisation)
	require.NoError(t, err)
	assert.Equal(t, SCAStatusStarted, sca.SCAStatus)
	assert.Equal(t, "enc!!c2lnbmF0dXItMDAwMjE=", sca.AuthorisationID)
	assert.Equal(t, Link{Href: recordedAuth, Verbs: []string{"GET"}}, sca.Links.SCAStatusLink)

	as, resp, err := c.Payments.AuthorisationStatus(ctx, aisPresent, sca.Links.SCAStatusLink)
	require.NoError(t, err)
	assert.Equal(t, &AuthorisationStatus{SCAStatus: SCAStatusFinalised, PSUMessage: "Betalingen er signert."}, as)
	assert.True(t, as.SCAStatus.Final())
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	var paths []string
	for _, r := range bank.requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	assert.Equal(t, []string{"GET " + recordedPayment + "/status", "POST " + recordedPayment + "/authorisations", "GET " + recordedAuth}, paths)
	assert.Empty(t, bank.last().Body)
}

func TestSCAStatus(t *testing.T) {
	t.Parallel()
	final := map[SCAStatus]bool{SCAStatusFinalised: true, SCAStatusFailed: true, SCAStatusExempted: true}
	for _, s := range []SCAStatus{SCAStatusReceived, SCAStatusPSUIdentified, SCAStatusPSUAuthenticated,
		SCAStatusSCAMethodSelected, SCAStatusStarted, SCAStatusUnconfirmed, SCAStatusFinalised, SCAStatusFailed,
		SCAStatusExempted} {
		t.Run(string(s), func(t *testing.T) {
			assert.True(t, s.Known())
			assert.Equal(t, final[s], s.Final())
			var as AuthorisationStatus
			require.NoError(t, json.Unmarshal([]byte(`{"scaStatus":"`+string(s)+`"}`), &as))
			assert.Equal(t, s, as.SCAStatus)
		})
	}
	var as AuthorisationStatus
	require.NoError(t, json.Unmarshal([]byte(`{"scaStatus":"appConfirmationPending"}`), &as))
	assert.Equal(t, SCAStatus("appConfirmationPending"), as.SCAStatus, "unknown codes decode as they are")
	assert.False(t, as.SCAStatus.Known())
	assert.False(t, as.SCAStatus.Final())
}

func TestSigningBasketGetStatusCancel(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET " + recordedBasket:             serve(t, http.StatusOK, "pis/basket.json"),
		"GET " + recordedBasket + "/status": serve(t, http.StatusOK, "pis/basket_status.json"),
		"DELETE " + recordedBasket:          func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) },
	})
	ctx := context.Background()
	var created BasketInitiation
	require.NoError(t, json.Unmarshal([]byte(`{"basketId":"enc!!a3Vydi01NTEyMzQ=","transactionStatus":"RCVD","_links":`+
		`{"self":{"href":"`+recordedBasket+`"},"status":{"href":"`+recordedBasket+`/status"}}}`), &created))

	b, _, err := c.SigningBaskets.Get(ctx, aisNotPresent, created.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, &BasketDetails{
		Payments:          []string{"enc!!YmV0YWxpbmctNzczMTE=", "enc!!YmV0YWxpbmctNzczMTI="},
		TransactionStatus: TransactionStatusRCVD,
		Links: ResourceLinks{
			Self:               Link{Href: recordedBasket, Verbs: []string{"GET", "DELETE"}},
			Status:             Link{Href: recordedBasket + "/status", Verbs: []string{"GET"}},
			StartAuthorisation: Link{Href: recordedBasket + "/authorisations", Verbs: []string{"POST"}},
		},
	}, b)

	st, _, err := c.SigningBaskets.Status(ctx, aisNotPresent, created.Links.Status)
	require.NoError(t, err)
	assert.Equal(t, &BasketStatus{TransactionStatus: TransactionStatusACTC}, st)

	resp, err := c.SigningBaskets.Cancel(ctx, aisNotPresent, created.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, http.MethodDelete, bank.last().Method)
	assert.Equal(t, recordedBasket, bank.last().Path)
	assert.Equal(t, aisPSUID, bank.last().Header.Get("PSU-ID"))
	assert.Empty(t, bank.last().Header.Get("PSU-IP-Address"))
}

func TestSigningBasketCancelRefused(t *testing.T) {
	t.Parallel()
	_, c := newAISBank(t, map[string]http.HandlerFunc{"DELETE " + recordedBasket: serve(t, http.StatusBadRequest,
		`{"tppMessages":[{"category":"ERROR","code":"CANCELLATION_INVALID","text":"authorised already"}]}`)})
	resp, err := c.SigningBaskets.Cancel(context.Background(), aisNotPresent, Link{Href: recordedBasket})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeCancellationInvalid, e.Code)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// Every call that follows a link refuses an empty one before sending, and
// says which link to pass.
func TestLinkCallsRefuseEmptyLink(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, nil)
	ctx := context.Background()
	tests := []struct {
		name, pass string
		call       func() error
	}{
		{"Payments.Status", "Initiation.Links.Status", func() error { _, _, err := c.Payments.Status(ctx, aisPresent, Link{}); return err }},
		{"Payments.AuthorisationStatus", "gave no authorisationId and no scaStatus link", func() error {
			_, _, err := c.Payments.AuthorisationStatus(ctx, aisPresent, Link{})
			return err
		}},
		{"Payments.Get", "Initiation.Links.Self", func() error { _, _, err := c.Payments.Get(ctx, aisPresent, Link{}); return err }},
		{"Payments.Cancel", "Initiation.Links.Self", func() error { _, err := c.Payments.Cancel(ctx, aisPresent, Link{}); return err }},
		{"SigningBaskets.Get", "BasketInitiation.Links.Self", func() error { _, _, err := c.SigningBaskets.Get(ctx, aisPresent, Link{}); return err }},
		{"SigningBaskets.Status", "BasketInitiation.Links.Status", func() error {
			_, _, err := c.SigningBaskets.Status(ctx, aisPresent, Link{})
			return err
		}},
		{"SigningBaskets.Cancel", "BasketInitiation.Links.Self", func() error { _, err := c.SigningBaskets.Cancel(ctx, aisPresent, Link{}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ve *ValidationError
			require.ErrorAs(t, tt.call(), &ve)
			assert.Equal(t, "link", ve.Field)
			assert.Contains(t, ve.Reason, tt.pass)
		})
	}
	assert.Zero(t, bank.count(), "nothing sent")
}

func TestInitiateCrossBorderRecordedFees(t *testing.T) {
	t.Parallel()
	_, c := newAISBank(t, map[string]http.HandlerFunc{
		"POST /v1/payments/" + CrossBorderCreditTransfers: serve(t, http.StatusCreated, "pis/initiation_cross_border.json"),
	})
	p := &Payment{
		InstructedAmount: Amount{Currency: "EUR", Amount: "120.00"},
		CreditorAccount:  AccountReference{IBAN: "DE89370400440532013000"},
		CreditorName:     "Müller GmbH",
		CreditorAddress:  &Address{TownName: "Berlin", Country: "DE"},
	}
	ini, _, err := c.Payments.Initiate(context.Background(), aisPresent, CrossBorderCreditTransfers, p, nil)
	require.NoError(t, err)
	require.NotNil(t, ini.TransactionFees)
	assert.Equal(t, Amount{Currency: "NOK", Amount: "40.00"}, *ini.TransactionFees, "the fees summed")
	require.NotNil(t, ini.TransactionFeeIndicator)
	assert.True(t, *ini.TransactionFeeIndicator)
}

// FuzzPISAnswers decodes untrusted status, authorisation and basket answers:
// whatever decodes marshals to JSON that decodes to the same value.
func FuzzPISAnswers(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "pis", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{"scaStatus":7}`, `{"_links":{"self":"/v1/x"}}`, `{"requestedExecutionDate":"2025-02-30"}`,
		`{"payments":[null,"a"]}`, `null`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, new(PaymentStatus))
		roundTrip(t, data, new(AuthorisationStatus))
		roundTrip(t, data, new(BasketDetails))
		roundTrip(t, data, new(BasketStatus))
	})
}

// roundTrip decodes data into v and, when that works, checks that v's JSON
// decodes into a value with the same JSON.
func roundTrip[T any](t *testing.T, data []byte, v *T) {
	t.Helper()
	if json.Unmarshal(data, v) != nil {
		return
	}
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("a decoded answer does not encode: %v", err)
	}
	var again T
	if err := json.Unmarshal(first, &again); err != nil {
		t.Fatalf("the encoded answer does not decode: %v\n%s", err, first)
	}
	second, err := json.Marshal(&again)
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(second) {
		t.Fatalf("round trip changed the answer:\n%s\n%s", first, second)
	}
}

// AuthorisationLink: the scaStatus link when the bank sent one, else the
// startAuthorisation link with the authorisation id as one more segment;
// without either a *ValidationError that says the bank gave none.
func TestAuthorisationLink(t *testing.T) {
	t.Parallel()
	start := Link{Href: "/v1/payments/p/enc!!x=/authorisations", Verbs: []string{"POST"}}
	tests := []struct {
		name    string
		answer  *SCALinks
		start   Link
		want    string
		invalid string // the field of the *ValidationError
	}{
		{"scaStatus link", &SCALinks{AuthorisationID: "a1", Links: ResourceLinks{SCAStatusLink: Link{Href: "/v1/elsewhere/a1"}}}, start, "/v1/elsewhere/a1", ""},
		{"id only", &SCALinks{AuthorisationID: "enc!!a/b+c="}, start, "/v1/payments/p/enc!!x=/authorisations/enc!!a%2Fb+c=", ""},
		{"start with a slash and a query", &SCALinks{AuthorisationID: "a1"}, Link{Href: "/v1/b/authorisations/?x=1"}, "/v1/b/authorisations/a1", ""},
		{"production's answer", &SCALinks{SCAStatus: SCAStatusStarted, Links: ResourceLinks{SCARedirect: Link{Href: "https://bank.example/sca"}}}, start, "", "SCALinks"},
		{"id without the start link", &SCALinks{AuthorisationID: "a1"}, Link{}, "", "start"},
		{"nil", nil, start, "", "SCALinks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.answer.AuthorisationLink(tt.start)
			if tt.invalid != "" {
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, tt.invalid, ve.Field)
				assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
				assert.True(t, got.IsZero())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Href)
		})
	}
}
