// Package xs2aotel records the calls of an xs2a.Client as OpenTelemetry
// traces and metrics, in one option:
//
//	client, err := xs2a.NewClient(baseURL, signer, xs2aotel.WithTelemetry())
//
// It is an xs2a.Observer (docs/interface.md T1, T2), in a module of its own
// so that the SDK's module does not depend on OpenTelemetry. Spans and
// metrics go to the global providers unless WithTracerProvider and
// WithMeterProvider name others. Attribute names follow the OpenTelemetry
// HTTP client semantic conventions (the semconv v1.43.0 package of the
// otel release the module requires).
//
// # Spans
//
// Each call is one span of kind client named "xs2a <operation>" ("xs2a
// accounts.balances"), a child of the span in the call's context, from
// before the first request to the end of reading the last answer, retries
// and the waits between them included. Its attributes:
//
//   - http.request.method, server.address, server.port;
//   - url.template: the path below the base path with every segment that
//     is not a fixed word of the interface written "{id}"
//     ("/v1/accounts/{id}/balances");
//   - http.response.status_code: the last answer's, when one came;
//   - xs2a.operation ("accounts.balances") and xs2a.attempts, the requests
//     that may have reached the bank (0 when none was sent);
//   - for a call the access budget counts (PSU not present):
//     xs2a.budget.endpoint ("balances"), and once the SDK reports the
//     budget after the call, xs2a.budget.remaining and xs2a.budget.reset
//     (RFC 3339, UTC: when the next call frees up);
//   - on failure, error.type, one fixed word of xs2a.ErrorType
//     ("sca_required", "budget_exceeded", "timeout", "404", ...), and the
//     status Error with that word as its description. A call that succeeds
//     keeps the status Unset.
//
// Each attempt on the wire adds an event "xs2a.attempt" with xs2a.attempt
// (its number, from 1), http.response.status_code when an answer came and
// error.type when it failed: a 503 answered and retried shows as two.
//
// # Metrics
//
//   - xs2a.client.call.duration, a histogram in seconds ("s", the HTTP
//     client conventions' buckets), by xs2a.operation, http.request.method,
//     url.template, server.address and outcome ("ok" or the error.type);
//   - xs2a.client.call.attempts, a counter ("{attempt}") of the requests
//     that may have reached the bank, by xs2a.operation;
//   - xs2a.client.budget.refusals, a counter ("{call}") of the calls the
//     access budget refused before sending, by xs2a.budget.endpoint.
//
// The instruments are made once per WithTelemetry; one the meter cannot
// make is reported to otel.Handle and records nothing, and the rest go on.
//
// # Never recorded
//
// No span name, attribute, event, status or metric attribute holds a PSU
// id, corporate id, session id, IP address, account number, resource or
// payment id, masked PAN, a URL, an amount, a name, a remittance text,
// a header value, a body or an error's message: the Observer is handed
// none of them, and this package adds nothing but the fixed words above.
// The module's tests run a flow carrying all of them and look for each in
// everything recorded.
//
// # Trace headers
//
// No trace header goes to the bank by default, whatever the global
// propagator: the bank learns nothing of the caller's traces. With
// WithPropagators(propagation.TraceContext{}) every attempt of a call
// carries a traceparent naming the call's span; it is added only where the
// SDK sends no header of that name, and is not signed. A propagator that
// writes baggage sends whatever the caller put in it.
package xs2aotel
