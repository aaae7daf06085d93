package xs2a

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPaymentDetailsShapes reads the three kinds of payment through
// Payments.Get: the answer's shape picks the body, the head fields are
// set, members of the body never land in Extra, and what neither names
// does. The value encodes back to an object that decodes to the same.
func TestPaymentDetailsShapes(t *testing.T) {
	t.Parallel()
	const head = `"paymentId":"enc!!p1","transactionStatus":"ACCP","fundsAvailable":false,"zUnknown":{"a":[1]},`
	amount := Amount{Currency: "NOK", Amount: "10.00"}
	tests := []struct {
		name, href, body string
		check            func(t *testing.T, d *PaymentDetails)
	}{
		{"single", "/v1/payments/p/enc!!p1",
			`{` + head + `"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorAccount":{"bban":"12345678903"},"creditorName":"Kari","debtorAccount":{"bban":"12345678903"}}`,
			func(t *testing.T, d *PaymentDetails) {
				require.NotNil(t, d.Payment)
				assert.Nil(t, d.Periodic)
				assert.Nil(t, d.Bulk)
				assert.Equal(t, amount, d.Payment.InstructedAmount)
				assert.Equal(t, "Kari", d.Payment.CreditorName)
				require.NotNil(t, d.Payment.DebtorAccount)
			}},
		{"periodic", "/v1/periodic-payments/p/enc!!p1",
			`{` + head + `"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorAccount":{"bban":"12345678903"},"creditorName":"Kari","startDate":"2026-04-01","frequency":"Monthly","dayOfExecution":"1"}`,
			func(t *testing.T, d *PaymentDetails) {
				require.NotNil(t, d.Periodic)
				assert.Nil(t, d.Payment)
				assert.Nil(t, d.Bulk)
				assert.Equal(t, Monthly, d.Periodic.Frequency)
				assert.Equal(t, "1", d.Periodic.DayOfExecution)
				assert.Equal(t, Date{Year: 2026, Month: 4, Day: 1}, d.Periodic.StartDate)
				assert.Equal(t, amount, d.Periodic.InstructedAmount)
			}},
		{"bulk", "/v1/bulk-payments/p/enc!!p1",
			`{` + head + `"debtorAccount":{"bban":"12345678903"},"requestedExecutionDate":"2026-04-02","payments":[{"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorAccount":{"bban":"12345678903"},"creditorName":"Kari"}]}`,
			func(t *testing.T, d *PaymentDetails) {
				require.NotNil(t, d.Bulk)
				assert.Nil(t, d.Payment)
				assert.Nil(t, d.Periodic)
				require.Len(t, d.Bulk.Payments, 1)
				assert.Equal(t, amount, d.Bulk.Payments[0].InstructedAmount)
				assert.Equal(t, Date{Year: 2026, Month: 4, Day: 2}, d.Bulk.RequestedExecutionDate)
			}},
		{"payments null is no bulk", "/v1/payments/p/enc!!p1",
			`{` + head + `"payments":null,"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorAccount":{"bban":"12345678903"},"creditorName":"Kari"}`,
			func(t *testing.T, d *PaymentDetails) {
				require.NotNil(t, d.Payment)
				assert.Equal(t, json.RawMessage(`null`), d.Extra["payments"])
				delete(d.Extra, "payments")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || r.URL.EscapedPath() != tt.href {
					http.Error(w, r.Method+" "+r.URL.EscapedPath(), http.StatusNotFound)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tt.body))
			}))
			d, resp, err := c.Payments.Get(context.Background(), aisPresent, Link{Href: tt.href})
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "enc!!p1", d.PaymentID)
			assert.Equal(t, TransactionStatusACCP, d.TransactionStatus)
			require.NotNil(t, d.FundsAvailable)
			assert.False(t, *d.FundsAvailable)
			tt.check(t, d)
			assert.Equal(t, Extra{"zUnknown": json.RawMessage(`{"a":[1]}`)}, d.Extra, "only what nothing names")

			out, err := json.Marshal(d)
			require.NoError(t, err)
			var back PaymentDetails
			require.NoError(t, json.Unmarshal(out, &back))
			assert.Equal(t, *d, back, "encoded: %s", out)
		})
	}
}

// TestPaymentDetailsRefusals: a body that is no object, or whose members
// have the wrong types, is an error, never a half-filled result.
func TestPaymentDetailsRefusals(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`[]`, `"x"`, `{"payments":{}}`, `{"frequency":1}`, `{"instructedAmount":[]}`, `{"paymentId":1}`, `{} x`} {
		var d PaymentDetails
		assert.Error(t, json.Unmarshal([]byte(body), &d), body)
	}
	var d PaymentDetails
	require.NoError(t, json.Unmarshal([]byte(`null`), &d))
	assert.Equal(t, PaymentDetails{}, d)
}

// FuzzPaymentDetails decodes any answer to a payment read: no panic, at
// most one body set, and what decodes encodes and decodes again.
func FuzzPaymentDetails(f *testing.F) {
	for _, s := range []string{
		`{"paymentId":"p","transactionStatus":"ACSC","instructedAmount":{"currency":"NOK","amount":"1"},"creditorAccount":{"bban":"1"},"creditorName":"a"}`,
		`{"payments":[{"instructedAmount":{"currency":"NOK","amount":"1"}}],"debtorAccount":{"iban":"NO1"}}`,
		`{"frequency":"Weekly","startDate":"2026-01-01","zz":[{}]}`,
		`{"startDate":null,"payments":null}`, `null`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d PaymentDetails
		if json.Unmarshal(data, &d) != nil {
			return
		}
		set := 0
		for _, b := range []bool{d.Payment != nil, d.Periodic != nil, d.Bulk != nil} {
			if b {
				set++
			}
		}
		if set > 1 {
			t.Fatalf("%d bodies set for %q", set, data)
		}
		out, err := json.Marshal(d)
		if err != nil {
			return // an Amount or Date the bank sent that does not encode back
		}
		var back PaymentDetails
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q encoded as %q, which does not decode: %v", data, out, err)
		}
	})
}
