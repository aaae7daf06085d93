package xs2a

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reply answers status with a JSON body and optional header pairs.
func reply(status int, body string, headers ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// newBank starts a test bank under the base path and a client for it.
func newBank(t *testing.T, fn func(http.ResponseWriter, *http.Request, int), opts ...Option) (*testBank, *Client) {
	t.Helper()
	b := &testBank{fn: fn}
	_, c := newTestServer(t, b, opts...)
	return b, c
}

const initiated = `{"paymentId":"enc!!p1","transactionStatus":"RCVD","transactionFees":{"amount":"2.50","currency":"NOK"},` +
	`"transactionFeeIndicator":true,"_links":{"self":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1"},` +
	`"status":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status","verbs":["GET"]},` +
	`"startAuthorisation":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/authorisations","verbs":["POST"]}}}`

// presentPSU is a PSU taking part in real time.
var presentPSU = PSU{ID: "8b2c7f9e-3c1d-4a5e-9f00-1234567890ab", IPAddress: "192.0.2.10", SessionID: "sess-1"}

const (
	testBBAN = "86011117947" // testdata/vectors/bban.json
	testKID  = "0365327"     // testdata/vectors/kid.json, MOD11
)

// simplePayment is a valid payment with the fields most payments have.
func simplePayment() Payment {
	return Payment{
		InstructedAmount: Amount{Currency: "NOK", Amount: "100.26"},
		CreditorAccount:  AccountReference{BBAN: testBBAN},
		CreditorName:     "Kari Nordmann",
	}
}

func boolPtr(b bool) *bool { return &b }

func TestInitiateGoldenBodies(t *testing.T) {
	t.Parallel()
	full := Payment{
		EndToEndIdentification:            "e2e-2026-0001",
		InstructedAmount:                  Amount{Currency: "NOK", Amount: "1234.50"},
		DebtorAccount:                     &AccountReference{BBAN: testBBAN, Currency: "NOK"},
		CreditorAccount:                   AccountReference{IBAN: "NO9386011117947", Currency: "NOK"},
		CreditorName:                      "Åse Ødegård & Sønner <AS>",
		CreditorAddress:                   &Address{StreetName: "Storgata", BuildingNumber: "1B", TownName: "Tromsø", PostCode: "9008", Country: "NO"},
		PurposeCode:                       "GDSV",
		RequestedExecutionDate:            Date{2026, time.March, 5},
		RemittanceInformationUnstructured: "Faktura mars, æøå",
	}
	periodic := PeriodicPayment{
		Payment:           simplePayment(),
		StartDate:         Date{2026, time.April, 1},
		EndDate:           Date{2027, time.March, 31},
		ExecutionRule:     ExecutionFollowing,
		Frequency:         MonthlyVariable,
		DayOfExecution:    "15",
		MonthsOfExecution: []string{"1", "4", "7", "10"},
	}
	periodic.RemittanceInformationUnstructured = "Kvartalsleie"
	second := simplePayment()
	second.InstructedAmount.Amount = "5"
	second.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: testKID, ReferenceType: ReferenceTypeSCOR}}
	bulk := BulkPayment{
		BatchBookingPreferred:  boolPtr(false),
		DebtorAccount:          AccountReference{BBAN: testBBAN},
		PaymentInformationID:   "batch-7",
		RequestedExecutionDate: Date{2026, time.March, 6},
		Payments:               []Payment{simplePayment(), second},
	}
	einvoice := simplePayment()

	tests := []struct {
		name, golden, path, query string
		call                      func(ctx context.Context, c *Client) (*Initiation, error)
		kind                      paymentKind
	}{
		{"single", "pis/single.json", "/v1/payments/norwegian-domestic-credit-transfers", "",
			func(ctx context.Context, c *Client) (*Initiation, error) {
				ini, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &full, nil)
				return ini, err
			}, kindSingle},
		{"periodic", "pis/periodic-monthly-variable.json", "/v1/periodic-payments/norwegian-domestic-credit-transfers", "",
			func(ctx context.Context, c *Client) (*Initiation, error) {
				ini, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &periodic, nil)
				return ini, err
			}, kindPeriodic},
		{"bulk", "pis/bulk.json", "/v1/bulk-payments/instant-norwegian-domestic-credit-transfers-straks", "allowLogicalDuplicate=true",
			func(ctx context.Context, c *Client) (*Initiation, error) {
				ini, _, err := c.Payments.Initiate(ctx, presentPSU, InstantNorwegianDomesticCreditTransfersStraks, &bulk, &InitiateOptions{AllowLogicalDuplicate: true})
				return ini, err
			}, kindBulk},
		{"einvoice", "pis/einvoice.json", "/v1/payments/norwegian-domestic-credit-transfers", "",
			func(ctx context.Context, c *Client) (*Initiation, error) {
				ini, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, NorwegianDomesticCreditTransfers, &einvoice, EInvoice{KID: testKID, InvoiceNumber: "INV-2026-17"}, nil)
				return ini, err
			}, kindSingle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, c := newBank(t, reply(http.StatusCreated, initiated))
			ini, err := tt.call(context.Background(), c)
			require.NoError(t, err)
			require.Equal(t, 1, b.count())
			got := b.last()
			assert.Equal(t, http.MethodPost, got.Method)
			assert.Equal(t, tt.path, got.Path)
			assert.Equal(t, tt.query, got.Query)
			assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
			assert.Equal(t, Digest(got.Body), got.Header.Get("Digest"), "the Digest covers the exact bytes sent")
			assert.Equal(t, presentPSU.IPAddress, got.Header.Get("PSU-IP-Address"))
			assert.Equal(t, presentPSU.ID, got.Header.Get("PSU-ID"))
			assert.True(t, json.Valid(got.Body))
			checkGolden(t, tt.golden, got.Body)

			assert.Equal(t, "enc!!p1", ini.PaymentID)
			assert.Equal(t, TransactionStatusRCVD, ini.TransactionStatus)
			assert.Equal(t, &Amount{Currency: "NOK", Amount: "2.50"}, ini.TransactionFees)
			assert.Equal(t, boolPtr(true), ini.TransactionFeeIndicator)
			assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/authorisations", ini.Links.StartAuthorisation.Href)
			assert.Equal(t, []string{"GET"}, ini.Links.Status.Verbs)
			assert.Equal(t, tt.kind, ini.kind)
		})
	}
	require.Empty(t, einvoice.RemittanceInformationStructuredArray, "InitiateEInvoice never modifies the caller's Payment")
}

func TestSigningBasketGolden(t *testing.T) {
	t.Parallel()
	b, c := newBank(t, reply(http.StatusCreated, `{"basketId":"enc!!b1","transactionStatus":"RCVD",`+
		`"_links":{"self":{"href":"/v1/signing-baskets/enc!!b1"},"startAuthorisation":{"href":"/v1/signing-baskets/enc!!b1/authorisations"},`+
		`"scaRedirect":{"href":"https://bank.example/sca?id=1"}}}`))
	single := &Initiation{PaymentID: "enc!!p2", kind: kindSingle}
	var stored Initiation // an Initiation the TPP kept as JSON
	require.NoError(t, json.Unmarshal([]byte(initiated), &stored))
	basket := &SigningBasket{PaymentIDs: []string{"enc!!p0"}, Payments: []*Initiation{single, &stored}, ConsentIDs: []string{"enc!!c1"}}
	out, _, err := c.SigningBaskets.Create(context.Background(), presentPSU, basket)
	require.NoError(t, err, "a scaRedirect is the expected result of a basket")
	got := b.last()
	assert.Equal(t, "/v1/signing-baskets", got.Path)
	checkGolden(t, "pis/basket.json", got.Body)
	assert.Equal(t, "enc!!b1", out.BasketID)
	assert.Equal(t, "https://bank.example/sca?id=1", out.Links.SCARedirect.Href)
	assert.Equal(t, []string{"enc!!p0"}, basket.PaymentIDs, "the caller's slice is not appended to")
}

func TestSigningBasketRefusesBulkAndPeriodic(t *testing.T) {
	t.Parallel()
	b, c := newBank(t, reply(http.StatusCreated, initiated))
	per := simplePayment()
	periodic, _, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers,
		&PeriodicPayment{Payment: per, StartDate: Date{2026, time.April, 1}, Frequency: Monthly}, nil)
	require.NoError(t, err)
	bulk, _, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers,
		&BulkPayment{DebtorAccount: AccountReference{BBAN: testBBAN}, Payments: []Payment{simplePayment()}}, nil)
	require.NoError(t, err)
	var storedPeriodic, storedBulk Initiation
	require.NoError(t, json.Unmarshal([]byte(`{"paymentId":"x","_links":{"self":{"href":"/v1/periodic-payments/p/x"}}}`), &storedPeriodic))
	require.NoError(t, json.Unmarshal([]byte(`{"paymentId":"y","_links":{"status":{"href":"/v1/bulk-payments/p/y/status"}}}`), &storedBulk))
	sent := b.count()
	for name, ini := range map[string]*Initiation{"periodic": periodic, "bulk": bulk, "stored periodic": &storedPeriodic, "stored bulk": &storedBulk} {
		t.Run(name, func(t *testing.T) {
			single := &Initiation{PaymentID: "enc!!p2", kind: kindSingle}
			_, _, err := c.SigningBaskets.Create(context.Background(), presentPSU, &SigningBasket{Payments: []*Initiation{single, ini}})
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "SigningBasket.Payments[1]", ve.Field)
			assert.Contains(t, ve.Reason, "REFERENCE_MIX_INVALID")
		})
	}
	assert.Equal(t, sent, b.count(), "no basket was sent")
}

func TestSigningBasketBankRefusal(t *testing.T) {
	t.Parallel()
	_, c := newBank(t, reply(http.StatusBadRequest, `{"tppMessages":[{"category":"ERROR","code":"REFERENCE_MIX_INVALID"}]}`))
	_, resp, err := c.SigningBaskets.Create(context.Background(), presentPSU, &SigningBasket{PaymentIDs: []string{"enc!!p9"}})
	require.ErrorIs(t, err, ErrReferenceMixInvalid)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// validationCase is one input that must be refused before anything is sent.
type validationCase struct {
	name, field string
	call        func(ctx context.Context, c *Client) error
}

func initiate(psu PSU, product string, p *Payment) func(context.Context, *Client) error {
	return func(ctx context.Context, c *Client) error {
		_, _, err := c.Payments.Initiate(ctx, psu, product, p, nil)
		return err
	}
}

func payment(change func(p *Payment)) *Payment {
	p := simplePayment()
	change(&p)
	return &p
}

func periodicCall(change func(p *PeriodicPayment)) func(context.Context, *Client) error {
	p := PeriodicPayment{Payment: simplePayment(), StartDate: Date{2026, time.April, 1}, Frequency: MonthlyVariable, MonthsOfExecution: []string{"3", "9"}}
	change(&p)
	return func(ctx context.Context, c *Client) error {
		_, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, nil)
		return err
	}
}

func bulkCall(change func(b *BulkPayment)) func(context.Context, *Client) error {
	b := BulkPayment{DebtorAccount: AccountReference{BBAN: testBBAN}, Payments: []Payment{simplePayment(), simplePayment()}}
	change(&b)
	return func(ctx context.Context, c *Client) error {
		_, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &b, nil)
		return err
	}
}

func TestValidationRejectsBeforeSending(t *testing.T) {
	t.Parallel()
	product := NorwegianDomesticCreditTransfers
	absent := presentPSU
	absent.IPAddress = ""
	kid := StructuredRemittance{Reference: testKID, ReferenceType: ReferenceTypeSCOR}
	tests := []validationCase{
		{"PSU not present", "PSU.IPAddress", initiate(absent, product, payment(func(*Payment) {}))},
		{"PSU bad IP", "PSU.IPAddress", initiate(PSU{IPAddress: "not-an-ip"}, product, payment(func(*Payment) {}))},
		{"product empty", "product", initiate(presentPSU, "", payment(func(*Payment) {}))},
		{"product path", "product", initiate(presentPSU, "../accounts", payment(func(*Payment) {}))},
		{"product upper", "product", initiate(presentPSU, "SEPA", payment(func(*Payment) {}))},
		{"payment nil", "Payment", initiate(presentPSU, product, nil)},
		{"amount missing", "Payment.InstructedAmount.Amount", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Amount = "" }))},
		{"amount comma", "Payment.InstructedAmount.Amount", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Amount = "10,50" }))},
		{"amount four decimals", "Payment.InstructedAmount.Amount", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Amount = "1.0000" }))},
		{"amount zero", "Payment.InstructedAmount.Amount", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Amount = "0.00" }))},
		{"amount negative", "Payment.InstructedAmount.Amount", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Amount = "-5" }))},
		{"currency missing", "Payment.InstructedAmount.Currency", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Currency = "" }))},
		{"currency lower", "Payment.InstructedAmount.Currency", initiate(presentPSU, product, payment(func(p *Payment) { p.InstructedAmount.Currency = "nok" }))},
		{"creditor account missing", "Payment.CreditorAccount", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorAccount = AccountReference{} }))},
		{"creditor BBAN MOD11", "Payment.CreditorAccount.BBAN", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorAccount.BBAN = "86011117948" }))},
		{"creditor IBAN checksum", "Payment.CreditorAccount.IBAN", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorAccount = AccountReference{IBAN: "NO9386011117948"} }))},
		{"debtor BBAN", "Payment.DebtorAccount.BBAN", initiate(presentPSU, product, payment(func(p *Payment) { p.DebtorAccount = &AccountReference{BBAN: "8601111794"} }))},
		{"creditor name missing", "Payment.CreditorName", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorName = "" }))},
		{"creditor name 71", "Payment.CreditorName", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorName = strings.Repeat("å", 71) }))},
		{"creditor name emoji", "Payment.CreditorName", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorName = "Kari 😀" }))},
		{"creditor name newline", "Payment.CreditorName", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorName = "Kari\nNordmann" }))},
		{"unstructured 141", "Payment.RemittanceInformationUnstructured", initiate(presentPSU, product, payment(func(p *Payment) { p.RemittanceInformationUnstructured = strings.Repeat("x", 141) }))},
		{"unstructured emoji", "Payment.RemittanceInformationUnstructured", initiate(presentPSU, product, payment(func(p *Payment) { p.RemittanceInformationUnstructured = "takk 🎉" }))},
		{"end-to-end id 36", "Payment.EndToEndIdentification", initiate(presentPSU, product, payment(func(p *Payment) { p.EndToEndIdentification = strings.Repeat("1", 36) }))},
		{"purpose code", "Payment.PurposeCode", initiate(presentPSU, product, payment(func(p *Payment) { p.PurposeCode = "TOOLONG" }))},
		{"address country", "Payment.CreditorAddress.Country", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorAddress = &Address{TownName: "Oslo"} }))},
		{"address town emoji", "Payment.CreditorAddress.TownName", initiate(presentPSU, product, payment(func(p *Payment) { p.CreditorAddress = &Address{TownName: "Oslo ☃", Country: "NO"} }))},
		{"execution date", "Payment.RequestedExecutionDate", initiate(presentPSU, product, payment(func(p *Payment) { p.RequestedExecutionDate = Date{2026, time.February, 30} }))},
		{"SCOR with bad KID", "Payment.RemittanceInformationStructuredArray[0].Reference", initiate(presentPSU, product, payment(func(p *Payment) {
			p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: "0365328", ReferenceType: ReferenceTypeSCOR}}
		}))},
		{"SCOR with bad RF reference", "Payment.RemittanceInformationStructuredArray[0].Reference", initiate(presentPSU, "sepa-credit-transfers", payment(func(p *Payment) {
			p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: "RF19539007547034", ReferenceType: ReferenceTypeSCOR}}
		}))},
		{"structured without type", "Payment.RemittanceInformationStructuredArray[0].ReferenceType", initiate(presentPSU, product, payment(func(p *Payment) {
			p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: testKID}}
		}))},
		{"deprecated SCOR with bad KID", "Payment.RemittanceInformationStructured.Reference", initiate(presentPSU, product, payment(func(p *Payment) {
			p.RemittanceInformationStructured = &StructuredRemittance{Reference: "12345678904", ReferenceType: ReferenceTypeSCOR}
		}))},
		{"deprecated and array", "Payment.RemittanceInformationStructured", initiate(presentPSU, product, payment(func(p *Payment) {
			p.RemittanceInformationStructured = &kid
			p.RemittanceInformationStructuredArray = []StructuredRemittance{kid}
		}))},
		{"KID and message", "Payment.RemittanceInformationUnstructured", initiate(presentPSU, product, payment(func(p *Payment) {
			p.RemittanceInformationStructuredArray = []StructuredRemittance{kid}
			p.RemittanceInformationUnstructured = "Faktura 17"
		}))},
		{"request nil", "PaymentRequest", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, product, nil, nil)
			return err
		}},
		{"periodic nil", "PeriodicPayment", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, product, (*PeriodicPayment)(nil), nil)
			return err
		}},
		{"periodic payment field", "PeriodicPayment.CreditorName", periodicCall(func(p *PeriodicPayment) { p.CreditorName = "" })},
		{"periodic start missing", "PeriodicPayment.StartDate", periodicCall(func(p *PeriodicPayment) { p.StartDate = Date{} })},
		{"periodic end before start", "PeriodicPayment.EndDate", periodicCall(func(p *PeriodicPayment) { p.EndDate = Date{2026, time.March, 31} })},
		{"periodic requested date", "PeriodicPayment.RequestedExecutionDate", periodicCall(func(p *PeriodicPayment) { p.RequestedExecutionDate = Date{2026, time.April, 1} })},
		{"periodic frequency missing", "PeriodicPayment.Frequency", periodicCall(func(p *PeriodicPayment) { p.Frequency = ""; p.MonthsOfExecution = nil })},
		{"periodic frequency unknown", "PeriodicPayment.Frequency", periodicCall(func(p *PeriodicPayment) { p.Frequency = "Fortnightly"; p.MonthsOfExecution = nil })},
		{"periodic execution rule", "PeriodicPayment.ExecutionRule", periodicCall(func(p *PeriodicPayment) { p.ExecutionRule = "nearest" })},
		{"day 0", "PeriodicPayment.DayOfExecution", periodicCall(func(p *PeriodicPayment) { p.DayOfExecution = "0" })},
		{"day 32", "PeriodicPayment.DayOfExecution", periodicCall(func(p *PeriodicPayment) { p.DayOfExecution = "32" })},
		{"day 07", "PeriodicPayment.DayOfExecution", periodicCall(func(p *PeriodicPayment) { p.DayOfExecution = "07" })},
		{"MonthlyVariable without months", "PeriodicPayment.MonthsOfExecution", periodicCall(func(p *PeriodicPayment) { p.MonthsOfExecution = nil })},
		{"MonthlyVariable duplicate month", "PeriodicPayment.MonthsOfExecution[2]", periodicCall(func(p *PeriodicPayment) { p.MonthsOfExecution = []string{"3", "9", "3"} })},
		{"MonthlyVariable month 13", "PeriodicPayment.MonthsOfExecution[1]", periodicCall(func(p *PeriodicPayment) { p.MonthsOfExecution = []string{"3", "13"} })},
		{"MonthlyVariable month 0", "PeriodicPayment.MonthsOfExecution[0]", periodicCall(func(p *PeriodicPayment) { p.MonthsOfExecution = []string{"0"} })},
		{"MonthlyVariable twelve months", "PeriodicPayment.MonthsOfExecution", periodicCall(func(p *PeriodicPayment) {
			p.MonthsOfExecution = []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}
		})},
		{"months with Monthly", "PeriodicPayment.MonthsOfExecution", periodicCall(func(p *PeriodicPayment) { p.Frequency = Monthly })},
		{"bulk nil", "BulkPayment", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, product, (*BulkPayment)(nil), nil)
			return err
		}},
		{"bulk empty", "BulkPayment.Payments", bulkCall(func(b *BulkPayment) { b.Payments = nil })},
		{"bulk debtor", "BulkPayment.DebtorAccount", bulkCall(func(b *BulkPayment) { b.DebtorAccount = AccountReference{} })},
		{"bulk entry amount", "BulkPayment.Payments[1].InstructedAmount.Amount", bulkCall(func(b *BulkPayment) { b.Payments[1].InstructedAmount.Amount = "1e3" })},
		{"bulk entry debtor", "BulkPayment.Payments[0].DebtorAccount", bulkCall(func(b *BulkPayment) { b.Payments[0].DebtorAccount = &AccountReference{BBAN: testBBAN} })},
		{"bulk entry date", "BulkPayment.Payments[0].RequestedExecutionDate", bulkCall(func(b *BulkPayment) { b.Payments[0].RequestedExecutionDate = Date{2026, time.May, 1} })},
		{"bulk information id", "BulkPayment.PaymentInformationID", bulkCall(func(b *BulkPayment) { b.PaymentInformationID = "id\x00" })},
		{"e-invoice bad KID", "EInvoice.KID", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, product, payment(func(*Payment) {}), EInvoice{KID: "0365328", InvoiceNumber: "1"}, nil)
			return err
		}},
		{"e-invoice number missing", "EInvoice.InvoiceNumber", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, product, payment(func(*Payment) {}), EInvoice{KID: testKID}, nil)
			return err
		}},
		{"e-invoice issuer emoji", "EInvoice.Issuer", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, product, payment(func(*Payment) {}), EInvoice{KID: testKID, InvoiceNumber: "1", Issuer: "🧾"}, nil)
			return err
		}},
		{"e-invoice with message", "Payment.RemittanceInformationUnstructured", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, product, payment(func(p *Payment) { p.RemittanceInformationUnstructured = "hei" }), EInvoice{KID: testKID, InvoiceNumber: "1"}, nil)
			return err
		}},
		{"e-invoice with references", "Payment.RemittanceInformationStructuredArray", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, product, payment(func(p *Payment) { p.RemittanceInformationStructuredArray = []StructuredRemittance{kid} }), EInvoice{KID: testKID, InvoiceNumber: "1"}, nil)
			return err
		}},
		{"e-invoice absent PSU", "PSU.IPAddress", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, absent, product, payment(func(*Payment) {}), EInvoice{KID: testKID, InvoiceNumber: "1"}, nil)
			return err
		}},
		{"basket nil", "SigningBasket", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, nil)
			return err
		}},
		{"basket empty", "SigningBasket", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{})
			return err
		}},
		{"basket nil payment", "SigningBasket.Payments[0]", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{Payments: []*Initiation{nil}})
			return err
		}},
		{"basket payment without id", "SigningBasket.Payments[0].PaymentID", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{Payments: []*Initiation{{}}})
			return err
		}},
		{"basket duplicate id", "SigningBasket.Payments[0].PaymentID", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{PaymentIDs: []string{"p"}, Payments: []*Initiation{{PaymentID: "p"}}})
			return err
		}},
		{"basket empty consent id", "SigningBasket.ConsentIDs[1]", func(ctx context.Context, c *Client) error {
			_, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{ConsentIDs: []string{"c", ""}})
			return err
		}},
		{"authorisation without link", "link", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.StartAuthorisation(ctx, presentPSU, Link{})
			return err
		}},
		{"status without link", "link", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.Status(ctx, presentPSU, Link{})
			return err
		}},
		{"get without link", "link", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.Get(ctx, presentPSU, Link{})
			return err
		}},
		{"cancel without link", "link", func(ctx context.Context, c *Client) error {
			_, err := c.Payments.Cancel(ctx, presentPSU, Link{})
			return err
		}},
		{"poll without link", "link", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.PollStatus(ctx, presentPSU, Link{}, nil)
			return err
		}},
		{"poll backoff below 1", "PollOptions.Backoff", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.PollStatus(ctx, presentPSU, Link{Href: "/v1/x"}, &PollOptions{Backoff: 0.5})
			return err
		}},
		{"poll max below min", "PollOptions.MaxDelay", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.PollStatus(ctx, presentPSU, Link{Href: "/v1/x"}, &PollOptions{MinDelay: time.Minute, MaxDelay: time.Second})
			return err
		}},
		{"poll negative attempts", "PollOptions.MaxAttempts", func(ctx context.Context, c *Client) error {
			_, _, err := c.Payments.PollStatus(ctx, presentPSU, Link{Href: "/v1/x"}, &PollOptions{MaxAttempts: -1})
			return err
		}},
	}
	b, c := newBank(t, reply(http.StatusCreated, initiated))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(context.Background(), c)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field, ve.Reason)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "))
			for _, secret := range []string{"Kari", "😀", "🎉", "0365328", "86011117948", "10,50"} {
				assert.NotContains(t, err.Error(), secret, "the value is never echoed")
			}
		})
	}
	assert.Zero(t, b.count(), "the bank saw no request")
}

// TestValidationPasses guards the table above: the base inputs it changes
// are themselves accepted and sent.
func TestValidationPasses(t *testing.T) {
	t.Parallel()
	b, c := newBank(t, reply(http.StatusCreated, initiated))
	ctx := context.Background()
	require.NoError(t, initiate(presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}))(ctx, c))
	require.NoError(t, periodicCall(func(*PeriodicPayment) {})(ctx, c))
	require.NoError(t, periodicCall(func(p *PeriodicPayment) {
		p.Frequency, p.MonthsOfExecution, p.DayOfExecution, p.EndDate = Weekly, nil, "31", p.StartDate
	})(ctx, c))
	require.NoError(t, bulkCall(func(*BulkPayment) {})(ctx, c))
	require.NoError(t, initiate(presentPSU, "cross-border-credit-transfers", payment(func(p *Payment) {
		p.CreditorAddress = &Address{StreetName: "Hauptstraße", Country: "DE"}
		p.CreditorAccount = AccountReference{IBAN: "DE89370400440532013000"}
		p.InstructedAmount = Amount{Currency: "EUR", Amount: "0.01"}
	}))(ctx, c))
	require.NoError(t, initiate(presentPSU, NorwegianDomesticCreditTransfers, payment(func(p *Payment) {
		p.RemittanceInformationStructured = &StructuredRemittance{Reference: testKID, ReferenceType: ReferenceTypeSCOR}
	}))(ctx, c), "the deprecated field is still sent while the bank takes it")
	assert.Contains(t, string(b.last().Body), `"remittanceInformationStructured":{"reference":"0365327","referenceType":"SCOR"}`)
	require.NoError(t, initiate(presentPSU, SEPACreditTransfers, payment(func(p *Payment) {
		p.CreditorAccount = AccountReference{IBAN: "DE89370400440532013000"}
		p.InstructedAmount = Amount{Currency: "EUR", Amount: "10.00"}
		p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: "RF18539007547034", ReferenceType: ReferenceTypeSCOR}}
	}))(ctx, c), "an ISO 11649 RF creditor reference is a SCOR reference too")
	assert.Contains(t, string(b.last().Body), `"remittanceInformationStructuredArray":[{"reference":"RF18539007547034","referenceType":"SCOR"}]`)
	assert.Equal(t, 7, b.count())
}

func TestPaymentChecksUseTheVectors(t *testing.T) {
	t.Parallel()
	var kids kidVectors
	loadVectors(t, "kid.json", &kids)
	var bbans bbanVectors
	loadVectors(t, "bban.json", &bbans)
	b, c := newBank(t, reply(http.StatusCreated, initiated))
	ctx := context.Background()
	withKID := func(k string) *Payment {
		return payment(func(p *Payment) {
			p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: k, ReferenceType: ReferenceTypeSCOR}}
		})
	}
	withBBAN := func(bban string) *Payment { return payment(func(p *Payment) { p.CreditorAccount.BBAN = bban }) }
	var valid, invalid int
	for _, k := range append(append([]string{}, kids.MOD11.Valid...), kids.MOD10.Valid...) {
		require.NoError(t, initiate(presentPSU, NorwegianDomesticCreditTransfers, withKID(k))(ctx, c), "KID %s", k)
		require.NoError(t, func() error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), EInvoice{KID: k, InvoiceNumber: "7"}, nil)
			return err
		}(), "KID %s", k)
		valid += 2
	}
	for _, bban := range bbans.Valid {
		require.NoError(t, initiate(presentPSU, NorwegianDomesticCreditTransfers, withBBAN(bban))(ctx, c), "BBAN %s", bban)
		valid++
	}
	for _, k := range kids.InvalidUnderBoth {
		if k == "" {
			continue // an empty reference is "required", checked elsewhere
		}
		err := initiate(presentPSU, NorwegianDomesticCreditTransfers, withKID(k))(ctx, c)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "KID %q", k)
		assert.Contains(t, ve.Field, "RemittanceInformationStructuredArray[0].Reference")
		invalid++
	}
	for _, bban := range bbans.Invalid {
		err := initiate(presentPSU, NorwegianDomesticCreditTransfers, withBBAN(bban))(ctx, c)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "BBAN %q", bban)
		assert.Equal(t, "Payment.CreditorAccount.BBAN", ve.Field)
		invalid++
	}
	require.Positive(t, invalid)
	assert.Equal(t, valid, b.count(), "only the valid vectors reached the bank")
}

// dropAfterRead reads the request and closes the connection without an answer.
func dropAfterRead(w http.ResponseWriter, r *http.Request, _ int) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

func TestInitiateNeverResentAfterDroppedConnection(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"default policy": nil,
		"POST in the retry policy": {WithRetry(RetryPolicy{MaxAttempts: 5, MinDelay: time.Millisecond, MaxDelay: time.Millisecond,
			Methods: []string{http.MethodGet, http.MethodPost}})},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, c := newBank(t, dropAfterRead, opts...)
			ini, resp, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
			require.Nil(t, ini)
			require.Nil(t, resp)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var te *TransportError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 1, b.count(), "exactly one request reached the bank")
			assert.NotEmpty(t, te.RequestID)
			assert.Equal(t, b.last().Header.Get("X-Request-ID"), te.RequestID)
			assert.Contains(t, err.Error(), te.RequestID)
		})
	}
}

func TestInitiateInsufficientFunds(t *testing.T) {
	t.Parallel()
	_, c := newBank(t, reply(http.StatusBadRequest, `{"tppMessages":[{"category":"ERROR","code":"FUNDS_NOT_AVAILABLE","text":"Not enough money"}]}`))
	ini, resp, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
	require.Nil(t, ini)
	require.ErrorIs(t, err, ErrInsufficientFunds)
	require.NotNil(t, resp, "the response is returned with the error")
	assert.NotEmpty(t, resp.RequestID)
}

func TestInitiateWithSCARedirectIsTheResult(t *testing.T) {
	t.Parallel()
	_, c := newBank(t, reply(http.StatusCreated, `{"paymentId":"p","transactionStatus":"RCVD","_links":{"scaRedirect":{"href":"https://bank.example/sca"},"status":{"href":"/v1/payments/x/p/status"}}}`))
	ini, _, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
	require.NoError(t, err)
	assert.Equal(t, "https://bank.example/sca", ini.Links.SCARedirect.Href)
}

func TestAllowLogicalDuplicateOnlyOnRetry(t *testing.T) {
	t.Parallel()
	b, c := newBank(t, reply(http.StatusCreated, initiated))
	ctx := context.Background()
	inv := EInvoice{KID: testKID, InvoiceNumber: "INV-9", Issuer: "OTHER-SCHEME"}
	p := simplePayment()
	tests := []struct {
		name  string
		call  func() error
		query string
	}{
		{"initiate without options", func() error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, nil)
			return err
		}, ""},
		{"initiate with false", func() error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, &InitiateOptions{})
			return err
		}, ""},
		{"initiate with true", func() error {
			_, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, &InitiateOptions{AllowLogicalDuplicate: true})
			return err
		}, "allowLogicalDuplicate=true"},
		{"e-invoice first attempt", func() error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, inv, nil)
			return err
		}, ""},
		{"e-invoice retry", func() error {
			_, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, NorwegianDomesticCreditTransfers, &p, inv, &InitiateOptions{AllowLogicalDuplicate: true})
			return err
		}, "allowLogicalDuplicate=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.call())
			assert.Equal(t, tt.query, b.last().Query)
		})
	}
	body := string(b.last().Body)
	assert.Contains(t, body, `{"reference":"INV-9","referenceType":"CINV","referenceIssuer":"OTHER-SCHEME"}`)
	assert.NotContains(t, body, "remittanceInformationUnstructured")
	assert.Equal(t, simplePayment(), p, "the caller's Payment is unchanged")
}

func TestStartAuthorisationSendsAnEmptyBody(t *testing.T) {
	t.Parallel()
	const answer = `{"scaStatus":"started","authorisationId":"a1","_links":{"scaRedirect":{"href":"https://bank.example/sca/a1"}}}`
	b := &testBank{fn: reply(http.StatusCreated, answer)}
	srv, c := newTestServer(t, b)
	// A client whose signer digests empty bodies too (the Berlin Group rule).
	withDigest, err := NewClient(srv.URL+testBasePath, testSignerWith(t, &SignerOptions{DigestOnEmptyBody: true}), WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	t.Cleanup(func() { withDigest.Close() })
	link := Link{Href: "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/authorisations", Verbs: []string{"POST"}}

	for name, client := range map[string]*Client{"default signer": c, "digest on empty body": withDigest} {
		sca, resp, err := client.Payments.StartAuthorisation(context.Background(), presentPSU, link)
		require.NoError(t, err, name)
		got := b.last()
		assert.Equal(t, http.MethodPost, got.Method, name)
		assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/authorisations", got.Path, name)
		assert.Empty(t, got.Body, name)
		assert.Equal(t, "0", got.Header.Get("Content-Length"), name)
		assert.Equal(t, "https://bank.example/sca/a1", sca.Links.SCARedirect.Href, name)
		assert.Equal(t, "a1", sca.AuthorisationID, name)
		assert.Equal(t, http.StatusCreated, resp.StatusCode, name)
		if client == withDigest {
			assert.Equal(t, Digest(nil), got.Header.Get("Digest"), "Digest of the empty body")
			assert.Equal(t, "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", got.Header.Get("Digest"))
			assert.Contains(t, got.Header.Get("Signature"), "digest", "the Digest is signed")
		}
	}
}

func TestStatusGetCancel(t *testing.T) {
	t.Parallel()
	b, c := newBank(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/status"):
			reply(http.StatusOK, `{"transactionStatus":"ACCP","fundsAvailable":false}`)(w, r, 0)
		case r.Method == http.MethodGet:
			reply(http.StatusOK, `{"instructedAmount":{"currency":"NOK","amount":"100.26"},"creditorAccount":{"bban":"86011117947"},"creditorName":"Kari Nordmann","transactionStatus":"ACSC"}`)(w, r, 0)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
	ctx := context.Background()
	var ini Initiation
	require.NoError(t, json.Unmarshal([]byte(initiated), &ini))
	absent := PSU{ID: presentPSU.ID} // reading and cancelling need no PSU-IP-Address

	st, _, err := c.Payments.Status(ctx, absent, ini.Links.Status)
	require.NoError(t, err)
	assert.Equal(t, TransactionStatusACCP, st.TransactionStatus)
	assert.True(t, st.InsufficientFunds())
	assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status", b.last().Path)

	d, _, err := c.Payments.Get(ctx, absent, ini.Links.Self)
	require.NoError(t, err)
	require.NotNil(t, d.Payment, "a single payment")
	assert.Equal(t, simplePayment(), *d.Payment)
	assert.Equal(t, http.MethodGet, b.last().Method)
	assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1", b.last().Path)

	resp, err := c.Payments.Cancel(ctx, absent, ini.Links.Self)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, http.MethodDelete, b.last().Method)
	assert.Equal(t, "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1", b.last().Path)
	assert.Empty(t, b.last().Header.Get("PSU-IP-Address"))
}

func TestCancelWithSCARedirect(t *testing.T) {
	t.Parallel()
	_, c := newBank(t, reply(http.StatusAccepted, `{"transactionStatus":"ACTC","_links":{"scaRedirect":{"href":"https://bank.example/sca/cancel"}}}`))
	_, err := c.Payments.Cancel(context.Background(), presentPSU, Link{Href: "/v1/payments/x/p"})
	var sca *SCARequiredError
	require.ErrorAs(t, err, &sca)
	assert.Equal(t, "https://bank.example/sca/cancel", sca.Redirect.Href)
}

func TestTransactionStatus(t *testing.T) {
	t.Parallel()
	final := map[TransactionStatus]bool{TransactionStatusACSC: true, TransactionStatusACCC: true, TransactionStatusRJCT: true, TransactionStatusCANC: true}
	all := []TransactionStatus{TransactionStatusACCC, TransactionStatusACCP, TransactionStatusACSC, TransactionStatusACSP,
		TransactionStatusACTC, TransactionStatusACWC, TransactionStatusACWP, TransactionStatusRCVD, TransactionStatusPDNG,
		TransactionStatusRJCT, TransactionStatusCANC, TransactionStatusACFC, TransactionStatusPATC, TransactionStatusPART}
	for _, s := range all {
		t.Run(string(s), func(t *testing.T) {
			assert.True(t, s.Known())
			assert.Equal(t, final[s], s.Final())
			assert.Len(t, string(s), 4)
		})
	}
	assert.False(t, TransactionStatusPART.Final(), "PART is final for bulk payments only (PollOptions.Bulk)")
	var st PaymentStatus
	require.NoError(t, json.Unmarshal([]byte(`{"transactionStatus":"XYZW"}`), &st))
	assert.Equal(t, TransactionStatus("XYZW"), st.TransactionStatus, "unknown codes decode as they are")
	assert.False(t, st.TransactionStatus.Known())
	assert.False(t, st.TransactionStatus.Final())
	assert.False(t, st.InsufficientFunds())
	assert.False(t, (*PaymentStatus)(nil).InsufficientFunds())
	for body, want := range map[string]bool{
		`{"transactionStatus":"ACCP","fundsAvailable":false}`: true,
		`{"transactionStatus":"RJCT","fundsAvailable":false}`: true,
		`{"transactionStatus":"ACCP","fundsAvailable":true}`:  false,
		`{"transactionStatus":"ACCP"}`:                        false,
	} {
		var st PaymentStatus
		require.NoError(t, json.Unmarshal([]byte(body), &st))
		assert.Equal(t, want, st.InsufficientFunds(), body)
	}
}

func TestFrequencyKnown(t *testing.T) {
	t.Parallel()
	for _, f := range []Frequency{Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable} {
		assert.True(t, f.Known(), f)
	}
	assert.False(t, Frequency("monthly").Known())
}

func TestPeriodicPaymentFlattensPayment(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(PeriodicPayment{Payment: simplePayment(), StartDate: Date{2026, time.January, 31}, Frequency: Monthly})
	require.NoError(t, err)
	assert.Equal(t, `{"instructedAmount":{"currency":"NOK","amount":"100.26"},"creditorAccount":{"bban":"86011117947"},`+
		`"creditorName":"Kari Nordmann","startDate":"2026-01-31","frequency":"Monthly"}`, string(b))
}

func FuzzPaymentStatus(f *testing.F) {
	for _, s := range []string{
		`{"transactionStatus":"ACCP","fundsAvailable":false}`,
		`{"transactionStatus":"PATC","tppMessages":[{"category":"WARNING","code":"X"}]}`,
		initiated,
		`{"paymentId":1}`,
		`{"_links":{"self":"/v1/x","status":{"href":null}}}`,
		`{"transactionFees":{"amount":1e400,"currency":"NOK"}}`,
		`null`, `[]`, `"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st PaymentStatus
		if json.Unmarshal(data, &st) == nil {
			_ = st.TransactionStatus.Final()
			_ = st.TransactionStatus.Known()
			_ = st.InsufficientFunds()
		}
		var ini Initiation
		if json.Unmarshal(data, &ini) == nil {
			_ = ini.effectiveKind()
			b := &SigningBasket{Payments: []*Initiation{&ini}}
			if body, err := b.body(); err == nil {
				if _, err := marshalCompact(body); err != nil {
					t.Fatalf("a checked basket does not encode: %v", err)
				}
			}
		}
		var basket BasketInitiation
		_ = json.Unmarshal(data, &basket)
	})
}

// FuzzPaymentAmountAgreesWithInitiate: ParsePaymentAmount accepts exactly
// the amounts a payment's validation accepts, and refuses the others with
// the same reason, whatever the text and currency.
func FuzzPaymentAmountAgreesWithInitiate(f *testing.F) {
	for _, s := range [][2]string{{"NOK", "100.50"}, {"NOK", "0"}, {"NOK", "0.000"}, {"NOK", "-1"}, {"NOK", "-0.0"},
		{"EUR", "1e3"}, {"nok", "1"}, {"NOK", "12345678901234.123"}, {"NOK", "123456789012345"}, {"", "1"},
		{"NOK", " 1"}, {"NOK", "1.2345"}, {"NOK", "00.01"}, {"NOK", "+1"}, {"NOK", "１"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, currency, amount string) {
		_, parsed := ParsePaymentAmount(currency, amount)
		p := &Payment{InstructedAmount: Amount{Currency: currency, Amount: amount},
			CreditorAccount: AccountReference{BBAN: "12345678903"}, CreditorName: "Kari Nordmann"}
		initiated := p.validate("Payment")
		var pv, iv *ValidationError
		if initiated != nil && errors.As(initiated, &iv) && !strings.HasPrefix(iv.Field, "Payment.InstructedAmount") {
			initiated = nil // another field's complaint
		}
		if (parsed == nil) != (initiated == nil) {
			t.Fatalf("%q %q: ParsePaymentAmount %v, Initiate %v", currency, amount, parsed, initiated)
		}
		if parsed != nil {
			require.ErrorAs(t, parsed, &pv)
			assert.Equal(t, iv.Reason, pv.Reason)
			assert.Equal(t, strings.TrimPrefix(iv.Field, "Payment.Instructed"), pv.Field)
		}
	})
}
