package xs2a

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every call ends: a deadline applies when the caller's context has none
// (WithTimeout), over the retries and the reading of the answer.

// stalledBank sends the headers of an answer and part of its body, then
// waits for the client to hang up.
var stalledBank = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "1000")
	io.WriteString(w, `{"balances":[`)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
})

func TestWithTimeoutEndsAStalledBody(t *testing.T) {
	t.Parallel()
	// A caller's own http.Client{} (no timeout) and context.Background().
	_, c := newTestServer(t, stalledBank, WithHTTPClient(&http.Client{}), WithTimeout(50*time.Millisecond))
	_, _, err := c.Accounts.Balances(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"}, "acc-1")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a read")
}

// deadlineRT answers 200 {} and records the deadline of each request's
// context.
type deadlineRT struct {
	mu        sync.Mutex
	deadlines []time.Time
}

func (d *deadlineRT) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, ok := r.Context().Deadline()
	d.mu.Lock()
	if ok {
		d.deadlines = append(d.deadlines, dl)
	}
	d.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader("{}")), ContentLength: 2, Request: r}, nil
}

func TestCallDeadline(t *testing.T) {
	t.Parallel()
	own, cancel := context.WithTimeout(context.Background(), 10*time.Hour)
	defer cancel()
	ownDeadline, _ := own.Deadline()
	for _, tt := range []struct {
		name   string
		ctx    context.Context
		opts   []Option
		within time.Duration // the deadline is this long after the call started; 0: the context's own
	}{
		{"default", context.Background(), nil, 30 * time.Second},
		{"WithTimeout", context.Background(), []Option{WithTimeout(5 * time.Second)}, 5 * time.Second},
		{"a context's own longer deadline is kept", own, nil, 0},
		{"a context's own shorter deadline is kept", own, []Option{WithTimeout(time.Hour * 20)}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rt := &deadlineRT{}
			c, err := NewClient("https://bank.example/api", testSigner(t),
				append([]Option{WithRedirectURI("https://tpp.example/cb"), WithHTTPClient(&http.Client{Transport: rt})}, tt.opts...)...)
			require.NoError(t, err)
			before := time.Now()
			_, err = c.do(tt.ctx, &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
			after := time.Now()
			require.NoError(t, err)
			require.Len(t, rt.deadlines, 1, "the base transport saw a deadline")
			got := rt.deadlines[0]
			if tt.within == 0 {
				assert.True(t, got.Equal(ownDeadline), "the context's deadline is left as it is")
				return
			}
			assert.False(t, got.Before(before.Add(tt.within)), "deadline %v after the start", got.Sub(before))
			assert.False(t, got.After(after.Add(tt.within)), "deadline %v after the start", got.Sub(before))
		})
	}
}
