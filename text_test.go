package xs2a

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		s        string
		max      int
		wantErr  bool
		position string // expected "index N" in the reason when wantErr
	}{
		{name: "empty", s: ""},
		{name: "ascii", s: "Invoice 12345/2024 (paid) #1 ~"},
		{name: "norwegian letters", s: "Bjørn Ærlig Åsen, Tromsø"},
		{name: "latin-1 upper range", s: "ÿ¡¿«»°±µ÷×"},
		{name: "no-break space", s: "100\u00a0kr"},
		{name: "exactly max", s: "æøå", max: 3},
		{name: "no limit", s: strings.Repeat("a", 1000), max: 0},
		{name: "longer than max", s: "æøåa", max: 3, wantErr: true},
		{name: "emoji", s: "hi 😀", wantErr: true, position: "index 3"},
		{name: "euro sign", s: "10 €", wantErr: true, position: "index 3"},
		{name: "cyrillic", s: "Привет", wantErr: true, position: "index 0"},
		{name: "line feed", s: "a\nb", wantErr: true, position: "index 1"},
		{name: "carriage return", s: "ab\r", wantErr: true, position: "index 2"},
		{name: "tab", s: "\t", wantErr: true, position: "index 0"},
		{name: "nul", s: "a\x00", wantErr: true, position: "index 1"},
		{name: "delete", s: "a\x7f", wantErr: true, position: "index 1"},
		{name: "C1 control", s: "ø\u0085", wantErr: true, position: "index 1"},
		{name: "replacement char", s: "\ufffd", wantErr: true, position: "index 0"},
		{name: "invalid utf-8", s: "æ\xff", wantErr: true, position: "index 1"},
		{name: "raw latin-1 byte", s: "Troms\xf8", wantErr: true, position: "index 5"},
		{name: "truncated sequence", s: "ab\xc3", wantErr: true, position: "index 2"},
		{name: "bad char beats length", s: "abcd\n", max: 2, wantErr: true, position: "index 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkText("Payment.CreditorName", tc.s, tc.max)
			if !tc.wantErr {
				if err != nil {
					t.Fatalf("checkText: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("checkText error = %v, want *ValidationError", err)
			}
			if ve.Field != "Payment.CreditorName" {
				t.Errorf("Field = %q", ve.Field)
			}
			if tc.position != "" && !strings.Contains(ve.Reason, tc.position) {
				t.Errorf("Reason %q does not name %q", ve.Reason, tc.position)
			}
			if tc.s != "" && strings.Contains(err.Error(), tc.s) {
				t.Errorf("error %q repeats the text", err)
			}
			if !strings.HasPrefix(err.Error(), "xs2a: ") {
				t.Errorf("error %q lacks the xs2a prefix", err)
			}
		})
	}
}

func FuzzCheckText(f *testing.F) {
	for _, s := range []string{"", "abc", "Bjørn", "😀", "a\nb", "\xff", "æøå\u00a0", "\u0085", "\ufffd"} {
		f.Add(s, 0)
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 {
			max = -max
		}
		err := checkText("f", s, max)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "f" {
				t.Fatalf("error %v is not a *ValidationError for the field", err)
			}
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 %q", s)
		}
		if max > 0 && utf8.RuneCountInString(s) > max {
			t.Fatalf("accepted %d runes with max %d", utf8.RuneCountInString(s), max)
		}
		// Accepted text is Latin-1: one byte per character, and back.
		latin1 := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff || r < 0x20 || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("accepted rune %U", r)
			}
			latin1 = append(latin1, byte(r))
		}
		back := make([]rune, len(latin1))
		for i, b := range latin1 {
			back[i] = rune(b)
		}
		if string(back) != s {
			t.Fatalf("Latin-1 round trip changed %q into %q", s, string(back))
		}
	})
}
