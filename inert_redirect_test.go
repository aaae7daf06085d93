package xs2a

import (
	"net"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hiddenInLink reports a character no scaRedirect handed out may hold,
// judged independently of the code under test: white space and Unicode
// spaces, controls, format characters (bidi among them), line and
// paragraph separators, the replacement character and backslashes.
func hiddenInLink(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		r == 0x2028 || r == 0x2029 || r == utf8.RuneError || r == '\\'
}

// FuzzSCARedirectHref: whatever scaRedirect href the bank sends, one that
// is accepted held no space of any kind, control, bidi or format character,
// separator, invalid UTF-8 or backslash, and what is handed out holds none
// either and is https with a host, or plain http on a loopback host,
// without user info.
func FuzzSCARedirectHref(f *testing.F) {
	c, err := NewClient("https://bank.example/api", testSigner(f), WithRedirectURI("https://tpp.example/cb"))
	if err != nil {
		f.Fatal(err)
	}
	for _, href := range hostileSCARedirects {
		f.Add(href)
	}
	for _, href := range []string{"https://sca.other-bank.example/login?id=1", "http://127.0.0.1:8080/sca/t1",
		"http://[::1]:9/x", "/sca/t1?x=1", "https://bank.example/sca/\u202egpj.exe", "https://bank.example/\u3000",
		"https://bank.example/a\u00adb", "https://bank.example/%E2%80%AE", "HTTPS://BANK.EXAMPLE/x"} {
		f.Add(href)
	}
	f.Fuzz(func(t *testing.T, href string) {
		got, reason := c.scaRedirectHref(href)
		if reason != "" {
			if got != "" {
				t.Fatalf("%q refused (%s) but %q handed out", href, reason, got)
			}
			return
		}
		if !utf8.ValidString(href) || strings.ContainsFunc(href, hiddenInLink) {
			t.Fatalf("%q accepted", href)
		}
		if !utf8.ValidString(got) || strings.ContainsFunc(got, hiddenInLink) {
			t.Fatalf("%q handed out as %q", href, got)
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("%q handed out as %q, which does not parse: %v", href, got, err)
		}
		host := u.Hostname()
		ip := net.ParseIP(host)
		loopback := strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
		if !(u.Scheme == "https" || u.Scheme == "http" && loopback) || host == "" || u.Opaque != "" || u.User != nil {
			t.Fatalf("%q handed out as %q: not https with a host, nor http on loopback", href, got)
		}
	})
}
