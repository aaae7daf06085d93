package xs2aotel_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2aotel"
	"github.com/tppkit/xs2a/xs2atest"
)

// failingMeter makes no instrument: each returns nil and an error.
type failingMeter struct{ metricnoop.Meter }

func (failingMeter) Float64Histogram(name string, _ ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return nil, errors.New("no histogram " + name)
}

func (failingMeter) Int64Counter(name string, _ ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return nil, errors.New("no counter " + name)
}

type failingMeterProvider struct{ metricnoop.MeterProvider }

func (failingMeterProvider) Meter(string, ...metric.MeterOption) metric.Meter { return failingMeter{} }

// TestInstrumentErrors: instruments are made once per WithTelemetry, not
// per call; an error making one goes to otel.Handle, and the client still
// works and still records its spans. Not parallel: it sets the global
// error handler.
func TestInstrumentErrors(t *testing.T) {
	var mu sync.Mutex
	var handled []string
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, err.Error())
	}))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })

	f := newFixture(t, nil, []xs2aotel.Option{xs2aotel.WithMeterProvider(failingMeterProvider{})})
	psu := f.signIn(t, xs2atest.PrivateCustomer1)
	psu.IPAddress = ""
	account := f.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	for range xs2a.AccessLimit + 1 {
		_, _, _ = f.c.Accounts.Balances(context.Background(), psu, account)
	}
	_, _, err := f.c.Accounts.Balances(context.Background(), psu, account)
	require.ErrorIs(t, err, xs2a.ErrAccessExceeded)

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"no histogram xs2a.client.call.duration", "no counter xs2a.client.call.attempts",
		"no counter xs2a.client.budget.refusals"}, handled, "once each, however many calls")
	assert.Len(t, f.ended(), 1+xs2a.AccessLimit+2)
	assert.Equal(t, "budget_exceeded", f.last(t, "xs2a accounts.balances").Status().Description)
}
