// Command mocking shows how a TPP tests its own code that calls the bank
// through package xs2a, in the three ways the SDK supports, from the most to
// the least faithful:
//
//  1. Against the fake bank of package xs2atest: in a test,
//     xs2atest.NewServer(t) starts it and closes it at the end;
//     server.Client(nil) gives a client; server.CompleteSCA plays the PSU's
//     browser. Signatures, consent, sessions, the PSU-not-present limits and
//     the bank's errors are all real, and the test can change the bank's
//     state (SetBalance, CloseAccount, RevokeConsent, ...). Prefer this.
//  2. With httpmock: mockbank.Responders (package xs2atest/mockbank)
//     registers canned answers built from the same sandbox data on a
//     *httpmock.MockTransport, plugged in with
//     xs2a.WithHTTPClient(&http.Client{Transport: mt}). No server runs and
//     nothing is checked: quick, for code that only needs plausible answers.
//  3. A consumer-side one-method interface (balanceReader below), satisfied
//     by *xs2a.AccountsService, with a hand-written fake: for the rare case
//     a TPP wants to drive its code with answers no bank would give.
//
// The TPP code under test is TotalBalance (and sumBalances, which it uses):
// the sum of the booked balances of every account the PSU consented to.
// main_test.go holds the real tests, one group per way; this program runs
// each way once as a demonstration:
//
//	go run ./examples/mocking
//	go test ./examples/mocking
//
// No certificate and no network are needed; the program exits non-zero when
// a step fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
	"github.com/tppkit/xs2a/xs2atest/mockbank"
)

// ---- the TPP's code under test ----

// TotalBalance returns the sum of the booked balances (closingBooked) of
// every account the PSU consented to: GET /v1/accounts, then the balances of
// each account. Before the PSU's first SCA the error is a
// *xs2a.SCARequiredError; all accounts must have one currency.
func TotalBalance(ctx context.Context, client *xs2a.Client, psu xs2a.PSU) (xs2a.Amount, error) {
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		return xs2a.Amount{}, err
	}
	ids := make([]string, len(accounts))
	for i, a := range accounts {
		ids[i] = a.ResourceID
	}
	return sumBalances(ctx, client.Accounts, psu, ids)
}

// balanceReader is the one method of the SDK that sumBalances needs. The
// interface is declared here, by its consumer; *xs2a.AccountsService (a
// client's Accounts) satisfies it, and a test can pass a hand-written fake.
type balanceReader interface {
	Balances(ctx context.Context, psu xs2a.PSU, accountID string) (*xs2a.Balances, *xs2a.Response, error)
}

var _ balanceReader = (*xs2a.AccountsService)(nil)

// errNoAccounts: the PSU consented to no account (the bank answers an empty
// list, never 404), so there is no currency to total in.
var errNoAccounts = errors.New("mocking: the PSU shares no account")

// sumBalances adds up the closingBooked balance of each account, exactly
// (decimal text, no floating point). Errors name the account's position in
// the list, never its id.
func sumBalances(ctx context.Context, r balanceReader, psu xs2a.PSU, accountIDs []string) (xs2a.Amount, error) {
	if len(accountIDs) == 0 {
		return xs2a.Amount{}, errNoAccounts
	}
	sum, currency, decimals := new(big.Rat), "", 0
	for i, id := range accountIDs {
		b, _, err := r.Balances(ctx, psu, id)
		if err != nil {
			return xs2a.Amount{}, fmt.Errorf("balances of account %d: %w", i+1, err)
		}
		booked, ok := b.Find(xs2a.BalanceClosingBooked)
		if !ok {
			return xs2a.Amount{}, fmt.Errorf("account %d has no %s balance", i+1, xs2a.BalanceClosingBooked)
		}
		amount := booked.BalanceAmount
		if err := amount.Validate(); err != nil {
			return xs2a.Amount{}, fmt.Errorf("balance of account %d: %w", i+1, err)
		}
		switch {
		case currency == "":
			currency = amount.Currency
		case amount.Currency != currency:
			return xs2a.Amount{}, fmt.Errorf("account %d is in %s, the others in %s: no total", i+1, amount.Currency, currency)
		}
		v, ok := new(big.Rat).SetString(amount.Amount)
		if !ok {
			return xs2a.Amount{}, fmt.Errorf("balance of account %d is not a number", i+1)
		}
		sum.Add(sum, v)
		if _, frac, found := strings.Cut(amount.Amount, "."); found {
			decimals = max(decimals, len(frac))
		}
	}
	return xs2a.Amount{Currency: currency, Amount: sum.FloatString(decimals)}, nil
}

// ---- the demonstration ----

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mocking:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mocking", flag.ContinueOnError)
	fs.SetOutput(out)
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	p := &printer{w: out}
	if err := withFakeBank(ctx, p); err != nil {
		return fmt.Errorf("fake bank: %w", err)
	}
	if err := withHTTPMock(ctx, p); err != nil {
		return fmt.Errorf("httpmock: %w", err)
	}
	if err := withHandFake(ctx, p); err != nil {
		return fmt.Errorf("hand fake: %w", err)
	}
	p.heading("Done: see main_test.go for the tests written each way")
	return nil
}

// withFakeBank runs TotalBalance against the fake bank. A test would call
// xs2atest.NewServer(t) instead of Start.
func withFakeBank(ctx context.Context, p *printer) error {
	p.heading("1. The fake bank (xs2atest.Start here; xs2atest.NewServer(t) in a test)")
	srv, err := xs2atest.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	client, err := srv.Client(nil) // nil: a test-only signer
	if err != nil {
		return err
	}
	defer client.Close()

	psu := xs2a.PSU{IPAddress: "127.0.0.1", SessionID: xs2a.NewSessionID()}
	_, err = TotalBalance(ctx, client, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		return fmt.Errorf("expected SCA before the first consent, got %v", err)
	}
	p.result("before consent: %v", err)
	callback, err := srv.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		return err
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		return err
	}
	psu = cb.PSU(psu.IPAddress)
	p.note("server.CompleteSCA played the PSU's browser; the callback gave the psu-id")

	total, err := TotalBalance(ctx, client, psu)
	if err != nil {
		return err
	}
	p.result("TotalBalance = %s", total)

	// The test controls the bank's state.
	customer, _ := srv.Customer(xs2atest.PrivateCustomer1)
	srv.SetBalance(customer.Accounts[0].ResourceID, "100.00")
	srv.SetBalance(customer.Accounts[1].ResourceID, "0.50")
	total, err = TotalBalance(ctx, client, psu)
	if err != nil {
		return err
	}
	p.result("after server.SetBalance(…, \"100.00\") and (…, \"0.50\"): TotalBalance = %s", total)
	if total.Amount != "100.50" {
		return fmt.Errorf("total %s, want 100.50 NOK", total)
	}
	srv.RevokeConsent(xs2atest.PrivateCustomer1)
	_, err = TotalBalance(ctx, client, psu)
	if !errors.Is(err, xs2a.ErrConsentInvalid) {
		return fmt.Errorf("expected ErrConsentInvalid after the revocation, got %v", err)
	}
	p.result("after server.RevokeConsent: errors.Is(err, xs2a.ErrConsentInvalid) = true")
	return nil
}

// withHTTPMock runs TotalBalance on canned answers: no server at all.
func withHTTPMock(ctx context.Context, p *printer) error {
	p.heading("2. httpmock: mockbank.Responders on a *httpmock.MockTransport")
	const base = "https://bank.example/api"
	mt := httpmock.NewMockTransport()
	mockbank.Responders(mt, base) // PrivateCustomer1's accounts by default
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		return err
	}
	client, err := xs2a.NewClient(base, signer,
		xs2a.WithRedirectURI("https://tpp.example/callback"),
		xs2a.WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		return err
	}
	defer client.Close()
	// Responders check nothing: any well-formed psu-id will do.
	psu := xs2a.PSU{ID: "0b7f3c1e-5a2d-4e6f-9a8b-1c2d3e4f5a6b", IPAddress: "127.0.0.1"}
	total, err := TotalBalance(ctx, client, psu)
	if err != nil {
		return err
	}
	p.result("TotalBalance = %s after %d mocked requests", total, mt.GetTotalCallCount())

	scaMock := httpmock.NewMockTransport()
	mockbank.Responders(scaMock, base, mockbank.MockSCARequired())
	scaClient, err := xs2a.NewClient(base, signer,
		xs2a.WithRedirectURI("https://tpp.example/callback"),
		xs2a.WithHTTPClient(&http.Client{Transport: scaMock}))
	if err != nil {
		return err
	}
	defer scaClient.Close()
	_, err = TotalBalance(ctx, scaClient, xs2a.PSU{IPAddress: "127.0.0.1"})
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		return fmt.Errorf("expected a *xs2a.SCARequiredError with MockSCARequired, got %v", err)
	}
	p.result("with mockbank.MockSCARequired(): %v (redirect %s)", err, sca.Redirect.Href)
	return nil
}

// fakeBalances is a hand-written balanceReader: balances by account id, and
// an error to return instead.
type fakeBalances struct {
	balances map[string]string // account id -> "amount currency"
	err      error
	calls    int
}

func (f *fakeBalances) Balances(_ context.Context, _ xs2a.PSU, accountID string) (*xs2a.Balances, *xs2a.Response, error) {
	f.calls++
	if f.err != nil {
		return nil, nil, f.err
	}
	v, ok := f.balances[accountID]
	if !ok {
		return nil, nil, xs2a.ErrNotFound
	}
	amount, currency, _ := strings.Cut(v, " ")
	return &xs2a.Balances{Balances: []xs2a.Balance{{
		BalanceType:   xs2a.BalanceClosingBooked,
		BalanceAmount: xs2a.Amount{Currency: currency, Amount: amount},
	}}}, nil, nil
}

// withHandFake drives sumBalances with answers no bank would give.
func withHandFake(ctx context.Context, p *printer) error {
	p.heading("3. A consumer-side one-method interface with a hand-written fake")
	psu := xs2a.PSU{ID: "0b7f3c1e-5a2d-4e6f-9a8b-1c2d3e4f5a6b"}
	fake := &fakeBalances{balances: map[string]string{"a": "0.10 NOK", "b": "0.20 NOK", "eur": "5.00 EUR"}}
	total, err := sumBalances(ctx, fake, psu, []string{"a", "b"})
	if err != nil {
		return err
	}
	p.result("0.10 NOK + 0.20 NOK = %s (exact decimals, no floating point)", total)
	if total.Amount != "0.30" {
		return fmt.Errorf("total %s, want 0.30 NOK", total)
	}
	_, err = sumBalances(ctx, fake, psu, []string{"a", "eur"})
	p.result("NOK and EUR accounts: %v", err)
	if err == nil {
		return errors.New("mixed currencies were added up")
	}
	fake.err = &xs2a.AccessExceededError{Endpoint: xs2a.BudgetBalances, Next: time.Now().Add(time.Hour)}
	_, err = sumBalances(ctx, fake, psu, []string{"a"})
	p.result("the fake returns an *xs2a.AccessExceededError: errors.Is(err, xs2a.ErrAccessExceeded) = %v", errors.Is(err, xs2a.ErrAccessExceeded))
	if !errors.Is(err, xs2a.ErrAccessExceeded) {
		return fmt.Errorf("the SDK's error was not wrapped: %v", err)
	}
	return nil
}

// printer writes the transcript.
type printer struct{ w io.Writer }

func (p *printer) heading(format string, a ...any) { fmt.Fprintf(p.w, "\n"+format+"\n", a...) }
func (p *printer) result(format string, a ...any)  { fmt.Fprintf(p.w, "    = "+format+"\n", a...) }
func (p *printer) note(format string, a ...any)    { fmt.Fprintf(p.w, "    … "+format+"\n", a...) }
