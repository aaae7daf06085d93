package xs2a

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

func answer(status int, contentType, body string, headers ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestNewClientRefusesBadInput(t *testing.T) {
	t.Parallel()
	signer := testSigner(t)
	redirect := WithRedirectURI("https://tpp.example/cb")
	tests := []struct {
		name    string
		base    string
		signer  *Signer
		opts    []Option
		field   string
		wantErr bool
	}{
		{"no signer", "https://bank.example/api", nil, []Option{redirect}, "signer", true},
		{"relative base", "/api", signer, []Option{redirect}, "baseURL", true},
		{"ftp base", "ftp://bank.example", signer, []Option{redirect}, "baseURL", true},
		{"base with query", "https://bank.example/api?x=1", signer, []Option{redirect}, "baseURL", true},
		{"base with user", "https://u:p@bank.example/api", signer, []Option{redirect}, "baseURL", true},
		{"no redirect URI", "https://bank.example/api", signer, nil, "RedirectURI", true},
		{"relative redirect URI", "https://bank.example/api", signer, []Option{WithRedirectURI("/cb")}, "RedirectURI", true},
		{"redirect URI with CRLF", "https://bank.example/api", signer, []Option{WithRedirectURI("https://tpp.example/cb\r\nX: y")}, "RedirectURI", true},
		{"accept fix with comma", "https://bank.example/api", signer, []Option{redirect, WithAcceptFixes("a,b")}, "AcceptFix", true},
		{"accept fix with a control character", "https://bank.example/api", signer, []Option{redirect, WithAcceptFixes("longer-names\x00")}, "AcceptFix", true},
		{"accept fix beyond ASCII", "https://bank.example/api", signer, []Option{redirect, WithAcceptFixes("längere-namen")}, "AcceptFix", true},
		{"negative retry", "https://bank.example/api", signer, []Option{redirect, WithRetry(RetryPolicy{MaxAttempts: -1})}, "RetryPolicy", true},
		{"nil http client", "https://bank.example/api", signer, []Option{redirect, WithHTTPClient(nil)}, "HTTPClient", true},
		{"nil clock", "https://bank.example/api", signer, []Option{redirect, WithClock(nil)}, "Clock", true},
		{"zero timeout", "https://bank.example/api", signer, []Option{redirect, WithTimeout(0)}, "Timeout", true},
		{"negative timeout", "https://bank.example/api", signer, []Option{redirect, WithTimeout(-time.Second)}, "Timeout", true},
		{"bad ASPSP-ID", "https://bank.example/api", signer, []Option{redirect, WithASPSPID("a\nb")}, "ASPSPID", true},
		{"nil bank cert", "https://bank.example/api", signer, []Option{redirect, WithResponseVerification(nil)}, "bankCert", true},
		{"plain http to a bank", "http://bank.example/api", signer, []Option{redirect}, "baseURL", true},
		{"plain http on loopback", "http://127.0.0.1:8080/api", signer, []Option{redirect}, "", false},
		{"plain http on localhost", "http://localhost:8080", signer, []Option{redirect}, "", false},
		{"good", "https://bank.example/api/", signer, []Option{redirect}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.base, tt.signer, tt.opts...)
			if !tt.wantErr {
				require.NoError(t, err)
				require.NotNil(t, c.Accounts)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, href, want string
		wantErr          error
	}{
		{"https://psd2.bank.no/api", "/v1/accounts", "https://psd2.bank.no/api/v1/accounts", nil},
		{"https://psd2.bank.no/api/", "/v1/accounts", "https://psd2.bank.no/api/v1/accounts", nil},
		{"https://psd2.bank.no/api", "v1/accounts", "https://psd2.bank.no/api/v1/accounts", nil},
		{"https://psd2.bank.no/api", "/api/v1/accounts/x/balances", "https://psd2.bank.no/api/v1/accounts/x/balances", nil},
		{"https://psd2.bank.no/api", "/v1/accounts/x/transactions?offset=499&limit=499", "https://psd2.bank.no/api/v1/accounts/x/transactions?offset=499&limit=499", nil},
		{"https://psd2.bank.no/api", "/v1/accounts/enc%21%21a%2Fb/balances", "https://psd2.bank.no/api/v1/accounts/enc%21%21a%2Fb/balances", nil},
		{"https://psd2.bank.no", "/v1/accounts", "https://psd2.bank.no/v1/accounts", nil},
		{"https://psd2.bank.no/api", "https://psd2.bank.no/api/v1/payments/x", "https://psd2.bank.no/api/v1/payments/x", nil},
		{"https://psd2.bank.no/api", "https://evil.example/api/v1/payments/x", "", ErrCrossOrigin},
		{"https://psd2.bank.no/api", "//evil.example/api/v1/x", "", ErrCrossOrigin},
		{"https://psd2.bank.no/api", "http://psd2.bank.no/api/v1/x", "", ErrCrossOrigin},
		{"https://psd2.bank.no/api", "https://psd2.bank.no/other/v1/x", "", ErrCrossOrigin},
		{"https://psd2.bank.no/api", "https://psd2.bank.no:8443/api/v1/x", "", ErrCrossOrigin},
	}
	for _, tt := range tests {
		t.Run(tt.base+" "+tt.href, func(t *testing.T) {
			c, err := NewClient(tt.base, testSigner(t), WithRedirectURI("https://tpp.example/cb"))
			require.NoError(t, err)
			u, err := c.resolve(tt.href)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, u.String())
		})
	}
}

func TestRequestCarriesTheInterfaceHeaders(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: answer(200, "application/json", `{"ok":true}`)}
	_, c := newTestServer(t, rec,
		WithAcceptFixes(LongerNames, CashAccountTypeISO),
		WithASPSPID("NO-BANK-1"),
		WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "gateway-token"})))
	ctx := ContextWithAcceptFixes(context.Background(), AmountAsString)
	ctx = ContextWithoutAcceptFixes(ctx, CashAccountTypeISO)
	no := false
	psu := PSU{ID: testPSUID, CorporateID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", IPAddress: "192.0.2.10", SessionID: "sess-1", RedirectPreferred: &no}
	var out struct{ OK bool }
	resp, err := c.do(ctx, &request{op: "test", method: http.MethodPost, href: "/v1/consents", body: map[string]string{"a": "<&>"}, psu: &psu, fixes: []AcceptFix{CardAccountSwitchAmounts}}, &out)
	require.NoError(t, err)
	require.True(t, out.OK)
	got := rec.request(0)
	h := got.Header
	assert.Equal(t, "/v1/consents", got.Path)
	assert.Equal(t, "application/json", h.Get("Accept"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.True(t, isUUID(h.Get("X-Request-ID")))
	assert.Equal(t, resp.RequestID, h.Get("X-Request-ID"))
	assert.Equal(t, "https://tpp.example/cb", h.Get("TPP-Redirect-URI"))
	assert.Equal(t, testPSUID, h.Get("PSU-ID"))
	assert.Equal(t, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", h.Get("PSU-CORPORATE-ID"))
	assert.Equal(t, "192.0.2.10", h.Get("PSU-IP-Address"))
	assert.Equal(t, "sess-1", h.Get("TPP-Session-ID"))
	assert.Equal(t, "False", h.Get("TPP-Redirect-Preferred"), "written as docs/interface.md writes it")
	assert.Equal(t, "NO-BANK-1", h.Get("ASPSP-ID"))
	assert.Equal(t, "longer-names,cardaccount-switch-originalamount-and-transactionamount,amount-as-string", h.Get("x-accept-fix"))
	assert.Equal(t, []AcceptFix{LongerNames, CardAccountSwitchAmounts, AmountAsString}, resp.AcceptFixes)
	assert.Equal(t, "Bearer gateway-token", h.Get("Authorization"))
	assert.NotEmpty(t, h.Get("TPP-Signature-Certificate"))
	body := got.Body
	assert.Equal(t, `{"a":"<&>"}`, string(body), "compact JSON without HTML escaping")
	assert.Equal(t, Digest(body), h.Get("Digest"))
	sig := h.Get("Signature")
	assert.Contains(t, sig, `headers="date digest x-request-id psu-id psu-corporate-id tpp-redirect-uri"`)
	assert.NotContains(t, sig, "authorization", "the bearer token stays outside the signature")
}

func TestPSUIsValidatedBeforeSending(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: answer(200, "application/json", `{}`)}
	_, c := newTestServer(t, rec)
	tests := []struct {
		psu   PSU
		field string
	}{
		{PSU{ID: "not-a-uuid"}, "PSU.ID"},
		{PSU{ID: testPSUID + "\r\nX-Evil: 1"}, "PSU.ID"},
		{PSU{ID: testPSUID, CorporateID: "x"}, "PSU.CorporateID"},
		{PSU{CorporateID: testPSUID}, "PSU.CorporateID"},
		{PSU{ID: testPSUID, IPAddress: "300.1.1.1"}, "PSU.IPAddress"},
		{PSU{ID: testPSUID, IPAddress: "10.0.0.1\r\n"}, "PSU.IPAddress"},
		{PSU{ID: testPSUID, IPAddress: "fe80::1%eth0,1.2.3.4"}, "PSU.IPAddress"},
		{PSU{ID: testPSUID, IPAddress: "fe80::1%eth0"}, "PSU.IPAddress"},
		{PSU{ID: testPSUID, SessionID: "a\nb"}, "PSU.SessionID"},
	}
	for _, tt := range tests {
		_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/accounts", psu: &tt.psu}, nil)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%+v", tt.psu)
		assert.Equal(t, tt.field, ve.Field)
		assert.NotContains(t, err.Error(), "not-a-uuid", "the value is never echoed")
	}
	assert.Zero(t, rec.count(), "nothing was sent")
}

// fakeSleep records the waits of a client instead of sleeping.
func fakeSleep(c *Client) *[]time.Duration {
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return waits
}

func TestGETIsRetriedOn503WithRetryAfter(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 3 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{}`)
	}}
	var tick atomic.Int64
	clock := func() time.Time { return fixedNow().Add(time.Duration(tick.Add(1)) * time.Second) }
	_, c := newTestServer(t, rec, WithClock(clock))
	waits := fakeSleep(c)
	resp, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/accounts", psu: &PSU{ID: testPSUID}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Attempts)
	assert.Equal(t, []time.Duration{time.Second, time.Second}, *waits, "Retry-After honoured")
	require.Equal(t, 3, rec.count())
	id := rec.request(0).Header.Get("X-Request-ID")
	seenDates, seenSigs := map[string]bool{}, map[string]bool{}
	for i := range 3 {
		h := rec.request(i).Header
		assert.Equal(t, id, h.Get("X-Request-ID"), "one X-Request-ID per logical call")
		seenDates[h.Get("Date")] = true
		seenSigs[h.Get("Signature")] = true
	}
	assert.Len(t, seenDates, 3, "each attempt has its own Date")
	assert.Len(t, seenSigs, 3, "each attempt is signed afresh")
}

func TestRetryDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		method    string
		status    int
		headers   []string
		body      string
		wantCalls int
		wantErr   error
	}{
		{"POST 503 never retried", http.MethodPost, 503, []string{"Retry-After", "1"}, "", 1, nil},
		{"DELETE 503 not retried by default", http.MethodDelete, 503, nil, "", 1, nil},
		{"GET 500 retried", http.MethodGet, 500, nil, "", 3, nil},
		{"GET 502 retried", http.MethodGet, 502, nil, "", 3, nil},
		{"GET 504 retried", http.MethodGet, 504, nil, "", 3, nil},
		{"GET 400 not retried", http.MethodGet, 400, nil, `{"tppMessages":[{"code":"FORMAT_ERROR"}]}`, 1, nil},
		{"GET 429 ACCESS_EXCEEDED not retried", http.MethodGet, 429, []string{"Retry-After", "1"}, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`, 1, ErrAccessExceeded},
		{"GET 429 without Retry-After not retried", http.MethodGet, 429, nil, "", 1, ErrAccessExceeded},
		{"GET 429 with Retry-After retried", http.MethodGet, 429, []string{"Retry-After", "1"}, "", 3, nil},
		{"GET Retry-After beyond the policy ends the retries", http.MethodGet, 503, []string{"Retry-After", "120"}, "", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &testBank{fn: answer(tt.status, "application/json", tt.body, tt.headers...)}
			_, c := newTestServer(t, rec)
			fakeSleep(c)
			_, err := c.do(context.Background(), &request{op: "test", method: tt.method, href: "/v1/x", rawBody: []byte{}}, nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.status, e.StatusCode)
			assert.Equal(t, tt.wantCalls, rec.count())
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			}
			if len(tt.headers) == 2 {
				assert.NotZero(t, e.RetryAfter)
			}
		})
	}
}

func TestRetryWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	first := make(chan struct{})
	var once sync.Once
	rec := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "25")
		w.WriteHeader(http.StatusServiceUnavailable)
		once.Do(func() { close(first) })
	}}
	_, c := newTestServer(t, rec, WithRetry(RetryPolicy{MaxAttempts: 3, MaxRetryAfter: time.Minute, Methods: []string{http.MethodGet}}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.do(ctx, &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
		done <- err
	}()
	<-first
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(20 * time.Second):
		t.Fatal("the wait for Retry-After did not end with the context")
	}
	assert.Equal(t, 1, rec.count())
}

func TestPOSTWithDroppedConnectionReportsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}}
	_, c := newTestServer(t, rec, WithRetry(RetryPolicy{MaxAttempts: 5, Methods: []string{http.MethodGet, http.MethodPost}}))
	fakeSleep(c)
	_, err := c.do(context.Background(), &request{op: "payments.initiate", method: http.MethodPost, href: "/v1/payments/x", body: map[string]string{"a": "b"}, psu: &PSU{ID: testPSUID, IPAddress: "192.0.2.1"}}, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.Sent)
	assert.Equal(t, rec.request(0).Header.Get("X-Request-ID"), te.RequestID)
	assert.Contains(t, err.Error(), te.RequestID)
	assert.NotContains(t, err.Error(), testPSUID)
	assert.NotContains(t, err.Error(), "/v1/", "the message names no path with resource ids")
	assert.Equal(t, 1, rec.count(), "a payment is never sent twice by the SDK")

	// A GET whose connection drops is retried and is no outcome-unknown case.
	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.Equal(t, 1+5, rec.count())
}

func TestPOSTThatNeverLeftIsNotOutcomeUnknown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens: the dial fails before anything is written
	c, err := NewClient(srv.URL, testSigner(t), WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodPost, href: "/v1/x", body: map[string]int{}}, nil)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.False(t, te.Sent)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
}

func TestSignedRequestsStayOnTheBaseOrigin(t *testing.T) {
	t.Parallel()
	other := &testBank{fn: answer(200, "application/json", `{}`)}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	rec := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/v1/same" {
			http.Redirect(w, r, "/api/v1/target", http.StatusFound)
			return
		}
		if r.URL.Path == "/v1/target" {
			io.WriteString(w, `{}`)
			return
		}
		http.Redirect(w, r, otherSrv.URL+"/api/v1/x", http.StatusFound)
	}}
	_, c := newTestServer(t, rec)

	_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/elsewhere"}, nil)
	require.ErrorIs(t, err, ErrCrossOrigin, "a redirect to another host is not followed")
	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: otherSrv.URL + "/api/v1/x"}, nil)
	require.ErrorIs(t, err, ErrCrossOrigin, "an absolute link to another host is refused")
	assert.Zero(t, other.count(), "nothing signed reached the other host")

	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/same"}, nil)
	require.NoError(t, err, "a redirect within the base address is followed")
}

func TestDefaultTransportUsesTLS12AtLeast(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	base, ok := c.transport.Base.(*http.Transport)
	require.True(t, ok)
	assert.Equal(t, uint16(tls.VersionTLS12), base.TLSClientConfig.MinVersion)
	assert.NotZero(t, base.TLSHandshakeTimeout)
	assert.Zero(t, c.hc.Timeout, "no per-request timeout: each call has its deadline")
	assert.Equal(t, defaultTimeout, c.cfg.timeout)

	// A server that speaks only TLS 1.1 is refused.
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{MaxVersion: tls.VersionTLS11}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c, err = NewClient(srv.URL, testSigner(t), WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	c.transport.Base.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true // the test server's certificate
	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "protocol version")
}

func TestWithHTTPClientCopiesTheClient(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: answer(200, "application/json", `{}`)}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	base := &countingTransport{base: http.DefaultTransport}
	hc := &http.Client{Transport: base, Timeout: 7 * time.Second}
	c, err := NewClient(srv.URL, testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithHTTPClient(hc))
	require.NoError(t, err)
	_, err = c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
	require.NoError(t, err)
	assert.Same(t, base, hc.Transport, "the caller's client is not modified")
	assert.Nil(t, hc.CheckRedirect)
	assert.EqualValues(t, 1, base.n.Load(), "its transport carries the signed requests")
	assert.Equal(t, 7*time.Second, c.hc.Timeout)
	assert.NotEmpty(t, rec.request(0).Header.Get("Signature"))
}

type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(r)
}

// TestErrorsTable maps every row of docs/interface.md's Errors table that a client
// observes over HTTP to the typed error a TPP branches on. (Failed SCA is a
// redirect, covered by ParseCallback; the empty account list by the
// accounts tests.)
func TestErrorsTable(t *testing.T) {
	t.Parallel()
	msg := func(code, path string) string {
		return fmt.Sprintf(`{"tppMessages":[{"category":"ERROR","code":%q,"path":%q,"text":"bank text"}]}`, code, path)
	}
	tests := []struct {
		row      string
		status   int
		ct, body string
		is       error  // sentinel, when the row has one
		code     string // Error.Code expected
		check    func(t *testing.T, err error)
	}{
		{row: "Signature missing", status: 400, ct: "application/json", body: msg("SIGNATURE_MISSING", ""), is: ErrSignatureInvalid, code: CodeSignatureMissing},
		{row: "Signature invalid", status: 400, ct: "application/json", body: msg("SIGNATURE_INVALID", ""), is: ErrSignatureInvalid, code: CodeSignatureInvalid},
		{row: "Character the backend cannot process", status: 400, ct: "application/json", body: msg("FORMAT_ERROR", "creditorName"), code: CodeFormatError},
		{row: "Account resource without valid PSU-ID and consent", status: 401, ct: "application/json",
			body: `{"tppMessages":[{"category":"ERROR","code":"PSU_CREDENTIALS_INVALID"}],"_links":{"scaRedirect":{"href":"https://bank.example/sca/1"}}}`,
			is:   ErrSCARequired, check: func(t *testing.T, err error) {
				var sca *SCARequiredError
				require.ErrorAs(t, err, &sca)
				assert.Equal(t, "https://bank.example/sca/1", sca.Redirect.Href)
				assert.Equal(t, 401, sca.StatusCode)
				assert.NotEmpty(t, sca.RequestID)
			}},
		{row: "Corporate user without PSU-CORPORATE-ID", status: 400, ct: "application/json", body: msg("CORPORATE_ID_INVALID", ""), is: ErrCorporateIDRequired, code: CodeCorporateIDInvalid},
		{row: "KID error in a payment", status: 400, ct: "application/json", body: msg("FORMAT_ERROR", "remittanceInformationStructuredArray"), code: CodeFormatError,
			check: func(t *testing.T, err error) {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "remittanceInformationStructuredArray", e.Messages[0].Path)
			}},
		{row: "Bulk or periodic payment in a signing basket", status: 400, ct: "application/json", body: msg("REFERENCE_MIX_INVALID", ""), is: ErrReferenceMixInvalid, code: CodeReferenceMixInvalid},
		{row: "MonthlyVariable with duplicate months", status: 400, ct: "application/json", body: msg("FORMAT_ERROR", "monthsOfExecution"), code: CodeFormatError},
		{row: "Insufficient funds", status: 400, ct: "application/json", body: msg("FUNDS_NOT_AVAILABLE", ""), is: ErrInsufficientFunds, code: CodeFundsNotAvailable},
		{row: "Sandbox: invalid CustomerType or PSU-ID format", status: 400, ct: "application/json", body: msg("FORMAT_ERROR", "customerType"), code: CodeFormatError},
		{row: "Limits: PSU-not-present calls exceeded", status: 429, ct: "application/json", body: msg("ACCESS_EXCEEDED", ""), is: ErrAccessExceeded, code: CodeAccessExceeded},
		{row: "Consent revoked at the bank", status: 403, ct: "application/json", body: msg("CONSENT_INVALID", ""), is: ErrConsentInvalid, code: CodeConsentInvalid},
		{row: "Consent revoked at the bank (production)", status: 403, ct: "application/json", body: msg("CONSENT_UNKNOWN", ""), is: ErrConsentInvalid, code: CodeConsentUnknown},
		{row: "Consent unknown, whatever the status", status: 400, ct: "application/json", body: msg("CONSENT_UNKNOWN", ""), is: ErrConsentInvalid, code: CodeConsentUnknown},
		{row: "Forbidden without a body", status: 403, is: ErrConsentInvalid},
		{row: "Forbidden with another code", status: 403, ct: "application/json", body: msg("RESOURCE_BLOCKED", ""), is: ErrConsentInvalid, code: CodeResourceBlocked},
		{row: "Not found", status: 404, ct: "application/json", body: msg("RESOURCE_UNKNOWN", ""), is: ErrNotFound, code: CodeResourceUnknown},
		{row: "Body that is not JSON", status: 502, ct: "text/html", body: "<html>Bad gateway</html>", check: func(t *testing.T, err error) {
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Empty(t, e.Messages)
			assert.Equal(t, "<html>Bad gateway</html>", string(e.Body))
		}},
		{row: "problem+json", status: 400, ct: "application/problem+json", body: `{"type":"about:blank","title":"Bad","detail":"amount is malformed","code":"FORMAT_ERROR"}`, code: CodeFormatError,
			check: func(t *testing.T, err error) {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "amount is malformed", e.Messages[0].Text)
			}},
		{row: "Corporate user, told by path only", status: 400, ct: "application/json", body: `{"tppMessages":[{"category":"ERROR","path":"PSU-CORPORATE-ID","text":"missing"}]}`, is: ErrCorporateIDRequired},
		{row: "Signature refused, told by path only", status: 400, ct: "application/json", body: `{"tppMessages":[{"category":"ERROR","path":"Signature"}]}`, is: ErrSignatureInvalid},
		{row: "Unknown code kept as it is", status: 400, ct: "application/json", body: msg("SOMETHING_NEW", ""), code: "SOMETHING_NEW"},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			t.Parallel()
			rec := &testBank{fn: answer(tt.status, tt.ct, tt.body)}
			_, c := newTestServer(t, rec)
			fakeSleep(c)
			_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x", psu: &PSU{ID: testPSUID}}, nil)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			assert.NotContains(t, err.Error(), testPSUID)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.code != "" {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, tt.code, e.Code)
				assert.Equal(t, tt.status, e.StatusCode)
				assert.Equal(t, rec.request(0).Header.Get("X-Request-ID"), e.RequestID)
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

func TestSuccessfulAnswerWithSCARedirectIsSCARequired(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: answer(200, "application/json", `{"_links":{"scaRedirect":{"href":"https://bank.example/sca/2","verbs":["GET"]}}}`)}
	_, c := newTestServer(t, rec)
	_, err := c.do(context.Background(), &request{op: "accounts.list", method: http.MethodGet, href: "/v1/accounts"}, &struct{}{})
	var sca *SCARequiredError
	require.ErrorAs(t, err, &sca)
	assert.Equal(t, 200, sca.StatusCode)
	assert.Equal(t, []string{"GET"}, sca.Redirect.Verbs)

	var links SCALinks
	_, err = c.do(context.Background(), &request{op: "consents.create", method: http.MethodGet, href: "/v1/consents", scaResult: true}, &links)
	require.NoError(t, err, "where the redirect is the result it is no error")
	assert.Equal(t, "https://bank.example/sca/2", links.Links.SCARedirect.Href)
}

func TestErrorBodyIsCappedAndNeverInTheMessage(t *testing.T) {
	t.Parallel()
	big := `{"tppMessages":[{"code":"FORMAT_ERROR","text":"` + strings.Repeat("x", 3<<20) + `"}]}`
	rec := &testBank{fn: answer(400, "application/json", big)}
	_, c := newTestServer(t, rec)
	_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Len(t, e.Body, maxErrorBody)
	assert.Less(t, len(err.Error()), 400)
}

func TestErrorTextCannotForgeLogLines(t *testing.T) {
	t.Parallel()
	e := &Error{StatusCode: 400, Code: "FORMAT_ERROR", Messages: []TPPMessage{{Text: "bad\r\nINFO forged line\x1b[31m"}}}
	assert.NotContains(t, e.Error(), "\n")
	assert.NotContains(t, e.Error(), "\x1b")
}

func TestLoggerRecordsNoPersonalData(t *testing.T) {
	t.Parallel()
	logger, logged := recordingLogger()
	rec := &testBank{fn: answer(400, "application/json", `{"tppMessages":[{"code":"FORMAT_ERROR","text":"account of Kari Nordmann"}]}`)}
	_, c := newTestServer(t, rec, WithLogger(logger))
	_, err := c.do(context.Background(), &request{op: "accounts.balances", method: http.MethodPost, href: "/v1/accounts/secret-account/balances", body: map[string]string{"creditorName": "Ola Nordmann"}, psu: &PSU{ID: testPSUID, IPAddress: "192.0.2.7"}}, nil)
	require.Error(t, err)
	out := logged()
	assert.Contains(t, out, "op=accounts.balances")
	assert.Contains(t, out, "status=400")
	assert.Contains(t, out, rec.request(0).Header.Get("X-Request-ID"))
	assert.Contains(t, out, "error_code=FORMAT_ERROR")
	for _, secret := range []string{testPSUID, "192.0.2.7", "Ola Nordmann", "Kari Nordmann", "secret-account", "BEGIN", "Signature"} {
		assert.NotContains(t, out, secret)
	}
}

// recordingLogger returns a debug-level text logger and a function that
// returns what it logged so far; safe for concurrent use.
func recordingLogger() (*slog.Logger, func() string) {
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	return logger, func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ct, body string
		want           []TPPMessage
	}{
		{"berlin group", "application/json", `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"a","text":"t"},{"category":"WARNING","code":"W"}]}`,
			[]TPPMessage{{"ERROR", "FORMAT_ERROR", "a", "t"}, {"WARNING", "W", "", ""}}},
		{"single tppMessage", "application/json", `{"tppMessage":{"category":"ERROR","code":"X"}}`, []TPPMessage{{Category: "ERROR", Code: "X"}}},
		{"problem+json additionalErrors", "application/problem+json", `{"title":"t","additionalErrors":[{"code":"A","text":"a"}]}`,
			[]TPPMessage{{Category: "ERROR", Text: "t"}, {Category: "ERROR", Code: "A", Text: "a"}}},
		{"problem type as code", "application/problem+json", `{"type":"FORMAT_ERROR","detail":"d"}`, []TPPMessage{{Category: "ERROR", Code: "FORMAT_ERROR", Text: "d"}}},
		{"not JSON", "text/plain", `Service Unavailable`, nil},
		{"JSON array", "application/json", `[1,2]`, nil},
		{"empty", "", ``, nil},
		{"invalid UTF-8 kept", "application/json", "{\"tppMessages\":[{\"code\":\"X\",\"text\":\"\xff\"}]}", []TPPMessage{{Code: "X", Text: "\ufffd"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, parseErrorBody(tt.ct, []byte(tt.body)))
		})
	}
}

func FuzzParseErrorBody(f *testing.F) {
	f.Add("application/json", []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"a","text":"t"}]}`))
	f.Add("application/problem+json", []byte(`{"type":"x","title":"t","detail":"d","code":"C","additionalErrors":[{}]}`))
	f.Add("text/html", []byte(`<html>`))
	f.Add("application/json", []byte(`{"tppMessage":{"code":"X"}}`))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		msgs := parseErrorBody(ct, body)
		e := newError(&http.Response{StatusCode: 400, Header: http.Header{"Content-Type": {ct}}}, body, "id", time.Now())
		s := e.Error()
		if strings.ContainsAny(s, "\r\n") {
			t.Fatalf("error message holds a line break: %q", s)
		}
		if len(msgs) > 0 && e.Code != msgs[0].Code {
			t.Fatalf("Code %q is not the first message's %q", e.Code, msgs[0].Code)
		}
	})
}

func TestCallbackPSU(t *testing.T) {
	t.Parallel()
	cb := &Callback{PSUID: testPSUID, PSUCorporateID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", TPPSessionID: "s1", Context: ContextCorporate}
	assert.Equal(t, PSU{ID: testPSUID, CorporateID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", SessionID: "s1", IPAddress: "192.0.2.1",
		Context: ContextCorporate}, cb.PSU("192.0.2.1"), "the context the PSU chose comes along")
	assert.False(t, cb.PSU("").Present())
}

func TestLinkDecodesObjectAndString(t *testing.T) {
	t.Parallel()
	var v struct{ A, B Link }
	require.NoError(t, jsonUnmarshal(`{"A":{"href":"/v1/a","verbs":["GET"]},"B":"/v1/b"}`, &v))
	assert.Equal(t, Link{Href: "/v1/a", Verbs: []string{"GET"}}, v.A)
	assert.Equal(t, Link{Href: "/v1/b"}, v.B)
	assert.True(t, Link{}.IsZero())
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := fixedNow()
	for v, want := range map[string]time.Duration{
		"":     0,
		"3":    3 * time.Second,
		"-1":   0,
		"soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		assert.Equal(t, want, retryAfter(http.Header{"Retry-After": {v}}, now), v)
	}
}

func TestBackoffStaysWithinBounds(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt := 1; attempt <= 10; attempt++ {
		d := backoff(p, attempt)
		ceiling := min(p.MinDelay<<(attempt-1), p.MaxDelay)
		assert.GreaterOrEqual(t, d, ceiling/2, "attempt %d", attempt)
		assert.LessOrEqual(t, d, ceiling, "attempt %d", attempt)
	}
	assert.Zero(t, backoff(RetryPolicy{}, 1))
}

func TestClientCanBeClosedWithoutLeaks(t *testing.T) {
	rec := &testBank{fn: answer(200, "application/json", `{}`)}
	_, c := newTestServer(t, rec)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.NoError(t, c.Close())
	assert.Equal(t, 20, rec.count())
	assert.True(t, errors.Is(&SCARequiredError{}, ErrSCARequired))
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func TestForbiddenForTheTPPIsNoConsentError(t *testing.T) {
	t.Parallel()
	for _, code := range []string{CodeCertificateRevoked, CodeRoleInvalid, CodeSignatureInvalid} {
		e := &Error{StatusCode: 403, Code: code, Messages: []TPPMessage{{Code: code}}}
		assert.NotErrorIs(t, e, ErrConsentInvalid, code)
	}
}

type closeCounter struct {
	http.RoundTripper
	closed atomic.Int64
}

func (c *closeCounter) CloseIdleConnections() { c.closed.Add(1) }

func TestCloseReachesTheBaseTransport(t *testing.T) {
	t.Parallel()
	base := &closeCounter{RoundTripper: http.DefaultTransport}
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithHTTPClient(&http.Client{Transport: base}))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.EqualValues(t, 1, base.closed.Load(), "Client.Close closes the idle connections of the transport underneath")
}

func TestStandaloneTransportRefusesCrossOriginRedirects(t *testing.T) {
	t.Parallel()
	other := &testBank{fn: answer(200, "application/json", `{}`)}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	home := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/same" {
			io.WriteString(w, `{}`)
			return
		}
		if r.URL.Path == "/local" {
			http.Redirect(w, r, "/same", http.StatusFound)
			return
		}
		http.Redirect(w, r, otherSrv.URL+"/x", http.StatusFound)
	}}
	homeSrv := httptest.NewServer(home)
	t.Cleanup(homeSrv.Close)
	hc := &http.Client{Transport: &Transport{Signer: testSigner(t), RedirectURI: "https://tpp.example/cb"}}

	req, _ := http.NewRequest(http.MethodGet, homeSrv.URL+"/away", nil)
	req.Header.Set("PSU-ID", testPSUID)
	_, err := hc.Do(req)
	require.ErrorIs(t, err, ErrCrossOrigin)
	assert.Zero(t, other.count(), "the signed request with its PSU-ID never reached the other host")

	resp, err := hc.Get(homeSrv.URL + "/local")
	require.NoError(t, err, "a redirect on the same origin is followed and signed")
	resp.Body.Close()
	assert.NotEmpty(t, home.request(home.count()-1).Header.Get("Signature"))
}

func TestAnswersThatLeaveAPaymentsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		status  int
		body    string
		unknown bool
	}{
		{"POST answered 500", http.MethodPost, 500, `{}`, true},
		{"POST answered 502", http.MethodPost, 502, `<html>`, true},
		{"POST answered 201 with a body that does not decode", http.MethodPost, 201, `{"paymentId":`, true},
		{"POST answered 400", http.MethodPost, 400, `{"tppMessages":[{"code":"FORMAT_ERROR"}]}`, false},
		{"GET answered 500", http.MethodGet, 500, `{}`, false},
		{"GET answered 200 with a body that does not decode", http.MethodGet, 200, `{"x":`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &testBank{fn: answer(tt.status, "application/json", tt.body)}
			_, c := newTestServer(t, rec, WithRetry(RetryPolicy{MaxAttempts: 1}))
			var out struct{ PaymentID string }
			_, err := c.do(context.Background(), &request{op: "payments.initiate", method: tt.method, href: "/v1/payments/x", rawBody: []byte{}}, &out)
			require.Error(t, err)
			assert.Equal(t, tt.unknown, errors.Is(err, ErrOutcomeUnknown), err.Error())
			if tt.unknown {
				assert.Contains(t, err.Error(), "outcome unknown")
				assert.Contains(t, err.Error(), rec.request(0).Header.Get("X-Request-ID"))
			}
			assert.Equal(t, 1, rec.count())
		})
	}
}

func TestWithHTTPClientRaisesTheTLSFloor(t *testing.T) {
	t.Parallel()
	weak := &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS10}}
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithHTTPClient(&http.Client{Transport: weak}))
	require.NoError(t, err)
	used, ok := c.transport.Base.(*http.Transport)
	require.True(t, ok)
	assert.NotSame(t, weak, used, "a clone is used")
	assert.Equal(t, uint16(tls.VersionTLS12), used.TLSClientConfig.MinVersion)
	assert.Equal(t, uint16(tls.VersionTLS10), weak.TLSClientConfig.MinVersion, "the caller's transport is not modified")
}

func TestAcceptFixFromTheContextIsChecked(t *testing.T) {
	t.Parallel()
	rec := &testBank{fn: answer(200, "application/json", `{}`)}
	_, c := newTestServer(t, rec)
	for _, bad := range []AcceptFix{"a,b", "a\r\nX-Evil: 1", ""} {
		ctx := ContextWithAcceptFixes(context.Background(), bad)
		_, err := c.do(ctx, &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%q", bad)
		assert.Equal(t, "AcceptFix", ve.Field)
	}
	assert.Zero(t, rec.count())
}
