package xs2a

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ErrDuplicatePayment matches the bank's logical-duplicate refusal only: a
// 400 PAYMENT_FAILED at a remittanceInformationStructuredArray, never
// another PAYMENT_FAILED or another error at that path (a KID error).
func TestErrDuplicatePayment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		msgs   []TPPMessage
		want   bool
	}{
		{"single payment", 400, []TPPMessage{{Code: CodePaymentFailed, Path: "remittanceInformationStructuredArray"}}, true},
		{"bulk entry", 400, []TPPMessage{{Code: CodePaymentFailed, Path: "payments[3].remittanceInformationStructuredArray"}}, true},
		{"path in another case, after a warning", 400, []TPPMessage{{Category: "WARNING", Code: "X"},
			{Code: CodePaymentFailed, Path: "RemittanceInformationStructuredArray"}}, true},
		{"payment failed elsewhere", 400, []TPPMessage{{Code: CodePaymentFailed, Path: "instructedAmount"}}, false},
		{"payment failed without a path", 400, []TPPMessage{{Code: CodePaymentFailed}}, false},
		{"KID error", 400, []TPPMessage{{Code: CodeFormatError, Path: "remittanceInformationStructuredArray"}}, false},
		{"a field that only ends alike", 400, []TPPMessage{{Code: CodePaymentFailed, Path: "xremittanceInformationStructuredArray"}}, false},
		{"not a 400", 500, []TPPMessage{{Code: CodePaymentFailed, Path: "remittanceInformationStructuredArray"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Error{StatusCode: tt.status, Messages: tt.msgs, Method: "POST"}
			assert.Equal(t, tt.want, errors.Is(e, ErrDuplicatePayment))
		})
	}
}
