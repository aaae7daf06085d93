package xs2aotel_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2aotel"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestSpanOfACall: a call is one client span "xs2a <operation>", a child of
// the caller's span, with the HTTP client attributes, the operation and the
// attempts, unset status on success and one event for its one attempt; the
// duration and attempts metrics carry the call's attributes.
func TestSpanOfACall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	psu := f.signIn(t, xs2atest.PrivateCustomer1)
	account := f.account(t, xs2atest.PrivateCustomer1, 0).ResourceID

	ctx, parent := f.tp.Tracer("caller").Start(context.Background(), "handler")
	_, _, err := f.c.Accounts.Balances(ctx, psu, account)
	parent.End()
	require.NoError(t, err)

	base, err := url.Parse(f.bank.URL())
	require.NoError(t, err)
	port, err := strconv.Atoi(base.Port())
	require.NoError(t, err)
	s := f.last(t, "xs2a accounts.balances")
	assert.Equal(t, trace.SpanKindClient, s.SpanKind())
	assert.Equal(t, parent.SpanContext().SpanID(), s.Parent().SpanID())
	assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID())
	assert.Equal(t, "github.com/tppkit/xs2a/xs2aotel", s.InstrumentationScope().Name)
	assert.Equal(t, xs2a.Version, s.InstrumentationScope().Version)
	assert.Equal(t, map[string]any{
		"http.request.method":       "GET",
		"server.address":            base.Hostname(),
		"server.port":               int64(port),
		"url.template":              "/v1/accounts/{id}/balances",
		"xs2a.operation":            "accounts.balances",
		"xs2a.attempts":             int64(1),
		"http.response.status_code": int64(200),
	}, attrs(s.Attributes()), "the PSU is present: no budget")
	assert.Equal(t, codes.Unset, s.Status().Code)
	assert.Empty(t, s.Status().Description)
	require.Len(t, s.Events(), 1)
	assert.Equal(t, "xs2a.attempt", s.Events()[0].Name)
	assert.Equal(t, map[string]any{"xs2a.attempt": int64(1), "http.response.status_code": int64(200)}, attrs(s.Events()[0].Attributes))

	m := f.metrics(t)
	hist := m["xs2a.client.call.duration"].(metricdata.Histogram[float64])
	var found bool
	for _, dp := range hist.DataPoints {
		if v, _ := dp.Attributes.Value("xs2a.operation"); v.AsString() == "accounts.balances" {
			found = true
			assert.Equal(t, map[string]any{"xs2a.operation": "accounts.balances", "http.request.method": "GET",
				"url.template": "/v1/accounts/{id}/balances", "outcome": "ok", "server.address": base.Hostname()},
				attrs(dp.Attributes.ToSlice()))
			assert.Equal(t, uint64(1), dp.Count)
		}
	}
	assert.True(t, found)
	assert.Equal(t, int64(1), sumOf(t, m["xs2a.client.call.attempts"], "xs2a.operation", "accounts.balances"))
	assert.Equal(t, int64(1), sumOf(t, m["xs2a.client.call.attempts"], "xs2a.operation", "accounts.list"), "the SCA answer")
	assert.NotContains(t, m, "xs2a.client.budget.refusals", "nothing refused")
}

// TestSpanSCARequired: a call the bank answers with an SCA redirect ends
// with an error status whose description is the error type only, and
// error.type "sca_required" on the span, its attempt and the duration's
// outcome.
func TestSpanSCARequired(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	_, _, err := f.c.Accounts.List(context.Background(), xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
	require.ErrorIs(t, err, xs2a.ErrSCARequired)

	s := f.last(t, "xs2a accounts.list")
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Equal(t, "sca_required", s.Status().Description)
	a := attrs(s.Attributes())
	assert.Equal(t, "sca_required", a["error.type"])
	assert.Equal(t, int64(401), a["http.response.status_code"])
	assert.Equal(t, "/v1/accounts", a["url.template"])
	require.Len(t, s.Events(), 1)
	assert.Equal(t, map[string]any{"xs2a.attempt": int64(1), "http.response.status_code": int64(401), "error.type": "sca_required"},
		attrs(s.Events()[0].Attributes))
	assert.Equal(t, int64(1), histCount(t, f.metrics(t)["xs2a.client.call.duration"], "outcome", "sca_required"))
}

// TestSpanRetried503: a GET answered 503 and retried is one span with two
// attempt events, the first with its status and error type; two attempts
// are counted.
func TestSpanRetried503(t *testing.T) {
	t.Parallel()
	f := newFixture(t, []xs2atest.Option{xs2atest.WithFaults(
		xs2atest.Fault{Method: "GET", Path: "/v1/accounts/", Status: http.StatusServiceUnavailable, Times: 1})}, nil, noWait)
	psu := f.signIn(t, xs2atest.PrivateCustomer1)
	_, resp, err := f.c.Accounts.Balances(context.Background(), psu, f.account(t, xs2atest.PrivateCustomer1, 0).ResourceID)
	require.NoError(t, err)
	require.Equal(t, 2, resp.Attempts)

	s := f.last(t, "xs2a accounts.balances")
	assert.Equal(t, codes.Unset, s.Status().Code)
	assert.Equal(t, int64(2), attrs(s.Attributes())["xs2a.attempts"])
	assert.NotContains(t, attrs(s.Attributes()), "error.type")
	require.Len(t, s.Events(), 2)
	assert.Equal(t, map[string]any{"xs2a.attempt": int64(1), "http.response.status_code": int64(503), "error.type": "503"},
		attrs(s.Events()[0].Attributes))
	assert.Equal(t, map[string]any{"xs2a.attempt": int64(2), "http.response.status_code": int64(200)},
		attrs(s.Events()[1].Attributes))
	assert.Equal(t, int64(2), sumOf(t, f.metrics(t)["xs2a.client.call.attempts"], "xs2a.operation", "accounts.balances"))
}

// TestSpanBudget: a counted call (PSU not present) names its budget
// endpoint; the fifth in the
// window is refused before sending: an error span with no attempt, and the
// refusals counter goes to 1.
func TestSpanBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, nil)
	psu := f.signIn(t, xs2atest.PrivateCustomer1)
	psu.IPAddress = ""
	account := f.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	ctx := context.Background()
	var reset any
	for i := range xs2a.AccessLimit {
		_, resp, err := f.c.Accounts.Balances(ctx, psu, account)
		require.NoError(t, err)
		a := attrs(f.last(t, "xs2a accounts.balances").Attributes())
		assert.Equal(t, "balances", a["xs2a.budget.endpoint"], i)
		assert.Equal(t, int64(xs2a.AccessLimit-1-i), a["xs2a.budget.remaining"], i)
		require.NotNil(t, resp.Budget)
		assert.Equal(t, resp.Budget.Reset.UTC().Format(time.RFC3339), a["xs2a.budget.reset"], i)
		if i == 0 {
			reset = a["xs2a.budget.reset"]
		}
		assert.Equal(t, reset, a["xs2a.budget.reset"], "the first call leaves the window first")
	}
	assert.NotContains(t, f.metrics(t), "xs2a.client.budget.refusals")

	_, _, err := f.c.Accounts.Balances(ctx, psu, account)
	require.ErrorIs(t, err, xs2a.ErrAccessExceeded)
	s := f.last(t, "xs2a accounts.balances")
	assert.Equal(t, codes.Error, s.Status().Code)
	assert.Equal(t, "budget_exceeded", s.Status().Description)
	a := attrs(s.Attributes())
	assert.Equal(t, "budget_exceeded", a["error.type"])
	assert.Equal(t, int64(0), a["xs2a.attempts"])
	assert.Equal(t, "balances", a["xs2a.budget.endpoint"])
	assert.NotContains(t, a, "http.response.status_code")
	assert.Empty(t, s.Events(), "nothing sent")
	m := f.metrics(t)
	assert.Equal(t, int64(1), sumOf(t, m["xs2a.client.budget.refusals"], "xs2a.budget.endpoint", "balances"))
	assert.Equal(t, int64(xs2a.AccessLimit), sumOf(t, m["xs2a.client.call.attempts"], "xs2a.operation", "accounts.balances"))
	assert.Equal(t, int64(1), histCount(t, m["xs2a.client.call.duration"], "outcome", "budget_exceeded"))
}

// TestTraceHeaders: by default no trace header reaches the bank, whatever
// the caller's context holds; with WithPropagators(TraceContext) every
// attempt carries a traceparent naming the call's span in the caller's
// trace, and the SDK's own headers stay as they were.
func TestTraceHeaders(t *testing.T) {
	t.Parallel()
	faults := []xs2atest.Option{xs2atest.WithFaults(
		xs2atest.Fault{Method: "GET", Path: "/v1/accounts/", Status: http.StatusServiceUnavailable, Times: 1})}
	for _, c := range []struct {
		name string
		opts []xs2aotel.Option
		sent bool
	}{
		{"default", nil, false},
		{"nil propagator", []xs2aotel.Option{xs2aotel.WithPropagators(nil)}, false},
		{"TraceContext", []xs2aotel.Option{xs2aotel.WithPropagators(propagation.TraceContext{})}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, faults, c.opts, noWait)
			psu := f.signIn(t, xs2atest.PrivateCustomer1)
			ctx, parent := f.tp.Tracer("caller").Start(context.Background(), "handler")
			defer parent.End()
			_, resp, err := f.c.Accounts.Balances(ctx, psu, f.account(t, xs2atest.PrivateCustomer1, 0).ResourceID)
			require.NoError(t, err)
			require.Equal(t, 2, resp.Attempts)
			s := f.last(t, "xs2a accounts.balances")

			var balances []loggedRequest
			for _, r := range f.log.all() {
				if strings.HasSuffix(r.Path, "/balances") {
					balances = append(balances, r)
				}
			}
			require.Len(t, balances, 2)
			for _, r := range f.log.all() {
				for k := range r.Header {
					if !c.sent {
						assert.NotContains(t, []string{"Traceparent", "Tracestate", "Baggage"}, k, "%s %s", r.Method, r.Path)
					}
				}
			}
			if !c.sent {
				return
			}
			want := "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"
			for _, r := range balances {
				assert.Equal(t, want, r.Header.Get("Traceparent"), "every attempt")
				assert.NotEmpty(t, r.Header.Get("Signature"))
				assert.NotContains(t, r.Header.Get("Signature"), "traceparent", "not signed: a header of the call's own")
			}
			assert.Equal(t, parent.SpanContext().TraceID(), s.SpanContext().TraceID())
		})
	}
}

// sumOf is the value of the Int64 sum's data point whose attribute key is
// value (0 when none).
func sumOf(t *testing.T, agg metricdata.Aggregation, key, value string) int64 {
	t.Helper()
	sum, ok := agg.(metricdata.Sum[int64])
	require.True(t, ok, "%T", agg)
	assert.True(t, sum.IsMonotonic)
	for _, dp := range sum.DataPoints {
		if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value {
			return dp.Value
		}
	}
	return 0
}

// histCount is the count of the histogram's data points whose attribute
// key is value.
func histCount(t *testing.T, agg metricdata.Aggregation, key, value string) int64 {
	t.Helper()
	hist, ok := agg.(metricdata.Histogram[float64])
	require.True(t, ok, "%T", agg)
	var n int64
	for _, dp := range hist.DataPoints {
		if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value {
			n += int64(dp.Count)
		}
	}
	return n
}

// TestSpanBudgetStatus: the budget after a counted call (CallEnd.Budget)
// shows as the calls remaining and, as a timestamp, when the next frees up;
// a call without one carries neither.
func TestSpanBudgetStatus(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewSpanRecorder()
	obs := xs2aotel.NewObserver(xs2aotel.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		xs2aotel.WithMeterProvider(metricnoop.NewMeterProvider()))
	reset := time.Date(2025, 3, 15, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		budget *xs2a.BudgetStatus
		want   map[string]any
	}{
		{&xs2a.BudgetStatus{Endpoint: xs2a.BudgetBalances, Limit: 4, Remaining: 3, Reset: reset},
			map[string]any{"xs2a.budget.remaining": int64(3), "xs2a.budget.reset": "2025-03-15T09:00:00Z"}},
		{&xs2a.BudgetStatus{Endpoint: xs2a.BudgetBalances, Limit: 4, Remaining: 0},
			map[string]any{"xs2a.budget.remaining": int64(0)}},
		{nil, map[string]any{}},
	} {
		spans.Reset()
		info := &xs2a.CallInfo{Operation: "accounts.balances", Method: "GET", ServerAddress: "bank.example", ServerPort: 443,
			URLTemplate: "/v1/accounts/{id}/balances"}
		if c.budget != nil {
			info.Budget = c.budget.Endpoint
		}
		ctx := obs.StartCall(context.Background(), info)
		obs.EndCall(ctx, xs2a.CallEnd{Attempts: 1, StatusCode: 200, Budget: c.budget})
		require.Len(t, spans.Ended(), 1)
		got := map[string]any{}
		for k, v := range attrs(spans.Ended()[0].Attributes()) {
			if k == "xs2a.budget.remaining" || k == "xs2a.budget.reset" {
				got[k] = v
			}
		}
		assert.Equal(t, c.want, got)
	}
}
