package inert

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain text", 0, "plain text"},
		{"Ærlig øl på å", 0, "Ærlig øl på å"},
		{"line\r\nforged: yes", 0, "line  forged: yes"},
		{"tab\there", 0, "tab here"},
		{"nul\x00bell\x07esc\x1b[31m", 0, `nul\x00bell\x07esc\x1b[31m`},
		{"del\x7f", 0, `del\x7f`},
		{"c1\u0085next\u009b2J", 0, `c1 next\u009b2J`},
		{"evil\u202etxt.exe", 0, `evil\u202etxt.exe`},
		{"\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", 0,
			`\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"zero\u200bwidth\ufeffbom\u00adsoft", 0, `zero\u200bwidth\ufeffbom\u00adsoft`},
		{"sep\u2028line\u2029para", 0, "sep line para"},
		{"tag\U000E0041", 0, `tag\udb40\udc41`},
		{"bad\xffutf8", 0, `bad\xffutf8`},
		{"abcdef", 3, "abc…"},
		{"æøåæøå", 3, "æøå…"},
		{"abc", 3, "abc"},
	} {
		if got := Text(tc.in, tc.max); got != tc.want {
			t.Errorf("Text(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestTextLeavesNothingUnsafe(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r <= 0x10ffff; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		all.WriteRune(r)
	}
	all.WriteString("\xff\xfe\xc0")
	out := Text(all.String(), 0)
	if !Clean(out) {
		for _, r := range out {
			if Unsafe(r) {
				t.Fatalf("Text left %U", r)
			}
		}
		t.Fatal("Text left invalid UTF-8")
	}
}

func TestJSONEscapesWhatEncodingJSONLeaves(t *testing.T) {
	in := map[string]string{"name": "a\u0085b\u009bc\u202ed\u2028e\u200bf\U000E0041g\x00h"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(raw)
	for _, r := range string(out) {
		if Unsafe(r) {
			t.Fatalf("JSON left %U in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back["name"] != in["name"] {
		t.Fatalf("round trip changed the text: %q, want %q", back["name"], in["name"])
	}
}

func TestSpace(t *testing.T) {
	for _, r := range []rune{' ', '\t', '\n', 0xa0, 0x1680, 0x2000, 0x200a, 0x202f, 0x205f, 0x3000} {
		if !Space(r) {
			t.Errorf("Space(%U) = false", r)
		}
	}
	if Space('a') || Space('/') {
		t.Error("Space of a letter")
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain", "a\r\nb", "\u202e", "\xff", "æøå", "\U000E0041"} {
		f.Add(s, 0)
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1000 {
			max = 0
		}
		out := Text(s, max)
		if !Clean(out) {
			t.Fatalf("Text(%q) = %q is not clean", s, out)
		}
		if max > 0 && utf8.RuneCountInString(s) > max {
			head := string([]rune(s)[:max])
			if utf8.ValidString(s) && out != Text(head, 0)+"…" {
				t.Fatalf("Text(%q, %d) = %q, want the first %d characters and an ellipsis", s, max, out, max)
			}
		}
		if Clean(s) && (max == 0 || utf8.RuneCountInString(s) <= max) && out != s {
			t.Fatalf("Text changed clean text %q to %q", s, out)
		}
	})
}

func FuzzJSON(f *testing.F) {
	f.Add("a\u0085b\u202ec")
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(raw)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("JSON(%s) = %s: %v", raw, out, err)
		}
		var want string
		_ = json.Unmarshal(raw, &want)
		if back != want {
			t.Fatalf("JSON changed %q to %q", want, back)
		}
		for _, r := range string(out) {
			if r >= 0x80 && Unsafe(r) && r != utf8.RuneError {
				t.Fatalf("JSON left %U", r)
			}
		}
	})
}
