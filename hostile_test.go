package xs2a_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// Hostile answers and hostile input: what a broken or malicious bank (or a
// man in the middle of a misconfigured deployment) can send, and what a
// caller can pass by mistake. Nothing here may crash the client, make it read
// without bound, send a header the caller did not mean, or send a signed
// request anywhere but the bank's base address.

// hostilePSUID is a well-formed psu-id for calls that need one.
const hostilePSUID = "3f0c2a8e-5b1d-4c7e-9a2f-6d8b1e4c7a90"

// hostileServer is a test server that counts the requests reaching it.
type hostileServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newHostileServer(t *testing.T, h http.HandlerFunc) *hostileServer {
	t.Helper()
	s := &hostileServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// hostileClient is a client for srv under the base path /api, with the
// default transport, and quick retries.
func hostileClient(t *testing.T, srv *hostileServer, opts ...xs2a.Option) *xs2a.Client {
	t.Helper()
	c, err := xs2a.NewClient(srv.URL+"/api", signer(t), append([]xs2a.Option{
		xs2a.WithRedirectURI("https://tpp.example/cb"),
		xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 3, MinDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond,
			MaxRetryAfter: 2 * time.Second, Methods: []string{http.MethodGet}}),
	}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// hostilePayment is a payment the SDK accepts.
func hostilePayment(t *testing.T) *xs2a.Payment {
	t.Helper()
	amount, err := xs2a.ParseAmount("NOK", "10.00")
	require.NoError(t, err)
	return &xs2a.Payment{InstructedAmount: amount, CreditorAccount: xs2a.AccountReference{BBAN: "86011117947"}, CreditorName: "Kari Nordmann"}
}

// streamResult is what a streaming handler managed to write.
type streamResult struct {
	written int64
	err     error
}

// streamBody writes head, then fill until size bytes in all (or a write
// fails), then tail, and reports on done.
func streamBody(w http.ResponseWriter, status int, head string, fill byte, size int64, tail string, done chan<- streamResult) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	n, err := w.Write([]byte(head))
	written := int64(n)
	chunk := bytes.Repeat([]byte{fill}, 64<<10)
	for err == nil && written < size-int64(len(tail)) {
		c := chunk[:min(int64(len(chunk)), size-int64(len(tail))-written)]
		n, err = w.Write(c)
		written += int64(n)
	}
	if err == nil {
		n, err = w.Write([]byte(tail))
		written += int64(n)
	}
	done <- streamResult{written, err}
}

// waitStream waits for a streaming handler (a guard against a hang, not a
// timing assertion).
func waitStream(t *testing.T, done <-chan streamResult) streamResult {
	t.Helper()
	select {
	case s := <-done:
		return s
	case <-time.After(time.Minute):
		t.Fatal("the handler never finished: the client keeps the connection open")
		return streamResult{}
	}
}

// An error body of 100 MB: the client keeps the first MiB in Error.Body and
// hangs up instead of reading the rest.
func TestHostileHugeErrorBody(t *testing.T) {
	t.Parallel()
	const total = 100 << 20
	done := make(chan streamResult, 1)
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		streamBody(w, http.StatusBadRequest, `{"tppMessages":[{"code":"FORMAT_ERROR","text":"`, 'x', total, `"}]}`, done)
	})
	c := hostileClient(t, srv)
	_, resp, err := c.Sandbox.Customers(context.Background(), nil)
	var e *xs2a.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.Len(t, e.Body, 1<<20, "Error.Body holds the first MiB")
	assert.Empty(t, e.Messages, "a cut JSON body gives no messages")
	require.NotNil(t, resp)
	s := waitStream(t, done)
	require.Error(t, s.err, "the client closed the connection before the end")
	assert.Less(t, s.written, int64(total))
	assert.EqualValues(t, 1, srv.hits.Load(), "a 400 is not retried")
	t.Logf("100 MB error body: the server wrote %d bytes (%.1f MiB) before the client closed the connection (%v)",
		s.written, float64(s.written)/(1<<20), s.err)
}

// A 2xx body over the client's 64 MiB cap fails clearly: not cut and
// decoded. The body here is valid JSON in its first 64 MiB (an empty list
// and spaces) and not as a whole (a second value after them).
func TestHostileOversizeSuccessBody(t *testing.T) {
	t.Parallel()
	const capBytes = 64 << 20
	done := make(chan streamResult, 1)
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		streamBody(w, http.StatusOK, `{"customers":[]}`, ' ', capBytes+16<<20, `{"customers":[{"customerNumber":"01017012345"}]}`, done)
	})
	c := hostileClient(t, srv)
	customers, _, err := c.Sandbox.Customers(context.Background(), nil)
	require.Error(t, err, "an oversize answer must not be cut and decoded (got %d customers)", len(customers))
	assert.Nil(t, customers)
	assert.Contains(t, err.Error(), "larger than 64 MiB")
	assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
	s := waitStream(t, done)
	assert.Error(t, s.err, "the client stopped reading")
	t.Logf("oversize 2xx body: %v; the server wrote %d bytes", err, s.written)
}

// Invalid UTF-8 and control characters in bodies and headers of answers.
func TestHostileInvalidUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		check   func(t *testing.T, customers []xs2a.SandboxCustomer, err error)
	}{
		{
			name: "error text and code", status: http.StatusBadRequest,
			body: "{\"tppMessages\":[{\"category\":\"ERROR\",\"code\":\"FORMAT_ERROR\\r\\nX-Forged: 1\xff\",\"text\":\"bad \xfe\xff\\u0000\\r\\nline\"}]}",
			check: func(t *testing.T, _ []xs2a.SandboxCustomer, err error) {
				var e *xs2a.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "FORMAT_ERROR\r\nX-Forged: 1\ufffd", e.Code, "the code is kept as sent")
				msg := err.Error()
				assert.True(t, utf8.ValidString(msg), "%q", msg)
				assert.NotContains(t, msg, "\r")
				assert.NotContains(t, msg, "\n", "a bank's code or text cannot forge a log line")
				assert.NotContains(t, msg, "\x00")
			},
		},
		{
			name: "error body not JSON", status: http.StatusBadGateway,
			headers: map[string]string{"Content-Type": "text/html; charset=\xff", "Retry-After": "\xff1"},
			body:    "<html>\xff\xfe</html>",
			check: func(t *testing.T, _ []xs2a.SandboxCustomer, err error) {
				var e *xs2a.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "<html>\xff\xfe</html>", string(e.Body), "the body is kept as it came")
				assert.Zero(t, e.RetryAfter)
				assert.True(t, utf8.ValidString(err.Error()))
			},
		},
		{
			name: "success body", status: http.StatusOK,
			headers: map[string]string{"Content-Type": "application/json; charset=\xfe", "X-Request-ID": "\xff"},
			body:    "{\"customers\":[{\"customerNumber\":\"0101\xff\",\"customerType\":\"PRIVATE\",\"name\":\"Per \xc3\x28 Test\"}]}",
			check: func(t *testing.T, customers []xs2a.SandboxCustomer, err error) {
				require.NoError(t, err)
				require.Len(t, customers, 1)
				assert.Equal(t, "0101\ufffd", customers[0].CustomerNumber, "invalid bytes become U+FFFD")
				assert.Equal(t, "Per \ufffd( Test", customers[0].Name)
			},
		},
		{
			name: "huge Retry-After", status: http.StatusServiceUnavailable,
			headers: map[string]string{"Retry-After": "9223372037"},
			body:    `{"tppMessages":[{"code":"SERVICE_UNAVAILABLE"}]}`,
			check: func(t *testing.T, _ []xs2a.SandboxCustomer, err error) {
				var e *xs2a.Error
				require.ErrorAs(t, err, &e)
				assert.Greater(t, e.RetryAfter, 2*time.Second, "a wait longer than MaxRetryAfter, not a negative one")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				for k, v := range tt.headers {
					w.Header()[k] = []string{v}
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			c := hostileClient(t, srv)
			customers, _, err := c.Sandbox.Customers(context.Background(), nil)
			tt.check(t, customers, err)
			if tt.name == "huge Retry-After" {
				assert.EqualValues(t, 1, srv.hits.Load(), "the bank asked for a wait beyond MaxRetryAfter: no retry")
			}
		})
	}
}

// JSON nested 100 000 levels deep, in an error body and in a success body:
// no crash (encoding/json stops at depth 10 000), a clear error.
func TestHostileDeeplyNestedJSON(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 100_000)
	for _, tt := range []struct {
		name   string
		status int
		body   string
	}{
		{"error body", http.StatusBadRequest, deep},
		{"error body in an object", http.StatusBadRequest, `{"tppMessages":` + deep},
		{"success body", http.StatusOK, deep + strings.Repeat("]", 100_000)},
		{"success body in an object", http.StatusOK, `{"customers":` + deep},
		{"success body, scaRedirect key", http.StatusOK, `{"_links":{"scaRedirect":` + deep},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			c := hostileClient(t, srv)
			var err error
			assert.NotPanics(t, func() { _, _, err = c.Sandbox.Customers(context.Background(), nil) })
			require.Error(t, err)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "xs2a: "), msg)
			assert.Less(t, len(msg), 500, "the message does not repeat the body")
			if tt.status >= 400 {
				var e *xs2a.Error
				require.ErrorAs(t, err, &e)
				assert.Empty(t, e.Messages)
				assert.Len(t, e.Body, len(tt.body))
			} else {
				assert.NotErrorAs(t, err, new(*xs2a.Error))
			}
		})
	}
}

// Header injection through the PSU's fields is refused before anything is
// sent, with a *ValidationError naming the field.
func TestHostilePSUHeaderInjection(t *testing.T) {
	t.Parallel()
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"accounts":[]}`))
	})
	c := hostileClient(t, srv)
	const injected = "\r\nX-Injected: 1"
	tests := []struct {
		name, field string
		psu         xs2a.PSU
	}{
		{"ID", "PSU.ID", xs2a.PSU{ID: hostilePSUID + injected}},
		{"ID, LF only", "PSU.ID", xs2a.PSU{ID: hostilePSUID[:35] + "\n"}},
		{"CorporateID", "PSU.CorporateID", xs2a.PSU{ID: hostilePSUID, CorporateID: hostilePSUID + injected}},
		{"IPAddress", "PSU.IPAddress", xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.1" + injected}},
		{"IPAddress, IPv6 zone", "PSU.IPAddress", xs2a.PSU{ID: hostilePSUID, IPAddress: "fe80::1%" + injected}},
		{"IPAddress, IPv6 zone with a space", "PSU.IPAddress", xs2a.PSU{ID: hostilePSUID, IPAddress: "fe80::1%eth0 X"}},
		{"SessionID", "PSU.SessionID", xs2a.PSU{ID: hostilePSUID, SessionID: "s1" + injected}},
		{"SessionID, NUL", "PSU.SessionID", xs2a.PSU{ID: hostilePSUID, SessionID: "s1\x00"}},
		{"SessionID, invalid UTF-8", "PSU.SessionID", xs2a.PSU{ID: hostilePSUID, SessionID: "s\xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			_, _, err := c.Accounts.List(ctx, tt.psu)
			var ve *xs2a.ValidationError
			require.ErrorAs(t, err, &ve, "%v", err)
			assert.Equal(t, tt.field, ve.Field)
			assert.NotContains(t, err.Error(), "X-Injected")
			psu := tt.psu
			if psu.IPAddress == "" {
				psu.IPAddress = "192.0.2.1"
			}
			_, _, err = c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, hostilePayment(t), nil)
			require.ErrorAs(t, err, &ve, "%v", err)
			assert.Equal(t, tt.field, ve.Field)
		})
	}
	assert.Zero(t, srv.hits.Load(), "nothing sent")
}

// Links to another host (or out of the base path) in the bank's answers are
// never requested with a signature; the SDK never follows scaRedirect
// itself; redirects to another host are not followed.
func TestHostileCrossOriginLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	other := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"transactionStatus":"ACSC"}`))
	})
	elsewhere := other.URL + "/api" // same base path, another origin
	var outside atomic.Int64        // requests to the bank outside /api
	bank := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			outside.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/accounts":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"tppMessages":[{"code":"CONSENT_INVALID"}],"_links":{"scaRedirect":{"href":%q}}}`, elsewhere+"/sca/1")
		case strings.HasSuffix(r.URL.Path, "/transactions"):
			fmt.Fprintf(w, `{"transactions":{"booked":[{"transactionId":"t1","transactionAmount":{"currency":"NOK","amount":"-1.00"}}],`+
				`"_links":{"next":{"href":%q}}}}`, elsewhere+"/v1/accounts/a1/transactions?page=2")
		case r.URL.Path == "/api/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"transactionStatus":"RCVD","paymentId":"p1","_links":{"self":{"href":%q},"status":{"href":%q},"startAuthorisation":{"href":%q}}}`,
				elsewhere+"/v1/payments/p/p1", elsewhere+"/v1/payments/p/p1/status", elsewhere+"/v1/payments/p/p1/authorisations")
		case r.URL.Path == "/api/v1/card-accounts":
			http.Redirect(w, r, elsewhere+"/v1/card-accounts", http.StatusFound)
		case r.URL.Path == "/api/v1/signing-baskets":
			http.Redirect(w, r, elsewhere+"/v1/signing-baskets", http.StatusTemporaryRedirect)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	c := hostileClient(t, bank)
	psu := xs2a.PSU{ID: hostilePSUID, IPAddress: "192.0.2.1"}

	// scaRedirect: returned for the PSU's browser, never requested
	_, _, err := c.Accounts.List(ctx, psu)
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	assert.Equal(t, elsewhere+"/sca/1", sca.Redirect.Href)

	// a next link to another host: the first page, then ErrCrossOrigin
	var ids []string
	var iterErr error
	for tx, err := range c.Accounts.Transactions(ctx, psu, "a1", nil) {
		if err != nil {
			iterErr = err
			break
		}
		ids = append(ids, tx.TransactionID)
	}
	assert.Equal(t, []string{"t1"}, ids)
	require.ErrorIs(t, iterErr, xs2a.ErrCrossOrigin)

	// status, self and startAuthorisation links to another host
	ini, _, err := c.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, hostilePayment(t), nil)
	require.NoError(t, err)
	_, _, err = c.Payments.Status(ctx, psu, ini.Links.Status)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	_, _, err = c.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	_, _, err = c.Payments.Get(ctx, psu, ini.Links.Self)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	_, err = c.Payments.Cancel(ctx, psu, ini.Links.Self)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	_, _, err = c.Payments.PollStatus(ctx, psu, ini.Links.Status, nil)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)

	// links that leave the base path by dot segments, on the bank's own host
	for _, href := range []string{"/api/../v1/payments/p/p1/status", "/v1/../../admin", "/v1/%2e%2e/%2E%2E/admin", bank.URL + "/api/../admin"} {
		_, _, err = c.Payments.Status(ctx, psu, xs2a.Link{Href: href})
		require.ErrorIs(t, err, xs2a.ErrCrossOrigin, href)
	}

	// redirects to another host: not followed (GET 302, POST 307)
	_, _, err = c.CardAccounts.List(ctx, psu)
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	_, _, err = c.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{PaymentIDs: []string{"p1", "p2"}})
	require.ErrorIs(t, err, xs2a.ErrCrossOrigin)
	// conservative: the POST was sent, and a redirect after a POST (303)
	// can mean the bank acted on it
	assert.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)

	assert.Zero(t, other.hits.Load(), "the other host saw nothing")
	assert.Zero(t, outside.Load(), "nothing outside the base path")
	assert.Positive(t, bank.hits.Load())
}

// A context that ends while the answer streams in ends the call.
func TestHostileSlowBodyEndsWithTheContext(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := newHostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"customers":[`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	c := hostileClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := c.Sandbox.Customers(ctx, nil)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}
