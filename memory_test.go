package xs2a

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Memory is bounded by the answer: what a call allocates, measured with
// runtime.MemStats (TotalAlloc), for an accepted large answer and for one
// over the cap (maxBody), with and without Content-Length. These tests do
// not run in parallel: TotalAlloc counts the whole process.

// accountsAnswer is an accounts list of about size bytes, in the
// platform's shape.
func accountsAnswer(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"accounts":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resourceId":"enc!!%032d","bban":"12345678903","iban":"NO9312345678903","currency":"NOK",`+
			`"ownerName":"Kari Nordmann","name":"Brukskonto %d","product":"Brukskonto","cashAccountType":"CACC","status":"enabled",`+
			`"bic":"SPSONO22","usage":"PRIV","_links":{"balances":{"href":"/v1/accounts/enc!!%032d/balances"},`+
			`"transactions":{"href":"/v1/accounts/enc!!%032d/transactions"}}}`, i, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// endlessReader gives the same bytes for ever.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// bodyRT answers 200 with body, announcing its length when size >= 0.
type bodyRT struct {
	body func() io.Reader
	size int64
}

func (b bodyRT) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(b.body()), ContentLength: b.size, Request: r}, nil
}

// allocated returns the bytes f allocated (the whole process's, see above).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func memClient(t *testing.T, rt http.RoundTripper) *Client {
	t.Helper()
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"),
		WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	return c
}

func TestLargeAnswerAllocationIsBoundedByItsSize(t *testing.T) {
	body := accountsAnswer(16 << 20)
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.1"}
	// Read once into a buffer of the announced length; without one, in
	// pieces joined at the end: one copy more. The items decoded
	// ([]Account, 424 B each for about 450 B of JSON) and their strings are
	// most of the rest.
	for _, tt := range []struct {
		name  string
		size  int64
		ratio float64
	}{{"Content-Length", int64(len(body)), 3}, {"no Content-Length", -1, 4}} {
		t.Run(tt.name, func(t *testing.T) {
			c := memClient(t, bodyRT{body: func() io.Reader { return bytes.NewReader(body) }, size: tt.size})
			var n int
			got := allocated(func() {
				accounts, _, err := c.Accounts.List(context.Background(), psu)
				require.NoError(t, err)
				n = len(accounts)
			})
			ratio := float64(got) / float64(len(body))
			t.Logf("accounts list of %d B (%d accounts): %d B allocated, %.2f times the answer", len(body), n, got, ratio)
			bound := tt.ratio
			if raceEnabled {
				bound++ // sync.Pool drops a quarter of the pooled decoders under the race detector
			}
			assert.LessOrEqual(t, ratio, bound)
		})
	}
}

func TestRefusedAnswerAllocatesAtMostTheCap(t *testing.T) {
	const size = 100 << 20
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.1"}
	for _, tt := range []struct {
		name  string
		size  int64
		bound uint64
	}{
		{"Content-Length over the cap: nothing read", size, 256 << 10},
		{"no Content-Length: read up to the cap", -1, maxBody + 2<<20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := memClient(t, bodyRT{body: func() io.Reader { return io.LimitReader(endlessReader{}, size) }, size: tt.size})
			got := allocated(func() {
				_, _, err := c.Accounts.List(context.Background(), psu)
				require.ErrorIs(t, err, errBodyTooLarge)
			})
			t.Logf("refused answer of %d B: %d B allocated", size, got)
			assert.LessOrEqual(t, got, tt.bound)
		})
	}
}
