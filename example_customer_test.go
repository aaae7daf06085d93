package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// CallPresent serves a page with the customer present: the first visit
// gets the bank's link (SCA), the callback names the TPP's user and the
// purpose, and the next visit runs under the session that SCA completed. A
// failed SCA, whose callback carries no tpp-session-id, names them as well.
func ExampleCallPresent() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	sessions := xs2a.NewSessionManager(nil, func() time.Time { return exampleNow })
	psu := xs2a.PSU{IPAddress: "192.0.2.10"} // the customer's browser; ID once the TPP has stored it
	listAccounts := func(p xs2a.PSU) ([]xs2a.Account, *xs2a.Response, error) { return client.Accounts.List(ctx, p) }

	// The accounts page: no session yet, so the bank asks for SCA.
	_, link, err := xs2a.CallPresent(ctx, sessions, "alice", "accounts", psu, listAccounts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("send the browser to the bank:", link != nil)

	// The bank sends the browser to the TPP-Redirect-URI (the fake bank
	// plays the customer here); the callback handler resolves it.
	callback, err := srv.CompleteSCA(ctx, link.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		log.Fatal(err)
	}
	res, err := sessions.Callback(ctx, callback.Query())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("SCA completed for", res.User, "purpose", res.Purpose)
	psu.ID = res.Callback.PSUID // stored for res.User

	// The accounts page again: the session that SCA completed serves it.
	accounts, link, err := xs2a.CallPresent(ctx, sessions, "alice", "accounts", psu, listAccounts)
	fmt.Println("accounts:", len(accounts), "link:", link != nil, "error:", err)

	// A new consent under a new session, cancelled at the bank.
	start, err := sessions.Begin(ctx, "alice", "consent renewal")
	if err != nil {
		log.Fatal(err)
	}
	links, _, err := client.Consents.Create(ctx, start.PSU(psu))
	if err != nil {
		log.Fatal(err)
	}
	callback, err = srv.CompleteSCA(ctx, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1, xs2atest.Cancel())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tpp-session-id in the callback:", callback.Query().Has("tpp-session-id"))
	res, err = sessions.Callback(ctx, callback.Query())
	fmt.Println("SCA failed for", res.User, "purpose", res.Purpose, errors.Is(err, xs2a.ErrSCAFailed))

	// Output:
	// send the browser to the bank: true
	// SCA completed for alice purpose accounts
	// accounts: 2 link: false error: <nil>
	// tpp-session-id in the callback: false
	// SCA failed for alice purpose consent renewal true
}
