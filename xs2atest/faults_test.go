package xs2atest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

func TestFaultStatus(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFaults(
		Fault{Method: "GET", Path: "/v1/sandbox/customers", Status: 503, RetryAfter: 1500 * time.Millisecond, Times: 2},
		Fault{Path: "/v1/tpps", Status: 502, Body: "<html>Bad gateway</html>"},
	))
	c := newTestClient(t, s)
	for range 2 {
		r := c.do("GET", "/v1/sandbox/customers", nil)
		assert.Equal(t, 503, r.status)
		assert.Equal(t, "2", r.header.Get("Retry-After"))
		assert.Equal(t, "SERVICE_UNAVAILABLE", r.code())
	}
	assert.Equal(t, 200, c.do("GET", "/v1/sandbox/customers", nil).status, "Times: 2")
	r := c.do("GET", "/v1/tpps/x/contact-information", nil)
	assert.Equal(t, 502, r.status)
	assert.Equal(t, "<html>Bad gateway</html>", string(r.body))
	assert.Equal(t, 4, s.RequestCount("GET", ""))
	log := s.Requests()
	assert.Equal(t, 503, log[0].Status)
	assert.NotEmpty(t, log[0].RequestID)
}

// TestFaultOnSCAPageFailsTheSCA: a Fault with a status on an SCA page ends
// the SCA with the failed-SCA redirect of docs/interface.md: status, code and
// message, and system ("Name of the internal system that produced the
// error, on server errors") only for a status of 500 or more. The aborted
// SCA leaves the old session valid.
func TestFaultOnSCAPageFailsTheSCA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fault  Fault
		system string // "" = no system parameter
		code   string
	}{
		{"503 on the first page", Fault{Path: "/sca/", Status: 503}, "SCA", "SERVICE_UNAVAILABLE"},
		{"500 on the first form post, system named", Fault{Method: "POST", Path: "/sca/", Status: 500, System: "PAYMENTS"},
			"PAYMENTS", "INTERNAL_SERVER_ERROR"},
		{"429, a client error", Fault{Path: "/sca/", Status: 429}, "", "ACCESS_EXCEEDED"},
		{"403, a client error", Fault{Method: "POST", Path: "/sca/", Status: 403, System: "PAYMENTS"}, "", "SERVICE_BLOCKED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fault.Times = 1
			s := NewServer(t, WithFaults(tt.fault))
			setFaultUses(s, 0, 1) // spent: the consent's SCA below runs without it
			c := newTestClient(t, s)
			ip := []string{"PSU-IP-Address", "192.0.2.7"}
			psu := c.consent(PrivateCustomer1, append(ip, "TPP-Session-ID", "A")).Get("psu-id")
			get := func(session string) *res {
				return c.do("GET", "/v1/accounts", nil, append([]string{"PSU-ID", psu, "TPP-Session-ID", session}, ip...)...)
			}
			r := get("B")
			require.Equal(t, 401, r.status, "a new session needs SCA")

			setFaultUses(s, 0, 0) // armed for this SCA
			q := c.scaFlow(r.link(t, "scaRedirect"), PrivateCustomer1)
			assert.False(t, q.Has("psu-id"), "a failed SCA: %v", q)
			assert.Equal(t, strconv.Itoa(tt.fault.Status), q.Get("status"))
			assert.Equal(t, tt.code, q.Get("code"))
			assert.NotEmpty(t, q.Get("message"))
			assert.Equal(t, tt.system != "", q.Has("system"), "%v", q)
			assert.Equal(t, tt.system, q.Get("system"))

			f, err := xs2a.ParseCallback(q)
			require.ErrorIs(t, err, xs2a.ErrSCAFailed)
			var failure *xs2a.SCAFailedError
			require.ErrorAs(t, err, &failure)
			assert.Equal(t, xs2a.SCAFailedError{System: tt.system, Status: tt.fault.Status, Code: tt.code,
				Message: q.Get("message")}, *failure)
			assert.Nil(t, f)

			assert.Equal(t, 200, get("A").status, "the failed SCA left the old session valid")
			assert.Equal(t, 401, get("B").status)
		})
	}
}

// setFaultUses sets how often fault i has applied (test helper), to arm
// or spend a fault with Times.
func setFaultUses(s *Server, i, n int) {
	s.faultMu.Lock()
	s.faults[i].used = n
	s.faultMu.Unlock()
}

// TestFaultOnSCAPageWithBody: a Fault with Body on an SCA page answers that
// page as a gateway would; the SCA does not finish.
func TestFaultOnSCAPageWithBody(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFaults(Fault{Path: "/sca/", Status: 502, Body: "<html>Bad gateway</html>"}))
	c := newTestClient(t, s)
	r := c.do("GET", "/v1/accounts", nil)
	_, err := s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), PrivateCustomer1)
	assert.ErrorContains(t, err, "502")
}

func TestFaultRateIsDeterministic(t *testing.T) {
	t.Parallel()
	run := func() []int {
		s := NewServer(t, WithFaults(Fault{Path: "/v1/sandbox", Status: 500, Rate: 0.5}))
		c := newTestClient(t, s)
		var out []int
		for range 20 {
			out = append(out, c.do("GET", "/v1/sandbox/customers", nil).status)
		}
		return out
	}
	a, b := run(), run()
	assert.Equal(t, a, b)
	assert.Contains(t, a, 500)
	assert.Contains(t, a, 200)
}

func TestFaultDelayHonoursCancellation(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFaults(Fault{Path: "/v1/sandbox", Delay: time.Hour}))
	tpp := sharedTPP(t)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+"/v1/sandbox/customers", nil)
	tpp.sign(t, req, nil)
	done := make(chan error, 1)
	go func() {
		resp, err := s.HTTPClient().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	// wait until the request has arrived, then give up
	require.Eventually(t, func() bool { return s.matchedFaults() > 0 }, 10*time.Second, time.Millisecond)
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
}

// matchedFaults counts the fault uses so far (test helper).
func (s *Server) matchedFaults() int {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	n := 0
	for _, f := range s.faults {
		n += f.used
	}
	return n
}

func TestFaultDropAfterProcessing(t *testing.T) {
	t.Parallel()
	for _, tls := range []bool{false, true} {
		name := "http"
		opts := []Option{WithFaults(Fault{Method: "POST", Path: "/v1/payments/", Drop: true, Times: 1})}
		if tls {
			name = "https"
			opts = append(opts, WithTLS())
		}
		t.Run(name, func(t *testing.T) {
			s := NewServer(t, opts...)
			c := newTestClient(t, s)
			hdr := c.pisPSU(PrivateCustomer1)
			body := []byte(`{"instructedAmount":{"currency":"NOK","amount":"10.00"},"creditorAccount":{"bban":"86011117947"},"creditorName":"A"}`)
			req, _ := http.NewRequest("POST", s.URL()+"/v1/payments/"+ProductDomestic, bytes.NewReader(body))
			req.Header.Set("PSU-ID", hdr[1])
			req.Header.Set("PSU-IP-Address", hdr[3])
			c.tpp.sign(t, req, body)
			// no retries: a fresh transport that does not replay the POST
			hc := &http.Client{Transport: s.HTTPClient().Transport.(*http.Transport).Clone()}
			resp, err := hc.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			require.Error(t, err, "the connection is dropped without an answer")
			assert.False(t, errors.Is(err, context.DeadlineExceeded))
			assert.Equal(t, 1, s.PaymentCount(), "the payment exists although the client saw no answer")
			last := s.Requests()[len(s.Requests())-1]
			assert.True(t, last.Dropped)
			// the next request is answered normally
			r := c.do("POST", "/v1/payments/"+ProductDomestic, body, hdr...)
			assert.Equal(t, 201, r.status)
			assert.Equal(t, 2, s.PaymentCount())
		})
	}
}

func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	psu1 := c.privatePSU(PrivateCustomer1)
	psu2 := c.privatePSU(PrivateCustomer2)
	hdr := c.pisPSU(PrivateCustomer1)
	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			psu := psu1
			if i%2 == 1 {
				psu = psu2
			}
			for range 5 {
				r := c.do("GET", "/v1/accounts", nil, "PSU-ID", psu, "PSU-IP-Address", "192.0.2.1")
				assert.Equal(t, 200, r.status)
				p := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1.00", withDebtor(debtor)), hdr...)
				assert.Equal(t, 201, p.status)
				s.RunBatch()
				_ = s.Customers()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 40, s.PaymentCount())
}

func TestLoggerKeepsPersonalDataOut(t *testing.T) {
	t.Parallel()
	var buf safeBuffer
	s := NewServer(t, WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	id := c.accounts(psu)[0]["resourceId"].(string)
	c.do("GET", "/v1/accounts/"+pathSeg(id)+"/balances", nil, "PSU-ID", psu)
	out := buf.String()
	assert.Contains(t, out, "path=/api/v1/accounts/{id}/balances", "the path as received")
	assert.Contains(t, out, "path=/api/sca/{token}")
	assert.NotContains(t, out, psu)
	assert.NotContains(t, out, id)
	assert.NotContains(t, out, PrivateCustomer1)
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// An id with "/" (written %2F in the path, as the platform's ids may be) is
// hidden whole in log lines and in the text of a 404, not up to its "/".
func TestLoggerHidesIDsWithSlash(t *testing.T) {
	t.Parallel()
	var buf safeBuffer
	s := NewServer(t, WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer1)
	const tail = "SecretTail9="
	for _, tc := range []struct{ name, path string }{
		{"balances", "/v1/accounts/enc!!QkFO%2F" + tail + "/balances"},
		{"no such endpoint", "/v1/nothing/enc!!QkFO%2F" + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do("GET", tc.path, nil, "PSU-ID", psu)
			assert.Equal(t, 404, r.status)
			assert.NotContains(t, string(r.body), tail, "the error text")
		})
	}
	out := buf.String()
	assert.Contains(t, out, "path=/api/v1/accounts/{id}/balances")
	assert.NotContains(t, out, tail)
}
