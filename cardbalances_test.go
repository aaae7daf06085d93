package xs2a

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCardBalancesEveryFieldReachesTheUser: the production card balances
// answer {"cardAccount":{"maskedPan"},"balances":[...]} reaches the caller
// whole: the reference in Balances.Account, every balance field, and every
// member the models do not name in Extra, also a cardAccount that could
// not move into Account (an account reference already there, or members
// AccountReference does not name).
func TestCardBalancesEveryFieldReachesTheUser(t *testing.T) {
	t.Parallel()
	const balance = `{"balanceAmount":{"currency":"NOK","amount":"-1520.50"},"balanceType":"nonInvoiced","creditLimitIncluded":true,` +
		`"lastChangeDateTime":"2026-03-02T10:00:00+01:00","referenceDate":"2026-03-01","lastCommittedTransaction":"t-9","cardScheme":"MC"}`
	tests := []struct {
		name      string
		body      string
		account   AccountReference
		extraKeys []string
	}{
		{"production shape", `{"cardAccount":{"maskedPan":"525412******3241"},"balances":[` + balance + `],"asOf":"x"}`,
			AccountReference{MaskedPAN: "525412******3241"}, []string{"asOf"}},
		{"account and cardAccount both", `{"account":{"bban":"32010012345"},"cardAccount":{"maskedPan":"525412******3241"},"balances":[` + balance + `]}`,
			AccountReference{BBAN: "32010012345"}, []string{"cardAccount"}},
		{"a member the reference does not name", `{"cardAccount":{"maskedPan":"525412******3241","cardHolder":"Kari Nordmann"},"balances":[` + balance + `]}`,
			AccountReference{MaskedPAN: "525412******3241"}, []string{"cardAccount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/card-accounts/c1/balances": serve(t, http.StatusOK, tt.body)})
			b, _, err := c.CardAccounts.Balances(context.Background(), aisPresent, "c1")
			require.NoError(t, err)
			assert.Equal(t, tt.account, b.Account)
			var keys []string
			for k := range b.Extra {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, tt.extraKeys, keys)
			if raw, ok := b.Extra["cardAccount"]; ok {
				assert.Contains(t, string(raw), "525412******3241", "kept as sent")
			}
			require.Len(t, b.Balances, 1)
			got := b.Balances[0]
			assert.Equal(t, BalanceNonInvoiced, got.BalanceType)
			assert.Equal(t, "-1520.50", got.BalanceAmount.Amount)
			require.NotNil(t, got.CreditLimitIncluded)
			assert.True(t, *got.CreditLimitIncluded)
			require.NotNil(t, got.LastChangeDateTime)
			assert.Equal(t, "2026-03-01", got.ReferenceDate.String())
			assert.Equal(t, "t-9", got.LastCommittedTransaction)
			assert.JSONEq(t, `"MC"`, string(got.Extra["cardScheme"]))
		})
	}
}
