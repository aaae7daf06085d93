package xs2a

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAcceptFixesCompose(t *testing.T) {
	t.Parallel()
	bg := context.Background()
	tests := []struct {
		name   string
		ctx    context.Context
		client []AcceptFix
		call   []AcceptFix
		want   string
	}{
		{"none", bg, nil, nil, ""},
		{"client only", bg, []AcceptFix{LongerNames}, nil, "longer-names"},
		{"client, endpoint and context, no duplicates", ContextWithAcceptFixes(bg, LongerNames, CashAccountTypeISO), []AcceptFix{LongerNames}, []AcceptFix{CardAccountSwitchAmounts},
			"longer-names,cardaccount-switch-originalamount-and-transactionamount,cash-account-type-iso"},
		{"context removes the endpoint's fix", ContextWithoutAcceptFixes(bg, CardAccountSwitchAmounts), nil, []AcceptFix{CardAccountSwitchAmounts}, ""},
		{"context removes the client's fix", ContextWithoutAcceptFixes(bg, LongerNames), []AcceptFix{LongerNames, AmountAsString}, nil, "amount-as-string"},
		{"a later add undoes an earlier remove", ContextWithAcceptFixes(ContextWithoutAcceptFixes(bg, LongerNames), LongerNames), []AcceptFix{LongerNames}, nil, "longer-names"},
		{"a later remove undoes an earlier add", ContextWithoutAcceptFixes(ContextWithAcceptFixes(bg, LongerNames), LongerNames), nil, nil, ""},
		{"unknown future fix sent as is", ContextWithAcceptFixes(bg, "some-future-fix"), nil, nil, "some-future-fix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := acceptFixes(tt.ctx, tt.client, tt.call)
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.True(t, AmountAsString.Default())
	assert.False(t, LongerNames.Default())
}
