package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a"
)

// TestPayLackOfFunds: the embedded fake bank keeps a payment it cannot
// book as ACCP with fundsAvailable false (PollStatus: a *xs2a.FundsError),
// and refuses an instant payment at its SCA (FUNDS_NOT_AVAILABLE): each is
// shown and exits 1. The table and -json still show the status.
func TestPayLackOfFunds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		args           []string
		stdout, stderr string
	}{
		{"batch: ACCP, fundsAvailable false", []string{"pay", "-amount", "99999999.00"}, "insufficient", "xs2a: insufficient funds (status ACCP, fundsAvailable false)"},
		{"batch, -json", []string{"pay", "-amount", "99999999.00", "-json"}, `"fundsAvailable": false`, "insufficient funds"},
		{"instant: refused at SCA", []string{"pay", "-amount", "99999999.00", "-product", xs2a.InstantNorwegianDomesticCreditTransfersStraks, "-from", "97103587232"}, "",
			"xs2a: the bank refused the payment for lack of funds: SCA failed: 400 FUNDS_NOT_AVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, nil, tc.args...)
			require.Equal(t, 1, code, stderr)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, tc.stderr)
			if tc.stdout != "" && !strings.HasPrefix(stdout, "{") {
				assert.Contains(t, stdout, "ACCP")
			}
		})
	}
	code, stdout, stderr := runCmd(t, nil, "pay", "-amount", "12.50", "-json")
	require.Equal(t, 0, code, stderr)
	var st xs2a.PaymentStatus
	require.NoError(t, json.Unmarshal([]byte(stdout), &st))
	assert.Equal(t, xs2a.TransactionStatusACSC, st.TransactionStatus, "funded: settled, exit 0")
}

// TestPayOutcome: both shapes of a refusal for lack of funds (the status
// with fundsAvailable false, and the *xs2a.FundsError PollStatus returns
// with it) and a refusal (RJCT, CANC) exit 1 with a message that says so;
// an accepted or settled status is no error.
func TestPayOutcome(t *testing.T) {
	t.Parallel()
	no, yes := false, true
	st := func(code xs2a.TransactionStatus, funds *bool, msgs ...xs2a.TPPMessage) *xs2a.PaymentStatus {
		return &xs2a.PaymentStatus{TransactionStatus: code, FundsAvailable: funds, Messages: msgs}
	}
	for _, tc := range []struct {
		name string
		st   *xs2a.PaymentStatus
		want string // "" for no error
	}{
		{"settled", st(xs2a.TransactionStatusACSC, nil), ""},
		{"accepted, funds available", st(xs2a.TransactionStatusPDNG, &yes), ""},
		{"accepted, not yet booked", st(xs2a.TransactionStatusACCP, nil), ""},
		{"ACCP fundsAvailable false", st(xs2a.TransactionStatusACCP, &no), "insufficient funds (status ACCP, fundsAvailable false): the bank keeps the payment"},
		{"RJCT fundsAvailable false", st(xs2a.TransactionStatusRJCT, &no, xs2a.TPPMessage{Code: "FUNDS_NOT_AVAILABLE", Text: "no money"}),
			"the bank refused the payment for lack of funds (status RJCT, fundsAvailable false): FUNDS_NOT_AVAILABLE no money"},
		{"RJCT", st(xs2a.TransactionStatusRJCT, nil), "the bank refused the payment (status RJCT)"},
		{"CANC", st(xs2a.TransactionStatusCANC, nil), "the bank refused the payment (status CANC)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := payOutcome(tc.st)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, 1, exitCode(&env{stderr: new(strings.Builder)}, err))
		})
	}
	assert.Nil(t, fundsRefusal(nil))
	other := errors.New("xs2a: 503 SERVICE_UNAVAILABLE")
	assert.Same(t, other, fundsRefusal(other))
	assert.Equal(t, "the bank refused the payment for lack of funds: SCA failed: 400 FUNDS_NOT_AVAILABLE",
		fundsRefusal(&xs2a.SCAFailedError{Status: 400, Code: xs2a.CodeFundsNotAvailable}).Error())
}
