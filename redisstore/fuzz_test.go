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

// FuzzParseReply: whatever the budget scripts answer, the parse never
// panics; it allows a call only on {1, count, score, time} with count from
// 1 to the limit after a Take, 0 to limit-1 after a Peek, leaving
// limit-count; a refusal leaves none; and Next is after the caller's now by
// the score's distance from the server's time plus the window, zero only
// after a Peek that found no call.
func FuzzParseReply(f *testing.F) {
	f.Add(int64(1), int64(1), int64(1741944600000000), int64(1741944600000000), uint8(4))
	f.Add(int64(1), int64(0), int64(0), int64(0), uint8(1))
	f.Add(int64(1), int64(5), int64(1741944600000000), int64(1741944600000000), uint8(4))
	f.Add(int64(0), int64(4), int64(1741944600000000), int64(1741944600000001), uint8(4))
	f.Add(int64(0), int64(4), int64(1741944600000000), int64(1742031000000000), uint8(4))
	f.Add(int64(0), int64(3), int64(1741944600000000), int64(1741944600000001), uint8(4))
	f.Add(int64(0), int64(4), int64(-1), int64(0), uint8(4))
	f.Add(int64(0), int64(4), int64(1<<53), int64(0), uint8(3))
	f.Add(int64(1), int64(0), int64(0), int64(1741944600000000), uint8(0x84))
	f.Add(int64(1), int64(3), int64(1741944600000000), int64(1741944600000000), uint8(0x84))
	f.Add(int64(1), int64(4), int64(1741944600000000), int64(1741944600000000), uint8(0x84))
	now := time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)
	win := int64(xs2a.AccessWindow / time.Microsecond)
	const limit = xs2a.AccessLimit
	f.Fuzz(func(t *testing.T, flag, count, score, at int64, n uint8) {
		reply := []any{flag, count, score, at}[:n%5]
		taken := n&0x80 == 0 // the high bit: a Peek's answer
		bt, err := parseReply(reply, now, win, limit, taken)
		if err != nil {
			if bt != (xs2a.BudgetTake{}) {
				t.Fatalf("%v: error %v with %+v", reply, err, bt)
			}
			return
		}
		if len(reply) != 4 {
			t.Fatalf("answered %+v on %v", bt, reply)
		}
		lo := int64(1)
		if !taken {
			lo = 0
		}
		if bt.OK && (flag != 1 || count < lo || count > limit+lo-1 || bt.Remaining != limit-int(count)) {
			t.Fatalf("allowed on %v: %+v", reply, bt)
		}
		if !bt.OK && (flag != 0 || count < limit || bt.Remaining != 0) {
			t.Fatalf("refused on %v: %+v", reply, bt)
		}
		if !taken && count == 0 && bt.OK {
			if !bt.Next.IsZero() {
				t.Fatalf("empty peek %v: next %v", reply, bt.Next)
			}
			return
		}
		if !bt.Next.After(now) || bt.Next.Sub(now) != time.Duration(score+win-at)*time.Microsecond {
			t.Fatalf("on %v next %v, now %v", reply, bt.Next, now)
		}
	})
}
