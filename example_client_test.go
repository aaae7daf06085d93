package xs2a_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// These examples run against the fake bank of package xs2atest, in-process.
// The bank's clock is fixed so that the generated data, and the output, are
// the same on every run.

var exampleNow = time.Date(2026, time.March, 2, 10, 0, 0, 0, time.UTC)

// startExampleBank starts the fake bank on a fixed clock and returns it with
// a client signed by a test-only certificate.
func startExampleBank(opts ...xs2atest.Option) (*xs2atest.Server, *xs2a.Client) {
	srv, err := xs2atest.Start(append([]xs2atest.Option{xs2atest.WithClock(func() time.Time { return exampleNow })}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	client, err := srv.Client(nil) // nil: a test-only signer
	if err != nil {
		log.Fatal(err)
	}
	return srv, client
}

// consentedPSU runs Flow 1's first SCA for customer: the call without a
// psu-id asks for SCA, the fake bank plays the PSU's browser, and the
// callback gives the PSU to use from then on.
func consentedPSU(ctx context.Context, srv *xs2atest.Server, client *xs2a.Client, customer string) xs2a.PSU {
	psu := xs2a.PSU{IPAddress: "192.0.2.10", SessionID: xs2a.NewSessionID()}
	_, _, err := client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		log.Fatalf("expected SCA, got %v", err)
	}
	return psuFromSCA(ctx, srv, sca.Redirect.Href, customer, psu.IPAddress)
}

// psuFromSCA completes the SCA behind href as customer and reads the callback.
func psuFromSCA(ctx context.Context, srv *xs2atest.Server, href, customer, ip string, opts ...xs2atest.SCAOption) xs2a.PSU {
	callback, err := srv.CompleteSCA(ctx, href, customer, opts...)
	if err != nil {
		log.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		log.Fatal(err)
	}
	return cb.PSU(ip)
}

// NewClient needs the bank's base address, the TPP's signer and the
// TPP-Redirect-URI; everything else is optional.
func ExampleNewClient() {
	srv, err := xs2atest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	signer, err := xs2atest.NewTestSigner(nil) // in production: xs2a.LoadPKCS12 or xs2a.LoadSigner
	if err != nil {
		log.Fatal(err)
	}

	client, err := xs2a.NewClient(srv.URL(), signer,
		xs2a.WithRedirectURI("https://tpp.example/xs2a/callback"),
		// A real TPP passes its own *http.Client here (QWAC for mutual TLS,
		// proxy, timeouts); it is copied, never modified.
		xs2a.WithHTTPClient(srv.HTTPClient()),
		xs2a.WithAcceptFixes(xs2a.LongerNames),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	_, _, err = client.Accounts.List(context.Background(), xs2a.PSU{IPAddress: "192.0.2.10"})
	fmt.Println("the bank asks for SCA:", errors.Is(err, xs2a.ErrSCARequired))

	// Options are checked: without a redirect URI there is no client.
	_, err = xs2a.NewClient(srv.URL(), signer)
	fmt.Println(err)
	// Output:
	// the bank asks for SCA: true
	// xs2a: invalid RedirectURI: is required: use WithRedirectURI (docs/interface.md: TPP-Redirect-URI on every request)
}

// LoadSigner reads the TPP's eIDAS certificate and key from PEM files. The
// files here are the SDK's TEST-ONLY certificate.
func ExampleLoadSigner() {
	signer, err := xs2a.LoadSigner("testdata/certs/tpp-rsa.cert.pem", "testdata/certs/tpp-rsa.key.pem", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(signer.Algorithm())
	fmt.Println(strings.HasPrefix(signer.KeyID(), "SN="), strings.Contains(signer.KeyID(), ",CA="))

	// A PKCS#12 file holds both; its password comes from a secret store.
	p12, err := xs2a.LoadPKCS12("testdata/certs/tpp-rsa.p12", "test-only", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p12.KeyID() == signer.KeyID())
	// Output:
	// rsa-sha256
	// true true
	// true
}

// NewSigner takes any crypto.Signer, such as a key in an HSM or a cloud KMS,
// with its certificate. Here the key and a self-signed TEST-ONLY certificate
// are generated in memory.
func ExampleNewSigner() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	name := pkix.Name{CommonName: "Example TPP - TEST ONLY", Organization: []string{"Example TPP AS"}, Country: []string{"NO"}}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(0x1d2c),
		Subject:      name,
		Issuer:       name,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		log.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		log.Fatal(err)
	}

	signer, err := xs2a.NewSigner(key, cert, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(signer.Algorithm())
	fmt.Println(signer.KeyID())

	// Some banks read keyId differently: SignerOptions cover the variants.
	lower, err := xs2a.NewSigner(key, cert, &xs2a.SignerOptions{LowerCaseSerial: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lower.KeyID())
	// Output:
	// ecdsa-sha256
	// SN=1D2C,CA=CN=Example TPP - TEST ONLY,O=Example TPP AS,C=NO
	// SN=1d2c,CA=CN=Example TPP - TEST ONLY,O=Example TPP AS,C=NO
}

// Transport signs any request on its own, for code that builds its own
// requests: here one the SDK has no method for, sent to the fake bank.
func ExampleTransport() {
	srv, err := xs2atest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		log.Fatal(err)
	}
	hc := &http.Client{Transport: &xs2a.Transport{
		Base:        srv.HTTPClient().Transport,
		Signer:      signer,
		RedirectURI: "https://tpp.example/xs2a/callback",
	}}

	req, err := http.NewRequest(http.MethodGet, srv.URL()+"/v1/sandbox/customers", nil)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("signed:", resp.StatusCode)
	fmt.Println("caller's request untouched:", req.Header.Get("Signature") == "")

	// The same request without the Transport is refused by the bank.
	resp, err = srv.HTTPClient().Get(srv.URL() + "/v1/sandbox/customers")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("unsigned:", resp.StatusCode)
	// Output:
	// signed: 200
	// caller's request untouched: true
	// unsigned: 400
}

// Balances after Flow 1's consent: the account's balances, one per type, in
// the account's currency.
func ExampleAccountsService_Balances() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)

	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	balances, _, err := client.Accounts.Balances(ctx, psu, accounts[0].ResourceID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(accounts[0].Name, accounts[0].BBAN == balances.Account.BBAN)
	booked, _ := balances.Find(xs2a.BalanceClosingBooked)
	fmt.Println(booked.BalanceType, booked.BalanceAmount)
	// Output:
	// Brukskonto true
	// closingBooked 25345.12 NOK
}

// TransactionsPage reads one page; the next link says whether there is more.
// Transactions (an iterator) follows the links for you.
func ExampleAccountsService_TransactionsPage() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}

	page, _, err := client.Accounts.TransactionsPage(ctx, psu, accounts[0].ResourceID,
		&xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("booked:", len(page.Transactions.Booked), "pending:", len(page.Transactions.Pending))
	fmt.Println("more pages:", !page.Transactions.Links.Next.IsZero())

	n := 0
	for _, err := range client.Accounts.Transactions(ctx, psu, accounts[0].ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("booked in all:", n)
	// Output:
	// booked: 499 pending: 2
	// more pages: true
	// booked in all: 1100
}

// Consents.Create asks for bank-offered consent: the body is ignored, the
// answer is an SCA redirect, and the PSU ticks the accounts at the bank.
func ExampleConsentsService_Create() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()

	psu := xs2a.PSU{IPAddress: "192.0.2.10", SessionID: xs2a.NewSessionID()}
	links, _, err := client.Consents.Create(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("consent status:", links.ConsentStatus)

	// The PSU shares only the first account (on the bank's page).
	kari, _ := srv.Customer(xs2atest.PrivateCustomer1)
	psu = psuFromSCA(ctx, srv, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1, psu.IPAddress,
		xs2atest.Accounts(kari.Accounts[0].ResourceID))

	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range accounts {
		fmt.Println(a.Name, a.Currency)
	}
	// Output:
	// consent status: received
	// Brukskonto NOK
}

// Users.Register is how a PISP-only TPP learns a PSU's psu-id (GET
// /v1/users). A corporate representative chooses the corporate context
// during that SCA; Users.Agreements lists the agreements it can act for.
func ExampleUsersService_Register() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()

	links, _, err := client.Users.Register(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID()})
	if err != nil {
		log.Fatal(err)
	}
	psu := psuFromSCA(ctx, srv, links.Links.SCARedirect.Href, xs2atest.CorporateCustomer1, "",
		xs2atest.Corporate("")) // the PSU picks the corporate context and its first agreement
	fmt.Println("corporate context:", psu.CorporateID != "")

	agreements, _, err := client.Users.Agreements(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range agreements {
		fmt.Println(a.Name, a.ID == psu.CorporateID)
	}
	// Output:
	// corporate context: true
	// Nordlys Bygg AS true
	// Fjellvind Shipping AS - investeringer false
}

// Flow 3 against the fake bank: initiate, start the authorisation, the PSU
// signs, then poll the status until the bank accepts the payment: PDNG, as
// production banks answer until their batch run executes it.
func ExamplePaymentsService_Initiate() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer2)
	ola, _ := srv.Customer(xs2atest.PrivateCustomer2)

	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount:                  xs2a.Amount{Currency: "NOK", Amount: "250.00"},
		DebtorAccount:                     &xs2a.AccountReference{BBAN: ola.Accounts[0].BBAN},
		CreditorAccount:                   xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:                      "Kari Nordmann",
		RemittanceInformationUnstructured: "Middag fredag",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("initiated:", ini.TransactionStatus)

	auth, _, err := client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err)
	}
	// Send the PSU's browser to auth.Links.SCARedirect.Href; here the fake
	// bank plays it.
	psuFromSCA(ctx, srv, auth.Links.SCARedirect.Href, xs2atest.PrivateCustomer2, psu.IPAddress)

	st, _, err := client.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{
		MinDelay: 10 * time.Millisecond, // the default is 2 s
		OnStatus: func(s *xs2a.PaymentStatus) { fmt.Println("status:", s.TransactionStatus) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("accepted:", st.TransactionStatus.Accepted(), "final:", st.TransactionStatus.Final())
	// Output:
	// initiated: RCVD
	// status: PDNG
	// accepted: true final: false
}

// An e-invoice payment whose answer is lost on the way back (the fake bank
// drops the connection after it made the payment): the TPP decides to
// resolve it, and ResolveEInvoice, sending the invoice again without
// allowLogicalDuplicate, finds that the first attempt landed. The bank still
// holds one payment.
func ExamplePaymentsService_ResolveEInvoice() {
	srv, client := startExampleBank(xs2atest.WithFaults(xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1}))
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer2)

	invoice := xs2a.EInvoice{KID: "0365327", InvoiceNumber: "INV-2026-17"}
	payment := &xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "1499.00"},
		CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:     "Kraftselskapet AS",
	}
	_, _, err := client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, invoice, nil)
	fmt.Println("outcome unknown:", errors.Is(err, xs2a.ErrOutcomeUnknown))

	res, _, err := client.Payments.ResolveEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, invoice)
	switch {
	case err != nil:
		log.Fatal(err) // still unknown (its answer lost too) or refused: calling it again is safe
	case res.Landed:
		// Do not pay it again on your own: tell the PSU that a payment
		// of the invoice already stands at the bank.
		fmt.Println("the first attempt landed:", errors.Is(res.Refusal, xs2a.ErrDuplicatePayment))
	default:
		// The first never reached the bank: go on with this payment.
		fmt.Println("initiated now:", res.Initiation.TransactionStatus)
	}
	fmt.Println("payments at the bank:", srv.PaymentCount())
	// Output:
	// outcome unknown: true
	// the first attempt landed: true
	// payments at the bank: 1
}

// PollStatus ends by default once the PSU has signed and the bank accepted
// the payment (PDNG until the bank executes it). UntilSettled polls on to
// the outcome of the bank's batch run: here it cannot book the payment for
// lack of funds, reports ACCP with fundsAvailable false, and PollStatus
// stops there: the bank decided, and the status says what. ACCP is not final: the bank would still
// book the payment at a later batch run once the money is there, so the TPP
// cancels it before it tells the PSU the payment failed (or initiates it
// again).
func ExamplePaymentsService_PollStatus() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer2)
	ola, _ := srv.Customer(xs2atest.PrivateCustomer2)
	srv.SetBalance(ola.Accounts[0].ResourceID, "10.00")

	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "250.00"},
		DebtorAccount:    &xs2a.AccountReference{BBAN: ola.Accounts[0].BBAN},
		CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:     "Kari Nordmann",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	auth, _, err := client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err)
	}
	psuFromSCA(ctx, srv, auth.Links.SCARedirect.Href, xs2atest.PrivateCustomer2, psu.IPAddress)

	st, _, err := client.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{MinDelay: 10 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed:", st.TransactionStatus, "accepted:", st.TransactionStatus.Accepted())

	srv.RunBatch() // the bank's batch run (5 a day)
	st, _, err = client.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{MinDelay: 10 * time.Millisecond, UntilSettled: true})
	switch {
	case err != nil:
		log.Fatal(err)
	case st.InsufficientFunds():
		fmt.Println(st.TransactionStatus, "insufficient funds:", st.InsufficientFunds(), "final:", st.TransactionStatus.Final())
		if _, err := client.Payments.Cancel(ctx, psu, ini.Links.Self); err != nil {
			log.Fatal(err)
		}
		st, _, err = client.Payments.Status(ctx, psu, ini.Links.Status)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("cancelled:", st.TransactionStatus)
	default:
		fmt.Println("final:", st.TransactionStatus)
	}
	// Output:
	// signed: PDNG accepted: true
	// ACCP insufficient funds: true final: false
	// cancelled: CANC
}

// A signing basket lets the PSU authorise several single payments with one
// SCA.
func ExampleSigningBasketsService_Create() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)
	kari, _ := srv.Customer(xs2atest.PrivateCustomer1)

	var payments []*xs2a.Initiation
	for _, amount := range []string{"100.00", "200.00"} {
		ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
			InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: amount},
			DebtorAccount:    &xs2a.AccountReference{BBAN: kari.Accounts[0].BBAN},
			CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
			CreditorName:     "Ola Nordmann",
		}, nil)
		if err != nil {
			log.Fatal(err)
		}
		payments = append(payments, ini)
	}
	basket, _, err := client.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: payments})
	if err != nil {
		log.Fatal(err)
	}
	auth, _, err := client.Payments.StartAuthorisation(ctx, psu, basket.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err)
	}
	psuFromSCA(ctx, srv, auth.Links.SCARedirect.Href, xs2atest.PrivateCustomer1, psu.IPAddress) // one SCA

	for _, p := range payments {
		st, _, err := client.Payments.Status(ctx, psu, p.Links.Status)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(st.TransactionStatus)
	}
	// Output:
	// PDNG
	// PDNG
}

// The sandbox's mock-data operations: a new customer with an account and a
// transaction, which that customer then sees through the account endpoints.
func ExampleSandboxService_CreateCustomer() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()

	if _, err := client.Sandbox.Initialize(ctx); err != nil {
		log.Fatal(err)
	}
	customer, _, err := client.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{
		CustomerNumber: "01017012345", CustomerType: xs2a.CustomerPrivate, Name: "Per Test",
	})
	if err != nil {
		log.Fatal(err)
	}
	account, _, err := client.Sandbox.CreateAccount(ctx, &xs2a.SandboxAccount{
		CustomerNumber: customer.CustomerNumber, Currency: "NOK", Name: "Lønnskonto", Balance: "1000.00",
	})
	if err != nil {
		log.Fatal(err)
	}
	_, _, err = client.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{
		TransactionAmount: xs2a.Amount{Currency: "NOK", Amount: "-99.50"},
		BookingDate:       xs2a.DateOf(exampleNow).AddDays(-1),
		CreditorName:      "Kiwi",
	})
	if err != nil {
		log.Fatal(err)
	}

	psu := consentedPSU(ctx, srv, client, customer.CustomerNumber)
	for tx, err := range client.Accounts.Transactions(ctx, psu, account.ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tx.BookingDate, tx.TransactionAmount, tx.CreditorName)
	}
	// Output:
	// 2026-03-01 -99.50 NOK Kiwi
}

// The TPP's contact e-mail for operational notices is optional; none
// registered is ErrNotFound.
func ExampleTPPService_SetContactEmail() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	const tppID = "NO-FSA-987654321"

	_, _, err := client.TPP.ContactEmail(ctx, tppID)
	fmt.Println("registered:", !errors.Is(err, xs2a.ErrNotFound))

	if _, err := client.TPP.SetContactEmail(ctx, tppID, "psd2-ops@tpp.example"); err != nil {
		log.Fatal(err)
	}
	email, _, err := client.TPP.ContactEmail(ctx, tppID)
	fmt.Println(email, err)

	// A person's display name is refused before sending.
	_, err = client.TPP.SetContactEmail(ctx, tppID, "Ops <psd2-ops@tpp.example>")
	var ve *xs2a.ValidationError
	fmt.Println(errors.As(err, &ve), ve.Field)
	// Output:
	// registered: false
	// psd2-ops@tpp.example <nil>
	// true email
}

// SessionManager keeps the TPP-Session-ID rules: the SCA under one session
// id holds for an hour; then the TPP begins a new one and the bank asks for
// SCA again. The manager and the fake bank share one clock here.
func ExampleSessionManager() {
	now := exampleNow
	clock := func() time.Time { return now }
	srv, client := startExampleBank(xs2atest.WithClock(clock))
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	sessions := xs2a.NewSessionManager(nil, clock)
	const user = "tpp-user-42" // the TPP's own user id

	// No SCA yet: begin a session and send its id with the request.
	start, err := sessions.Begin(ctx, user, "accounts")
	if err != nil {
		log.Fatal(err)
	}
	psu := start.PSU(xs2a.PSU{IPAddress: "192.0.2.10"})
	_, _, err = client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	fmt.Println("SCA required:", errors.As(err, &sca))
	callback, err := srv.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		log.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		log.Fatal(err)
	}
	if err := sessions.Complete(ctx, user, cb.TPPSessionID); err != nil { // in the callback handler
		log.Fatal(err)
	}
	psu.ID = cb.PSUID

	// Within the hour: the active session serves every call.
	now = now.Add(59 * time.Minute)
	current, ok, _ := sessions.Current(ctx, user)
	psu.SessionID = current
	_, _, err = client.Accounts.List(ctx, psu)
	fmt.Println("after 59 minutes: session active:", ok, "call ok:", err == nil)

	// After the hour the SCA must be redone, under a new session id.
	now = now.Add(2 * time.Minute)
	_, ok, _ = sessions.Current(ctx, user)
	_, _, err = client.Accounts.List(ctx, psu)
	fmt.Println("after 61 minutes: session active:", ok, "SCA required:", errors.Is(err, xs2a.ErrSCARequired))
	// Output:
	// SCA required: true
	// after 59 minutes: session active: true call ok: true
	// after 61 minutes: session active: false SCA required: true
}

// Without the PSU present (no IPAddress) an account's balances may be read 4
// times in 24 hours. The client counts the calls and refuses the fifth before
// it reaches the bank; replicas of a TPP share the count through one BudgetStore.
func ExampleWithBudgetStore() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)
	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	id := accounts[0].ResourceID

	// Two replicas of the TPP, one shared store (Redis in production).
	shared := xs2a.NewMemoryBudgetStore()
	replicaA, err := srv.Client(nil, xs2a.WithBudgetStore(shared))
	if err != nil {
		log.Fatal(err)
	}
	defer replicaA.Close()
	replicaB, err := srv.Client(nil, xs2a.WithBudgetStore(shared))
	if err != nil {
		log.Fatal(err)
	}
	defer replicaB.Close()

	away := xs2a.PSU{ID: psu.ID} // a nightly job: the PSU is not present
	for i, c := range []*xs2a.Client{replicaA, replicaB, replicaA, replicaB, replicaA} {
		_, _, err := c.Accounts.Balances(ctx, away, id)
		var exceeded *xs2a.AccessExceededError
		switch {
		case errors.As(err, &exceeded):
			fmt.Printf("call %d refused locally; next call allowed at %s\n", i+1, exceeded.Next.UTC().Format(time.DateTime))
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Printf("call %d ok\n", i+1)
		}
	}
	balanceCalls := 0
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/balances") {
			balanceCalls++
		}
	}
	fmt.Println("balance requests the bank saw:", balanceCalls)
	// Output:
	// call 1 ok
	// call 2 ok
	// call 3 ok
	// call 4 ok
	// call 5 refused locally; next call allowed at 2026-03-03 10:00:00
	// balance requests the bank saw: 4
}

// ContextWithAcceptFixes enables an x-accept-fix for one call: with
// longer-names the bank sends account names of up to 70 characters.
func ExampleContextWithAcceptFixes() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)

	accounts, _, err := client.Accounts.List(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", accounts[1].Name)

	accounts, resp, err := client.Accounts.List(xs2a.ContextWithAcceptFixes(ctx, xs2a.LongerNames), psu)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q %v\n", accounts[1].Name, resp.AcceptFixes)
	// Output:
	// "Sparekonto for felles husholdning o"
	// "Sparekonto for felles husholdning og ferie" [longer-names]
}

// Every answer of the bank with status 400 or above is an *xs2a.Error (except
// an SCA request, see SCARequiredError): branch on its Code, or on the
// sentinels with errors.Is.
func ExampleError() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)

	// The fake bank offers no SEPA product.
	_, _, err := client.Payments.Initiate(ctx, psu, xs2a.SEPACreditTransfers, &xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "EUR", Amount: "10.00"},
		CreditorAccount:  xs2a.AccountReference{IBAN: "DE89370400440532013000"},
		CreditorName:     "Beispiel GmbH",
	}, nil)
	var e *xs2a.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Code, e.Code == xs2a.CodeProductUnknown)
		fmt.Println(e.Messages[0].Text)
		fmt.Println("request id kept for the bank's support:", e.RequestID != "")
	}
	// Output:
	// 400 PRODUCT_UNKNOWN true
	// unknown payment product
	// request id kept for the bank's support: true
}

// A call the bank answers with a scaRedirect is a *xs2a.SCARequiredError:
// send the PSU's browser to Redirect.Href.
func ExampleSCARequiredError() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()

	_, _, err := client.Accounts.List(context.Background(), xs2a.PSU{IPAddress: "192.0.2.10"})
	var sca *xs2a.SCARequiredError
	if errors.As(err, &sca) {
		fmt.Println(sca.StatusCode, sca.Messages[0].Code)
		fmt.Println("redirect to the bank:", strings.HasPrefix(sca.Redirect.Href, srv.URL()+"/sca/"))
	}
	fmt.Println(errors.Is(err, xs2a.ErrSCARequired))
	// Output:
	// 401 PSU_CREDENTIALS_INVALID
	// redirect to the bank: true
	// true
}
