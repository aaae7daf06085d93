package xs2a_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// One *xs2a.Client shared by 200 goroutines doing every kind of call against
// one fake bank (run it with -race), then closed: no goroutine outlives the
// client and the bank. Not parallel: goleak looks at every goroutine of the
// test binary, and parallel tests are paused while this one runs.
func TestConcurrencySharedClient(t *testing.T) {
	const goroutines = 200
	before := goleak.IgnoreCurrent()
	ctx := context.Background()
	clock := &fakeClock{t: e2eStart}
	bank, err := xs2atest.Start(xs2atest.WithClock(clock.Now))
	require.NoError(t, err)
	defer bank.Close()
	c, err := bank.Client(signer(t))
	require.NoError(t, err)

	// the PSU signs in once (Flow 1); the account flow registers it for
	// payments too (AISP+PISP)
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err = c.Accounts.List(ctx, psu)
	sca := requireSCA(t, err)
	u, err := bank.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.NoError(t, err)
	psu = cb.PSU(psuIP)
	customer, ok := bank.Customer(xs2atest.PrivateCustomer1)
	require.True(t, ok)
	accounts := []string{customer.Accounts[0].ResourceID, customer.Accounts[1].ResourceID}
	wantTx := customer.Accounts[1].Booked + customer.Accounts[1].Pending
	creditor, ok := bank.Customer(xs2atest.CorporateCustomer1)
	require.True(t, ok)
	amount, err := xs2a.ParseAmount("NOK", "1.00")
	require.NoError(t, err)
	payment := &xs2a.Payment{InstructedAmount: amount, CreditorName: "Nordlys Bygg AS",
		CreditorAccount: xs2a.AccountReference{BBAN: creditor.Accounts[0].BBAN},
		DebtorAccount:   &xs2a.AccountReference{BBAN: customer.Accounts[0].BBAN, Currency: "NOK"}}
	paymentsBefore := bank.PaymentCount()

	calls := []struct {
		name string
		call func() error
	}{
		{"accounts", func() error {
			list, _, err := c.Accounts.List(ctx, psu)
			if err == nil && len(list) != 2 {
				err = fmt.Errorf("%d accounts", len(list))
			}
			return err
		}},
		{"balances", func() error {
			bal, _, err := c.Accounts.Balances(ctx, psu, accounts[0])
			if err == nil && len(bal.Balances) == 0 {
				err = fmt.Errorf("no balances")
			}
			return err
		}},
		{"transactions", func() error {
			n := 0
			for _, err := range c.Accounts.Transactions(ctx, psu, accounts[1], &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth}) {
				if err != nil {
					return err
				}
				n++
			}
			if n != wantTx {
				return fmt.Errorf("%d transactions, want %d", n, wantTx)
			}
			return nil
		}},
		{"payment", func() error {
			ini, _, err := c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, nil)
			if err != nil {
				return err
			}
			st, _, err := c.Payments.Status(ctx, psu, ini.Links.Status)
			if err == nil && st.TransactionStatus != xs2a.TransactionStatusRCVD {
				err = fmt.Errorf("status %s", st.TransactionStatus)
			}
			return err
		}},
		{"sandbox customers", func() error {
			list, _, err := c.Sandbox.Customers(ctx, &xs2a.CustomersOptions{IncludeAccounts: true})
			if err == nil && len(list) != 4 {
				err = fmt.Errorf("%d customers", len(list))
			}
			return err
		}},
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	failures := map[string][]error{}
	var done [5]atomic.Int64
	start := make(chan struct{})
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			k := i % len(calls)
			if err := calls[k].call(); err != nil {
				mu.Lock()
				failures[calls[k].name] = append(failures[calls[k].name], err)
				mu.Unlock()
				return
			}
			done[k].Add(1)
		}()
	}
	close(start)
	wg.Wait()
	require.Empty(t, failures)
	for k := range calls {
		assert.EqualValues(t, goroutines/len(calls), done[k].Load(), calls[k].name)
	}
	assert.Equal(t, goroutines/len(calls), bank.PaymentCount()-paymentsBefore, "one payment per initiation")
	t.Logf("%d goroutines on one client: %d requests at the bank", goroutines, bank.RequestCount("", "/v1/"))

	// Close releases the client's connections: with the bank still up,
	// nothing of the client (nor of the connections it held) is left.
	require.NoError(t, c.Close())
	goleak.VerifyNone(t, before, goleak.IgnoreAnyFunction("net/http.(*Server).Serve"),
		goleak.IgnoreAnyFunction("net/http/httptest.(*Server).goServe.func1"))

	// and with the bank closed too, nothing at all
	bank.Close()
	goleak.VerifyNone(t, before)
}
