package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/tppkit/xs2a"
)

// newSandboxStub serves a tiny part of the sandbox under /api with the JSON
// the sandbox uses (docs/interface.md, Sandbox; docs/interface.md, Production, Other endpoints).
// Real tests use the xs2atest fake bank instead.
func newSandboxStub() *httptest.Server {
	var mu sync.Mutex
	contact := ""
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/sandbox/initialize", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /api/v1/sandbox/customers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"customers":[`+
			`{"customerNumber":"13039319955","customerType":"PRIVATE","name":"Kari Nordmann","accounts":[`+
			`{"resourceId":"enc!!kari1","bban":"97108883131","iban":"NO4897108883131","currency":"NOK","name":"Brukskonto","product":"Brukskonto","balance":"25345.12","bookedTransactions":1100,"pendingTransactions":2}]},`+
			`{"customerNumber":"18129215603","customerType":"CORPORATE","name":"Nordlys Bygg AS"}]}`)
	})
	mux.HandleFunc("POST /api/v1/sandbox/accounts/{id}/transactions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"transactionId":"enc!!tx1","bookingDate":"2026-02-27","valueDate":"2026-02-28",`+
			`"transactionAmount":{"amount":"-250.00","currency":"NOK"},"creditorName":"Kiwi"}`)
	})
	mux.HandleFunc("/api/v1/tpps/{tppId}/contact-information", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPut:
			body, _ := io.ReadAll(r.Body)
			contact = string(body)
			w.Write(body)
		case contact == "":
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN","path":"tppId","text":"no contact e-mail registered"}]}`)
		default:
			io.WriteString(w, contact)
		}
	})
	return httptest.NewServer(mux)
}

// Fill the sandbox with mock data, then register the TPP's contact e-mail.
// These calls act for no PSU; they are signed like every other request.
func ExampleSandboxService() {
	srv := newSandboxStub()
	defer srv.Close()
	signer, err := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	now := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
	c, err := xs2a.NewClient(srv.URL+"/api", signer, xs2a.WithRedirectURI("https://tpp.example/cb"), xs2a.WithClock(now))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()

	if _, err := c.Sandbox.Initialize(ctx); err != nil {
		fmt.Println(err)
		return
	}
	customers, _, err := c.Sandbox.Customers(ctx, &xs2a.CustomersOptions{IncludeAccounts: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cu := range customers {
		fmt.Println(cu.CustomerNumber, cu.CustomerType, cu.Name, len(cu.Accounts), "account(s)")
	}
	account := customers[0].Accounts[0]

	tx, _, err := c.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{
		TransactionAmount: xs2a.Amount{Currency: "NOK", Amount: "-250.00"},
		BookingDate:       xs2a.Date{Year: 2026, Month: time.February, Day: 27},
		ValueDate:         xs2a.Date{Year: 2026, Month: time.February, Day: 28},
		CreditorName:      "Kiwi",
		DebtorAccount:     &xs2a.AccountReference{BBAN: account.BBAN},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created", tx.TransactionID, tx.TransactionAmount, tx.BookingDate)

	// Local checks refuse bad input before anything is sent.
	_, _, err = c.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{
		TransactionAmount: xs2a.Amount{Currency: "NOK", Amount: "-1"},
		BookingDate:       xs2a.Date{Year: 2026, Month: time.March, Day: 3},
	})
	fmt.Println(err)

	// The contact e-mail is optional: none registered is ErrNotFound.
	_, _, err = c.TPP.ContactEmail(ctx, "NO-FSA-987654321")
	fmt.Println("registered:", !errors.Is(err, xs2a.ErrNotFound))
	if _, err := c.TPP.SetContactEmail(ctx, "NO-FSA-987654321", "psd2-ops@tpp.example"); err != nil {
		fmt.Println(err)
		return
	}
	email, _, err := c.TPP.ContactEmail(ctx, "NO-FSA-987654321")
	fmt.Println(email, err)
	// Output:
	// 13039319955 PRIVATE Kari Nordmann 1 account(s)
	// 18129215603 CORPORATE Nordlys Bygg AS 0 account(s)
	// created enc!!tx1 -250.00 NOK 2026-02-27
	// xs2a: invalid SandboxTransaction.BookingDate: must not be in the future (today is 2026-03-02 at the bank)
	// registered: false
	// psd2-ops@tpp.example <nil>
}
