package xs2a_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestPaymentReadIsTyped: Payments.Get answers a single and a bulk payment
// of the fake bank each in its own body of PaymentDetails, with the id and
// status the bank gives (docs/interface.md PP5). The periodic form is
// TestPaymentDetailsShapes'.
func TestPaymentReadIsTyped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	psu := b.register(t, xs2atest.PrivateCustomer1)
	debtor := b.account(t, xs2atest.PrivateCustomer1, 0).BBAN

	single := b.payment(t, "10.00", debtor)
	entry := *b.payment(t, "30.00", "")
	bulk := &xs2a.BulkPayment{DebtorAccount: xs2a.AccountReference{BBAN: debtor}, Payments: []xs2a.Payment{entry, entry}}
	tests := []struct {
		name  string
		p     xs2a.PaymentRequest
		check func(t *testing.T, d *xs2a.PaymentDetails)
	}{
		{"single", single, func(t *testing.T, d *xs2a.PaymentDetails) {
			require.NotNil(t, d.Payment)
			assert.Nil(t, d.Periodic)
			assert.Nil(t, d.Bulk)
			assert.Equal(t, single.InstructedAmount, d.Payment.InstructedAmount)
			assert.Equal(t, single.CreditorName, d.Payment.CreditorName)
		}},
		{"bulk", bulk, func(t *testing.T, d *xs2a.PaymentDetails) {
			require.NotNil(t, d.Bulk)
			assert.Nil(t, d.Payment)
			assert.Nil(t, d.Periodic)
			require.Len(t, d.Bulk.Payments, 2)
			assert.Equal(t, entry.InstructedAmount, d.Bulk.Payments[1].InstructedAmount)
			assert.Equal(t, debtor, d.Bulk.DebtorAccount.BBAN)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, tt.p, nil)
			require.NoError(t, err)
			d, resp, err := b.c.Payments.Get(ctx, psu, ini.Links.Self)
			require.NoError(t, err)
			require.NotNil(t, resp)
			assert.Equal(t, ini.PaymentID, d.PaymentID)
			assert.Equal(t, ini.TransactionStatus, d.TransactionStatus)
			tt.check(t, d)
		})
	}
}
