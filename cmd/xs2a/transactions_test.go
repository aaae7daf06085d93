package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTransactionsJSONGrouped: -json keeps the bank's booked/pending
// split: an object with the groups -status asked for, each entry in its
// group, an empty group [] (never null, never a flat list).
func TestTransactionsJSONGrouped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status string
		keys   []string
	}{
		{"both", []string{"booked", "pending"}},
		{"booked", []string{"booked"}},
		{"pending", []string{"pending"}},
	} {
		t.Run(tc.status, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, nil, "transactions", "-json", "-status", tc.status)
			require.Equal(t, 0, code, stderr)
			var got map[string][]map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			var keys []string
			for k, list := range got {
				keys = append(keys, k)
				assert.NotNil(t, list, "%s is [] or entries, not null", k)
				for _, tx := range list {
					_, booked := tx["bookingDate"]
					if k == "booked" {
						assert.True(t, booked, "a booked entry has its bookingDate: %v", tx)
					}
				}
			}
			assert.ElementsMatch(t, tc.keys, keys)
			for _, k := range tc.keys {
				assert.NotEmpty(t, got[k], "the fake bank has %s transactions", k)
			}
		})
	}
	r := groupTransactions("booked", nil)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"booked": []}`, string(b))
}
