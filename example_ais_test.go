package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/tppkit/xs2a"
)

// exampleBank plays the bank's interface under /api with handler, and
// returns a client for it signed with the TEST-ONLY certificate of testdata.
func exampleBank(handler http.HandlerFunc) (*xs2a.Client, func()) {
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", handler))
	srv := httptest.NewServer(mux)
	signer, err := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil)
	if err != nil {
		log.Fatal(err)
	}
	client, err := xs2a.NewClient(srv.URL+"/api", signer, xs2a.WithRedirectURI("https://tpp.example/callback"))
	if err != nil {
		log.Fatal(err)
	}
	return client, func() { client.Close(); srv.Close() }
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// ExampleAccountsService_List runs Flow 1 of docs/interface.md: the first call has
// no PSU-ID, so the bank asks for SCA; after the SCA callback the TPP stores
// the psu-id and calls again.
func ExampleAccountsService_List() {
	client, done := exampleBank(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PSU-ID") == "" {
			reply(w, 401, `{"_links":{"scaRedirect":{"href":"https://auth.bank.example/sca?id=1"}}}`)
			return
		}
		reply(w, 200, `{"accounts":[{"resourceId":"enc!!a1","bban":"12345678903","currency":"NOK","name":"Brukskonto",
			"cashAccountType":"CACC","_links":{"balances":{"href":"/v1/accounts/enc!!a1/balances","verbs":["GET"]}}}]}`)
	})
	defer done()
	ctx := context.Background()
	psu := xs2a.PSU{IPAddress: "192.0.2.10"}

	_, _, err := client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if errors.As(err, &sca) {
		fmt.Println("send the PSU to", sca.Redirect.Href)
		// ... the bank redirects the PSU to the TPP-Redirect-URI; take the
		// psu-id with xs2a.ParseCallback and persist it.
		psu.ID = "5c0a8a2e-3b1f-4e0b-9d7e-2f1a9b6c4d11"
	}
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range accounts {
		fmt.Println(a.BBAN, a.Name, a.CashAccountType)
	}
	// Output:
	// send the PSU to https://auth.bank.example/sca?id=1
	// 12345678903 Brukskonto CACC
}

// ExampleAccountsService_Transactions walks a transaction history of two
// pages: the iterator follows transactions._links.next and yields the
// pending entry once.
func ExampleAccountsService_Transactions() {
	client, done := exampleBank(func(w http.ResponseWriter, r *http.Request) {
		pending := `"pending":[{"transactionAmount":{"amount":"-99.90","currency":"NOK"},"creditorName":"Kiosk"}]`
		if r.URL.Query().Get("page") == "2" {
			reply(w, 200, `{"transactions":{"booked":[{"transactionId":"t3","bookingDate":"2026-02-01",
				"transactionAmount":{"amount":"-1200.00","currency":"NOK"},"creditorName":"Huseier"}],`+pending+`,"_links":{}}}`)
			return
		}
		reply(w, 200, `{"transactions":{"booked":[
			{"transactionId":"t1","bookingDate":"2026-03-01","transactionAmount":{"amount":"-250.00","currency":"NOK"},"creditorName":"Rema 1000"},
			{"transactionId":"t2","bookingDate":"2026-02-28","transactionAmount":{"amount":"15000.00","currency":"NOK"},"debtorName":"Arbeidsgiver AS"}],
			`+pending+`,"_links":{"next":{"href":"/v1/accounts/enc!!a1/transactions?bookingStatus=both&page=2"}}}}`)
	})
	defer done()
	psu := xs2a.PSU{ID: "5c0a8a2e-3b1f-4e0b-9d7e-2f1a9b6c4d11", IPAddress: "192.0.2.10"}
	q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth, DateFrom: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}

	for tx, err := range client.Accounts.Transactions(context.Background(), psu, "enc!!a1", q) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-7s %-10s %9s %s%s\n", tx.BookingStatus, tx.BookingDate, tx.TransactionAmount.Amount, tx.CreditorName, tx.DebtorName)
	}
	// Output:
	// pending               -99.90 Kiosk
	// booked  2026-03-01   -250.00 Rema 1000
	// booked  2026-02-28  15000.00 Arbeidsgiver AS
	// booked  2026-02-01  -1200.00 Huseier
}

// ExampleUsersService_Agreements runs Flow 2 of docs/interface.md: a PSU who acts
// for a company must send PSU-CORPORATE-ID; the TPP lets the PSU pick one of
// the corporate agreements and calls again.
func ExampleUsersService_Agreements() {
	client, done := exampleBank(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/agreements":
			reply(w, 200, `{"agreements":[{"id":"8d3f5a61-2c4b-4e7a-9f10-3b2c1d0e9a77","name":"Nordmann Bygg AS","organisationNumber":"987654321"}]}`)
		case r.Header.Get("PSU-CORPORATE-ID") == "":
			reply(w, 400, `{"tppMessages":[{"category":"ERROR","code":"CORPORATE_ID_INVALID"}]}`)
		default:
			reply(w, 200, `{"accounts":[{"resourceId":"enc!!c1","bban":"98765432106","currency":"NOK","name":"Driftskonto"}]}`)
		}
	})
	defer done()
	ctx := context.Background()
	psu := xs2a.PSU{ID: "5c0a8a2e-3b1f-4e0b-9d7e-2f1a9b6c4d11", IPAddress: "192.0.2.10"}

	_, _, err := client.Accounts.List(ctx, psu)
	if errors.Is(err, xs2a.ErrCorporateIDRequired) {
		agreements, _, err := client.Users.Agreements(ctx, psu)
		if err != nil {
			log.Fatal(err)
		}
		for _, a := range agreements {
			fmt.Println("agreement:", a.Name, a.OrganisationNumber)
		}
		psu.CorporateID = agreements[0].ID // the PSU's choice
	}
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(accounts[0].BBAN, accounts[0].Name)
	// Output:
	// agreement: Nordmann Bygg AS 987654321
	// 98765432106 Driftskonto
}
