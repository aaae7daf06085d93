// Command corporate runs docs/interface.md's Flow 2, the corporate context, against
// the embedded fake bank and prints a transcript that teaches it:
//
//  1. A representative of a company (the fake bank's CorporateCustomer2,
//     Fjellvind Shipping AS) opens the TPP. GET /v1/accounts answers 401 with
//     an SCA redirect; at the bank the PSU chooses the corporate context and
//     one of the company's agreements, then ticks the accounts to share. The
//     callback carries psu-id, psu-corporate-id and context=CORPORATE.
//  2. From now on every request for this PSU needs PSU-CORPORATE-ID next to
//     PSU-ID: without it the bank answers 400 (xs2a.ErrCorporateIDRequired).
//  3. GET /v1/agreements lists the PSU's agreements; the PSU picks another
//     one. Its PSU-CORPORATE-ID has no consent yet, so the bank asks for SCA
//     again, with the agreement already chosen.
//  4. A payment from an account of that agreement needs two signers. The
//     first signs: the status becomes PATC (partially accepted). The TPP
//     sends the second signer (CorporateCustomer1, a member of the same
//     agreement) through the startAuthorisation link of the PATC status
//     answer (xs2a.PollOptions.OnPATC). Like a production bank, the fake
//     bank's answer names no authorisation to read
//     (xs2a.SCALinks.AuthorisationLink says so): the payment's status tells.
//     With both signatures the status becomes PDNG, where the poll ends:
//     the bank has accepted the payment. After the bank's batch run a poll
//     with xs2a.PollOptions.UntilSettled sees ACSC.
//
// It needs no certificate and no network: the fake bank of package xs2atest
// runs in-process and the program signs with a generated test-only
// certificate. The transcript names the PSU headers each request carries,
// never their values.
//
//	go run ./examples/corporate
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
		fmt.Fprintln(os.Stderr, "corporate:", err)
		os.Exit(1)
	}
}

// The two representatives of the fake bank's sandbox: Fjellvind Shipping AS
// (signer 1) and Nordlys Bygg AS (signer 2), both members of Fjellvind's
// investment agreement, which needs two signatures for a payment.
const (
	signer1 = xs2atest.CorporateCustomer2
	signer2 = xs2atest.CorporateCustomer1
)

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("corporate", flag.ContinueOnError)
	fs.SetOutput(out)
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
	p.say("xs2a corporate: the embedded fake bank at %s (in-process, test-only certificate)", srv.URL())
	f := &flow{srv: srv, client: client, p: p}

	psu, err := f.corporateConsent(ctx)
	if err != nil {
		return fmt.Errorf("corporate consent: %w", err)
	}
	if err := f.withoutCorporateID(ctx, psu); err != nil {
		return fmt.Errorf("request without PSU-CORPORATE-ID: %w", err)
	}
	psu, account, err := f.otherAgreement(ctx, psu)
	if err != nil {
		return fmt.Errorf("switching agreement: %w", err)
	}
	status, err := f.twoSignerPayment(ctx, psu, account)
	if err != nil {
		return fmt.Errorf("two-signer payment: %w", err)
	}
	p.heading("Done: the payment signed by both representatives reached the final status %s", status)
	return nil
}

type flow struct {
	srv    *xs2atest.Server
	client *xs2a.Client
	p      *printer
}

// corporateConsent is Flow 1 in corporate context: the PSU chooses the
// company's default agreement at the bank.
func (f *flow) corporateConsent(ctx context.Context) (xs2a.PSU, error) {
	f.p.heading("Step 1: account access in corporate context")
	psu := xs2a.PSU{IPAddress: "127.0.0.1", SessionID: xs2a.NewSessionID()}
	_, _, err := f.client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		return psu, fmt.Errorf("expected 401 with a scaRedirect, got %v", err)
	}
	f.p.result("SCA required: the PSU must authenticate at the bank")
	// What the PSU sees on the bank's context page: the company's agreements.
	company, ok := f.srv.Customer(signer1)
	if !ok || len(company.Agreements) < 2 {
		return psu, errors.New("the sandbox company needs two agreements")
	}
	chosen := company.Agreements[0]
	cb, err := f.authenticate(ctx, sca.Redirect.Href, signer1,
		fmt.Sprintf("logs in, acts for %q (org. no. %s) and ticks its accounts", chosen.Name, chosen.OrganisationNumber),
		xs2atest.Corporate(chosen.ID))
	if err != nil {
		return psu, err
	}
	f.p.result("callback: psu-id=%s… psu-corporate-id=%s… context=%s (persist both)", cb.PSUID[:8], cb.PSUCorporateID[:8], cb.Context)
	if cb.Context != xs2a.ContextCorporate {
		return psu, fmt.Errorf("context %s, want %s", cb.Context, xs2a.ContextCorporate)
	}
	psu = cb.PSU(psu.IPAddress) // PSU-ID and PSU-CORPORATE-ID from now on
	accounts, _, err := f.client.Accounts.List(ctx, psu)
	if err != nil {
		return psu, err
	}
	f.listAccounts(accounts)
	return psu, nil
}

// withoutCorporateID shows the 400 a corporate PSU gets without
// PSU-CORPORATE-ID.
func (f *flow) withoutCorporateID(ctx context.Context, psu xs2a.PSU) error {
	f.p.heading("Step 2: the same PSU without PSU-CORPORATE-ID (what not to do)")
	psu.CorporateID = ""
	_, _, err := f.client.Accounts.List(ctx, psu)
	if !errors.Is(err, xs2a.ErrCorporateIDRequired) {
		return fmt.Errorf("expected ErrCorporateIDRequired, got %v", err)
	}
	var bankErr *xs2a.Error
	if errors.As(err, &bankErr) {
		f.p.result("refused: %d %s: errors.Is(err, xs2a.ErrCorporateIDRequired) is true", bankErr.StatusCode, bankErr.Code)
	}
	f.p.note("a PSU whose SCA chose the corporate context acts for a company: send PSU-CORPORATE-ID on every request")
	return nil
}

// otherAgreement lists the PSU's agreements and switches to the one whose
// payments need two signers; the bank asks for consent for it.
func (f *flow) otherAgreement(ctx context.Context, psu xs2a.PSU) (xs2a.PSU, xs2a.Account, error) {
	f.p.heading("Step 3: the PSU picks another agreement from GET /v1/agreements")
	agreements, _, err := f.client.Users.Agreements(ctx, psu)
	if err != nil {
		return psu, xs2a.Account{}, err
	}
	f.p.result("%d agreements", len(agreements))
	var next *xs2a.Agreement
	for i, a := range agreements {
		mark := ""
		if a.ID == psu.CorporateID {
			mark = " (current)"
		} else if next == nil {
			next = &agreements[i]
		}
		f.p.item("%-40s org. no. %s%s", a.Name, a.OrganisationNumber, mark)
	}
	if next == nil {
		return psu, xs2a.Account{}, errors.New("no other agreement to pick")
	}
	f.p.note("the PSU picks %q: its id goes into PSU-CORPORATE-ID", next.Name)
	psu.CorporateID = next.ID
	_, _, err = f.client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		return psu, xs2a.Account{}, fmt.Errorf("expected SCA for an agreement without consent, got %v", err)
	}
	f.p.result("SCA required: no consent for this agreement yet")
	cb, err := f.authenticate(ctx, sca.Redirect.Href, signer1, "logs in; the agreement is already chosen, so the PSU only ticks its accounts")
	if err != nil {
		return psu, xs2a.Account{}, err
	}
	if cb.PSUCorporateID != next.ID {
		return psu, xs2a.Account{}, errors.New("the callback names another agreement than the one picked")
	}
	f.p.result("callback: context=%s, psu-corporate-id is the picked agreement's id", cb.Context)
	psu = cb.PSU(psu.IPAddress)
	accounts, _, err := f.client.Accounts.List(ctx, psu)
	if err != nil {
		return psu, xs2a.Account{}, err
	}
	f.listAccounts(accounts)
	if len(accounts) == 0 {
		return psu, xs2a.Account{}, errors.New("no account in the agreement")
	}
	return psu, accounts[0], nil
}

// twoSignerPayment pays from an account whose agreement needs two
// signatures: PATC after the first, PDNG (accepted) after the second, ACSC
// after the batch run.
func (f *flow) twoSignerPayment(ctx context.Context, psu xs2a.PSU, from xs2a.Account) (xs2a.TransactionStatus, error) {
	f.p.heading("Step 4: a payment from %s %s that needs two signers", from.Name, from.BBAN)
	payment := &xs2a.Payment{
		InstructedAmount:                  xs2a.Amount{Currency: "NOK", Amount: "185000.00"},
		DebtorAccount:                     &xs2a.AccountReference{BBAN: from.BBAN},
		CreditorAccount:                   xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:                      "Bergen Verft AS",
		RemittanceInformationUnstructured: "Dokking MS Fjellvind, forskudd",
	}
	ini, _, err := f.client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, payment, nil)
	if err != nil {
		return "", err
	}
	f.p.result("payment created with status %s", ini.TransactionStatus)
	auth, _, err := f.client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		return "", err
	}
	if _, err := f.authenticate(ctx, auth.Links.SCARedirect.Href, signer1, "signs the payment (signature 1 of 2)"); err != nil {
		return "", err
	}
	f.p.result("callback: the first signature is in")

	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	var signErr error
	printStatus := func(s *xs2a.PaymentStatus) { f.p.result("status %s", s.TransactionStatus) }
	// The poll ends once the bank has accepted the payment (PDNG) or
	// refused it; PATC, signers missing, is neither.
	status, _, err := f.client.Payments.PollStatus(pollCtx, psu, ini.Links.Status, &xs2a.PollOptions{
		MinDelay: 20 * time.Millisecond,
		Backoff:  1,
		OnStatus: printStatus,
		// PATC: signed, but not by enough signers. The next signer starts
		// at the startAuthorisation link of the status answer (the same
		// link as the initiation's), so the status link alone is enough.
		OnPATC: func(s *xs2a.PaymentStatus) {
			f.p.note("PATC: more signatures are needed; the TPP starts the authorisation again for the second signer, from the status answer's link")
			if signErr = f.secondSignature(pollCtx, psu, s.Links.StartAuthorisation); signErr != nil {
				stopPoll()
			}
		},
	})
	if signErr != nil {
		return "", fmt.Errorf("second signature: %w", signErr)
	}
	if err != nil || !status.TransactionStatus.Accepted() {
		return f.settled(ctx, psu, ini.Links.Self, status, err)
	}
	f.p.result("both have signed: the bank accepted the payment (%s) and executes it at a batch run", status.TransactionStatus)
	f.p.note("the bank runs a payment batch (the fake bank runs one now; real banks 5 times a day)")
	f.srv.RunBatch()
	status, _, err = f.client.Payments.PollStatus(ctx, psu, ini.Links.Status, &xs2a.PollOptions{
		MinDelay: 20 * time.Millisecond, Backoff: 1, UntilSettled: true, OnStatus: printStatus,
	})
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

// secondSignature sends the second representative through the payment's
// startAuthorisation link, and reads that authorisation's status where the
// bank names it.
func (f *flow) secondSignature(ctx context.Context, psu xs2a.PSU, startAuthorisation xs2a.Link) error {
	auth, _, err := f.client.Payments.StartAuthorisation(ctx, psu, startAuthorisation)
	if err != nil {
		return err
	}
	cb, err := f.authenticate(ctx, auth.Links.SCARedirect.Href, signer2, "(another representative, also a member of the agreement) signs the payment (signature 2 of 2)")
	if err != nil {
		return err
	}
	f.p.result("callback: the second signature is in (psu-id %s… is the second signer's own)", cb.PSUID[:8])
	link, err := auth.AuthorisationLink(startAuthorisation)
	if err != nil {
		// Production banks answer startAuthorisation with scaStatus and
		// scaRedirect only: no authorisation to read.
		f.p.result("the bank's answer names no authorisation to read (as production banks answer): the payment's status tells")
		return nil
	}
	st, _, err := f.client.Payments.AuthorisationStatus(ctx, psu, link)
	if err != nil {
		return err
	}
	f.p.result("the second signer's authorisation: %s", st.SCAStatus)
	return nil
}

// authenticate plays the PSU's browser on the fake bank's SCA pages and
// reads the callback.
func (f *flow) authenticate(ctx context.Context, scaRedirect, customer, what string, opts ...xs2atest.SCAOption) (*xs2a.Callback, error) {
	f.p.note("the PSU with national id %s %s", customer, what)
	u, err := f.srv.CompleteSCA(ctx, scaRedirect, customer, opts...)
	if err != nil {
		return nil, err
	}
	return xs2a.ParseCallback(u.Query())
}

func (f *flow) listAccounts(accounts []xs2a.Account) {
	f.p.result("%d account(s) consented to in this agreement", len(accounts))
	for _, a := range accounts {
		f.p.item("%-28.28s %s %s", a.Name, a.BBAN, a.Currency)
	}
}

// printer writes the transcript.
type printer struct{ w io.Writer }

func (p *printer) say(format string, args ...any)  { fmt.Fprintf(p.w, format+"\n", args...) }
func (p *printer) heading(format string, a ...any) { fmt.Fprintf(p.w, "\n"+format+"\n", a...) }
func (p *printer) result(format string, a ...any)  { fmt.Fprintf(p.w, "    = "+format+"\n", a...) }
func (p *printer) note(format string, a ...any)    { fmt.Fprintf(p.w, "    … "+format+"\n", a...) }
func (p *printer) item(format string, a ...any)    { fmt.Fprintf(p.w, "        "+format+"\n", a...) }

// transcript prints each request the SDK sends, the names of the PSU
// headers it carries (never their values), and the status that answers it.
type transcript struct {
	base http.RoundTripper
	p    *printer
}

func (t *transcript) RoundTrip(r *http.Request) (*http.Response, error) {
	path := r.URL.Path
	if i := strings.Index(path, "/v1/"); i >= 0 {
		path = path[i:]
	}
	var headers []string
	for _, h := range []string{"PSU-ID", "PSU-CORPORATE-ID"} {
		if r.Header.Get(h) != "" {
			headers = append(headers, h)
		}
	}
	if len(headers) > 0 {
		path += "   [" + strings.Join(headers, ", ") + "]"
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		t.p.say("  → %-6s %s\n  ← %v", r.Method, path, err)
		return nil, err
	}
	t.p.say("  → %-6s %s\n  ← %d %s", r.Method, path, resp.StatusCode, http.StatusText(resp.StatusCode))
	return resp, nil
}
