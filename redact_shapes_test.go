package xs2a

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRedactShapes pins what the redactor takes for an identifier of
// anybody's (whatever call it came with) and what it leaves: the numbers
// of a diagnosis (statuses, addresses, dates, amounts) stay.
func TestRedactShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"psu 5D0C8F3E-2B7A-4E19-9C6D-8A1F0E2B3C4D here", "psu [redacted] here"},
		{"IBAN NO9386011117947.", "IBAN [redacted]."},
		{"iban no9386011117947", "iban [redacted]"},
		{"accountNO9386011117947x", "account[redacted]"},
		{"IBAN NO93 8601 1117 947, ok", "IBAN [redacted], ok"},
		{"GB82 WEST 1234 5698 7654 32", "[redacted]"},
		{"DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000", "[redacted]"},
		{"konto 86011117947", "konto [redacted]"},
		{"konto 8601.11.17947 og 8601 11 17947", "konto [redacted] og [redacted]"},
		{"kort 4111111111111111", "kort [redacted]"},
		{"kort 4111 1111 1111 1111, 4111-1111-1111-1111", "kort [redacted], [redacted]"},
		{"amex 3782 822463 10005", "amex [redacted]"},
		{"19 digits 6304000000000000018", "19 digits [redacted]"},
		{"25 digits 1234567890123456789012345", "25 digits [redacted]"},
		{"masked 123456******1234 and ************1234", "masked [redacted] and [redacted]"},
		{"masked XXXX XXXX XXXX 1234 / **** **** **** 1234 / xxxx-xxxx-xxxx-1234", "masked [redacted] / [redacted] / [redacted]"},
		{"masked 4111 11XX XXXX 1111 and •••• 1234", "masked [redacted] and [redacted]"},
		{"17947 4111 1111 1111 1111", "17947 [redacted]"},
		// What stays.
		{"400 Bad Request", "400 Bad Request"},
		{"dial tcp 127.0.0.1:443: connect: connection refused", "dial tcp 127.0.0.1:443: connect: connection refused"},
		{"dial tcp 192.168.100.200:8443", "dial tcp 192.168.100.200:8443"},
		{"at 2025-01-01T12:00:00+02:00", "at 2025-01-01T12:00:00+02:00"},
		{"amount 1234567.89 NOK", "amount 1234567.89 NOK"},
		{"FORMAT_ERROR at payments[3].remittanceInformationStructuredArray", "FORMAT_ERROR at payments[3].remittanceInformationStructuredArray"},
		{"phone 22 33 44 55, ten digits 1234567890", "phone 22 33 44 55, ten digits 1234567890"},
		{"XXXX of 12 items", "XXXX of 12 items"},
		{"TLS 1.2 or 1.3; HTTP/1.1", "TLS 1.2 or 1.3; HTTP/1.1"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, redactShapes(tc.in))
		})
	}
}

// TestCallPathIDs: the ids redacted for a call are its PSU's, its budget
// account and every segment of its path that is not a route word, as sent
// and unescaped; short segments and route words are not.
func TestCallPathIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    request
		want callIDs
	}{
		{"account", request{href: accountPath("enc!!QUJD/x") + "/balances", accountID: "enc!!QUJD/x"},
			callIDs{"enc!!QUJD%2Fx", "enc!!QUJD/x"}},
		{"payment link", request{href: "https://bank.example/v1/payments/sepa-credit-transfers/pay-Oslo/status?x=1"},
			callIDs{"pay-Oslo"}},
		{"short and route segments", request{href: "/v1/bulk-payments/x/p1/cancellation-authorisations"}, nil},
		{"psu and card", request{href: cardAccountPath("card-Fjord"), psu: &PSU{ID: leakPSU.ID, SessionID: "sess-1"}},
			callIDs{leakPSU.ID, "card-Fjord", "sess-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.r.ids())
		})
	}
	ids := (&request{href: accountPath("enc!!QUJD/x")}).ids()
	assert.Equal(t, "account [redacted] and [redacted], in any case: [redacted] [redacted]",
		ids.text("account enc!!QUJD/x and enc!!QUJD%2Fx, in any case: ENC!!qujd%2fX ENC!!qujd/X", 0))
}
