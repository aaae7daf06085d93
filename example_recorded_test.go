package xs2a_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// Consents.CreateBankOffered starts consent as the production banks run it
// (POST /v1/bank-offered-consents). PSU.Context asks the bank to preselect
// the PSU's context on its page; the callback says which one the PSU chose.
func ExampleConsentsService_CreateBankOffered() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()

	psu := xs2a.PSU{IPAddress: "192.0.2.10", SessionID: xs2a.NewSessionID(), Context: xs2a.ContextPrivate}
	links, _, err := client.Consents.CreateBankOffered(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	callback, err := srv.CompleteSCA(ctx, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		log.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("context:", cb.Context)
	psu = cb.PSU(psu.IPAddress)

	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	one, _, err := client.Accounts.Get(ctx, psu, accounts[0].ResourceID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(accounts), "accounts; the first:", one.Name, one.Currency)
	// Output:
	// context: PRIVATE
	// 2 accounts; the first: Brukskonto NOK
}

// CardBalances reads a card account's balances, the card account's
// reference in Account.
func ExampleCardAccountsService_Balances() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)

	cards, _, err := client.CardAccounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	balances, _, err := client.CardAccounts.Balances(ctx, psu, cards[0].ResourceID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cards[0].Name, balances.Account.MaskedPAN == cards[0].MaskedPAN)
	for _, b := range balances.Balances {
		fmt.Println(b.BalanceType, b.BalanceAmount.Currency)
	}
	// Output:
	// Mastercard Gull true
	// closingBooked NOK
	// expected NOK
	// interimAvailable NOK
	// nonInvoiced NOK
}
