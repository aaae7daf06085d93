package xs2a

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The performance work (BENCHMARKS.md) reads bodies into buffers sized from
// Content-Length and reused through bodyBuffers; these tests pin that the
// bytes read are the same whatever the announced length says, and that a
// reused buffer never shows through in what a call returned.

// readInto is readUpTo joined, as interpret reads an error body, into buf.
func readInto(buf []byte, r io.Reader, limit, size int64) ([]byte, error) {
	p, err := readUpTo(buf, r, limit, size, false)
	return p.join(), err
}

func TestReadInto(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("0123456789", 300) // 3000 bytes
	for _, tt := range []struct {
		name        string
		buf         []byte
		size, limit int64
		want        string
	}{
		{name: "size announced", size: 3000, limit: maxBody, want: body},
		{name: "size unknown", size: -1, limit: maxBody, want: body},
		{name: "size zero", size: 0, limit: maxBody, want: body},
		{name: "announced too short", size: 10, limit: maxBody, want: body},
		{name: "announced too long", size: 1 << 30, limit: maxBody, want: body},
		{name: "limit", size: 3000, limit: 100, want: body[:100]},
		{name: "limit, size unknown", size: -1, limit: 1000, want: body[:1000]},
		{name: "a buffer with room", buf: make([]byte, 7, 4096), size: 3000, limit: maxBody, want: body},
		{name: "a buffer without room", buf: make([]byte, 7, 16), size: -1, limit: maxBody, want: body},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// OneByteReader: every Read returns a single byte, the worst case
			// for the growth loop.
			got, err := readInto(tt.buf, iotest.OneByteReader(strings.NewReader(body)), tt.limit, tt.size)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	t.Run("read error", func(t *testing.T) {
		got, err := readInto(nil, iotest.TimeoutReader(strings.NewReader(body)), maxBody, 3000)
		assert.ErrorIs(t, err, iotest.ErrTimeout)
		assert.Equal(t, body[:512], string(got[:512]), "what came before the error is kept")
	})
	t.Run("no body", func(t *testing.T) {
		got, err := readInto(nil, http.NoBody, maxBody, 0)
		require.NoError(t, err)
		assert.NotNil(t, got)
		assert.Empty(t, got)
	})
	t.Run("the announced size bounds the buffer made ahead", func(t *testing.T) {
		got, err := readInto(nil, strings.NewReader("{}"), maxBody, 1<<40)
		require.NoError(t, err)
		assert.Equal(t, "{}", string(got))
		assert.LessOrEqual(t, cap(got), maxPrealloc+1)
	})
}

// TestReusedBodyBuffersDoNotLeak decodes answers of several sizes one after
// the other into json.RawMessage (which keeps the JSON it is given, copied)
// and checks that each result still holds its own answer once the buffer it
// was read into has served the next calls.
func TestReusedBodyBuffersDoNotLeak(t *testing.T) {
	t.Parallel()
	answers := []string{
		`{"a":"` + strings.Repeat("x", 5000) + `"}`,
		`{"b":1}`,
		`{"c":"` + strings.Repeat("y", 300) + `"}`,
		`{"d":"` + strings.Repeat("z", 70000) + `"}`,
		`{"e":[1,2,3]}`,
	}
	rec := &testBank{fn: func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answers[(n-1)%len(answers)])
	}}
	_, c := newTestServer(t, rec)
	var got []json.RawMessage
	for range 2 * len(answers) {
		var raw json.RawMessage
		_, err := c.do(context.Background(), &request{op: "test", method: http.MethodGet, href: "/v1/x"}, &raw)
		require.NoError(t, err)
		got = append(got, raw)
	}
	for i, raw := range got {
		assert.True(t, bytes.Equal([]byte(answers[i%len(answers)]), raw), "answer %d changed after later calls", i)
	}
}
