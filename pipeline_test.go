package xs2a

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecide: what follows an attempt, decided from the attempt alone.
func TestDecide(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 3, MinDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 30 * time.Second,
		Methods: []string{http.MethodGet, http.MethodPost}}
	ra := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	exceeded := http.Header{"Retry-After": {"1"}, "Content-Type": {"application/json"}}
	dropped := errors.New("connection reset")
	get := func(n, attempts, status int) try {
		return try{method: http.MethodGet, n: n, attempts: attempts, status: status, header: http.Header{}}
	}
	with := func(t try, f func(*try)) try { f(&t); return t }
	tests := []struct {
		name     string
		policy   RetryPolicy
		try      try
		retry    bool
		min, max time.Duration // the wait's bounds when retried
	}{
		{"503 backoff", p, get(1, 1, 503), true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"503 second backoff doubles", p, get(2, 2, 503), true, 100 * time.Millisecond, 200 * time.Millisecond},
		{"500", p, get(1, 1, 500), true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"502", p, get(1, 1, 502), true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"504", p, get(1, 1, 504), true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"503 Retry-After seconds", p, with(get(1, 1, 503), func(t *try) { t.header = ra("2") }), true, 2 * time.Second, 2 * time.Second},
		{"503 Retry-After date", p, with(get(1, 1, 503), func(t *try) { t.header = ra(fixedNow().Add(10 * time.Second).Format(http.TimeFormat)) }),
			true, 10 * time.Second, 10 * time.Second},
		{"503 Retry-After beyond the policy", p, with(get(1, 1, 503), func(t *try) { t.header = ra("31") }), false, 0, 0},
		{"429 with Retry-After", p, with(get(1, 1, 429), func(t *try) { t.header = ra("1") }), true, time.Second, time.Second},
		{"429 without Retry-After", p, get(1, 1, 429), false, 0, 0},
		{"429 with a Retry-After in the past", p, with(get(1, 1, 429), func(t *try) { t.header = ra(fixedNow().Add(-time.Hour).Format(http.TimeFormat)) }), false, 0, 0},
		{"429 ACCESS_EXCEEDED", p, with(get(1, 1, 429), func(t *try) {
			t.header, t.body = exceeded, []byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`)
		}), false, 0, 0},
		{"200", p, get(1, 1, 200), false, 0, 0},
		{"302", p, get(1, 1, 302), false, 0, 0},
		{"400", p, get(1, 1, 400), false, 0, 0},
		{"no attempts left", p, get(3, 3, 503), false, 0, 0},
		{"no attempts left: more requests written than tries", p, get(2, 3, 503), false, 0, 0},
		{"MaxAttempts 0 is one attempt", RetryPolicy{Methods: []string{http.MethodGet}}, get(1, 1, 503), false, 0, 0},
		{"method not in the policy", p, with(get(1, 1, 503), func(t *try) { t.method = http.MethodDelete }), false, 0, 0},
		{"POST answered 503", p, with(get(1, 1, 503), func(t *try) { t.method = http.MethodPost }), false, 0, 0},
		{"GET without an answer, sent", p, try{method: http.MethodGet, n: 1, attempts: 1, err: dropped, sent: true}, true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"POST without an answer, not sent", p, try{method: http.MethodPost, n: 1, attempts: 1, err: dropped}, true, 50 * time.Millisecond, 100 * time.Millisecond},
		{"POST without an answer, sent", p, try{method: http.MethodPost, n: 1, attempts: 1, err: dropped, sent: true}, false, 0, 0},
		{"context ended", p, try{method: http.MethodGet, n: 1, attempts: 1, err: dropped, ctxErr: context.Canceled}, false, 0, 0},
		{"deadline passed", p, try{method: http.MethodGet, n: 1, attempts: 1, err: context.DeadlineExceeded, ctxErr: context.DeadlineExceeded}, false, 0, 0},
		{"a link to another origin", p, try{method: http.MethodGet, n: 1, attempts: 1, err: fmt.Errorf("redirect: %w", ErrCrossOrigin)}, false, 0, 0},
		{"no answer, last attempt", p, try{method: http.MethodGet, n: 3, attempts: 3, err: dropped}, false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := decide(tc.policy, tc.try, fixedNow)
			require.Equal(t, tc.retry, v.retry, "retry")
			if tc.retry {
				assert.GreaterOrEqual(t, v.wait, tc.min)
				assert.LessOrEqual(t, v.wait, tc.max)
			}
		})
	}
}

// TestInterpret: the call's result made of one attempt's answer or error.
func TestInterpret(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithClock(fixedNow))
	require.NoError(t, err)
	answer := func(status int, body string, header ...string) *http.Response {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		return &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Header: h,
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
	}
	dropped := errors.New("connection reset")
	type result struct{ Name string }
	tests := []struct {
		name     string
		method   string
		writes   int64 // requests written below the client
		a        attempt
		warn     bool
		check    func(t *testing.T, o outcome, got *result)
		attempts int
	}{
		{"no answer, not sent", http.MethodGet, 0, attempt{n: 1, err: dropped}, true, func(t *testing.T, o outcome, _ *result) {
			var te *TransportError
			require.ErrorAs(t, o.err, &te)
			assert.False(t, te.Sent)
			assert.Equal(t, 1, te.Attempts)
			assert.ErrorIs(t, o.err, dropped)
			assert.Nil(t, o.resp)
			assert.Zero(t, o.status)
		}, 1},
		{"no answer, two requests written", http.MethodPost, 2, attempt{n: 1, err: dropped, sent: true}, true, func(t *testing.T, o outcome, _ *result) {
			var te *TransportError
			require.ErrorAs(t, o.err, &te)
			assert.True(t, te.Sent)
			assert.Equal(t, 2, te.Attempts)
			assert.ErrorIs(t, o.err, ErrOutcomeUnknown)
		}, 2},
		{"200 decoded", http.MethodGet, 0, attempt{n: 1, resp: answer(200, `{"Name":"x"}`)}, false, func(t *testing.T, o outcome, got *result) {
			require.NoError(t, o.err)
			assert.Equal(t, "x", got.Name)
			assert.Equal(t, "rid", o.resp.RequestID)
			assert.Equal(t, 200, o.status)
			assert.Equal(t, http.NoBody, o.resp.Body, "the body is read and closed")
		}, 1},
		{"201 with no body to a POST", http.MethodPost, 0, attempt{n: 1, resp: answer(201, ``)}, false, func(t *testing.T, o outcome, _ *result) {
			assert.ErrorIs(t, o.err, ErrOutcomeUnknown)
			require.NotNil(t, o.resp)
		}, 1},
		{"200 that cannot be decoded", http.MethodGet, 0, attempt{n: 2, resp: answer(200, `{"Name":1}`)}, false, func(t *testing.T, o outcome, _ *result) {
			require.Error(t, o.err)
			assert.Equal(t, 2, o.resp.Attempts)
		}, 2},
		{"200 with a scaRedirect", http.MethodGet, 0, attempt{n: 1, resp: answer(200, `{"_links":{"scaRedirect":{"href":"https://bank.example/sca/1"}}}`)}, false,
			func(t *testing.T, o outcome, _ *result) {
				var sca *SCARequiredError
				require.ErrorAs(t, o.err, &sca)
				assert.Equal(t, "https://bank.example/sca/1", sca.Redirect.Href)
			}, 1},
		{"302 not followed", http.MethodGet, 0, attempt{n: 1, resp: answer(302, ``)}, true, func(t *testing.T, o outcome, _ *result) {
			var te *TransportError
			require.ErrorAs(t, o.err, &te)
			assert.True(t, te.Sent)
			assert.Contains(t, o.err.Error(), "redirect")
			assert.Equal(t, 302, o.status)
			assert.Equal(t, http.NoBody, o.resp.Body)
		}, 1},
		{"400 refused", http.MethodGet, 0, attempt{n: 1, resp: answer(400, `{"tppMessages":[{"code":"FORMAT_ERROR"}]}`)}, true, func(t *testing.T, o outcome, _ *result) {
			var e *Error
			require.ErrorAs(t, o.err, &e)
			assert.Equal(t, "FORMAT_ERROR", e.Code)
			assert.Equal(t, `{"tppMessages":[{"code":"FORMAT_ERROR"}]}`, string(o.body), "the body is kept for decide")
			assert.Equal(t, 400, o.status)
		}, 1},
		{"401 with a scaRedirect", http.MethodGet, 0, attempt{n: 1, resp: answer(401, `{"_links":{"scaRedirect":{"href":"https://bank.example/sca/2"}}}`)}, true,
			func(t *testing.T, o outcome, _ *result) {
				var sca *SCARequiredError
				require.ErrorAs(t, o.err, &sca)
				assert.Equal(t, 401, sca.StatusCode)
			}, 1},
		{"503 with Retry-After", http.MethodGet, 0, attempt{n: 1, resp: answer(503, `{}`, "Retry-After", "5")}, true, func(t *testing.T, o outcome, _ *result) {
			var e *Error
			require.ErrorAs(t, o.err, &e)
			assert.Equal(t, 5*time.Second, e.RetryAfter)
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cl := &call{r: &request{op: "test.interpret", method: tc.method, href: "/v1/x"}, requestID: "rid"}
			cl.writes.Store(tc.writes)
			var got result
			o := c.interpret(cl, tc.a, &got)
			assert.Equal(t, tc.warn, o.warn, "warn")
			assert.Equal(t, tc.attempts, o.attempts, "attempts")
			tc.check(t, o, &got)
		})
	}
}

// TestLogCallOnce: a call logs one line, however many attempts it made,
// at debug level when answered and at warn level when it failed.
func TestLogCallOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fn    func(http.ResponseWriter, *http.Request, int)
		wants []string
	}{
		{"answered after two retries", func(w http.ResponseWriter, r *http.Request, n int) {
			if n < 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, `{}`)
		}, []string{"level=DEBUG", "attempt=3", "status=200"}},
		{"refused three times", answer(503, "application/json", `{"tppMessages":[{"code":"SERVICE_UNAVAILABLE"}]}`),
			[]string{"level=WARN", "attempt=3", "status=503", "error_code=SERVICE_UNAVAILABLE"}},
		{"no answer", func(w http.ResponseWriter, r *http.Request, n int) {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		}, []string{"level=WARN", "attempt=3", "error="}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logger, logged := recordingLogger()
			rec := &testBank{fn: tc.fn}
			_, c := newTestServer(t, rec, WithLogger(logger))
			fakeSleep(c)
			_, _ = c.do(context.Background(), &request{op: "test.log", method: http.MethodGet, href: "/v1/x"}, nil)
			out := logged()
			require.Equal(t, 1, strings.Count(out, "xs2a call"), out)
			for _, want := range append(tc.wants, "op=test.log", "request_id="+rec.request(0).Header.Get("X-Request-ID")) {
				assert.Contains(t, out, want)
			}
		})
	}
}

// TestOneRequestIDSource: X-Request-IDs and NewSessionID are version 4
// UUIDs from uuid.NewString, all different.
func TestOneRequestIDSource(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, id := range []string{NewSessionID(), NewSessionID(), NewSessionID()} {
		require.True(t, isUUID(id), id)
		assert.Equal(t, byte('4'), id[14], "version 4: %s", id)
		assert.False(t, seen[id], "drawn twice: %s", id)
		seen[id] = true
	}
}

// isUUID reports whether s is an RFC 4122 UUID in the canonical 8-4-4-4-12
// hex form (either case), as uuid.NewString writes it.
func isUUID(s string) bool { return len(s) == 36 && uuid.Validate(s) == nil }
