// Command quickstart runs the interface's two main flows end to end and prints
// a transcript that teaches them:
//
//   - Flow 1, account information: GET /v1/accounts answers 401 with an SCA
//     redirect; the customer authenticates and consents; the callback gives
//     the psu-id; accounts, balances and the last 30 days of transactions follow.
//   - Flow 3, a single payment: initiate, start the authorisation, the
//     customer signs with SCA, then the status is polled until the bank
//     accepts the payment (PDNG, as production banks answer once the
//     customer has signed); against the fake bank, its batch run then
//     settles it and the poll goes on to the final status (UntilSettled).
//
// With no arguments it runs against the fake bank of package xs2atest,
// in-process: no certificates, no network.
//
//	go run ./examples/quickstart
//
// Against a real sandbox, give the base address and the TPP's eIDAS
// certificate; the SCA step then prints the URL to open in a browser and waits
// for the bank's redirect on the local port of -redirect-uri:
//
//	go run ./examples/quickstart -base-url https://psd2.bank.no/api \
//	    -p12 qseal.p12 -p12-password-env P12_PASSWORD \
//	    -redirect-uri http://localhost:8642/callback -psu-ip 203.0.113.7
//
// These flags may also be set in the environment: XS2A_BASE_URL, XS2A_CERT,
// XS2A_KEY, XS2A_P12, XS2A_REDIRECT_URI, XS2A_PSU_IP, XS2A_CUSTOMER; the
// PKCS#12 password is read from the variable -p12-password-env names
// (XS2A_P12_PASSWORD), and -timeout is a flag only.
// The program exits non-zero when a step fails.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// config holds the flags.
type config struct {
	baseURL, cert, key, p12, p12PasswordEnv string
	redirectURI, psuIP, customer            string
	timeout                                 time.Duration
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.StringVar(&c.baseURL, "base-url", os.Getenv("XS2A_BASE_URL"), "base address of a real sandbox (empty: the embedded fake bank)")
	fs.StringVar(&c.cert, "cert", os.Getenv("XS2A_CERT"), "PEM certificate (with -key)")
	fs.StringVar(&c.key, "key", os.Getenv("XS2A_KEY"), "PEM private key (with -cert)")
	fs.StringVar(&c.p12, "p12", os.Getenv("XS2A_P12"), "PKCS#12 file holding certificate and key")
	fs.StringVar(&c.p12PasswordEnv, "p12-password-env", "XS2A_P12_PASSWORD", "environment variable holding the PKCS#12 password")
	fs.StringVar(&c.redirectURI, "redirect-uri", envOr("XS2A_REDIRECT_URI", "http://localhost:8642/callback"), "TPP-Redirect-URI; a real sandbox sends the customer back here")
	fs.StringVar(&c.psuIP, "psu-ip", envOr("XS2A_PSU_IP", "127.0.0.1"), "PSU-IP-Address of the customer's device")
	fs.StringVar(&c.customer, "customer", envOr("XS2A_CUSTOMER", xs2atest.PrivateCustomer1), "national id the fake bank's customer logs in with")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.baseURL != "" && c.p12 == "" && (c.cert == "" || c.key == "") {
		return c, errors.New("a real sandbox needs -p12, or -cert and -key")
	}
	return c, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// bank is what the flows need beyond the client: a way to get the customer
// through SCA, and a way to let time pass for the payment's batch run.
type bank struct {
	client *xs2a.Client
	// authenticate sends the customer to scaRedirect, where they do what
	// says, and returns the callback URL.
	authenticate func(ctx context.Context, scaRedirect, what string) (*url.URL, error)
	// settle makes the bank process authorised payments (the fake runs a
	// batch); nil for a real bank, which does so on its own schedule, at
	// a batch run on the execution date.
	settle func()
	close  func()
}

func run(ctx context.Context, args []string, out io.Writer) error {
	cfg, err := parseFlags(args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	p := &printer{w: out}
	var b *bank
	if cfg.baseURL == "" {
		b, err = fakeBank(cfg, p)
	} else {
		b, err = realBank(cfg, p)
	}
	if err != nil {
		return err
	}
	defer b.close()

	psu, accounts, err := accountFlow(ctx, b, cfg, p)
	if err != nil {
		return fmt.Errorf("flow 1: %w", err)
	}
	if err := paymentFlow(ctx, b, psu, accounts, p); err != nil {
		return fmt.Errorf("flow 3: %w", err)
	}
	return nil
}

// fakeBank starts xs2atest's fake bank in-process.
func fakeBank(cfg config, p *printer) (*bank, error) {
	srv, err := xs2atest.Start()
	if err != nil {
		return nil, err
	}
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		srv.Close()
		return nil, err
	}
	hc := srv.HTTPClient()
	hc.Transport = &transcript{base: hc.Transport, p: p}
	client, err := srv.Client(signer, xs2a.WithHTTPClient(hc))
	if err != nil {
		srv.Close()
		return nil, err
	}
	p.say("xs2a quickstart: the embedded fake bank at %s (in-process, test-only certificate)", srv.URL())
	p.say("signing as keyId %s", signer.KeyID())
	return &bank{
		client: client,
		authenticate: func(ctx context.Context, scaRedirect, what string) (*url.URL, error) {
			p.note("the customer (national id %s) %s", cfg.customer, what)
			return srv.CompleteSCA(ctx, scaRedirect, cfg.customer)
		},
		settle: func() {
			p.note("the bank runs a payment batch (the fake bank runs one now; real banks 5 times a day)")
			srv.RunBatch()
		},
		close: func() { client.Close(); srv.Close() },
	}, nil
}

// realBank signs with the given certificate and waits for the customer's
// browser on the redirect URI's local port.
func realBank(cfg config, p *printer) (*bank, error) {
	var signer *xs2a.Signer
	var err error
	if cfg.p12 != "" {
		signer, err = xs2a.LoadPKCS12(cfg.p12, os.Getenv(cfg.p12PasswordEnv), nil)
	} else {
		signer, err = xs2a.LoadSigner(cfg.cert, cfg.key, nil)
	}
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: &transcript{base: http.DefaultTransport, p: p}, Timeout: time.Minute}
	client, err := xs2a.NewClient(cfg.baseURL, signer, xs2a.WithRedirectURI(cfg.redirectURI), xs2a.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	p.say("xs2a quickstart: %s, signing as keyId %s", cfg.baseURL, signer.KeyID())
	return &bank{
		client: client,
		authenticate: func(ctx context.Context, scaRedirect, what string) (*url.URL, error) {
			p.note("the customer %s", what)
			return waitForCallback(ctx, cfg.redirectURI, scaRedirect, p)
		},
		close: func() { client.Close() },
	}, nil
}

// waitForCallback prints the SCA URL and serves the redirect URI's path on
// its local port until the bank sends the customer back.
func waitForCallback(ctx context.Context, redirectURI, scaRedirect string, p *printer) (*url.URL, error) {
	ru, err := url.Parse(redirectURI)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", ru.Port()))
	if err != nil {
		return nil, fmt.Errorf("listening for the SCA callback: %w", err)
	}
	got := make(chan *url.URL, 1)
	mux := http.NewServeMux()
	mux.HandleFunc(ru.Path, func(w http.ResponseWriter, r *http.Request) {
		u := *ru
		u.RawQuery = r.URL.RawQuery
		select {
		case got <- &u:
		default:
		}
		io.WriteString(w, "Done: you can close this window and return to the terminal.\n")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	p.note("open this URL in a browser and complete SCA:\n      %s", scaRedirect)
	select {
	case u := <-got:
		return u, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// accountFlow is docs/interface.md's Flow 1.
func accountFlow(ctx context.Context, b *bank, cfg config, p *printer) (xs2a.PSU, []xs2a.Account, error) {
	p.heading("Flow 1: account information")
	psu := xs2a.PSU{IPAddress: cfg.psuIP, SessionID: xs2a.NewSessionID()}
	_, _, err := b.client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		if err == nil {
			return psu, nil, errors.New("the bank listed accounts without SCA: expected 401 with a scaRedirect")
		}
		return psu, nil, err
	}
	p.result("SCA required: the customer must authenticate at the bank")
	callback, err := b.authenticate(ctx, sca.Redirect.Href, "logs in, ticks the accounts to share and confirms")
	if err != nil {
		return psu, nil, err
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		return psu, nil, err
	}
	p.result("callback to the TPP-Redirect-URI: psu-id=%s… context=%s (persist the psu-id)", cb.PSUID[:8], cb.Context)
	psu = cb.PSU(cfg.psuIP)

	accounts, _, err := b.client.Accounts.List(ctx, psu)
	if err != nil {
		return psu, nil, err
	}
	p.result("%d accounts consented to", len(accounts))
	for _, a := range accounts {
		p.item("%-28.28s %s %s", a.Name, a.BBAN, a.Currency)
	}
	if len(accounts) == 0 {
		return psu, nil, errors.New("no accounts were consented to")
	}
	first := accounts[0]
	balances, _, err := b.client.Accounts.Balances(ctx, psu, first.ResourceID)
	if err != nil {
		return psu, nil, err
	}
	for _, bal := range balances.Balances {
		p.item("%-28s %s", bal.BalanceType, bal.BalanceAmount)
	}
	q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth, DateFrom: time.Now().AddDate(0, 0, -30)}
	var booked, pending int
	for tx, err := range b.client.Accounts.Transactions(ctx, psu, first.ResourceID, q) {
		if err != nil {
			return psu, nil, err
		}
		if tx.BookingStatus == xs2a.BookingPending {
			pending++
		} else {
			booked++
		}
		if booked+pending <= 3 {
			p.item("%s %-8s %10s  %.40s", tx.BookingDate, tx.BookingStatus, tx.TransactionAmount.Amount, firstNonEmpty(tx.CreditorName, tx.DebtorName, tx.RemittanceInformationUnstructured))
		}
	}
	p.result("last 30 days: %d booked and %d pending transactions", booked, pending)
	return psu, accounts, nil
}

// paymentFlow is docs/interface.md's Flow 3: a transfer between the customer's own
// accounts.
func paymentFlow(ctx context.Context, b *bank, psu xs2a.PSU, accounts []xs2a.Account, p *printer) error {
	p.heading("Flow 3: a single payment")
	if len(accounts) < 2 {
		return errors.New("the customer needs two accounts for the transfer")
	}
	from, to := accounts[0], accounts[1]
	payment := &xs2a.Payment{
		InstructedAmount:                  xs2a.Amount{Currency: "NOK", Amount: "125.50"},
		DebtorAccount:                     &xs2a.AccountReference{BBAN: from.BBAN},
		CreditorAccount:                   xs2a.AccountReference{BBAN: to.BBAN},
		CreditorName:                      "Quickstart Savings",
		RemittanceInformationUnstructured: "xs2a quickstart",
	}
	init, _, err := b.client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, nil)
	if err != nil {
		return err
	}
	p.result("payment %s… created with status %s", init.PaymentID[:min(8, len(init.PaymentID))], init.TransactionStatus)
	auth, _, err := b.client.Payments.StartAuthorisation(ctx, psu, init.Links.StartAuthorisation)
	if err != nil {
		return err
	}
	p.result("the customer must sign at the bank")
	callback, err := b.authenticate(ctx, auth.Links.SCARedirect.Href, "sees the payment and signs it")
	if err != nil {
		return err
	}
	if _, err := xs2a.ParseCallback(callback.Query()); err != nil {
		return err
	}
	p.result("callback: the payment is signed")
	poll := &xs2a.PollOptions{
		MinDelay: 100 * time.Millisecond,
		MaxDelay: 2 * time.Second,
		OnStatus: func(s *xs2a.PaymentStatus) { p.result("status %s", s.TransactionStatus) },
	}
	// By default the poll ends once the bank has accepted or refused the
	// payment: PDNG until the bank executes it.
	status, _, err := b.client.Payments.PollStatus(ctx, psu, init.Links.Status, poll)
	if err = b.fundsRefusal(ctx, psu, init, status, err); err != nil {
		return err
	}
	if !status.TransactionStatus.Accepted() {
		return fmt.Errorf("the bank refused the payment (status %s)", status.TransactionStatus)
	}
	p.result("the bank accepted the payment (%s): it executes it at a batch run on its date", status.TransactionStatus)
	if b.settle == nil {
		p.heading("Done: the payment is accepted with status %s", status.TransactionStatus)
		return nil
	}
	b.settle()
	poll.UntilSettled = true // on to the final status: ACSC once booked
	status, _, err = b.client.Payments.PollStatus(ctx, psu, init.Links.Status, poll)
	if err = b.fundsRefusal(ctx, psu, init, status, err); err != nil {
		return err
	}
	p.heading("Done: the payment reached the final status %s", status.TransactionStatus)
	return nil
}

// fundsRefusal passes on err of a poll; for a status with fundsAvailable
// false (ACCP without funds is not final: the bank would still book the
// payment at a later batch run) it cancels the payment first and says so,
// as a TPP does before it tells the customer the payment failed.
func (b *bank) fundsRefusal(ctx context.Context, psu xs2a.PSU, init *xs2a.Initiation, status *xs2a.PaymentStatus, err error) error {
	if err != nil || !status.InsufficientFunds() {
		return err
	}
	if _, cerr := b.client.Payments.Cancel(ctx, psu, init.Links.Self); cerr != nil {
		return fmt.Errorf("the payment could not be executed for lack of funds; cancelling it failed: %w", cerr)
	}
	return fmt.Errorf("the payment could not be executed for lack of funds and is cancelled (status %s)", status.TransactionStatus)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// printer writes the transcript.
type printer struct{ w io.Writer }

func (p *printer) say(format string, args ...any)  { fmt.Fprintf(p.w, format+"\n", args...) }
func (p *printer) heading(format string, a ...any) { fmt.Fprintf(p.w, "\n"+format+"\n", a...) }
func (p *printer) result(format string, a ...any)  { fmt.Fprintf(p.w, "    = "+format+"\n", a...) }
func (p *printer) note(format string, a ...any)    { fmt.Fprintf(p.w, "    … "+format+"\n", a...) }
func (p *printer) item(format string, a ...any)    { fmt.Fprintf(p.w, "        "+format+"\n", a...) }

// transcript prints each request the SDK sends and the status that answers it.
type transcript struct {
	base http.RoundTripper
	p    *printer
}

func (t *transcript) RoundTrip(r *http.Request) (*http.Response, error) {
	path := r.URL.Path
	if i := strings.Index(path, "/v1/"); i >= 0 {
		path = path[i:]
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.p.say("  → %-6s %s\n  ← %v", r.Method, path, err)
		return nil, err
	}
	t.p.say("  → %-6s %s\n  ← %d %s", r.Method, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	return resp, nil
}
