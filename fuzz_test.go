package xs2a

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Fuzz targets for the parsers of the bank's answers that had none: the
// response verifier, the _links resolver, Retry-After, and the answer
// pipeline (decode and answerError) as a whole. The other parsers of
// untrusted input have theirs next to their tests (FuzzParseCallback,
// FuzzParseErrorBody, FuzzParseSignature, FuzzDecodeRFC2047, FuzzAmount,
// FuzzDate, FuzzValidKID, FuzzValidBBAN, FuzzValidIBAN, FuzzTransactionsPage,
// FuzzPaymentStatus, FuzzDecodeSandboxCustomers, FuzzVerifyDigest, and in
// xs2atest the bank's own FuzzParseSignatureHeader and FuzzVerifySignature).

// fuzzResponseHeaders are the headers of the answer FuzzVerifyResponse
// signs: fixed, so that a Signature computed once stays valid as a seed.
func fuzzResponseHeaders(body []byte) http.Header {
	h := http.Header{}
	h.Set("Date", fixedNow().Format(http.TimeFormat))
	h.Set("X-Request-ID", fuzzRequestID)
	h.Set("Digest", Digest(body))
	return h
}

// fuzzRequestID is the X-Request-ID of the request the fuzzed answers
// answer, which the bank signs.
const fuzzRequestID = "5d2f5f2c-6c5e-4f0e-9a51-7f2d7f0d9b1e"

// FuzzVerifyResponse: responseVerifier.verify reads the bank's Signature and
// Digest headers. Whatever the headers and the body, it never panics; an
// answer the bank signed verifies; a body other than the one signed never
// verifies, whatever Signature and Digest headers come with it.
func FuzzVerifyResponse(f *testing.F) {
	bank := testECSigner(f) // the bank's key and certificate in this test
	v := &responseVerifier{cert: bank.Certificate(), require: true}
	noDigest := *bank
	noDigest.setHeaders([]string{"date", "x-request-id"})
	sign := func(s *Signer, h http.Header) string {
		sig, err := s.sign(headerSource{h: h})
		if err != nil {
			f.Fatal(err)
		}
		return sig
	}
	okBody := []byte(`{"accounts":[]}`)
	genuine := sign(bank, fuzzResponseHeaders(okBody))
	genuineEmpty := sign(&noDigest, fuzzResponseHeaders(nil))
	for _, s := range []struct {
		body, got   []byte
		sig, digest string
		mode        uint8
	}{
		{okBody, okBody, "", "", 0},
		{okBody, []byte(`{"accounts":[{}]}`), "", "", 0},
		{okBody, okBody, genuine, "", 0},
		{okBody, []byte(`{"accounts":[{}]}`), genuine, Digest([]byte(`{"accounts":[{}]}`)), 0},
		{okBody, nil, genuine, "", 2},
		{nil, nil, genuineEmpty, "", 1},
		{nil, okBody, genuineEmpty, Digest(okBody), 1},
		{okBody, okBody, encodeRFC2047([]byte(genuine)), "", 0},
		{okBody, okBody, `keyId="x",signature="QUJD"`, "SHA-512=AAAA", 0},
		{okBody, okBody, "=?=", "SHA-256=,SHA-256=", 0},
		{okBody, okBody, strings.Replace(genuine, "date digest", "digest", 1), "", 0},
		{okBody, okBody, strings.Replace(genuine, `headers="`, `headers="(request-target) host `, 1), "", 0},
	} {
		f.Add(s.body, s.got, s.sig, s.digest, s.mode)
	}
	f.Fuzz(func(t *testing.T, body, got []byte, sig, digest string, mode uint8) {
		signer := bank
		if mode&1 != 0 {
			signer = &noDigest
		}
		h := fuzzResponseHeaders(body)
		h.Set("Signature", sign(signer, h))
		resp := &http.Response{StatusCode: http.StatusOK, Header: h}

		// The answer as the bank signed it.
		err := v.verify(resp, pieces{body}, fuzzRequestID, true)
		if covered := mode&1 == 0; (err == nil) != (covered || len(body) == 0) {
			t.Fatalf("genuine answer (digest signed: %v, body %d bytes): verify = %v", covered, len(body), err)
		}
		if !bytes.Equal(got, body) && v.verify(resp, pieces{got}, fuzzRequestID, true) == nil && (len(got) > 0 || mode&1 == 0) {
			t.Fatalf("a body other than the one signed verified: signed %q, got %q", body, got)
		}

		// The same answer with the Signature and Digest headers of the input.
		h = h.Clone()
		if sig != "" {
			h.Set("Signature", sig)
		}
		if digest != "" {
			h.Set("Digest", digest)
		}
		if mode&2 != 0 {
			h.Del("Digest")
		}
		resp = &http.Response{StatusCode: http.StatusOK, Header: h}
		err = v.verify(resp, pieces{got}, fuzzRequestID, true)
		if err != nil {
			if !errors.Is(err, ErrSignatureInvalid) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("verify error %q: not a one-line *SignatureError", err)
			}
			return
		}
		if bytes.Equal(got, body) {
			return
		}
		// Only a signature that does not cover the digest leaves an empty
		// body unauthenticated; any other body must be the one signed.
		p, perr := parseSignature(h.Get("Signature"))
		if perr != nil {
			t.Fatalf("verified with an unparsable Signature %q", h.Get("Signature"))
		}
		if len(got) > 0 || slices.Contains(p.Headers, "digest") {
			t.Fatalf("a tampered body verified: signed %q, got %q, Signature %q, Digest %q", body, got, h.Get("Signature"), h.Get("Digest"))
		}
	})
}

// FuzzResolveLink: resolve turns the bank's _links hrefs into the URLs the
// client signs requests for. Whatever the href, the result is on the base
// address's origin and under its base path, with no dot segment that a
// server would resolve to a path outside it.
func FuzzResolveLink(f *testing.F) {
	clients := map[bool]*Client{}
	for root, base := range map[bool]string{false: "https://bank.example/api", true: "https://bank.example"} {
		c, err := NewClient(base, testSigner(f), WithRedirectURI("https://tpp.example/cb"))
		if err != nil {
			f.Fatal(err)
		}
		clients[root] = c
	}
	for _, href := range []string{
		"/v1/accounts/enc%21%21x/transactions?offset=499&limit=499",
		"/api/v1/payments/p/1/status",
		"v1/x",
		"https://bank.example/api/v1/x",
		"https://evil.example/api/v1/x",
		"//evil.example/api/v1/x",
		"http:/evil.example",
		"https://bank.example/apix",
		"/api/../admin",
		"../../admin",
		"/v1/%2e%2e/%2E%2E/admin",
		"/v1/a%2Fb",
		"https://user@bank.example/api",
		"/v1/x#frag",
		"\\\\evil.example\\x",
		"%zz",
		"",
	} {
		f.Add(href, false)
		f.Add(href, true)
	}
	f.Fuzz(func(t *testing.T, href string, root bool) {
		c := clients[root]
		u, err := c.resolve(href)
		if err != nil {
			return
		}
		s := u.String()
		back, err := url.Parse(s)
		if err != nil {
			t.Fatalf("%q resolved to %q, which does not parse: %v", href, s, err)
		}
		if back.Scheme != c.base.Scheme || back.Host != c.base.Host || back.User != nil || back.Opaque != "" {
			t.Fatalf("%q resolved to %q: another origin than %s", href, s, c.BaseURL())
		}
		if p := back.Path; c.basePath != "" && p != c.basePath && !strings.HasPrefix(p, c.basePath+"/") {
			t.Fatalf("%q resolved to %q: outside the base path %s", href, s, c.basePath)
		}
		for seg := range strings.SplitSeq(back.Path, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("%q resolved to %q: a dot segment can leave the base path", href, s)
			}
		}
		req, err := http.NewRequest(http.MethodGet, s, nil)
		if err != nil {
			t.Fatalf("%q resolved to %q, which is no request URL: %v", href, s, err)
		}
		if req.URL.Host != c.base.Host {
			t.Fatalf("%q: the request goes to %q", href, req.URL.Host)
		}
	})
}

// FuzzRetryAfter: the bank's Retry-After, in delay-seconds or HTTP-date form,
// is never a negative wait, and delay-seconds are taken as they are.
func FuzzRetryAfter(f *testing.F) {
	now := fixedNow()
	for _, v := range []string{"", "0", "1", "120", "-1", " 3 ", "+5", "1e3", "9223372036", "9223372037", "99999999999999999999",
		now.Add(time.Minute).Format(http.TimeFormat), "Mon, 01 Jan 10000 00:00:00 GMT", now.Add(-time.Hour).Format(http.TimeFormat)} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := retryAfter(http.Header{"Retry-After": {v}}, now)
		if d < 0 {
			t.Fatalf("Retry-After %q gives a negative wait %v", v, d)
		}
		if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 && s <= 1<<31 && d != time.Duration(s)*time.Second {
			t.Fatalf("Retry-After %q gives %v", v, d)
		}
		a := try{method: http.MethodGet, n: 1, attempts: 1, status: http.StatusServiceUnavailable, header: http.Header{"Retry-After": {v}}}
		if w := decide(DefaultRetryPolicy(), a, func() time.Time { return now }); w.retry && (w.wait < 0 || w.wait > DefaultRetryPolicy().MaxRetryAfter) {
			t.Fatalf("Retry-After %q: a wait of %v", v, w.wait)
		}
	})
}

// FuzzAnswer runs an arbitrary answer of the bank through the client's
// pipeline (decode for 2xx, answerError and decide for >= 400): it never
// panics, its errors are one line, a *SCARequiredError always holds a link,
// every scaRedirect handed out is a web address (checkFuzzedRedirect), and an
// *Error keeps the body and a wait that is not negative.
func FuzzAnswer(f *testing.F) {
	c, err := NewClient("https://bank.example/api", testSigner(f), WithRedirectURI("https://tpp.example/cb"), WithClock(fixedNow))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []struct {
		status    int
		ct, ra    string
		body      string
		scaResult bool
	}{
		{200, "application/json", "", `{"transactions":{"booked":[]}}`, false},
		{200, "application/json", "", `{"_links":{"scaRedirect":{"href":"https://bank.example/sca/1"}}}`, false},
		{201, "application/json", "", `{"_links":{"scaRedirect":"https://bank.example/sca/1"}}`, true},
		{200, "application/json", "", `{"_links":{"scaRedirect":{"href":""}},"tppMessages":[{"text":"a\r\nb"}]}`, false},
		{401, "application/json", "", `{"tppMessages":[{"code":"CONSENT_INVALID"}],"_links":{"scaRedirect":{"href":"/sca/x"}}}`, false},
		{429, "application/json", "3600", `{"tppMessages":[{"code":"ACCESS_EXCEEDED"}]}`, false},
		{503, "text/html", "9223372037", `<html>down</html>`, false},
		{400, "application/problem+json", "", `{"type":"FORMAT_ERROR","detail":"bad\nline"}`, false},
		{200, "application/json", "", strings.Repeat("[", 20000), false},
		{500, "application/json", "1", strings.Repeat("[", 20000), false},
		{200, "application/json", "", "{\"transactions\":{\"booked\":[{\"creditorName\":\"\xff\xfe\"}]}}", false},
		{400, "application/json", "", `{"tppMessages":[{"code":"FORMAT_ERROR\r\nX-Forged: 1","text":"t"}]}`, false},
		{200, "application/json", "", `{"transactions":{"booked":[{"bookingDate":"2025-01-0\n1","transactionAmount":{"currency":"NOK","amount":"1\n"}}]}}`, false},
		{200, "application/json", "", `{"transactions":{"booked":[{"bookingDateTime":"2025-01-01T00:00:00\r\n"}]},"balances":[{"lastChangeDateTime":"x\ny"}]}`, false},
		{401, "application/json", "", `{"_links":{"scaRedirect":{"href":"javascript:alert(1)"}}}`, false},
		{200, "application/json", "", `{"_links":{"scaRedirect":"//evil.example/sca"}}`, false},
		{201, "application/json", "", `{"_links":{"scaRedirect":{"href":"java\tscript:alert(1)"}}}`, true},
		{201, "application/json", "", `{"_links":{"scaRedirect":{"href":"/\\evil.example"}}}`, true},
		{201, "application/json", "", `{"_links":{"scaRedirect":{"href":"http://127.0.0.1:9/sca"}}}`, true},
		{200, "application/json", "", `{"transactions":{"booked":[{"transactionAmount":{"currency":"NOK","amount":"1e400"}}]}}`, false},
	} {
		f.Add(s.status, s.ct, s.ra, []byte(s.body), s.scaResult)
	}
	f.Fuzz(func(t *testing.T, status int, ct, ra string, body []byte, scaResult bool) {
		if status < 200 || status > 599 {
			if status < 0 {
				status = -(status + 1)
			}
			status = 200 + status%400
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}, "Retry-After": {ra}},
			Body: io.NopCloser(bytes.NewReader(body))}
		r := &request{op: "fuzz.answer", method: http.MethodGet, href: "/v1/x", scaResult: scaResult}
		var err error
		switch {
		case status < 400 && scaResult:
			var links SCALinks
			if err = c.decode(r, resp, "rid", &links); err == nil && !links.Links.SCARedirect.IsZero() {
				checkFuzzedRedirect(t, links.Links.SCARedirect.Href)
			}
		case status < 400:
			var rep TransactionReport
			err = c.decode(r, resp, "rid", &rep)
		default:
			err = c.answerError(r, resp, body, "rid")
			var e *Error
			if errors.As(err, &e) {
				if e.RetryAfter < 0 {
					t.Fatalf("Error.RetryAfter %v for Retry-After %q", e.RetryAfter, ra)
				}
				if !bytes.Equal(e.Body, body) {
					t.Fatal("Error.Body is not the body read")
				}
			}
			a := try{method: http.MethodGet, n: 1, attempts: 1, status: status, header: resp.Header, body: body}
			if w := decide(DefaultRetryPolicy(), a, fixedNow); w.retry && w.wait < 0 {
				t.Fatalf("a negative wait %v before a retry", w.wait)
			}
		}
		if err == nil {
			return
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "xs2a: ") || strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("error message %q: not one line starting with xs2a: ", msg)
		}
		var sca *SCARequiredError
		if errors.As(err, &sca) {
			if sca.Redirect.Href == "" {
				t.Fatal("*SCARequiredError without a link")
			}
			checkFuzzedRedirect(t, sca.Redirect.Href)
			if status >= 400 && status != http.StatusUnauthorized {
				t.Fatalf("*SCARequiredError for status %d", status)
			}
		}
	})
}

// checkFuzzedRedirect fails unless href is an address a browser may be sent
// to: no whitespace, control character or backslash, https with a host and
// no user info, or plain http on loopback.
func checkFuzzedRedirect(t *testing.T, href string) {
	t.Helper()
	if strings.ContainsFunc(href, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '\\' }) {
		t.Fatalf("scaRedirect %q handed out with whitespace, a control character or a backslash", href)
	}
	u, err := url.Parse(href)
	if err != nil {
		t.Fatalf("scaRedirect %q handed out, which does not parse: %v", href, err)
	}
	https := u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname()))
	if !https || u.Hostname() == "" || u.Opaque != "" || u.User != nil {
		t.Fatalf("scaRedirect %q handed out: not an https address with a host", href)
	}
}
