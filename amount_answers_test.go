package xs2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerAmounts are amounts as an answer may write them, each as a JSON
// value: the interface's strings and the older numbers in the same grammar
// are accepted; anything else is refused.
var answerAmounts = []struct {
	json string // the JSON value of "amount"
	ok   bool
}{
	{`"-12.50"`, true}, {`"0.00"`, true}, {`"100"`, true}, {`"-0"`, true},
	{`"12345678901234.567"`, true}, {`""`, true},
	{`-12.50`, true}, {`0.00`, true}, {`100`, true}, {`12345678901234.567`, true},
	{`"NaN"`, false}, {`"Infinity"`, false}, {`"0x10"`, false}, {`" 5"`, false}, {`"5 "`, false},
	{`"1e400"`, false}, {`"1e2"`, false}, {`"+5"`, false}, {`"1."`, false}, {`".5"`, false},
	{`"1,5"`, false}, {`"--1"`, false}, {`"1.2345"`, false}, {`"123456789012345"`, false},
	{`"-"`, false}, {`"1\u00a0000"`, false}, {`"١٢"`, false},
	{`1e2`, false}, {`1E+2`, false}, {`1e400`, false}, {`1.5e-1`, false}, {`1.2345`, false},
	{`123456789012345`, false}, {`true`, false}, {`{"value":1}`, false}, {`[1]`, false},
}

// TestAmountsInAnswers decodes each of answerAmounts inside a transaction
// page, a balance and a payment initiation answer: a malformed amount fails
// the call with a *json.UnmarshalTypeError naming the field's path; a POST
// answer that cannot be decoded stays ErrOutcomeUnknown.
func TestAmountsInAnswers(t *testing.T) {
	t.Parallel()
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.7"}
	calls := []struct {
		name, path string // path: the Field of the error
		body       func(amount string) string
		call       func(c *Client) (Amount, error)
	}{
		{"transaction page", "transactions.booked.transactionAmount.amount",
			func(a string) string {
				return `{"transactions":{"booked":[{"transactionId":"t1","transactionAmount":{"currency":"NOK","amount":` + a + `}}]}}`
			},
			func(c *Client) (Amount, error) {
				rep, _, err := c.Accounts.TransactionsPage(context.Background(), psu, "acc1", nil)
				if err != nil {
					return Amount{}, err
				}
				return rep.Transactions.Booked[0].TransactionAmount, nil
			}},
		{"balance", "balances.balanceAmount.amount",
			func(a string) string {
				return `{"balances":[{"balanceType":"closingBooked","balanceAmount":{"currency":"NOK","amount":` + a + `}}]}`
			},
			func(c *Client) (Amount, error) {
				b, _, err := c.Accounts.Balances(context.Background(), psu, "acc1")
				if err != nil {
					return Amount{}, err
				}
				return b.Balances[0].BalanceAmount, nil
			}},
		{"initiation", "transactionFees.amount",
			func(a string) string {
				return `{"paymentId":"p1","transactionStatus":"RCVD","transactionFees":{"currency":"NOK","amount":` + a + `}}`
			},
			func(c *Client) (Amount, error) {
				ini, _, err := c.Payments.Initiate(context.Background(), presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
				if err != nil {
					return Amount{}, err
				}
				return *ini.TransactionFees, nil
			}},
	}
	for _, call := range calls {
		for _, a := range answerAmounts {
			t.Run(call.name+"/"+a.json, func(t *testing.T) {
				t.Parallel()
				_, c := newBank(t, reply(http.StatusOK, call.body(a.json)))
				got, err := call.call(c)
				if a.ok {
					require.NoError(t, err)
					assert.Equal(t, strings.Trim(a.json, `"`), got.Amount)
					return
				}
				require.Error(t, err)
				var te *json.UnmarshalTypeError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, call.path, te.Field)
				assert.Contains(t, err.Error(), call.path)
				assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
				if call.name == "initiation" {
					assert.ErrorIs(t, err, ErrOutcomeUnknown)
				}
			})
		}
	}
}

// TestOtherDecimalsInAnswers: the exchange rate of a card transaction and
// the sandbox's balances follow the same grammar (a rate has no sign and up
// to 15 decimals), and a refusal names the field.
func TestOtherDecimalsInAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		into     func() any
		field    string // "" when accepted
	}{
		{"rate string", `{"exchangeRate":"11.52"}`, func() any { return new(ReportExchangeRate) }, ""},
		{"rate number", `{"exchangeRate":11.520000000000001}`, func() any { return new(ReportExchangeRate) }, ""},
		{"rate negative", `{"exchangeRate":"-1"}`, func() any { return new(ReportExchangeRate) }, "exchangeRate"},
		{"rate exponent", `{"exchangeRate":1e2}`, func() any { return new(ReportExchangeRate) }, "exchangeRate"},
		{"rate NaN", `{"exchangeRate":"NaN"}`, func() any { return new(ReportExchangeRate) }, "exchangeRate"},
		{"rate in a card transaction", `{"cardTransactions":{"booked":[{"currencyExchange":[{"exchangeRate":"0x10"}]}]}}`,
			func() any { return new(cardTransactionReport) }, "cardTransactions.booked.currencyExchange.exchangeRate"},
		{"sandbox balance", `{"balance":"100.26","creditLimit":-5}`, func() any { return new(SandboxAccount) }, ""},
		{"sandbox balance NaN", `{"balance":"NaN"}`, func() any { return new(SandboxAccount) }, "balance"},
		{"sandbox credit limit", `{"creditLimit":"1e400"}`, func() any { return new(SandboxAccount) }, "creditLimit"},
		{"sandbox customers", `{"customers":[{"accounts":[{"balance":" 5"}]}]}`,
			func() any { return new(struct{ Customers []SandboxCustomer }) }, "Customers.accounts.balance"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := json.Unmarshal([]byte(tc.in), tc.into())
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var te *json.UnmarshalTypeError
			require.True(t, errors.As(err, &te), "%v", err)
			assert.Equal(t, tc.field, te.Field)
		})
	}
}
