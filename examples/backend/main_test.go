package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// clock is the fake clock of the bank, the client and the session manager.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// lockedBuffer holds the backend's log, written from its handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// afterPOST calls hook after each POST the client sends, once answered.
type afterPOST struct {
	base http.RoundTripper
	hook func(path string)
}

func (a *afterPOST) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(r)
	if r.Method == http.MethodPost && a.hook != nil {
		a.hook(r.URL.Path)
	}
	return resp, err
}

// env is the backend on loopback, the fake bank, and everything the
// backend answered or logged.
type env struct {
	t       *testing.T
	bank    *xs2atest.Server
	clock   *clock
	b       *backend
	store   *memStore
	site    *httptest.Server
	hooks   *afterPOST
	log     lockedBuffer
	answers bytes.Buffer // every error body
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, clock: &clock{t: time.Date(2026, 3, 10, 1, 0, 0, 0, time.UTC)}}
	e.bank = xs2atest.NewServer(t, xs2atest.WithClock(e.clock.Now))
	e.site = httptest.NewServer(nil)
	t.Cleanup(e.site.Close)
	hc := e.bank.HTTPClient()
	e.hooks = &afterPOST{base: hc.Transport}
	hc.Transport = e.hooks
	client, err := e.bank.Client(nil, xs2a.WithHTTPClient(hc), xs2a.WithRedirectURI(e.site.URL+"/xs2a/callback"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	e.store = newMemStore()
	log := slog.New(slog.NewTextHandler(&e.log, nil))
	e.b = &backend{client: client, sessions: xs2a.NewSessionManager(nil, e.clock.Now), store: e.store, log: log}
	e.site.Config.Handler = e.b.Handler()
	t.Cleanup(e.checkNothingIdentifying)
	return e
}

// do sends the frontend's request as user and decodes the JSON answer.
func (e *env) do(method, target, user string, body any) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	if !strings.HasPrefix(target, "http") {
		target = e.site.URL + target
	}
	req, _ := http.NewRequest(method, target, rd)
	if user != "" {
		req.AddCookie(&http.Cookie{Name: userCookie, Value: user})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 400 {
		e.answers.Write(raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatalf("%s %s: %d %q is no JSON object", method, target, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// sca plays the customer at the bank and returns the callback URL.
func (e *env) sca(href string, opts ...xs2atest.SCAOption) string {
	e.t.Helper()
	u, err := e.bank.CompleteSCA(context.Background(), href, xs2atest.PrivateCustomer1, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.String()
}

// connect runs alice's first visit: the bank's link, SCA, the callback, the accounts.
func (e *env) connect() []any {
	e.t.Helper()
	status, ans := e.do("POST", "/connect", "alice", nil)
	if status != 200 || ans["redirect"] == nil {
		e.t.Fatalf("connect: %d %v, want the bank's link", status, ans)
	}
	if status, ans = e.do("GET", e.sca(ans["redirect"].(string)), "alice", nil); status != 200 || ans["user"] != "alice" {
		e.t.Fatalf("callback: %d %v", status, ans)
	}
	status, ans = e.do("POST", "/connect", "alice", nil)
	accounts, _ := ans["accounts"].([]any)
	if status != 200 || len(accounts) == 0 {
		e.t.Fatalf("connect after SCA: %d %v", status, ans)
	}
	return accounts
}

// checkNothingIdentifying: no psu-id or account number in a log line or an error body.
func (e *env) checkNothingIdentifying() {
	u, _ := e.store.User(context.Background(), "alice")
	secrets := []string{}
	if u.PSUID != "" {
		secrets = append(secrets, u.PSUID)
	}
	for _, c := range e.bank.Customers() {
		for _, a := range c.Accounts {
			if a.BBAN != "" {
				secrets = append(secrets, a.BBAN)
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(e.log.String(), s) || strings.Contains(e.answers.String(), s) {
			e.t.Errorf("%q appears in the backend's log or an error body", s)
		}
	}
}

// pay asks the backend to pay 125.50 from alice's first account to her second.
func (e *env) pay(accounts []any) (int, map[string]any) {
	from, to := accounts[0].(map[string]any)["bban"], accounts[1].(map[string]any)["bban"]
	return e.do("POST", "/payments", "alice", map[string]any{"from": from, "to": to, "creditor": "Alice Savings",
		"amount": "125.50", "currency": "NOK"})
}

func TestConnectAccountsAndPay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	accounts := e.connect()
	status, ans := e.do("GET", "/accounts", "alice", nil)
	list, _ := ans["accounts"].([]any)
	if status != 200 || len(list) != len(accounts) || list[0].(map[string]any)["balances"] == nil {
		t.Fatalf("accounts: %d %v, want the accounts with balances, no SCA", status, ans)
	}
	status, ans = e.pay(accounts)
	if status != http.StatusCreated {
		t.Fatalf("payment: %d %v", status, ans)
	}
	id := ans["payment"].(string)
	if _, st := e.do("GET", "/payments/"+id, "alice", nil); st["outcome"] != string(xs2a.OutcomeWaitingForSignature) {
		t.Errorf("before SCA: %v", st)
	}
	if _, cb := e.do("GET", e.sca(ans["redirect"].(string)), "alice", nil); cb["purpose"] != "payment:"+id {
		t.Errorf("payment callback: %v", cb)
	}
	if _, st := e.do("GET", "/payments/"+id, "alice", nil); st["outcome"] != string(xs2a.OutcomeAccepted) {
		t.Errorf("after SCA: %v, want accepted", st)
	}
	if status, _ := e.do("GET", "/payments/"+id, "bob", nil); status != http.StatusNotFound {
		t.Errorf("bob reads alice's payment: %d, want 404", status)
	}
}

// TestStartAuthorisationAnswerLost drops the answer to the first
// startAuthorisation (the bank acts on it): the backend sends it again, and
// the payment goes through the second SCA.
func TestStartAuthorisationAnswerLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	accounts := e.connect()
	e.hooks.hook = func(path string) {
		if strings.HasSuffix(path, "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers) { // after Initiate
			e.bank.AddFault(xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1})
		}
	}
	status, ans := e.pay(accounts)
	if status != http.StatusCreated {
		t.Fatalf("payment: %d %v", status, ans)
	}
	var dropped, authorisations int
	for _, r := range e.bank.Requests() {
		if strings.HasSuffix(r.Path, "/authorisations") {
			authorisations++
			if r.Dropped {
				dropped++
			}
		}
	}
	if dropped != 1 || authorisations != 2 || e.bank.PaymentCount() != 1 {
		t.Fatalf("%d authorisations (%d dropped), %d payments: want 2 (1), 1", authorisations, dropped,
			e.bank.PaymentCount())
	}
	id := ans["payment"].(string)
	e.do("GET", e.sca(ans["redirect"].(string)), "alice", nil)
	if _, st := e.do("GET", "/payments/"+id, "alice", nil); st["outcome"] != string(xs2a.OutcomeAccepted) {
		t.Errorf("after SCA: %v, want accepted", st)
	}
}

// TestPaymentAnswerLost drops Initiate's answer: the attempt stored before
// it is marked unknown with the request id, and nothing is sent again.
func TestPaymentAnswerLost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	accounts := e.connect()
	e.bank.AddFault(xs2atest.Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1})
	status, ans := e.pay(accounts)
	if status != http.StatusBadGateway || ans["error"] != "outcome_unknown" || ans["request_id"] == "" {
		t.Fatalf("payment: %d %v, want outcome_unknown with the request id", status, ans)
	}
	if n := e.bank.RequestCount("POST", "/v1/payments/"); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	for _, a := range e.store.attempts {
		if a.State != "unknown" || a.RequestID != ans["request_id"] {
			t.Errorf("attempt %+v, want unknown with the request id", a)
		}
	}
}

func TestPaymentAmountRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	accounts := e.connect()
	from := accounts[0].(map[string]any)["bban"]
	status, ans := e.do("POST", "/payments", "alice", map[string]any{"from": from, "to": from, "creditor": "X",
		"amount": "12,50", "currency": "NOK"})
	if status != http.StatusBadRequest || ans["field"] != "Amount.Amount" || ans["request_id"] != nil {
		t.Errorf("payment: %d %v, want 400 naming Amount.Amount", status, ans)
	}
	if n := e.bank.RequestCount("POST", "/v1/payments/"); n != 0 {
		t.Errorf("%d payments sent, want none", n)
	}
}

// TestNightlySync: without the customer, at most 3 of the 4 daily calls per
// account, and the next day it goes on.
func TestNightlySync(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	accounts := e.connect()
	s := &syncer{client: e.b.client, store: e.store, log: e.b.log, pageSize: 499}
	before := e.bank.RequestCount("GET", "/v1/accounts/")
	for range 4 {
		if err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.bank.RequestCount("GET", "/v1/accounts/") - before; n != 3*len(accounts) {
		t.Fatalf("4 runs made %d calls, want 3 per account (%d)", n, 3*len(accounts))
	}
	e.clock.Advance(24 * time.Hour)
	before = e.bank.RequestCount("GET", "/v1/accounts/")
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.bank.RequestCount("GET", "/v1/accounts/") - before; n != len(accounts) {
		t.Fatalf("the next day's run made %d calls, want 1 per account", n)
	}
	e.store.mu.Lock()
	defer e.store.mu.Unlock()
	if len(e.store.txs) == 0 {
		t.Error("no transactions stored")
	}
}

// TestSyncStopsMidWalk pages one entry at a time: the walk stops after 3
// calls with the offset stored, and the next day goes on from it.
func TestSyncStopsMidWalk(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.connect()
	u, _ := e.store.User(context.Background(), "alice")
	u.Accounts = u.Accounts[:1]
	e.store.UpdateUser(context.Background(), "alice", func(x *User) { *x = u })
	s := &syncer{client: e.b.client, store: e.store, log: e.b.log, pageSize: 1}
	before := e.bank.RequestCount("GET", "/v1/accounts/")
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := e.store.User(context.Background(), "alice")
	mark := after.Synced[u.Accounts[0]]
	if n := e.bank.RequestCount("GET", "/v1/accounts/") - before; n != 3 || mark.Offset != 3 {
		t.Fatalf("%d calls, offset %d: want 3 and 3", n, mark.Offset)
	}
	e.clock.Advance(24 * time.Hour)
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ = e.store.User(context.Background(), "alice")
	if next := after.Synced[u.Accounts[0]]; next.Offset <= 3 && next.Offset != 0 {
		t.Errorf("the next day's walk did not go on: %+v", next)
	}
	if r := e.bank.Requests(); !strings.Contains(r[len(r)-1].Path, "/transactions") {
		t.Errorf("last request %s", r[len(r)-1].Path)
	}
}

func TestSyncConsentRevoked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.connect()
	e.bank.RevokeConsent(xs2atest.PrivateCustomer1)
	s := &syncer{client: e.b.client, store: e.store, log: e.b.log, pageSize: 499}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u, _ := e.store.User(context.Background(), "alice"); !u.NeedsConsent {
		t.Error("a revoked consent must mark the user for a new one")
	}
}

// TestFailedSCA: a cancelled SCA's callback carries no tpp-session-id, and
// still resolves to the user and purpose; nothing is stored.
func TestFailedSCA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, ans := e.do("POST", "/connect", "alice", nil)
	status, cb := e.do("GET", e.sca(ans["redirect"].(string), xs2atest.Cancel()), "", nil)
	if status != http.StatusForbidden || cb["error"] != "sca_failed" {
		t.Errorf("failed SCA: %d %v, want 403 sca_failed", status, cb)
	}
	if !strings.Contains(e.log.String(), "user=alice purpose=accounts code=sca_failed") {
		t.Errorf("the failed SCA is not logged as alice's accounts:\n%s", e.log.String())
	}
	if u, _ := e.store.User(context.Background(), "alice"); u.PSUID != "" {
		t.Error("a psu-id stored after a failed SCA")
	}
}

func TestCallbackRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		user   string // the browser's login cookie
		replay bool
		want   int
	}{
		{"in bob's browser", "bob", false, http.StatusForbidden},
		{"replayed", "alice", true, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			_, ans := e.do("POST", "/connect", "alice", nil)
			callback := e.sca(ans["redirect"].(string))
			if tt.replay {
				e.do("GET", callback, "alice", nil)
			}
			if status, _ := e.do("GET", callback, tt.user, nil); status != tt.want {
				t.Errorf("callback: %d, want %d", status, tt.want)
			}
			if u, _ := e.store.User(context.Background(), "bob"); u.PSUID != "" {
				t.Error("alice's psu-id stored for bob")
			}
		})
	}
}

func TestRun(t *testing.T) {
	if err := run(context.Background(), []string{"-no-such-flag"}, io.Discard); err == nil {
		t.Error("run accepted an unknown flag")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, []string{"-addr", "127.0.0.1:0"}, io.Discard); err != nil {
		t.Errorf("run: %v", err)
	}
}
