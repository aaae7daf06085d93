package redisstore

import (
	"testing"
	"time"

	"github.com/tppkit/xs2a"
)

// FuzzDecodeState: a state read from Redis never panics, and one that
// decodes encodes to a state that decodes the same.
func FuzzDecodeState(f *testing.F) {
	for _, s := range []string{"", `{"a":"x","u":"2025-03-14T09:30:00Z","p":"y"}`, `{"p":"y","u":"0001-01-01T00:00:00Z","ps":"2025-03-14T09:30:00.5+01:00"}`, `{"u":"0001-01-01T00:00:00Z"}`, `{"a":1}`, `[`, "null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		st, err := decodeState(raw)
		if err != nil {
			return
		}
		enc, err := encodeState(st)
		if err != nil {
			return // a time JSON cannot write (year outside 0-9999)
		}
		back, err := decodeState(enc)
		if err != nil || back.Active != st.Active || back.Pending != st.Pending || !back.ActiveUntil.Equal(st.ActiveUntil) || !back.PendingSince.Equal(st.PendingSince) {
			t.Fatalf("%q: %+v, then %+v (%v)", raw, st, back, err)
		}
	})
}

// FuzzParseTakeReply: whatever the budget script answers, the parse never
// panics, and it allows a call only on the exact answer {1}.
func FuzzParseTakeReply(f *testing.F) {
	f.Add(int64(1), int64(0), false)
	f.Add(int64(0), int64(1741944600000000), true)
	f.Add(int64(0), int64(-1), true)
	f.Fuzz(func(t *testing.T, flag, score int64, two bool) {
		reply := []any{flag}
		if two {
			reply = append(reply, score)
		}
		ok, next, err := parseTakeReply(reply, int64(xs2a.AccessWindow/time.Microsecond))
		if ok && (err != nil || flag != 1 || two) {
			t.Fatalf("allowed on %v", reply)
		}
		if !ok && err == nil && next.IsZero() {
			t.Fatalf("refused without a next time on %v", reply)
		}
	})
}
