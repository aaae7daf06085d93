package xs2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redirectSpellings are one answer's _links.scaRedirect as a hostile or
// tampered bank may write it: every one is a redirect to encoding/json,
// which decodes the results, and so to the SDK.
var redirectSpellings = map[string]string{
	"plain":                   `{"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`,
	"upper case":              `{"_LINKS":{"SCAREDIRECT":{"href":"https://bank.example/sca"}}}`,
	"mixed case":              `{"_Links":{"ScaReDiReCt":{"href":"https://bank.example/sca"}}}`,
	"escaped R":               `{"_links":{"sca\u0052edirect":{"href":"https://bank.example/sca"}}}`,
	"escaped r of rect":       `{"_links":{"scaRedi\u0072ect":{"href":"https://bank.example/sca"}}}`,
	"all escaped":             `{"\u005f\u006c\u0069\u006e\u006b\u0073":{"\u0073\u0063\u0061\u0052\u0065\u0064\u0069\u0072\u0065\u0063\u0074":{"href":"https://bank.example/sca"}}}`,
	"long s":                  `{"_linkſ":{"ſcaRedirect":{"href":"https://bank.example/sca"}}}`,
	"Kelvin sign":             "{\"_lin\u212as\":{\"scaRedirect\":{\"href\":\"https://bank.example/sca\"}}}",
	"after other members":     `{"accounts":[],"tppMessages":[{"category":"ERROR","code":"X"}],"_links":{"self":{"href":"/v1/x"},"SCARedirect":{"href":"https://bank.example/sca"}}}`,
	"with white space around": "{ \"_links\" :\n {\t\"scaredirect\" : { \"href\" : \"https://bank.example/sca\" } } }",
}

// noRedirect are answers that hold no redirect, though some look like one
// to a byte search.
var noRedirect = map[string]string{
	"none":                 `{"accounts":[]}`,
	"redirect in a value":  `{"accounts":[],"note":"\"scaRedirect\" Direct"}`,
	"another member":       `{"_links":{"scaRedirectX":{"href":"https://bank.example/sca"}}}`,
	"not under _links":     `{"scaRedirect":{"href":"https://bank.example/sca"}}`,
	"escaped, not a match": `{"_links":{"sca\u0052edirectX":{"href":"https://bank.example/sca"}}}`,
}

// decisionClient is a client of a bank that answers every request with
// status and body, signed by bank when signed, and verifies answers when
// verify is set (required when require).
func decisionClient(t *testing.T, bank *Signer, status int, body string, signed, verify, require bool) *Client {
	t.Helper()
	resp := bankResponse{status: status, body: body}
	if signed {
		resp.signer = bank
	}
	var opts []Option
	if verify {
		opts = append(opts, verification(bank.Certificate(), require))
	}
	_, c := newTestServer(t, resp.handler(t), opts...)
	return c
}

// What the SDK decides on an answer is what encoding/json reads in it, the
// answer verified: a redirect in a 2xx or 401 is one in any spelling; a 401
// carrying one must be signed when signatures are required (unsigned, it is
// a *SignatureError, never a redirect handed out), and a 2xx carrying one is
// an SCA request, not a result.
func TestSCARedirectDecidedByTheDecoder(t *testing.T) {
	t.Parallel()
	bank := testECSigner(t)
	type want int
	const (
		sca       want = iota // *SCARequiredError with the link
		signature             // *SignatureError
		success               // the result
		refusal               // *Error
	)
	modes := []struct {
		name                     string
		signed, verify, required bool
		status                   int
		redirect, none           want // the outcome with a redirect, without one
	}{
		{"2xx, no verification", false, false, false, 200, sca, success},
		{"2xx, unsigned, verified if signed", false, true, false, 200, sca, success},
		{"2xx, unsigned, signatures required", false, true, true, 200, signature, signature},
		{"2xx, signed, signatures required", true, true, true, 200, sca, success},
		{"401, no verification", false, false, false, 401, sca, refusal},
		{"401, unsigned, verified if signed", false, true, false, 401, sca, refusal},
		{"401, unsigned, signatures required", false, true, true, 401, signature, refusal},
		{"401, signed, signatures required", true, true, true, 401, sca, refusal},
	}
	for _, m := range modes {
		for _, bodies := range []struct {
			set  map[string]string
			want want
		}{{redirectSpellings, m.redirect}, {noRedirect, m.none}} {
			for name, body := range bodies.set {
				t.Run(m.name+"/"+name, func(t *testing.T) {
					t.Parallel()
					c := decisionClient(t, bank, m.status, body, m.signed, m.verify, m.required)
					var into map[string]any
					var err error
					mustNotPanic(t, func() {
						_, err = c.do(context.Background(), &request{op: "test.get", method: http.MethodGet, href: "/v1/accounts"}, &into)
					})
					switch bodies.want {
					case sca:
						var e *SCARequiredError
						require.ErrorAs(t, err, &e)
						assert.Equal(t, "https://bank.example/sca", e.Redirect.Href)
						assert.Nil(t, into, "an SCA request is no result")
					case signature:
						require.ErrorAs(t, err, new(*SignatureError))
						require.False(t, errors.Is(err, ErrSCARequired), "no unsigned redirect handed out")
					case success:
						require.NoError(t, err)
						assert.NotNil(t, into)
					case refusal:
						var e *Error
						require.ErrorAs(t, err, &e)
						assert.Equal(t, m.status, e.StatusCode)
						require.False(t, errors.Is(err, ErrSCARequired))
					}
				})
			}
		}
	}
}

// The bytes verified are the bytes decided on: a signed answer without a
// redirect, sent with one in its place, is refused, never handed out; a
// signed answer that arrives in pieces (no Content-Length), its escaped
// redirect across them, is found in the very pieces the Digest covered.
func TestSCARedirectInTheBytesVerified(t *testing.T) {
	t.Parallel()
	bank := testECSigner(t)
	pad := `"pad":"` + strings.Repeat("x", 64<<10) + `",`
	signedBody := `{` + pad + `"_links":{"self":{"href":"/v1/x"}}}`
	swapped := `{` + pad + `"_links":{"sca\u0052edirect":{"href":"https://evil.example"}}}`
	for _, tt := range []struct {
		name     string
		status   int
		body     string
		sentBody string
		chunked  bool
		wantSCA  bool
	}{
		{name: "2xx, redirect swapped in", status: 200, body: signedBody, sentBody: swapped},
		{name: "401, redirect swapped in", status: 401, body: signedBody, sentBody: swapped},
		{name: "2xx, chunked, redirect swapped in", status: 200, body: signedBody, sentBody: swapped, chunked: true},
		{name: "2xx, chunked, signed redirect", status: 200, body: swapped, chunked: true, wantSCA: true},
		{name: "401, signed redirect", status: 401, body: swapped, wantSCA: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := bankResponse{status: tt.status, body: tt.body, signer: bank, sentBody: tt.sentBody}
			h := resp.handler(t)
			if tt.chunked {
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					resp.handler(t).ServeHTTP(chunkedWriter{w}, r)
				})
			}
			_, c := newTestServer(t, h, WithResponseVerification(bank.Certificate()))
			var into map[string]any
			_, err := c.do(context.Background(), &request{op: "test.get", method: http.MethodGet, href: "/v1/accounts"}, &into)
			var e *SCARequiredError
			if tt.wantSCA {
				require.ErrorAs(t, err, &e)
				assert.Equal(t, "https://evil.example", e.Redirect.Href, "the bank signed it")
				return
			}
			require.ErrorAs(t, err, new(*SignatureError))
			require.False(t, errors.As(err, &e))
			assert.Nil(t, into)
		})
	}
}

// chunkedWriter writes a body in small flushed pieces, without a
// Content-Length, so the client reads it in pieces.
type chunkedWriter struct{ http.ResponseWriter }

func (w chunkedWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), 1000)
		m, err := w.ResponseWriter.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		w.ResponseWriter.(http.Flusher).Flush()
		b = b[k:]
	}
	return n, nil
}

// mayNameSCARedirect never misses a redirect scaRedirectOf finds, wherever
// the body is cut into pieces, and it lets a page without "rect" or "\u"
// pass without decoding it.
func TestMayNameSCARedirect(t *testing.T) {
	t.Parallel()
	for name, body := range redirectSpellings {
		_, _, ok := scaRedirectOf(pieces{[]byte(body)})
		require.True(t, ok, name)
		for _, p := range cuts([]byte(body)) {
			require.True(t, mayNameSCARedirect(p), "%s in %d pieces: %q", name, len(p), p)
		}
	}
	for _, body := range []string{`{"accounts":[]}`, `{"transactions":{"booked":[{"remittanceInformationUnstructured":"Varekjøp"}]}}`, ``} {
		assert.False(t, mayNameSCARedirect(pieces{[]byte(body)}), body)
	}
}

// cuts returns body cut in two at every place, in three at every pair of
// places, and in pieces of one byte.
func cuts(body []byte) []pieces {
	out := []pieces{{body}}
	for i := range len(body) + 1 {
		out = append(out, pieces{body[:i], body[i:]})
		for j := i; j <= len(body) && j < i+5; j++ {
			out = append(out, pieces{body[:i], body[i:j], body[j:]})
		}
	}
	var bytes pieces
	for i := range body {
		bytes = append(bytes, body[i:i+1])
	}
	return append(out, bytes)
}

// The SDK's check relies on this: no rune but the letter itself in either
// case folds, as encoding/json may fold member names, to r, e, c or t. Other
// ASCII letters do have such runes (ſ is s, the Kelvin sign is k), which
// encoding/json matches, so the check cannot look for a whole "scaredirect"
// or "_links".
func TestSCARedirectFoldsOnlyASCII(t *testing.T) {
	t.Parallel()
	// encoding/json folds names as strings.EqualFold does; the rune's
	// upper case of its lower case is checked too, for a decoder that
	// folds that way.
	folds := func(r rune, letter byte) bool {
		up := rune(unicode.ToUpper(rune(letter)))
		return strings.EqualFold(string(r), string(rune(letter))) || unicode.ToUpper(unicode.ToLower(r)) == up
	}
	for _, letter := range []byte("rect") {
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if !utf8.ValidRune(r) || unicode.ToLower(r) == rune(letter) && r < utf8.RuneSelf {
				continue
			}
			assert.False(t, folds(r, letter), "%U folds to %c", r, letter)
		}
	}
	// The model of encoding/json above is the right one: it matches a
	// member named with such a rune to a field named with the letter.
	for _, tt := range []struct {
		r      rune
		letter byte
	}{{'ſ', 's'}, {'\u212a', 'k'}} {
		assert.True(t, folds(tt.r, tt.letter), "%U", tt.r)
		typ := reflect.StructOf([]reflect.StructField{{Name: "X", Type: reflect.TypeFor[int](),
			Tag: reflect.StructTag(`json:"a` + string(rune(tt.letter)) + `b"`)}})
		v := reflect.New(typ)
		require.NoError(t, json.Unmarshal([]byte(`{"a`+string(tt.r)+`b":1}`), v.Interface()))
		assert.Equal(t, 1, int(v.Elem().Field(0).Int()), "encoding/json matches %U to %c", tt.r, tt.letter)
	}
}

// FuzzMayNameSCARedirect: whatever the body and wherever it is cut, the
// cheap check never misses a redirect scaRedirectOf reads, and it finds
// "rect" or "\u" exactly where a byte-by-byte search does.
func FuzzMayNameSCARedirect(f *testing.F) {
	for _, body := range redirectSpellings {
		f.Add([]byte(body), uint16(7), uint16(20))
	}
	for _, body := range noRedirect {
		f.Add([]byte(body), uint16(3), uint16(9))
	}
	f.Fuzz(func(t *testing.T, body []byte, i, j uint16) {
		a, b := min(int(i), len(body)), min(int(j), len(body))
		a, b = min(a, b), max(a, b)
		p := pieces{body[:a], body[a:b], body[b:]}
		if _, _, ok := scaRedirectOf(pieces{body}); ok && !mayNameSCARedirect(p) {
			t.Fatalf("missed the redirect in %q cut at %d and %d", body, a, b)
		}
		naive := strings.Contains(strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, string(body)), "rect") || strings.Contains(string(body), `\u`)
		if mayNameSCARedirect(pieces{body}) != naive || mayNameSCARedirect(p) != naive {
			t.Fatalf("mayNameSCARedirect(%q cut at %d and %d) = %v", body, a, b, !naive)
		}
	})
}

// The decoding of pages gives the result encoding/json gives when member
// names differ in letter case or hold escapes ("_LINKS", "NEXT",
// "SCARedirect"), so the result and the scaRedirect check read one document
// alike.
func TestPageReaderFoldsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"transactions":{"booked":[{"transactionId":"1"}],"_LINKS":{"NEXT":{"href":"/v1/next"}}}}`,
		`{"transactions":{"booked":[{"transactionId":"1"}],"_links":{"ne\u0078t":{"href":"/v1/next"}}}}`,
		`{"transactions":{"booked":[{"TRANSACTIONID":"1"}],"_links":{"SCARedirect":{"href":"https://bank.example/sca"}}},"_LINKS":{"SCAREDIRECT":{"href":"https://bank.example/sca"}}}`,
		`{"TRANSACTIONS":{"BOOKED":[{"transactionId":"1"}]}}`,
	} {
		var fast, std TransactionReport
		require.NoError(t, unmarshal(pieces{[]byte(body)}, &fast), body)
		require.NoError(t, json.Unmarshal([]byte(body), &std), body)
		assert.Equal(t, std.Transactions.Booked[0].TransactionID, fast.Transactions.Booked[0].TransactionID, body)
		assert.Equal(t, std.Transactions.Links, fast.Transactions.Links, body)
	}
}
