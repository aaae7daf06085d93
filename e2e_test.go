// Package xs2a_test holds the SDK's examples and its end-to-end suite. The
// suite runs every flow of the bank's interface (docs/interface.md), and every row of
// its Errors and Limits tables that the fake bank can produce, against
// xs2atest.NewServer through the exported API of xs2a and xs2atest only. Each
// test has its own bank on a fake clock (xs2atest.WithClock, wired into the
// client by Server.Client) and runs in parallel. Input the SDK refuses before
// sending is also sent raw, signed by xs2a.Transport, to show the bank's own
// answer.
//
// Which test covers which rule of the interface is listed rule by rule in
// docs/interface.md.
package xs2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// The end-to-end suite: every flow, error and limit of the bank's interface
// that the fake bank can produce, driven through the SDK's exported API
// only. Each test starts its own xs2atest server on a fake clock and runs in
// parallel with the others.

// oslo is the bank's calendar: batch runs and dates follow Europe/Oslo.
var oslo = func() *time.Location {
	l, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		panic(err)
	}
	return l
}()

// e2eStart is where every fake clock starts unless a test says otherwise:
// a Wednesday, 10:00 in Oslo, between the 09:00 and 12:00 batch runs.
var e2eStart = time.Date(2025, 3, 12, 10, 0, 0, 0, oslo)

// psuIP is the PSU's device address on PSU-present calls (TEST-NET-1).
const psuIP = "192.0.2.10"

// fakeClock is a settable clock shared by the bank and the client.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// waits records the waits a client asked for between attempts, which
// return at once (see noWait).
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

// all returns the waits so far, oldest first.
func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// noWait makes c retry without waiting in real time and records the waits
// it asked for. Call it before c is used.
func noWait(c *xs2a.Client) *waits {
	w := &waits{}
	xs2a.SetSleep(c, func(ctx context.Context, d time.Duration) error {
		w.mu.Lock()
		w.d = append(w.d, d)
		w.mu.Unlock()
		return ctx.Err()
	})
	return w
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// tppSigner is the TPP identity of the whole suite: the TEST-ONLY
// certificate in testdata, so raw requests and SDK clients are one TPP.
var tppSigner = sync.OnceValues(func() (*xs2a.Signer, error) {
	return xs2a.LoadSigner(filepath.Join("testdata", "certs", "tpp-rsa.cert.pem"), filepath.Join("testdata", "certs", "tpp-rsa.key.pem"), nil)
})

func signer(t *testing.T) *xs2a.Signer {
	t.Helper()
	s, err := tppSigner()
	require.NoError(t, err)
	return s
}

// sent is one request as it left the SDK's signing Transport.
type sent struct {
	Method, Path, RawQuery string
	Header                 http.Header
}

// recorder is the Base transport under xs2a.Transport: it sees every signed
// request (headers and query) and can change it before it goes out.
type recorder struct {
	base      http.RoundTripper
	mu        sync.Mutex
	reqs      []sent
	tamper    func(*http.Request)  // when set, changes the signed request
	tamperRes func(*http.Response) // when set, changes the bank's answer
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, sent{req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Clone()})
	tamper, tamperRes := r.tamper, r.tamperRes
	r.mu.Unlock()
	if tamper != nil {
		req = req.Clone(req.Context())
		tamper(req)
	}
	resp, err := r.base.RoundTrip(req)
	if err == nil && tamperRes != nil {
		tamperRes(resp)
	}
	return resp, err
}

// setTamper sets the request and answer tampering (nil: none).
func (r *recorder) setTamper(req func(*http.Request), res func(*http.Response)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tamper, r.tamperRes = req, res
}

// since returns the requests after the first n whose method matches and
// whose path contains part.
func (r *recorder) since(n int, method, part string) []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sent
	for _, s := range r.reqs[n:] {
		if s.Method == method && strings.Contains(s.Path, part) {
			out = append(out, s)
		}
	}
	return out
}

func (r *recorder) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// bank is one fake bank on a fake clock with an SDK client whose requests
// are recorded.
type bank struct {
	*xs2atest.Server
	clock *fakeClock
	rec   *recorder
	c     *xs2a.Client
}

func newBank(t *testing.T, opts ...xs2atest.Option) *bank {
	t.Helper()
	return newBankAt(t, e2eStart, opts...)
}

func newBankAt(t *testing.T, start time.Time, opts ...xs2atest.Option) *bank {
	t.Helper()
	clock := &fakeClock{t: start}
	s := xs2atest.NewServer(t, append([]xs2atest.Option{xs2atest.WithClock(clock.Now), schemaHook(t)}, opts...)...)
	b := &bank{Server: s, clock: clock, rec: &recorder{base: s.HTTPClient().Transport}}
	b.c = b.client(t)
	return b
}

// client returns another SDK client for the bank (same TPP, same recorder);
// opts come last.
func (b *bank) client(t *testing.T, opts ...xs2a.Option) *xs2a.Client {
	t.Helper()
	c, err := b.Client(signer(t), append([]xs2a.Option{xs2a.WithHTTPClient(&http.Client{Transport: b.rec})}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// sca plays the PSU on the SCA pages and parses the successful callback.
func (b *bank) sca(t *testing.T, href, customer string, opts ...xs2atest.SCAOption) *xs2a.Callback {
	t.Helper()
	u, err := b.CompleteSCA(context.Background(), href, customer, opts...)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.NoError(t, err)
	return cb
}

// scaFails plays a PSU who cancels and returns the failure callback.
func (b *bank) scaFails(t *testing.T, href, customer string) *xs2a.SCAFailedError {
	t.Helper()
	u, err := b.CompleteSCA(context.Background(), href, customer, xs2atest.Cancel())
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.Nil(t, cb)
	require.ErrorIs(t, err, xs2a.ErrSCAFailed)
	var f *xs2a.SCAFailedError
	require.ErrorAs(t, err, &f)
	return f
}

// signIn runs Flow 1 up to the callback for customer and returns the PSU,
// present, under the session of that SCA.
func (b *bank) signIn(t *testing.T, customer string, opts ...xs2atest.SCAOption) xs2a.PSU {
	t.Helper()
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err := b.c.Accounts.List(context.Background(), psu)
	sca := requireSCA(t, err)
	return b.sca(t, sca.Redirect.Href, customer, opts...).PSU(psuIP)
}

// register runs the PISP-only registration (GET /v1/users and its SCA).
func (b *bank) register(t *testing.T, customer string, opts ...xs2atest.SCAOption) xs2a.PSU {
	t.Helper()
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	links, resp, err := b.c.Users.Register(context.Background(), psu)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	return b.sca(t, links.Links.SCARedirect.Href, customer, opts...).PSU(psuIP)
}

// account returns the sandbox account of customer at index i.
func (b *bank) account(t *testing.T, customer string, i int) xs2atest.Account {
	t.Helper()
	c, ok := b.Customer(customer)
	require.True(t, ok)
	require.Greater(t, len(c.Accounts), i)
	return c.Accounts[i]
}

// answer is a raw answer of the bank.
type answer struct {
	Status      int
	TPPMessages []xs2a.TPPMessage    `json:"tppMessages"`
	Links       map[string]xs2a.Link `json:"_links"`
	Body        map[string]any       `json:"-"`
}

// raw sends a request that the SDK would refuse to build, signed by the
// SDK's own Transport with the suite's TPP identity: so the bank's answer to
// input the SDK validates away can be seen. hdr holds name, value pairs.
func (b *bank) raw(t *testing.T, method, path string, body any, hdr ...string) answer {
	t.Helper()
	hc := &http.Client{Transport: &xs2a.Transport{Base: b.HTTPClient().Transport, Signer: signer(t),
		RedirectURI: xs2atest.DefaultRedirectURI, Now: b.clock.Now}}
	return doRaw(t, hc, method, b.URL()+path, body, hdr...)
}

func doRaw(t *testing.T, hc *http.Client, method, url string, body any, hdr ...string) answer {
	t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		j, err := json.Marshal(v)
		require.NoError(t, err)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{Status: resp.StatusCode}
	_ = json.Unmarshal(data, &a)
	_ = json.Unmarshal(data, &a.Body)
	return a
}

// code is the first tppMessage's code.
func (a answer) code() string {
	if len(a.TPPMessages) == 0 {
		return ""
	}
	return a.TPPMessages[0].Code
}

// requireSCA asserts a *SCARequiredError and returns it.
func requireSCA(t *testing.T, err error) *xs2a.SCARequiredError {
	t.Helper()
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	require.ErrorIs(t, err, xs2a.ErrSCARequired)
	require.NotEmpty(t, sca.Redirect.Href)
	return sca
}

// requireBankError asserts the bank's *Error with this status and code.
func requireBankError(t *testing.T, err error, status int, code string) *xs2a.Error {
	t.Helper()
	var e *xs2a.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, status, e.StatusCode, "%v", err)
	require.Equal(t, code, e.Code, "%v", err)
	return e
}

// requireInvalid asserts a *ValidationError naming field.
func requireInvalid(t *testing.T, err error, field string) *xs2a.ValidationError {
	t.Helper()
	var ve *xs2a.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, field, ve.Field, "%v", err)
	return ve
}

// nok is an amount in NOK.
func nok(t *testing.T, amount string) xs2a.Amount {
	t.Helper()
	a, err := xs2a.ParseAmount("NOK", amount)
	require.NoError(t, err)
	return a
}

// payment pays amount from debtor (a BBAN; "" lets the PSU choose) to
// CorporateCustomer1's first account.
func (b *bank) payment(t *testing.T, amount, debtor string) *xs2a.Payment {
	t.Helper()
	p := &xs2a.Payment{
		InstructedAmount:                  nok(t, amount),
		CreditorAccount:                   xs2a.AccountReference{BBAN: b.account(t, xs2atest.CorporateCustomer1, 0).BBAN},
		CreditorName:                      "Nordlys Bygg AS",
		RemittanceInformationUnstructured: "Husleie mars",
	}
	if debtor != "" {
		p.DebtorAccount = &xs2a.AccountReference{BBAN: debtor, Currency: "NOK"}
	}
	return p
}

// authorise starts the authorisation of an initiation and signs it as
// customer; it returns the callback.
func (b *bank) authorise(t *testing.T, psu xs2a.PSU, ini *xs2a.Initiation, customer string, opts ...xs2atest.SCAOption) *xs2a.Callback {
	t.Helper()
	links, resp, err := b.c.Payments.StartAuthorisation(context.Background(), psu, ini.Links.StartAuthorisation)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	return b.sca(t, links.Links.SCARedirect.Href, customer, opts...)
}

// status reads a payment's status once.
func (b *bank) status(t *testing.T, psu xs2a.PSU, ini *xs2a.Initiation) *xs2a.PaymentStatus {
	t.Helper()
	st, _, err := b.c.Payments.Status(context.Background(), psu, ini.Links.Status)
	require.NoError(t, err)
	return st
}

// fastPoll polls every millisecond, at most 10 times.
func fastPoll(onStatus func(*xs2a.PaymentStatus)) *xs2a.PollOptions {
	return &xs2a.PollOptions{MinDelay: time.Millisecond, MaxDelay: time.Millisecond, Backoff: 1, MaxAttempts: 10, OnStatus: onStatus}
}

// settlePoll is fastPoll until the payment settles (UntilSettled), running
// the bank's batch when a read shows it signed and waiting (PDNG, or ACWC
// with a moved date) as the platform executes it at its next run.
func settlePoll(b *bank, onStatus func(*xs2a.PaymentStatus)) *xs2a.PollOptions {
	o := fastPoll(func(s *xs2a.PaymentStatus) {
		if onStatus != nil {
			onStatus(s)
		}
		if s.TransactionStatus == xs2a.TransactionStatusPDNG || s.TransactionStatus == xs2a.TransactionStatusACWC {
			b.RunBatch()
		}
	})
	o.UntilSettled = true
	return o
}

// The sandbox's mock-data operations through SandboxService, and the
// account and payment operations on the data they create.
func TestSandboxService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	today := xs2a.DateOf(b.clock.Now().In(oslo))

	customers, _, err := b.c.Sandbox.Customers(ctx, &xs2a.CustomersOptions{IncludeAccounts: true, IncludeAgreements: true})
	require.NoError(t, err)
	require.Len(t, customers, 4)
	for i, want := range []struct {
		number   string
		kind     xs2a.CustomerType
		accounts int
	}{
		{xs2a.SandboxPrivateCustomer1, xs2a.CustomerPrivate, 3}, {xs2a.SandboxPrivateCustomer2, xs2a.CustomerPrivate, 3},
		{xs2a.SandboxCorporateCustomer1, xs2a.CustomerCorporate, 2}, {xs2a.SandboxCorporateCustomer2, xs2a.CustomerCorporate, 2},
	} {
		assert.Equal(t, want.number, customers[i].CustomerNumber)
		assert.Equal(t, want.kind, customers[i].CustomerType)
		assert.Len(t, customers[i].Accounts, want.accounts)
		assert.Equal(t, want.kind == xs2a.CustomerCorporate, len(customers[i].Agreements) > 0)
	}
	assert.True(t, customers[0].Accounts[2].Card, "a supplementary card account")
	bare, _, err := b.c.Sandbox.Customers(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, bare[0].Accounts)

	per, _, err := b.c.Sandbox.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01017012345", CustomerType: xs2a.CustomerPrivate, Name: "Per Test"})
	require.NoError(t, err)
	assert.Equal(t, "Per Test", per.Name)
	account, _, err := b.c.Sandbox.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: per.CustomerNumber, Currency: "NOK", Name: "Lønnskonto", Balance: "1000.00"})
	require.NoError(t, err)
	assert.NotEmpty(t, account.ResourceID)
	assert.True(t, xs2a.ValidBBAN(account.BBAN), "the sandbox picks a valid account number")
	tx, _, err := b.c.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{
		TransactionAmount: nok(t, "-250.00"), BookingDate: today.AddDays(-2), CreditorName: "Kiwi Majorstuen",
		RemittanceInformationUnstructured: "Varekjøp", ProprietaryBankTransactionCode: xs2a.TransactionCode{Value: "Varekjøp", Code: "VARER"}})
	require.NoError(t, err)
	assert.NotEmpty(t, tx.TransactionID)
	_, _, err = b.c.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{
		TransactionAmount: nok(t, "-50.00"), CreditorName: "Ruter AS", Pending: true})
	require.NoError(t, err)
	_, _, err = b.c.Sandbox.CreateTransaction(ctx, account.ResourceID, &xs2a.SandboxTransaction{TransactionAmount: nok(t, "-10.00"),
		DebtorAccount: &xs2a.AccountReference{BBAN: b.account(t, xs2atest.PrivateCustomer1, 0).BBAN}})
	requireBankError(t, err, http.StatusBadRequest, xs2a.CodeFormatError) // another account as debtor
	assert.Equal(t, "750.00", b.Balance(account.ResourceID), "the booked transaction moved the balance")
	_, err = b.c.Sandbox.SetBalance(ctx, account.ResourceID, &xs2a.SandboxBalance{BalanceAmount: nok(t, "5000.00")})
	require.NoError(t, err)

	// the account operations work on the new data
	psu := b.signIn(t, per.CustomerNumber)
	accounts, _, err := b.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	require.Equal(t, []string{account.ResourceID}, resourceIDs(accounts))
	bal, _, err := b.c.Accounts.Balances(ctx, psu, account.ResourceID)
	require.NoError(t, err)
	closing, _ := bal.Find(xs2a.BalanceClosingBooked)
	assert.Equal(t, "5000.00", closing.BalanceAmount.Amount)
	page, _, err := b.c.Accounts.TransactionsPage(ctx, psu, account.ResourceID, &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBoth})
	require.NoError(t, err)
	require.Len(t, page.Transactions.Booked, 1)
	require.Len(t, page.Transactions.Pending, 1)
	assert.Equal(t, tx.TransactionID, page.Transactions.Booked[0].TransactionID)
	assert.Equal(t, today.AddDays(-2), page.Transactions.Booked[0].BookingDate)
	assert.Equal(t, "Varekjøp", page.Transactions.Booked[0].RemittanceInformationUnstructured)
	assert.Equal(t, xs2a.TransactionCode{Value: "Varekjøp", Code: "VARER"}, page.Transactions.Booked[0].ProprietaryBankTransactionCode,
		"a transaction code with value and code (docs/interface.md, sandbox)")

	// and the payment operations
	ini, _, err := b.c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "100.00", account.BBAN), nil)
	require.NoError(t, err)
	b.authorise(t, psu, ini, per.CustomerNumber)
	b.RunBatch()
	assert.Equal(t, xs2a.TransactionStatusACSC, b.status(t, psu, ini).TransactionStatus)
	assert.Equal(t, "4900.00", b.Balance(account.ResourceID))

	// Initialize removes what was created
	_, err = b.c.Sandbox.Initialize(ctx)
	require.NoError(t, err)
	customers, _, err = b.c.Sandbox.Customers(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, customers, 4)
	_, ok := b.Customer(per.CustomerNumber)
	assert.False(t, ok)
}

// TPPService: the optional contact e-mail (release 1.18.0).
func TestTPPService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	const tppID = "NO-FSA-987654321"

	email, _, err := b.c.TPP.ContactEmail(ctx, tppID)
	require.ErrorIs(t, err, xs2a.ErrNotFound, "registration is optional")
	assert.Empty(t, email)
	for _, addr := range []string{"psd2-drift@tpp.example", "psd2-ops@tpp.example"} {
		_, err = b.c.TPP.SetContactEmail(ctx, tppID, addr)
		require.NoError(t, err)
		email, _, err = b.c.TPP.ContactEmail(ctx, tppID)
		require.NoError(t, err)
		assert.Equal(t, addr, email)
	}
	mark := b.rec.len()
	_, err = b.c.TPP.SetContactEmail(ctx, tppID, "Drift <drift@tpp.example>")
	var ve *xs2a.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, mark, b.rec.len(), "nothing sent")
	a := b.raw(t, "PUT", "/v1/tpps/"+tppID+"/contact-information", map[string]string{"email": "Drift <drift@tpp.example>"})
	assert.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, xs2a.CodeFormatError, a.code())
}
