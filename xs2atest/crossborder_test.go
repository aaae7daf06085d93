package xs2atest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

const (
	germanIBAN  = "DE89370400440532013000"
	swedishIBAN = "SE4550000000058398257466"
)

// abroad is a cross-border payment of amount in currency to iban.
func abroad(currency, amount, iban string, mod ...func(map[string]any)) map[string]any {
	p := map[string]any{
		"instructedAmount":                  map[string]any{"currency": currency, "amount": amount},
		"creditorAccount":                   map[string]any{"iban": iban},
		"creditorName":                      "Müller Holz GmbH",
		"creditorAddress":                   map[string]any{"townName": "Berlin", "country": iban[:2]},
		"remittanceInformationUnstructured": "Rechnung 4711",
	}
	for _, m := range mod {
		m(p)
	}
	return p
}

// Cross-border payments carry their fees summed in transactionFees (API
// release 1.15.0): 25.00 NOK per payment, 15.00 NOK more when it is paid in
// another currency than the debtor account's; the debtor is charged at the
// fake bank's fixed rates.
func TestCrossBorderFees(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(newFakeClock(wednesday10).Now))
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0]
	ref := map[string]any{"bban": debtor.BBAN, "currency": "NOK"}
	tests := []struct {
		name, path string
		body       map[string]any
		fee        string
	}{
		{"EUR from a NOK account: transfer and currency fee", "/v1/payments/", abroad("EUR", "120.00", germanIBAN, withDebtor(debtor.BBAN)), "40.00"},
		{"NOK abroad: the transfer fee only", "/v1/payments/", abroad("NOK", "500.00", swedishIBAN, withDebtor(debtor.BBAN)), "25.00"},
		{"debtor chosen at SCA: counted as NOK", "/v1/payments/", abroad("SEK", "100.00", swedishIBAN), "40.00"},
		{"bulk: every payment's fees summed", "/v1/bulk-payments/", map[string]any{"debtorAccount": ref, "payments": []any{
			abroad("EUR", "10.00", germanIBAN), abroad("NOK", "10.00", swedishIBAN), abroad("SEK", "10.00", swedishIBAN),
		}}, "105.00"},
		{"periodic: the fees of one execution", "/v1/periodic-payments/", abroad("EUR", "50.00", germanIBAN, withDebtor(debtor.BBAN), func(p map[string]any) {
			p["startDate"], p["frequency"] = "2025-04-01", "Monthly"
		}), "40.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", tt.path+ProductCrossBorder, tt.body, hdr...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
			m := r.json(t)
			assert.Equal(t, map[string]any{"amount": tt.fee, "currency": "NOK"}, m["transactionFees"])
			assert.Equal(t, true, m["transactionFeeIndicator"])
		})
	}
}

func TestCrossBorderBooking(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(newFakeClock(wednesday10).Now))
	c := newTestClient(t, s)
	psuID := c.privatePSU(PrivateCustomer1)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0]
	before, _ := parseAmount(s.Balance(debtor.ResourceID), true)

	r := c.do("POST", "/v1/payments/"+ProductCrossBorder, abroad("EUR", "120.00", germanIBAN, withDebtor(debtor.BBAN)), hdr...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	c.authorise(r, PrivateCustomer1, hdr)
	s.RunBatch()
	assert.Equal(t, "ACSC", c.status(r)["transactionStatus"])
	// 120.00 EUR at 11.50 NOK is 1380.00 NOK, and 40.00 NOK of fees
	assert.Equal(t, formatAmount(before-138000-4000), s.Balance(debtor.ResourceID))

	tx := c.do("GET", "/v1/accounts/"+pathSeg(debtor.ResourceID)+"/transactions?bookingStatus=booked&limit=2", nil, "PSU-ID", psuID)
	require.Equal(t, http.StatusOK, tx.status, "%s", tx.body)
	booked := tx.json(t)["transactions"].(map[string]any)["booked"].([]any)
	require.Len(t, booked, 2)
	var amounts []any
	for _, b := range booked {
		amounts = append(amounts, b.(map[string]any)["transactionAmount"])
	}
	assert.ElementsMatch(t, []any{
		map[string]any{"amount": "-1380.00", "currency": "NOK"},
		map[string]any{"amount": "-40.00", "currency": "NOK"},
	}, amounts)
	for _, b := range booked {
		if e := b.(map[string]any); e["creditorName"] != nil {
			assert.Equal(t, map[string]any{"iban": germanIBAN}, e["creditorAccount"])
		} else {
			assert.Equal(t, "Gebyr utlandsbetaling", e["remittanceInformationUnstructured"])
		}
	}
}

func TestCrossBorderValidation(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	hdr := c.pisPSU(PrivateCustomer1)
	norwegian := bank.IBANOf(creditorBBAN)
	tests := []struct {
		name   string
		body   map[string]any
		status int
		path   string
	}{
		{"RF creditor reference", abroad("EUR", "1.00", germanIBAN, func(p map[string]any) {
			delete(p, "remittanceInformationUnstructured")
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "RF18539007547034", "referenceType": "SCOR"}}
		}), 201, ""},
		{"Norwegian iban", abroad("EUR", "1.00", norwegian), 400, "creditorAccount.iban"},
		{"bban only", abroad("EUR", "1.00", germanIBAN, func(p map[string]any) {
			p["creditorAccount"] = map[string]any{"bban": creditorBBAN}
		}), 400, "creditorAccount.iban"},
		{"iban check digits wrong", abroad("EUR", "1.00", "DE88370400440532013000"), 400, "creditorAccount.iban"},
		{"no creditorAddress", abroad("EUR", "1.00", germanIBAN, func(p map[string]any) { delete(p, "creditorAddress") }), 400, "creditorAddress"},
		{"currency not offered", abroad("JPY", "1.00", germanIBAN), 400, "instructedAmount.currency"},
		{"KID abroad", abroad("EUR", "1.00", germanIBAN, func(p map[string]any) {
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "0365327", "referenceType": "SCOR"}}
		}), 400, "remittanceInformationStructuredArray[0].reference"},
		{"e-invoice abroad", abroad("EUR", "1.00", germanIBAN, func(p map[string]any) {
			p["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": "F-1", "referenceType": "CINV", "referenceIssuer": "X"}}
		}), 400, "remittanceInformationStructuredArray[0].referenceType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/v1/payments/"+ProductCrossBorder, tt.body, hdr...)
			require.Equal(t, tt.status, r.status, "%s", r.body)
			if tt.status == 400 {
				assert.Equal(t, "FORMAT_ERROR", r.code())
				assert.Contains(t, string(r.body), `"path":"`+tt.path+`"`)
			}
		})
	}
	r := c.do("POST", "/v1/payments/"+ProductInstant, abroad("EUR", "1.00", germanIBAN), hdr...)
	assert.Equal(t, http.StatusBadRequest, r.status, "a domestic product stays domestic")
}

func TestIBANAndRFChecks(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{germanIBAN: true, swedishIBAN: true, "GB29NWBK60161331926819": true,
		bank.IBANOf(creditorBBAN): true, "DE89370400440532013001": false, "de89370400440532013000": false, "DE8937": false} {
		assert.Equal(t, want, validIBAN(s), s)
	}
	for s, want := range map[string]bool{"RF18539007547034": true, "RF18000000000539007547034": true,
		"RF19539007547034": false, "RF18": false, "XX18539007547034": false} {
		assert.Equal(t, want, validRF(s), s)
	}
}
