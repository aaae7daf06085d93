package main

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/inert"
)

// hostile is bank text that would act on a terminal or a person reading
// it: an escape sequence that clears the screen, a line break, bidi
// overrides and isolates, a C1 next line, a line separator and a zero-width
// space.
const hostile = "\x1b[2J\r\nA\u202eB\u2066C\u0085D\u2028E\u200bF\u009b"

// hostileLink is an scaRedirect with bidi, format and C1 characters: the
// SDK refuses it (*xs2a.SCARedirectError), so the command never prints or
// opens it. cleanLink is one it hands out.
const (
	hostileLink = "https://bank.example/sca/x\u202ey\u2066z\u0085\u2028\u200b?a=\u009b"
	cleanLink   = "https://bank.example/sca/xyz?a=1"
)

// hostileBank is a bank under /api that writes hostile into every text it
// sends: account names, transaction texts, error texts, sandbox customers'
// names, and its scaRedirect link. It remembers the TPP-Redirect-URI and
// TPP-Session-ID of the request that asked for SCA, so that a test can
// play the bank's redirect.
type hostileBank struct {
	*httptest.Server
	mu                     sync.Mutex
	redirectURI, sessionID string
}

// newHostileBank starts a hostileBank whose scaRedirect is link.
func newHostileBank(t *testing.T, link string) *hostileBank {
	t.Helper()
	b := &hostileBank{}
	write := func(w http.ResponseWriter, status int, v any) {
		body, err := json.Marshal(v)
		require.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
	type m = map[string]any
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/accounts", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PSU-ID") == "" {
			b.mu.Lock()
			b.redirectURI, b.sessionID = r.Header.Get("TPP-Redirect-URI"), r.Header.Get("TPP-Session-ID")
			b.mu.Unlock()
			write(w, 401, m{"tppMessages": []m{{"category": "ERROR", "code": "CONSENT_INVALID", "text": hostile}},
				"_links": m{"scaRedirect": m{"href": link}}})
			return
		}
		write(w, 200, m{"accounts": []m{{"resourceId": "acc-1", "bban": "12345678903", "currency": "NOK",
			"name": hostile, "product": hostile, "ownerName": hostile}}})
	})
	mux.HandleFunc("GET /api/v1/accounts/acc-1/transactions", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, m{"account": m{"bban": "12345678903"}, "transactions": m{"booked": []m{{
			"transactionId": "t1", "bookingDate": "2025-01-02", "transactionAmount": m{"currency": "NOK", "amount": "-1.00"},
			"creditorName": hostile, "remittanceInformationUnstructured": hostile}}}})
	})
	mux.HandleFunc("GET /api/v1/accounts/acc-1/balances", func(w http.ResponseWriter, r *http.Request) {
		write(w, 400, m{"tppMessages": []m{{"category": "ERROR", "code": "FORMAT_ERROR" + hostile, "text": hostile}}})
	})
	mux.HandleFunc("GET /api/v1/sandbox/customers", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, []m{{"customerNumber": "01010112345", "customerType": "PRIVATE" + hostile, "name": hostile}})
	})
	b.Server = httptest.NewServer(mux)
	t.Cleanup(b.Close)
	return b
}

// callback is the bank's redirect back to the TPP after SCA: success
// params, or failure params when they are given.
func (b *hostileBank) callback(failure url.Values) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := url.Values{"psu-id": {attackerUUID}, "tpp-session-id": {b.sessionID}, "context": {"PRIVATE"}}
	if failure != nil {
		q = failure
	}
	return b.redirectURI + "&" + q.Encode()
}

// assertInert fails for every line of out that holds a character
// inert.Unsafe reports (line feeds end lines).
func assertInert(t *testing.T, name, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		for _, r := range l {
			if inert.Unsafe(r) {
				t.Errorf("%s line %d holds %U raw: %q", name, i+1, r, l)
				break
			}
		}
	}
}

// TestOutputInert: whatever a bank writes into names, transaction texts,
// error texts, links and callbacks, the table, -json, standard error and
// the printed link hold no control, bidi or format character raw; -json
// still decodes to the bank's text exactly.
func TestOutputInert(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	failure := url.Values{"status": {"401"}, "code": {"SCA_INVALID"}, "message": {hostile}}
	for _, tc := range []struct {
		name    string
		args    []string
		failure url.Values // the SCA fails with these callback params
		link    string     // the bank's scaRedirect: cleanLink when ""
		code    int
		stdout  string // a piece of the output, made inert
		json    string // -json: the field whose value is hostile
	}{
		{"accounts table", []string{"accounts"}, nil, "", 0, `A\u202eB\u2066C D…`, ""},
		{"a hostile scaRedirect: refused, never printed", []string{"accounts"}, nil, hostileLink, 1, "", ""},
		{"accounts json", []string{"accounts", "-json"}, nil, "", 0, "", "name"},
		{"transactions table", []string{"transactions"}, nil, "", 0, `A\u202eB`, ""},
		{"transactions json", []string{"transactions", "-json"}, nil, "", 0, "", "remittanceInformationUnstructured"},
		{"balances: the bank's error", []string{"balances"}, nil, "", 1, "", ""},
		{"failed SCA: the callback's message", []string{"accounts"}, failure, "", 1, "", ""},
		{"sandbox customers table", []string{"sandbox", "customers"}, nil, "", 0, `A\u202eB`, ""},
		{"sandbox customers json", []string{"sandbox", "customers", "-json"}, nil, "", 0, "", "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			link := cmp.Or(tc.link, cleanLink)
			bank := newHostileBank(t, link)
			done := make(chan error, 1)
			setup := func(e *env) {
				e.open = func(string) error {
					go func() {
						a, err := visit("GET", bank.callback(tc.failure), nil)
						if err == nil {
							err = a.taken()
						}
						done <- err
					}()
					return nil
				}
			}
			args := append(tc.args, "-cert", c.cert, "-key", c.key, "-base-url", bank.URL+"/api",
				"-redirect-uri", "http://127.0.0.1:0/callback", "-open")
			code, stdout, stderr := runCmd(t, setup, args...)
			switch {
			case link == hostileLink:
				assert.NotContains(t, stderr, "bank.example", "a refused link is neither printed nor opened")
				assert.Contains(t, stderr, "scaRedirect")
			case tc.args[0] != "sandbox":
				require.NoError(t, <-done)
				assert.Contains(t, stderr, cleanLink, "the printed link")
			}
			require.Equal(t, tc.code, code, stderr)
			assertInert(t, "stdout", stdout)
			assertInert(t, "stderr", stderr)
			assert.Contains(t, stdout, tc.stdout)
			if tc.code != 0 && link != hostileLink {
				assert.Contains(t, stderr, `A\u202eB`, "the bank's text is shown, inert")
			}
			if tc.json != "" {
				var v []map[string]any
				if tc.args[0] == "transactions" {
					var grouped struct{ Booked []map[string]any }
					require.NoError(t, json.Unmarshal([]byte(stdout), &grouped))
					v = grouped.Booked
				} else {
					require.NoError(t, json.Unmarshal([]byte(stdout), &v))
				}
				require.NotEmpty(t, v)
				assert.Equal(t, hostile, v[0][tc.json], "-json keeps the bank's text")
			}
		})
	}
}

// TestShorten: a cell too long for its column is cut at a word boundary
// with "…", trailing punctuation dropped; one long word (or a short word
// before a long one) is cut within the word; text that fits is kept.
func TestShorten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Brukskonto", 32, "Brukskonto"},
		{"exactly ten", 11, "exactly ten"},
		{"Sparekonto for felles utgifter i huset", 22, "Sparekonto for felles…"},
		{"Sparekonto for felles utgifter", 22, "Sparekonto for felles…"},
		{"Sparekonto for felles utgifter", 20, "Sparekonto for…"},
		{"Nordlys Bygg AS, avdeling Tromsø", 18, "Nordlys Bygg AS…"},
		{"Donaudampfschifffahrtsgesellschaft", 12, "Donaudampfs…"},
		{"A Donaudampfschifffahrtsgesellschaft", 12, "A Donaudamp…"},
		{"ærøæøå øæå", 8, "ærøæøå…"},
		{"two words", 1, "…"},
		{"anything", 0, "anything"},
	} {
		got := shorten(tc.in, tc.max)
		assert.Equal(t, tc.want, got, "shorten(%q, %d)", tc.in, tc.max)
		if tc.max > 0 {
			assert.LessOrEqual(t, len([]rune(got)), tc.max)
		}
	}
}

// TestTableShortensNames: the table shortens the free-text columns
// (names, products, counterparties, texts), never ids, account numbers or
// amounts; -json keeps the whole text.
func TestTableShortensNames(t *testing.T) {
	t.Parallel()
	long := "Felleskonto for husholdning og ferie på hytta i Lofoten"
	var b strings.Builder
	require.NoError(t, table(&b, []string{"ID", "NAME", "TEXT"}, [][]string{{strings.Repeat("9", 50), long, long}}))
	out := b.String()
	assert.Contains(t, out, strings.Repeat("9", 50))
	assert.Contains(t, out, "Felleskonto for husholdning og…  ")
	assert.NotContains(t, out, "Lofoten")
	assert.Contains(t, out, "Felleskonto for husholdning og ferie på…", "TEXT is wider")
	b.Reset()
	require.NoError(t, writeJSON(&b, map[string]string{"name": long}))
	assert.Contains(t, b.String(), long)
}

// TestBalanceDate: the date column shows referenceDate, else
// lastChangeDateTime in the bank's offset, else the time of the bank's
// answer, "as of" it; the embedded fake bank (which, as the platform's
// banks, sends neither date) fills every row.
func TestBalanceDate(t *testing.T) {
	t.Parallel()
	answered := time.Date(2026, 3, 2, 9, 30, 0, 0, time.Local)
	changed := time.Date(2026, 3, 2, 9, 15, 0, 0, time.FixedZone("", 3600))
	ref, err := xs2a.ParseDate("2026-03-01")
	require.NoError(t, err)
	for _, tc := range []struct {
		b    xs2a.Balance
		want string
	}{
		{xs2a.Balance{ReferenceDate: ref, LastChangeDateTime: &changed}, "2026-03-01"},
		{xs2a.Balance{LastChangeDateTime: &changed}, "2026-03-02 09:15 +01:00"},
		{xs2a.Balance{LastChangeDateTime: new(time.Time)}, "as of 2026-03-02 09:30"},
		{xs2a.Balance{}, "as of 2026-03-02 09:30"},
	} {
		assert.Equal(t, tc.want, balanceDate(tc.b, answered))
	}
	code, stdout, stderr := runCmd(t, nil, "balances")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Greater(t, len(lines), 1)
	for _, l := range lines[1:] {
		assert.Regexp(t, `as of \d{4}-\d\d-\d\d \d\d:\d\d$`, l)
	}
}
