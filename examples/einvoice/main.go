// Command einvoice pays an electronic invoice (docs/interface.md, Flow 4) against
// the embedded fake bank and prints a transcript that teaches the flow:
//
//  1. A PISP-only TPP registers the PSU with GET /v1/users: the PSU passes
//     SCA once and the callback gives the psu-id.
//  2. First attempt: the invoice's KID (type SCOR) and invoice number (type
//     CINV, issued by the invoice scheme) go into
//     remittanceInformationStructuredArray, the debtor account is left out
//     for the PSU to choose at the bank, and allowLogicalDuplicate is NOT
//     sent. The PSU starts the authorisation but cancels it at the bank: the
//     callback carries status, code and message instead of a psu-id.
//  3. The failure is one the PSU can correct, so the TPP tries the same
//     invoice again. Without allowLogicalDuplicate the bank refuses the new
//     payment as a logical duplicate (400 PAYMENT_FAILED): it guards against
//     paying one invoice twice.
//  4. The retry proper sends allowLogicalDuplicate=true
//     (xs2a.PaymentsService.InitiateEInvoice with
//     InitiateOptions.AllowLogicalDuplicate). The PSU picks the account to
//     pay from and signs; the status is polled until the bank accepts the
//     payment (PDNG, as production banks answer once the PSU has signed),
//     then, with xs2a.PollOptions.UntilSettled, until the bank's batch run
//     has booked it (ACSC).
//
// Authorising the payment makes the bank mark the invoice as processed at
// the invoice scheme. The TPP never changes the invoice's status itself, and
// the SDK has no call that would.
//
// It needs no certificate and no network: the fake bank of package xs2atest
// runs in-process and the program signs with a generated test-only
// certificate.
//
//	go run ./examples/einvoice
//
// The program exits non-zero when a step does not go as described.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
		fmt.Fprintln(os.Stderr, "einvoice:", err)
		os.Exit(1)
	}
}

// The invoice the PSU pays: what an eFaktura gives a TPP.
var (
	invoice = xs2a.EInvoice{KID: "12345678903", InvoiceNumber: "F-2026-0417"} // Issuer "": xs2a.DefaultInvoiceIssuer
	bill    = xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "1249.00"},
		CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:     "Fjordkraft AS",
		// No DebtorAccount: the PSU chooses it at the bank (Flow 4).
	}
)

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("einvoice", flag.ContinueOnError)
	fs.SetOutput(out)
	customer := fs.String("customer", xs2atest.PrivateCustomer1, "national id the fake bank's customer logs in with")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	p := &printer{w: out}

	srv, err := xs2atest.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		return err
	}
	hc := srv.HTTPClient()
	hc.Transport = &transcript{base: hc.Transport, p: p}
	client, err := srv.Client(signer, xs2a.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer client.Close()
	p.say("xs2a einvoice: the embedded fake bank at %s (in-process, test-only certificate)", srv.URL())
	f := &flow{srv: srv, client: client, customer: *customer, p: p}

	psu, err := f.register(ctx)
	if err != nil {
		return fmt.Errorf("registration: %w", err)
	}
	if err := f.firstAttempt(ctx, psu); err != nil {
		return fmt.Errorf("first attempt: %w", err)
	}
	if err := f.retryWithoutFlag(ctx, psu); err != nil {
		return fmt.Errorf("retry without allowLogicalDuplicate: %w", err)
	}
	status, err := f.retry(ctx, psu)
	if err != nil {
		return fmt.Errorf("retry: %w", err)
	}
	p.heading("Done: the invoice is paid (%s)", status)
	p.note("the bank marks the invoice as processed at the invoice scheme; the TPP never changes that status itself")
	return nil
}

type flow struct {
	srv      *xs2atest.Server
	client   *xs2a.Client
	customer string
	p        *printer
}

// register is the PISP-only registration of Flow 3: GET /v1/users answers
// with an SCA redirect, and the callback gives the psu-id.
func (f *flow) register(ctx context.Context) (xs2a.PSU, error) {
	f.p.heading("Registration: a PISP-only TPP learns the PSU's psu-id through GET /v1/users")
	psu := xs2a.PSU{IPAddress: "127.0.0.1", SessionID: xs2a.NewSessionID()}
	links, _, err := f.client.Users.Register(ctx, psu)
	if err != nil {
		return psu, err
	}
	callback, err := f.authenticate(ctx, links.Links.SCARedirect.Href, "logs in at the bank")
	if err != nil {
		return psu, err
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		return psu, err
	}
	f.p.result("callback: psu-id=%s… context=%s (persist the psu-id)", cb.PSUID[:8], cb.Context)
	return cb.PSU(psu.IPAddress), nil
}

// firstAttempt sends the invoice without allowLogicalDuplicate; the PSU
// cancels the SCA.
func (f *flow) firstAttempt(ctx context.Context, psu xs2a.PSU) error {
	f.p.heading("Attempt 1: pay invoice %s (KID %s, %s to %s), without allowLogicalDuplicate",
		invoice.InvoiceNumber, invoice.KID, bill.InstructedAmount, bill.CreditorName)
	ini, _, err := f.client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &bill, invoice, nil)
	if err != nil {
		return err
	}
	f.p.result("payment created with status %s; no debtor account yet: the PSU picks it at the bank", ini.TransactionStatus)
	auth, _, err := f.client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		return err
	}
	callback, err := f.authenticate(ctx, auth.Links.SCARedirect.Href, "sees the invoice but presses Cancel (say the PSU was interrupted)", xs2atest.Cancel())
	if err != nil {
		return err
	}
	_, err = xs2a.ParseCallback(callback.Query())
	var failure *xs2a.SCAFailedError
	if !errors.As(err, &failure) {
		return fmt.Errorf("the callback should report a failed SCA, got %v", err)
	}
	f.p.result("callback reports a failed SCA: status=%d code=%s message=%q", failure.Status, failure.Code, failure.Message)
	st, _, err := f.client.Payments.Status(ctx, psu, ini.Links.Status)
	if err != nil {
		return err
	}
	f.p.result("the payment stays %s at the bank: never authorised, it is never executed", st.TransactionStatus)
	return nil
}

// retryWithoutFlag shows what the bank does with a second payment of the
// same invoice that does not say it is intended.
func (f *flow) retryWithoutFlag(ctx context.Context, psu xs2a.PSU) error {
	f.p.heading("The same invoice again WITHOUT allowLogicalDuplicate (what not to do)")
	_, _, err := f.client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &bill, invoice, nil)
	var bankErr *xs2a.Error
	if !errors.As(err, &bankErr) || bankErr.Code != xs2a.CodePaymentFailed {
		return fmt.Errorf("the bank should refuse a logical duplicate with %s, got %v", xs2a.CodePaymentFailed, err)
	}
	text := ""
	if len(bankErr.Messages) > 0 {
		text, _, _ = strings.Cut(bankErr.Messages[0].Text, ";")
	}
	f.p.result("refused: %d %s: %s", bankErr.StatusCode, bankErr.Code, text)
	f.p.note("the bank protects the PSU from paying one invoice twice; a retry has to say that it is intended")
	return nil
}

// retry sends the invoice again with allowLogicalDuplicate=true; the PSU
// chooses the account and signs; the status is polled to a final state.
func (f *flow) retry(ctx context.Context, psu xs2a.PSU) (xs2a.TransactionStatus, error) {
	f.p.heading("Attempt 2: the retry of the same invoice, with allowLogicalDuplicate=true")
	ini, _, err := f.client.Payments.InitiateEInvoice(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &bill, invoice, &xs2a.InitiateOptions{AllowLogicalDuplicate: true})
	if err != nil {
		return "", err
	}
	f.p.result("payment created with status %s", ini.TransactionStatus)
	auth, _, err := f.client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		return "", err
	}
	customer, ok := f.srv.Customer(f.customer)
	if !ok || len(customer.Accounts) < 2 {
		return "", errors.New("the customer needs two accounts to choose from")
	}
	from := customer.Accounts[1] // the PSU's choice on the bank's page
	callback, err := f.authenticate(ctx, auth.Links.SCARedirect.Href,
		"picks "+from.Name+" "+from.BBAN+" to pay from and signs", xs2atest.Accounts(from.ResourceID))
	if err != nil {
		return "", err
	}
	if _, err := xs2a.ParseCallback(callback.Query()); err != nil {
		return "", err
	}
	f.p.result("callback: the payment is signed")
	chosen, _, err := f.client.Payments.Get(ctx, psu, ini.Links.Self)
	if err != nil {
		return "", err
	}
	if chosen.Payment == nil || chosen.Payment.DebtorAccount == nil {
		return "", errors.New("the bank reports no debtor account for the payment")
	}
	f.p.result("the bank reports the debtor account the PSU chose: %s", chosen.Payment.DebtorAccount.BBAN)
	poll := &xs2a.PollOptions{
		MinDelay: 20 * time.Millisecond,
		Backoff:  1,
		OnStatus: func(s *xs2a.PaymentStatus) { f.p.result("status %s", s.TransactionStatus) },
	}
	// The poll ends once the bank has accepted (PDNG) or refused the payment.
	status, _, err := f.client.Payments.PollStatus(ctx, psu, ini.Links.Status, poll)
	if err != nil || !status.TransactionStatus.Accepted() {
		return f.settled(ctx, psu, ini.Links.Self, status, err)
	}
	f.p.result("the bank accepted the payment (%s): it books it at a batch run on its date", status.TransactionStatus)
	f.p.note("the bank runs a payment batch (the fake bank runs one now; real banks 5 times a day)")
	f.srv.RunBatch()
	poll.UntilSettled = true
	status, _, err = f.client.Payments.PollStatus(ctx, psu, ini.Links.Status, poll)
	return f.settled(ctx, psu, ini.Links.Self, status, err)
}

// settled ends a payment polled to status (err: PollStatus's error): ACSC,
// or another end reported as an error; a payment stopped for lack of
// funds is cancelled at self.
func (f *flow) settled(ctx context.Context, psu xs2a.PSU, self xs2a.Link, status *xs2a.PaymentStatus, err error) (xs2a.TransactionStatus, error) {
	if errors.Is(err, xs2a.ErrInsufficientFunds) {
		// ACCP without funds is not final: the bank would still book the
		// payment at a later batch run. Cancel it before a new attempt.
		if _, cerr := f.client.Payments.Cancel(ctx, psu, self); cerr != nil {
			return status.TransactionStatus, fmt.Errorf("%w; cancelling it failed: %w", err, cerr)
		}
		return xs2a.TransactionStatusCANC, errors.New("the payment could not be executed for lack of funds and is cancelled")
	}
	if err != nil {
		return "", err
	}
	if status.TransactionStatus != xs2a.TransactionStatusACSC {
		return status.TransactionStatus, fmt.Errorf("the payment ended as %s", status.TransactionStatus)
	}
	return status.TransactionStatus, nil
}

// authenticate plays the PSU's browser on the fake bank's SCA pages and
// returns the callback URL the bank sends it to.
func (f *flow) authenticate(ctx context.Context, scaRedirect, what string, opts ...xs2atest.SCAOption) (*url.URL, error) {
	f.p.note("the PSU (national id %s) %s", f.customer, what)
	return f.srv.CompleteSCA(ctx, scaRedirect, f.customer, opts...)
}

// printer writes the transcript.
type printer struct{ w io.Writer }

func (p *printer) say(format string, args ...any)  { fmt.Fprintf(p.w, format+"\n", args...) }
func (p *printer) heading(format string, a ...any) { fmt.Fprintf(p.w, "\n"+format+"\n", a...) }
func (p *printer) result(format string, a ...any)  { fmt.Fprintf(p.w, "    = "+format+"\n", a...) }
func (p *printer) note(format string, a ...any)    { fmt.Fprintf(p.w, "    … "+format+"\n", a...) }

// transcript prints each request the SDK sends (with its query, where
// allowLogicalDuplicate shows) and the status that answers it.
type transcript struct {
	base http.RoundTripper
	p    *printer
}

func (t *transcript) RoundTrip(r *http.Request) (*http.Response, error) {
	path := r.URL.Path
	if i := strings.Index(path, "/v1/"); i >= 0 {
		path = path[i:]
	}
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.p.say("  → %-6s %s\n  ← %v", r.Method, path, err)
		return nil, err
	}
	t.p.say("  → %-6s %s\n  ← %d %s", r.Method, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	return resp, nil
}
