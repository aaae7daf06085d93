package xs2a_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// recordingObserver keeps what a Client reports; its trace header, when
// set, is added in StartCall, and its forged headers tried too.
type recordingObserver struct {
	mu       sync.Mutex
	calls    []xs2a.CallInfo
	attempts [][]xs2a.AttemptInfo
	ends     []xs2a.CallEnd
	set      [][2]string    // headers StartCall tries to set
	kept     *xs2a.CallInfo // the last CallInfo, to try setting headers after StartCall
	late     bool           // Attempt tries to set X-Late on kept
}

type ctxKey struct{}

func (o *recordingObserver) StartCall(ctx context.Context, call *xs2a.CallInfo) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, kv := range o.set {
		call.SetTraceHeader(kv[0], kv[1])
	}
	o.calls = append(o.calls, *call)
	o.attempts = append(o.attempts, nil)
	o.kept = call
	return context.WithValue(ctx, ctxKey{}, len(o.calls)-1)
}

func (o *recordingObserver) Attempt(ctx context.Context, a xs2a.AttemptInfo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := ctx.Value(ctxKey{}).(int) // the context StartCall returned
	o.attempts[i] = append(o.attempts[i], a)
	if o.late {
		o.kept.SetTraceHeader("X-Late", "1")
	}
}

func (o *recordingObserver) EndCall(ctx context.Context, end xs2a.CallEnd) {
	o.mu.Lock()
	defer o.mu.Unlock()
	_ = ctx.Value(ctxKey{}).(int)
	o.ends = append(o.ends, end)
}

// all is every value reported, printed with %+v and as JSON: what a
// telemetry backend could put in a span or metric.
func (o *recordingObserver) all() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	j, _ := json.Marshal([]any{o.calls, o.attempts, o.ends})
	return fmt.Sprintf("%+v %+v %+v %s", o.calls, o.attempts, o.ends, j)
}

// TestObserverSeesEveryCallAndAttempt: one StartCall and EndCall per call,
// one Attempt per attempt, in the context StartCall returned, with the
// operation, the URL template and the outcome; a retried 503 shows as two
// attempts.
func TestObserverSeesEveryCallAndAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFaults(
		xs2atest.Fault{Method: "GET", Path: "/v1/accounts/", Status: http.StatusServiceUnavailable, Times: 1}))
	obs := &recordingObserver{}
	c := b.client(t, xs2a.WithObserver(obs), xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 2, Methods: []string{http.MethodGet}}))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID

	_, resp, err := c.Accounts.Balances(ctx, psu, account)
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	_, _, err = c.Accounts.List(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}) // no consent
	requireSCA(t, err)

	require.Len(t, obs.calls, 2)
	host := strings.Split(strings.TrimPrefix(b.URL(), "http://"), ":")[0]
	assert.Equal(t, "accounts.balances", obs.calls[0].Operation)
	assert.Equal(t, http.MethodGet, obs.calls[0].Method)
	assert.Equal(t, host, obs.calls[0].ServerAddress)
	assert.NotZero(t, obs.calls[0].ServerPort)
	assert.Equal(t, "/v1/accounts/{id}/balances", obs.calls[0].URLTemplate)
	assert.Equal(t, xs2a.BudgetEndpoint(""), obs.calls[0].Budget, "the PSU is present: not counted")
	require.Len(t, obs.attempts[0], 2)
	assert.Equal(t, xs2a.AttemptInfo{N: 1, StatusCode: 503, ErrorType: "503"}, noDuration(obs.attempts[0][0]))
	assert.Equal(t, xs2a.AttemptInfo{N: 2, StatusCode: 200}, noDuration(obs.attempts[0][1]))
	assert.Equal(t, 2, obs.ends[0].Attempts)
	assert.Equal(t, 200, obs.ends[0].StatusCode)
	assert.Empty(t, obs.ends[0].ErrorType)
	assert.Positive(t, obs.ends[0].Duration)

	assert.Equal(t, "/v1/accounts", obs.calls[1].URLTemplate)
	assert.Equal(t, "sca_required", obs.ends[1].ErrorType)
	assert.Equal(t, 401, obs.ends[1].StatusCode)
}

func noDuration(a xs2a.AttemptInfo) xs2a.AttemptInfo { a.Duration = 0; return a }

// TestObserverSeesNoIdentifiers: whatever a call carries (PSU id,
// corporate id, session id, account and payment ids in paths and links,
// bodies), nothing the observer is handed holds it, for a counted call, a
// payment, a refusal and a raw Client.Do of a path full of ids.
func TestObserverSeesNoIdentifiers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	obs := &recordingObserver{}
	c := b.client(t, xs2a.WithObserver(obs))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	acc := b.account(t, xs2atest.PrivateCustomer1, 0)
	other := b.account(t, xs2atest.PrivateCustomer1, 1)

	_, _, err := c.Accounts.Balances(ctx, psu, acc.ResourceID)
	require.NoError(t, err)
	notPresent := psu
	notPresent.IPAddress = ""
	_, _, err = c.Accounts.Balances(ctx, notPresent, acc.ResourceID)
	require.NoError(t, err)
	_, _, err = c.Accounts.TransactionsPage(ctx, psu, acc.ResourceID, nil)
	require.NoError(t, err)
	pay := b.payment(t, "12.50", acc.BBAN)
	pay.RemittanceInformationUnstructured = "secret remittance text"
	payer := b.register(t, xs2atest.PrivateCustomer1)
	ini, _, err := c.Payments.Initiate(ctx, payer, xs2a.NorwegianDomesticCreditTransfers, pay, nil)
	require.NoError(t, err)
	_, _, err = c.Payments.Status(ctx, payer, ini.Links.Status)
	require.NoError(t, err)
	_, _ = c.Do(ctx, psu, http.MethodGet, "/v1/accounts/"+acc.ResourceID+"/transactions/"+"enc!!tx-secret-1", nil, nil)

	text := obs.all()
	for _, id := range []string{psu.ID, psu.SessionID, payer.ID, payer.SessionID, acc.ResourceID, acc.BBAN, other.ResourceID,
		pay.CreditorAccount.BBAN, ini.PaymentID, "secret remittance", "tx-secret", pay.CreditorName, "12.50", psuIP} {
		require.NotEmpty(t, id)
		assert.NotContains(t, text, id)
		assert.NotContains(t, strings.ToLower(text), strings.ToLower(id))
	}
	assert.Contains(t, text, "/v1/accounts/{id}/transactions/{id}")
	assert.Contains(t, text, "/v1/payments/norwegian-domestic-credit-transfers/{id}/status")
	assert.Contains(t, text, "balances", "the counted call names its budget endpoint")
}

// TestObserverTraceHeaders: nothing is added to the request unless the
// observer asks; what it asks for is sent on every attempt, but only a
// header the request does not carry, a header-safe one, and only while the
// call starts: the SDK's headers (X-Request-ID, PSU-ID, Signature, Digest)
// cannot be changed, in any spelling.
func TestObserverTraceHeaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFaults(xs2atest.Fault{Method: "GET", Path: "/v1/card-accounts", Status: http.StatusServiceUnavailable, Times: 1}))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	obs := &recordingObserver{}
	c := b.client(t, xs2a.WithObserver(obs), xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 2, Methods: []string{http.MethodGet}}))
	mark := b.rec.len()
	_, _, err := c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	sent := b.rec.since(mark, http.MethodGet, "/v1/accounts")
	require.Len(t, sent, 1)
	assert.Empty(t, sent[0].Header.Get("Traceparent"), "no trace header unless asked")

	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	obs.set = [][2]string{{"traceparent", tp}, {"x-request-id", "forged"}, {"PSU-ID", "forged"}, {"signature", "forged"},
		{"DIGEST", "forged"}, {"Tracestate", "a=b\r\nX-Evil: 1"}, {"bad name", "v"}, {"Baggage", strings.Repeat("x", 600)}}
	mark = b.rec.len()
	_, _, err = c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	sent = b.rec.since(mark, http.MethodGet, "/v1/accounts")
	require.Len(t, sent, 1)
	h := sent[0].Header
	assert.Equal(t, tp, h.Get("Traceparent"))
	for _, k := range []string{"X-Request-Id", "Psu-Id", "Signature", "Digest"} {
		assert.NotEqual(t, "forged", h.Get(k), k)
	}
	assert.Empty(t, h.Get("Tracestate"))
	assert.Empty(t, h.Get("Baggage"))
	assert.Empty(t, h.Get("X-Evil"))

	// after StartCall, between two attempts of one call: ignored
	obs.set, obs.late = nil, true
	mark = b.rec.len()
	_, resp, err := c.CardAccounts.List(ctx, psu)
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)
	sent = b.rec.since(mark, http.MethodGet, "/v1/card-accounts")
	require.Len(t, sent, 2)
	assert.Empty(t, sent[1].Header.Get("X-Late"))
}

// TestObserverErrorTypes: a call refused before it is sent (bad input) is no
// call at all; one the budget refuses ends with "budget_exceeded" and no
// attempt.
func TestObserverErrorTypes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	obs := &recordingObserver{}
	c := b.client(t, xs2a.WithObserver(obs))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	psu.IPAddress = ""
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID

	_, _, err := c.Accounts.Balances(ctx, psu, "a/../b")
	require.Error(t, err)
	assert.Empty(t, obs.calls, "refused before it was a call")
	for range xs2a.AccessLimit {
		_, _, err = c.Accounts.Balances(ctx, psu, account)
		require.NoError(t, err)
	}
	_, _, err = c.Accounts.Balances(ctx, psu, account)
	require.ErrorAs(t, err, new(*xs2a.AccessExceededError))
	last := len(obs.ends) - 1
	assert.Equal(t, "budget_exceeded", obs.ends[last].ErrorType)
	assert.Zero(t, obs.ends[last].Attempts)
	assert.Empty(t, obs.attempts[last])
	assert.Equal(t, xs2a.BudgetBalances, obs.calls[last].Budget)
}

// TestErrorTypeNames: each kind of error has its fixed name, whatever it
// wraps; an unknown one is "_OTHER".
func TestErrorTypeNames(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&xs2a.AccessExceededError{Endpoint: xs2a.BudgetBalances}, "budget_exceeded"},
		{fmt.Errorf("wrapped: %w", &xs2a.SCARequiredError{}), "sca_required"},
		{&xs2a.SCARedirectError{}, "sca_redirect_refused"},
		{fmt.Errorf("x: %w", xs2a.ErrOutcomeUnknown), "outcome_unknown"},
		{&xs2a.Error{StatusCode: 404}, "404"},
		{ctx.Err(), "canceled"},
		{context.DeadlineExceeded, "timeout"},
		{&xs2a.ValidationError{Field: "accountID"}, "validation"},
		{&xs2a.TransportError{Err: fmt.Errorf("connection reset")}, "transport"},
		{fmt.Errorf("something else"), "_OTHER"},
	} {
		assert.Equal(t, c.want, xs2a.ErrorType(c.err), "%v", c.err)
	}
	_ = time.Second
}

// nilContextObserver returns a nil context from StartCall, as a careless
// backend might.
type nilContextObserver struct{ ends int }

func (*nilContextObserver) StartCall(context.Context, *xs2a.CallInfo) context.Context { return nil }
func (*nilContextObserver) Attempt(context.Context, xs2a.AttemptInfo)                 {}
func (o *nilContextObserver) EndCall(context.Context, xs2a.CallEnd)                   { o.ends++ }

// TestObserverReturningNilContext: a nil context from StartCall keeps the
// call's own; the call neither panics nor loses its deadline.
func TestObserverReturningNilContext(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	obs := &nilContextObserver{}
	c := b.client(t, xs2a.WithObserver(obs))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	_, _, err := c.Accounts.List(context.Background(), psu)
	require.NoError(t, err)
	assert.Equal(t, 1, obs.ends)
}
