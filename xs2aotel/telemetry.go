package xs2aotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/tppkit/xs2a"
)

// scopeName is the instrumentation scope of the tracer and the meter.
const scopeName = "github.com/tppkit/xs2a/xs2aotel"

// The attributes of the SDK's own, beside the HTTP client semantic
// conventions (semconv v1.43.0).
const (
	operationKey       = attribute.Key("xs2a.operation")        // "accounts.balances"
	attemptsKey        = attribute.Key("xs2a.attempts")         // attempts that may have reached the bank
	attemptKey         = attribute.Key("xs2a.attempt")          // an attempt event's number, from 1
	budgetEndpointKey  = attribute.Key("xs2a.budget.endpoint")  // "balances", a counted call only
	budgetRemainingKey = attribute.Key("xs2a.budget.remaining") // calls left in the window after the call
	budgetResetKey     = attribute.Key("xs2a.budget.reset")     // RFC 3339 UTC: when the next call frees up
	outcomeKey         = attribute.Key("outcome")               // "ok" or the error.type, on the duration metric
)

// The instruments' names.
const (
	callDurationName   = "xs2a.client.call.duration"   // Float64Histogram, s
	callAttemptsName   = "xs2a.client.call.attempts"   // Int64Counter, {attempt}
	budgetRefusalsName = "xs2a.client.budget.refusals" // Int64Counter, {call}
	attemptEventName   = "xs2a.attempt"                // the span event of each attempt
)

// durationBuckets are the HTTP client semantic conventions' boundaries for
// http.client.request.duration, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// Option configures WithTelemetry.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider has spans made by tp (nil, or without this option:
// otel.GetTracerProvider(), the global provider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider has metrics recorded by mp (nil, or without this
// option: otel.GetMeterProvider(), the global provider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithPropagators has each call carry its span's context to the bank in the
// headers p writes (propagation.TraceContext{}: traceparent, tracestate),
// on every attempt. Without it (or with nil) no trace header is sent: the
// bank learns nothing of the caller's traces unless asked (docs/interface.md
// T2). Only a header the SDK does not send itself can be added.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// WithTelemetry has a Client record every call as an OpenTelemetry client
// span named "xs2a <operation>", with an event per attempt, and as the
// metrics xs2a.client.call.duration, xs2a.client.call.attempts and
// xs2a.client.budget.refusals (see the package doc). It returns
// xs2a.WithObserver; the instruments are made here, once, and an error
// making one goes to otel.Handle and leaves that instrument a no-op.
func WithTelemetry(opts ...Option) xs2a.Option {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return xs2a.WithObserver(newObserver(c))
}

// observer is the xs2a.Observer that WithTelemetry installs.
type observer struct {
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	duration metric.Float64Histogram
	attempts metric.Int64Counter
	refusals metric.Int64Counter
}

func newObserver(c config) *observer {
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	o := &observer{prop: c.prop}
	o.tracer = c.tp.Tracer(scopeName, trace.WithInstrumentationVersion(xs2a.Version), trace.WithSchemaURL(semconv.SchemaURL))
	if o.tracer == nil {
		o.tracer = tracenoop.NewTracerProvider().Tracer(scopeName)
	}
	meter := c.mp.Meter(scopeName, metric.WithInstrumentationVersion(xs2a.Version), metric.WithSchemaURL(semconv.SchemaURL))
	if meter == nil {
		meter = metricnoop.NewMeterProvider().Meter(scopeName)
	}
	var err error
	o.duration, err = meter.Float64Histogram(callDurationName, metric.WithUnit("s"),
		metric.WithDescription("Duration of xs2a calls to the bank, all attempts and waits between them included."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if handle(err); o.duration == nil {
		o.duration = metricnoop.Float64Histogram{}
	}
	o.attempts, err = meter.Int64Counter(callAttemptsName, metric.WithUnit("{attempt}"),
		metric.WithDescription("Requests of xs2a calls that may have reached the bank."))
	if handle(err); o.attempts == nil {
		o.attempts = metricnoop.Int64Counter{}
	}
	o.refusals, err = meter.Int64Counter(budgetRefusalsName, metric.WithUnit("{call}"),
		metric.WithDescription("xs2a calls without the PSU present that the access budget refused before sending."))
	if handle(err); o.refusals == nil {
		o.refusals = metricnoop.Int64Counter{}
	}
	return o
}

func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}

// callKey is the context key of a call's state.
type callKey struct{}

// callState is what StartCall learnt, for Attempt and EndCall.
type callState struct {
	span   trace.Span
	attrs  []attribute.KeyValue // the duration's attributes but the outcome
	op     attribute.KeyValue
	budget xs2a.BudgetEndpoint
}

// StartCall starts the call's client span, a child of ctx's, and injects
// its context through call.SetTraceHeader when WithPropagators asked for it.
func (o *observer) StartCall(ctx context.Context, call *xs2a.CallInfo) context.Context {
	op := operationKey.String(call.Operation)
	method := semconv.HTTPRequestMethodKey.String(call.Method)
	template := semconv.URLTemplate(call.URLTemplate)
	server := semconv.ServerAddress(call.ServerAddress)
	attrs := []attribute.KeyValue{method, server, semconv.ServerPort(call.ServerPort), template, op}
	if call.Budget != "" {
		attrs = append(attrs, budgetEndpointKey.String(string(call.Budget)))
	}
	ctx, span := o.tracer.Start(ctx, "xs2a "+call.Operation, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if o.prop != nil {
		o.prop.Inject(ctx, carrier{call})
	}
	return context.WithValue(ctx, callKey{}, &callState{span: span, op: op, budget: call.Budget,
		attrs: []attribute.KeyValue{op, method, template, server}})
}

// Attempt adds an "xs2a.attempt" event to the call's span.
func (o *observer) Attempt(ctx context.Context, a xs2a.AttemptInfo) {
	st, ok := ctx.Value(callKey{}).(*callState)
	if !ok {
		return
	}
	attrs := make([]attribute.KeyValue, 1, 3)
	attrs[0] = attemptKey.Int(a.N)
	if a.StatusCode != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.StatusCode))
	}
	if a.ErrorType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(a.ErrorType))
	}
	st.span.AddEvent(attemptEventName, trace.WithAttributes(attrs...))
}

// EndCall ends the call's span and records its metrics.
func (o *observer) EndCall(ctx context.Context, end xs2a.CallEnd) {
	st, ok := ctx.Value(callKey{}).(*callState)
	if !ok {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, attemptsKey.Int(end.Attempts))
	if end.StatusCode != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(end.StatusCode))
	}
	if end.Budget != nil {
		attrs = append(attrs, budgetRemainingKey.Int(end.Budget.Remaining))
		if !end.Budget.Reset.IsZero() {
			attrs = append(attrs, budgetResetKey.String(end.Budget.Reset.UTC().Format(time.RFC3339)))
		}
	}
	outcome := "ok"
	if end.ErrorType != "" {
		outcome = end.ErrorType
		attrs = append(attrs, semconv.ErrorTypeKey.String(end.ErrorType))
		st.span.SetStatus(codes.Error, end.ErrorType)
	}
	st.span.SetAttributes(attrs...)
	st.span.End()

	o.duration.Record(ctx, end.Duration.Seconds(), metric.WithAttributes(append(st.attrs, outcomeKey.String(outcome))...))
	if end.Attempts > 0 {
		o.attempts.Add(ctx, int64(end.Attempts), metric.WithAttributes(st.op))
	}
	if end.ErrorType == "budget_exceeded" {
		endpoint := st.budget
		if endpoint == "" && end.Budget != nil {
			endpoint = end.Budget.Endpoint
		}
		o.refusals.Add(ctx, 1, metric.WithAttributes(budgetEndpointKey.String(string(endpoint))))
	}
}

// carrier writes a propagator's headers through CallInfo.SetTraceHeader.
type carrier struct{ call *xs2a.CallInfo }

func (c carrier) Get(string) string     { return "" }
func (c carrier) Set(key, value string) { c.call.SetTraceHeader(key, value) }
func (c carrier) Keys() []string        { return nil }
