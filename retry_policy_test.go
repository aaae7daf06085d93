package xs2a

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultRetryPolicyCannotBeChanged: what one caller does to the
// default policy changes no later default, and what it does to the policy
// it handed WithRetry changes no Client.
func TestDefaultRetryPolicyCannotBeChanged(t *testing.T) {
	t.Parallel()
	d := DefaultRetryPolicy()
	d.Methods[0] = http.MethodDelete
	d.MaxAttempts = 9
	fresh := DefaultRetryPolicy()
	assert.Equal(t, []string{http.MethodGet}, fresh.Methods, "another caller's change shows in the default")
	assert.Equal(t, 3, fresh.MaxAttempts)

	p := DefaultRetryPolicy()
	p.MinDelay, p.MaxDelay = time.Millisecond, time.Millisecond
	rec := &testBank{fn: answer(http.StatusServiceUnavailable, "application/json", "")}
	_, c := newTestServer(t, rec, WithRetry(p))
	fakeSleep(c)
	p.Methods[0] = http.MethodHead // after NewClient: the Client's copy stays GET
	_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, nil)
	require.Error(t, err)
	assert.Equal(t, p.MaxAttempts, rec.count(), "the caller's later change reached the Client's policy")
}
