package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tppkit/xs2a"
)

// examplePaymentBank plays the bank's payment endpoints under /api as
// production banks answer: the initiation, the authorisation (scaStatus and
// scaRedirect only), and a status that is RCVD until the PSU has signed,
// then PDNG until the bank executes the payment (ACSC).
func examplePaymentBank() *httptest.Server {
	var reads atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/payments/{product}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("bank: allowLogicalDuplicate =", r.URL.Query().Get("allowLogicalDuplicate") != "")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"paymentId":"enc!!p1","transactionStatus":"RCVD","transactionFeeIndicator":false,"_links":{`+
			`"self":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1"},`+
			`"status":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status"},`+
			`"startAuthorisation":{"href":"/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/authorisations"}}}`)
	})
	mux.HandleFunc("POST /api/v1/payments/{product}/{id}/authorisations", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"scaStatus":"started","_links":{"scaRedirect":{"href":"https://bank.example/sca/a1"}}}`)
	})
	mux.HandleFunc("GET /api/v1/payments/{product}/{id}/status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch reads.Add(1) {
		case 1:
			io.WriteString(w, `{"transactionStatus":"RCVD"}`)
		case 2, 3:
			io.WriteString(w, `{"transactionStatus":"PDNG"}`)
		default:
			io.WriteString(w, `{"transactionStatus":"ACSC","fundsAvailable":true}`)
		}
	})
	return httptest.NewServer(mux)
}

// Example_singlePayment runs docs/interface.md's Flow 3: initiate a payment, start
// the PSU's authorisation, send the PSU to the scaRedirect link, then poll
// the status until the bank has accepted the payment (PDNG, as production
// banks answer once the PSU has signed) or refused it. PollOptions.UntilSettled
// would poll on to ACSC, which comes at the bank's batch run on the
// execution date.
func Example_singlePayment() {
	bank := examplePaymentBank()
	defer bank.Close()
	signer, err := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil) // TEST-ONLY certificate
	if err != nil {
		log.Fatal(err)
	}
	client, err := xs2a.NewClient(bank.URL+"/api", signer, xs2a.WithRedirectURI("https://tpp.example/cb"))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()

	// The PSU is present: PSU-IP-Address is required for initiation.
	psu := xs2a.PSU{ID: "8b2c7f9e-3c1d-4a5e-9f00-1234567890ab", IPAddress: "192.0.2.10"}
	amount, _ := xs2a.ParseAmount("NOK", "250.00")
	payment := &xs2a.Payment{
		InstructedAmount:                  amount,
		CreditorAccount:                   xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:                      "Kari Nordmann",
		RemittanceInformationUnstructured: "Middag fredag",
	}
	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, nil)
	if errors.Is(err, xs2a.ErrOutcomeUnknown) {
		log.Fatal("no answer: do not send the payment again before the PSU has checked for it: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("initiated:", ini.TransactionStatus)

	sca, _, err := client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("send the PSU to:", sca.Links.SCARedirect.Href)

	// After the PSU is back on the TPP-Redirect-URI:
	st, _, err := client.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{
		MinDelay: time.Millisecond, // seconds in real use; the default is 2 s
		OnStatus: func(s *xs2a.PaymentStatus) { fmt.Println("status:", s.TransactionStatus) },
	})
	switch {
	case errors.Is(err, xs2a.ErrInsufficientFunds):
		// Not final (ACCP): cancel it (Payments.Cancel) before telling the
		// PSU it failed or initiating it again.
		fmt.Println("waiting for funds:", st.TransactionStatus)
	case err != nil:
		log.Fatal(err)
	case st.TransactionStatus.Accepted():
		fmt.Println("accepted: the PSU signed, the bank executes it on its date")
	default:
		fmt.Println("ended as", st.TransactionStatus) // RJCT or CANC
	}
	// Output:
	// bank: allowLogicalDuplicate = false
	// initiated: RCVD
	// send the PSU to: https://bank.example/sca/a1
	// status: RCVD
	// status: PDNG
	// accepted: the PSU signed, the bank executes it on its date
}

// ExamplePaymentsService_InitiateEInvoice pays an electronic invoice
// (docs/interface.md, Flow 4). The first attempt goes without
// allowLogicalDuplicate; only a retry of the same invoice after a failure the
// PSU or TPP can correct sets it.
func ExamplePaymentsService_InitiateEInvoice() {
	bank := examplePaymentBank()
	defer bank.Close()
	signer, _ := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil) // TEST-ONLY certificate
	client, _ := xs2a.NewClient(bank.URL+"/api", signer, xs2a.WithRedirectURI("https://tpp.example/cb"))
	defer client.Close()
	ctx := context.Background()
	psu := xs2a.PSU{ID: "8b2c7f9e-3c1d-4a5e-9f00-1234567890ab", IPAddress: "192.0.2.10"}

	invoice := xs2a.EInvoice{KID: "0365327", InvoiceNumber: "INV-2026-17"} // Issuer "" is DefaultInvoiceIssuer
	payment := &xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "1499.00"},
		CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:     "Kraftselskapet AS",
		// No DebtorAccount: the PSU chooses it during SCA.
	}
	if _, _, err := client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, invoice, nil); err != nil {
		log.Fatal(err)
	}
	// Say the PSU aborted the SCA and wants to try again:
	ini, _, err := client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, invoice, &xs2a.InitiateOptions{AllowLogicalDuplicate: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ini.PaymentID, ini.TransactionStatus)
	// Output:
	// bank: allowLogicalDuplicate = false
	// bank: allowLogicalDuplicate = true
	// enc!!p1 RCVD
}

// ExamplePaymentsService_Initiate_periodic sets up a standing order that runs
// in four chosen months of the year.
func ExamplePaymentsService_Initiate_periodic() {
	bank := examplePaymentBank()
	defer bank.Close()
	signer, _ := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil) // TEST-ONLY certificate
	client, _ := xs2a.NewClient(bank.URL+"/api", signer, xs2a.WithRedirectURI("https://tpp.example/cb"))
	defer client.Close()
	psu := xs2a.PSU{IPAddress: "192.0.2.10"}

	order := &xs2a.PeriodicPayment{
		Payment: xs2a.Payment{
			InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "3000"},
			CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
			CreditorName:     "Utleie AS",
		},
		StartDate:         xs2a.Date{Year: 2026, Month: time.January, Day: 1},
		Frequency:         xs2a.MonthlyVariable,
		DayOfExecution:    "20",
		MonthsOfExecution: []string{"3", "6", "9", "3"},
	}
	_, _, err := client.Payments.Initiate(context.Background(), psu, xs2a.NorwegianDomesticCreditTransfers, order, nil)
	var ve *xs2a.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Field, "refused before sending:", strings.Contains(ve.Reason, "repeats a month"))
	}
	// Output:
	// PeriodicPayment.MonthsOfExecution[3] refused before sending: true
}
