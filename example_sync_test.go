package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// A nightly sync without the customer: each run reads on from the stored
// mark and leaves one of the day's 4 calls; the walk ends on the third
// night, and the next walk starts a day before the latest booking.
func ExampleAccountsService_Sync() {
	clock := &fakeClock{t: exampleNow}
	srv, client := startExampleBank(xs2atest.WithClock(clock.Now))
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	psu.IPAddress = "" // the nightly job: the customer is not present

	var mark xs2a.SyncMark // the store's, with the entries
	stored := map[string]xs2a.Transaction{}
	for night := 1; night <= 3; night++ {
		var kept *xs2a.AccessExceededError
		for tx, err := range client.Accounts.Sync(ctx, psu, accounts[0].ResourceID, &mark,
			&xs2a.TransactionsOptions{Limit: 100, KeepCalls: 1}) {
			if errors.As(err, &kept) {
				break // goes on at the next run
			} else if err != nil {
				log.Fatal(err)
			}
			stored[tx.TransactionID] = tx
		}
		fmt.Printf("night %d: %d stored, walk done %t, next from %s offset %d\n",
			night, len(stored), kept == nil, mark.From, mark.Offset)
		clock.Advance(xs2a.AccessWindow)
	}
	// Output:
	// night 1: 300 stored, walk done false, next from 2025-12-07 offset 300
	// night 2: 600 stored, walk done false, next from 2025-12-07 offset 600
	// night 3: 800 stored, walk done true, next from 2026-02-28 offset 0
}
