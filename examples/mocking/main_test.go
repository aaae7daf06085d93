package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
	"github.com/tppkit/xs2a/xs2atest/mockbank"
)

// ---- 1. the fake bank: the TPP's code against a bank that checks everything ----

// consentedPSU runs the PSU's first SCA on the fake bank and returns the PSU
// as the TPP stores it after the callback.
func consentedPSU(t *testing.T, s *xs2atest.Server, c *xs2a.Client, customer string) xs2a.PSU {
	t.Helper()
	ctx := context.Background()
	psu := xs2a.PSU{IPAddress: "192.0.2.10", SessionID: xs2a.NewSessionID()}
	_, _, err := c.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca, "the first call asks for SCA")
	callback, err := s.CompleteSCA(ctx, sca.Redirect.Href, customer)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(callback.Query())
	require.NoError(t, err)
	return cb.PSU(psu.IPAddress)
}

func TestTotalBalanceAgainstTheFakeBank(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := xs2atest.NewServer(t) // closed by t.Cleanup
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := consentedPSU(t, s, c, xs2atest.PrivateCustomer1)
	customer, ok := s.Customer(xs2atest.PrivateCustomer1)
	require.True(t, ok)
	brukskonto, sparekonto := customer.Accounts[0].ResourceID, customer.Accounts[1].ResourceID

	require.True(t, s.SetBalance(brukskonto, "1200.50"))
	require.True(t, s.SetBalance(sparekonto, "-200.75"))
	total, err := TotalBalance(ctx, c, psu)
	require.NoError(t, err)
	assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: "999.75"}, total)

	// A closed account drops out of the list (an empty list, never 404).
	require.True(t, s.CloseAccount(sparekonto))
	total, err = TotalBalance(ctx, c, psu)
	require.NoError(t, err)
	assert.Equal(t, "1200.50", total.Amount)
}

func TestTotalBalanceBeforeConsentAsksForSCA(t *testing.T) {
	t.Parallel()
	s := xs2atest.NewServer(t)
	c, err := s.Client(nil)
	require.NoError(t, err)
	_, err = TotalBalance(context.Background(), c, xs2a.PSU{IPAddress: "192.0.2.10"})
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	assert.True(t, strings.HasPrefix(sca.Redirect.Href, s.URL()+"/sca/"), "the PSU goes to the bank's SCA page")
}

func TestTotalBalanceAfterConsentRevokedAtTheBank(t *testing.T) {
	t.Parallel()
	s := xs2atest.NewServer(t)
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := consentedPSU(t, s, c, xs2atest.PrivateCustomer2)
	s.RevokeConsent(xs2atest.PrivateCustomer2)
	_, err = TotalBalance(context.Background(), c, psu)
	assert.ErrorIs(t, err, xs2a.ErrConsentInvalid)
}

// TestTotalBalanceWithoutThePSU shows a limit the TPP's code meets in
// production: without PSU-IP-Address each account's balances may be read 4
// times a day. The SDK refuses the fifth before it reaches the bank.
func TestTotalBalanceWithoutThePSU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := xs2atest.NewServer(t)
	c, err := s.Client(nil)
	require.NoError(t, err)
	psu := consentedPSU(t, s, c, xs2atest.PrivateCustomer1)
	away := xs2a.PSU{ID: psu.ID} // no IPAddress: the PSU is not present

	for i := range xs2a.AccessLimit {
		_, err := TotalBalance(ctx, c, away)
		require.NoError(t, err, "call %d", i+1)
	}
	sent := s.RequestCount(http.MethodGet, "")
	_, err = TotalBalance(ctx, c, away)
	var exceeded *xs2a.AccessExceededError
	require.ErrorAs(t, err, &exceeded)
	assert.Equal(t, xs2a.BudgetBalances, exceeded.Endpoint)
	assert.Equal(t, sent+1, s.RequestCount(http.MethodGet, ""), "only the account list reached the bank")
}

// ---- 2. httpmock: canned answers, no server ----

// mockClient returns a client whose requests go to mt. The signing Transport
// of the SDK still runs; mt is its Base.
func mockClient(t *testing.T, mt *httpmock.MockTransport, base string) *xs2a.Client {
	t.Helper()
	signer, err := xs2atest.NewTestSigner(nil)
	require.NoError(t, err)
	c, err := xs2a.NewClient(base, signer,
		xs2a.WithRedirectURI("https://tpp.example/callback"),
		xs2a.WithHTTPClient(&http.Client{Transport: mt}))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestTotalBalanceWithHTTPMock(t *testing.T) {
	t.Parallel()
	const base = "https://bank.example/api"
	mt := httpmock.NewMockTransport()
	mockbank.Responders(mt, base, mockbank.MockCustomer(xs2atest.PrivateCustomer1))
	c := mockClient(t, mt, base)

	total, err := TotalBalance(context.Background(), c, xs2a.PSU{ID: "0b7f3c1e-5a2d-4e6f-9a8b-1c2d3e4f5a6b", IPAddress: "192.0.2.10"})
	require.NoError(t, err)
	// The sandbox data of PrivateCustomer1: Brukskonto 25 345.12 and
	// Sparekonto 150 750.00.
	assert.Equal(t, xs2a.Amount{Currency: "NOK", Amount: "176095.12"}, total)
	assert.Equal(t, 3, mt.GetTotalCallCount(), "the account list and two balances")
}

func TestTotalBalanceWithHTTPMockBeforeSCA(t *testing.T) {
	t.Parallel()
	const base = "https://bank.example/api"
	mt := httpmock.NewMockTransport()
	mockbank.Responders(mt, base, mockbank.MockSCARequired())
	c := mockClient(t, mt, base)

	_, err := TotalBalance(context.Background(), c, xs2a.PSU{IPAddress: "192.0.2.10"})
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	assert.Equal(t, base+"/sca/mock", sca.Redirect.Href)
	assert.Equal(t, 1, mt.GetTotalCallCount(), "no balance is read without the account list")
}

// TestTotalBalanceWithAnOverriddenResponder replaces canned answers with the
// test's own (responders for an exact URL win over the regexp ones of
// Responders): an account with a balance in another currency.
func TestTotalBalanceWithAnOverriddenResponder(t *testing.T) {
	t.Parallel()
	const base = "https://bank.example/api"
	mt := httpmock.NewMockTransport()
	mockbank.Responders(mt, base)
	mt.RegisterResponder(http.MethodGet, base+"/v1/accounts", httpmock.NewStringResponder(http.StatusOK,
		`{"accounts":[{"resourceId":"enc!!nok","currency":"NOK"},{"resourceId":"enc!!eur","currency":"EUR"}]}`))
	for _, currency := range []string{"NOK", "EUR"} {
		mt.RegisterResponder(http.MethodGet, base+"/v1/accounts/enc!!"+strings.ToLower(currency)+"/balances",
			httpmock.NewStringResponder(http.StatusOK,
				`{"balances":[{"balanceType":"closingBooked","balanceAmount":{"currency":"`+currency+`","amount":"10.00"}}]}`))
	}
	c := mockClient(t, mt, base)

	_, err := TotalBalance(context.Background(), c, xs2a.PSU{ID: "0b7f3c1e-5a2d-4e6f-9a8b-1c2d3e4f5a6b", IPAddress: "192.0.2.10"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "account 2 is in EUR")
}

// ---- 3. a hand-written fake of a consumer-side one-method interface ----

func TestSumBalancesWithAHandFake(t *testing.T) {
	t.Parallel()
	exceeded := &xs2a.AccessExceededError{Endpoint: xs2a.BudgetBalances, Next: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	tests := []struct {
		name      string
		balances  map[string]string
		err       error
		ids       []string
		want      xs2a.Amount
		wantErrIs error
		wantErr   string
	}{
		{name: "one account", balances: map[string]string{"a": "12.34 NOK"}, ids: []string{"a"},
			want: xs2a.Amount{Currency: "NOK", Amount: "12.34"}},
		{name: "decimals add exactly", balances: map[string]string{"a": "0.10 NOK", "b": "0.20 NOK"}, ids: []string{"a", "b"},
			want: xs2a.Amount{Currency: "NOK", Amount: "0.30"}},
		{name: "negative and three decimals", balances: map[string]string{"a": "-5.125 NOK", "b": "5 NOK"}, ids: []string{"a", "b"},
			want: xs2a.Amount{Currency: "NOK", Amount: "-0.125"}},
		{name: "no accounts", ids: nil, wantErrIs: errNoAccounts},
		{name: "mixed currencies", balances: map[string]string{"a": "1.00 NOK", "b": "1.00 SEK"}, ids: []string{"a", "b"},
			wantErr: "account 2 is in SEK, the others in NOK"},
		{name: "not a decimal", balances: map[string]string{"a": "1e3 NOK"}, ids: []string{"a"},
			wantErr: "balance of account 1"},
		{name: "the SDK's error is wrapped", err: exceeded, ids: []string{"a"}, wantErrIs: xs2a.ErrAccessExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeBalances{balances: tt.balances, err: tt.err}
			got, err := sumBalances(context.Background(), fake, xs2a.PSU{ID: "0b7f3c1e-5a2d-4e6f-9a8b-1c2d3e4f5a6b"}, tt.ids)
			switch {
			case tt.wantErrIs != nil:
				assert.ErrorIs(t, err, tt.wantErrIs)
			case tt.wantErr != "":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			default:
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				assert.Equal(t, len(tt.ids), fake.calls, "one balances call per account")
			}
		})
	}
}

func TestSumBalancesNeedsAClosingBookedBalance(t *testing.T) {
	t.Parallel()
	r := balanceReaderFunc(func(context.Context, xs2a.PSU, string) (*xs2a.Balances, *xs2a.Response, error) {
		return &xs2a.Balances{Balances: []xs2a.Balance{{BalanceType: xs2a.BalanceInterimAvailable,
			BalanceAmount: xs2a.Amount{Currency: "NOK", Amount: "1.00"}}}}, nil, nil
	})
	_, err := sumBalances(context.Background(), r, xs2a.PSU{}, []string{"a"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no closingBooked balance")
}

// balanceReaderFunc adapts a function to balanceReader, the other common
// form of a hand fake.
type balanceReaderFunc func(ctx context.Context, psu xs2a.PSU, accountID string) (*xs2a.Balances, *xs2a.Response, error)

func (f balanceReaderFunc) Balances(ctx context.Context, psu xs2a.PSU, accountID string) (*xs2a.Balances, *xs2a.Response, error) {
	return f(ctx, psu, accountID)
}

// ---- the demonstration program ----

func TestMockingDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("mocking failed: %v\n%s", err, out.String())
	}
	transcript := out.String()
	for _, step := range []string{
		"1. The fake bank",
		"= before consent: xs2a: SCA required",
		"TotalBalance = 100.50 NOK",
		"errors.Is(err, xs2a.ErrConsentInvalid) = true",
		"2. httpmock",
		"after 3 mocked requests",
		"with mockbank.MockSCARequired(): xs2a: SCA required",
		"3. A consumer-side one-method interface",
		"= 0.30 NOK",
		"errors.Is(err, xs2a.ErrAccessExceeded) = true",
	} {
		assert.Contains(t, transcript, step)
	}
	if t.Failed() {
		t.Log(transcript)
	}
}

func TestMockingRejectsUnknownFlags(t *testing.T) {
	err := run(context.Background(), []string{"-no-such-flag"}, &bytes.Buffer{})
	assert.Error(t, err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}
