package xs2aotel_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2aotel"
	"github.com/tppkit/xs2a/xs2atest"
)

// One option turns telemetry on: spans and metrics go to the global
// providers (otel.SetTracerProvider, otel.SetMeterProvider), here an
// in-memory exporter in place of OTLP, and the bank is the fake one of
// package xs2atest. The first call asks for SCA: its span ends with the
// error type "sca_required".
func Example() {
	exporter := tracetest.NewInMemoryExporter()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)))

	bank, err := xs2atest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer bank.Close()
	signer, err := xs2atest.NewTestSigner(nil)
	if err != nil {
		log.Fatal(err)
	}

	client, err := xs2a.NewClient(bank.URL(), signer,
		xs2a.WithHTTPClient(bank.HTTPClient()), xs2a.WithRedirectURI(xs2atest.DefaultRedirectURI), // the fake bank's
		xs2aotel.WithTelemetry())
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	ctx := context.Background()
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: "192.0.2.10"}
	_, _, err = client.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		log.Fatal(err)
	}
	callback, err := bank.CompleteSCA(ctx, sca.Redirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		log.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(callback.Query())
	if err != nil {
		log.Fatal(err)
	}
	accounts, _, err := client.Accounts.List(ctx, cb.PSU(psu.IPAddress))
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := client.Accounts.Balances(ctx, cb.PSU(psu.IPAddress), accounts[0].ResourceID); err != nil {
		log.Fatal(err)
	}

	for _, s := range exporter.GetSpans() {
		fmt.Printf("%s (%s) %s %s\n", s.Name, s.SpanKind, s.Status.Code, attributes(s.Attributes))
	}
	// Output:
	// xs2a accounts.list (client) Error GET /v1/accounts 401 sca_required
	// xs2a accounts.list (client) Unset GET /v1/accounts 200
	// xs2a accounts.balances (client) Unset GET /v1/accounts/{id}/balances 200
}

// attributes prints a few of a span's attributes, in a fixed order.
func attributes(kvs []attribute.KeyValue) string {
	set := attribute.NewSet(kvs...)
	var out []string
	for _, k := range []attribute.Key{"http.request.method", "url.template", "http.response.status_code", "error.type"} {
		if v, ok := set.Value(k); ok {
			out = append(out, v.String())
		}
	}
	return strings.Join(out, " ")
}
