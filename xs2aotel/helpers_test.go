package xs2aotel_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2aotel"
	"github.com/tppkit/xs2a/xs2atest"
)

const psuIP = "192.0.2.10"

// t0 is the fake bank's clock, which stands still: the tests do not sleep
// and no assertion depends on the wall clock.
var t0 = time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

// noWait retries a GET at once.
var noWait = xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 2, Methods: []string{http.MethodGet}})

// headerLog is the RoundTripper under the SDK's Transport: it keeps the
// header of every request that left the SDK.
type headerLog struct {
	base http.RoundTripper
	mu   sync.Mutex
	reqs []loggedRequest
}

type loggedRequest struct {
	Method, Path string
	Header       http.Header
}

func (l *headerLog) RoundTrip(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, loggedRequest{req.Method, req.URL.Path, req.Header.Clone()})
	l.mu.Unlock()
	return l.base.RoundTrip(req)
}

func (l *headerLog) all() []loggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loggedRequest(nil), l.reqs...)
}

// fixture is a fake bank and an SDK client for it with telemetry into an
// in-memory span recorder and a manual metric reader.
type fixture struct {
	bank   *xs2atest.Server
	log    *headerLog
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	c      *xs2a.Client
}

// newFixture starts a bank with bankOpts; the client has WithTelemetry with
// the fixture's providers and then otelOpts, and clientOpts after that.
func newFixture(t *testing.T, bankOpts []xs2atest.Option, otelOpts []xs2aotel.Option, clientOpts ...xs2a.Option) *fixture {
	t.Helper()
	f := &fixture{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	f.bank = xs2atest.NewServer(t, append([]xs2atest.Option{xs2atest.WithClock(func() time.Time { return t0 })}, bankOpts...)...)
	f.log = &headerLog{base: f.bank.HTTPClient().Transport}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	t.Cleanup(func() {
		_ = f.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel := xs2aotel.WithTelemetry(append([]xs2aotel.Option{xs2aotel.WithTracerProvider(f.tp), xs2aotel.WithMeterProvider(mp)}, otelOpts...)...)
	c, err := f.bank.Client(nil, append([]xs2a.Option{xs2a.WithHTTPClient(&http.Client{Transport: f.log}), tel}, clientOpts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	f.c = c
	return f
}

// signIn runs the account access SCA for customer and returns the PSU,
// present.
func (f *fixture) signIn(t *testing.T, customer string, opts ...xs2atest.SCAOption) xs2a.PSU {
	t.Helper()
	_, _, err := f.c.Accounts.List(context.Background(), xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	return f.callback(t, sca.Redirect.Href, customer, opts...).PSU(psuIP)
}

// register runs the PISP-only registration for customer.
func (f *fixture) register(t *testing.T, customer string) xs2a.PSU {
	t.Helper()
	links, _, err := f.c.Users.Register(context.Background(), xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
	require.NoError(t, err)
	return f.callback(t, links.Links.SCARedirect.Href, customer).PSU(psuIP)
}

func (f *fixture) callback(t *testing.T, href, customer string, opts ...xs2atest.SCAOption) *xs2a.Callback {
	t.Helper()
	u, err := f.bank.CompleteSCA(context.Background(), href, customer, opts...)
	require.NoError(t, err)
	cb, err := xs2a.ParseCallback(u.Query())
	require.NoError(t, err)
	return cb
}

// account is customer's i-th sandbox account.
func (f *fixture) account(t *testing.T, customer string, i int) xs2atest.Account {
	t.Helper()
	c, ok := f.bank.Customer(customer)
	require.True(t, ok)
	require.Greater(t, len(c.Accounts), i)
	return c.Accounts[i]
}

// ended is the spans ended so far.
func (f *fixture) ended() []sdktrace.ReadOnlySpan { return f.spans.Ended() }

// last is the last span ended, named name.
func (f *fixture) last(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := f.ended()
	for i := len(spans) - 1; i >= 0; i-- {
		if spans[i].Name() == name {
			return spans[i]
		}
	}
	require.Failf(t, "no span", "%q", name)
	return nil
}

// metrics collects every metric recorded so far, by name.
func (f *fixture) metrics(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, f.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// attrs is a span's (or event's) attributes as a map.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}
