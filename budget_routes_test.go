package xs2a

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// anyAnswerBank answers every request 200 with body.
func anyAnswerBank(t *testing.T, body string, opts ...Option) (*testBank, *Client) {
	t.Helper()
	bank := &testBank{fn: func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}}
	_, c := newTestServer(t, bank, append([]Option{WithClock(fixedNow)}, opts...)...)
	return bank, c
}

// TestBudgetKeyIsTheBanksView: every spelling the bank's servlet container
// routes to one account's balances, through a named method or Client.Do,
// with the PSU id in either case, spends the same count: the fifth call,
// whatever its spelling, is refused before it is sent.
func TestBudgetKeyIsTheBanksView(t *testing.T) {
	t.Parallel()
	upper := PSU{ID: strings.ToUpper(aisPSUID)}
	raw := func(p string, psu PSU) func(c *Client) error {
		return func(c *Client) error {
			_, err := c.Do(context.Background(), psu, http.MethodGet, p, nil, nil)
			return err
		}
	}
	spellings := []struct {
		name string
		call func(c *Client) error
	}{
		{"named", func(c *Client) error {
			_, _, err := c.Accounts.Balances(context.Background(), aisNotPresent, aisAccountID)
			return err
		}},
		{"trailing slash", raw(aisAccountPath+"/balances/", aisNotPresent)},
		{"escaped sub-delims", raw("/v1/accounts/enc!!abc%2F%2B%3D/balances", aisNotPresent)},
		{"escaped letters and lower-case hex", raw("/v1/accounts/enc%21%21abc%2f%2B%3D/%62alances", aisNotPresent)},
		{"upper-case PSU id", raw(aisAccountPath+"/balances", upper)},
		{"literal case", raw(testBasePath+"/V1/Accounts/enc!!abc%2F+=/BALANCES", aisNotPresent)},
		{"a POST", func(c *Client) error {
			_, err := c.Do(context.Background(), aisNotPresent, http.MethodPost, aisAccountPath+"/balances", nil, nil)
			return err
		}},
	}
	for i := range spellings {
		t.Run(spellings[i].name, func(t *testing.T) {
			t.Parallel()
			bank, c := anyAnswerBank(t, `{"balances":[]}`)
			// Four other spellings spend the day's calls ...
			for j := 1; j <= AccessLimit; j++ {
				other := spellings[(i+j)%len(spellings)]
				require.NoError(t, other.call(c), other.name)
			}
			// ... and this one is the fifth.
			err := spellings[i].call(c)
			var ae *AccessExceededError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, BudgetBalances, ae.Endpoint)
			assert.Equal(t, AccessLimit, bank.count(), "the fifth call is not sent")
		})
	}
}

// TestBankViewCollapses: empty segments and a trailing "/" route as the
// path without them (the test server's ServeMux redirects "//", so the
// budget test above cannot send it).
func TestBankViewCollapses(t *testing.T) {
	t.Parallel()
	want, err := bankView(aisAccountPath+"/balances", "path")
	require.NoError(t, err)
	require.Equal(t, route{kind: routeBalances, id: aisAccountID}, want)
	for _, p := range []string{"/v1//accounts//enc!!abc%2F+=//balances", "//v1/accounts/enc!!abc%2F+=/balances//", "v1/accounts/enc!!abc%2F+=/balances"} {
		got, err := bankView(p, "path")
		require.NoError(t, err, p)
		assert.Equal(t, want, got, p)
	}
}

// TestRefusedBeforeSending: an id or path the bank's server could route
// elsewhere is a *ValidationError naming its field, and nothing is sent.
// A dot segment, in any spelling, is ErrCrossOrigin too.
func TestRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	bank, c := anyAnswerBank(t, `{}`)
	ctx := context.Background()
	raw := func(p string) func() error {
		return func() error {
			_, err := c.Do(ctx, aisPresent, http.MethodGet, p, nil, nil)
			return err
		}
	}
	balances := func(id string) func() error {
		return func() error { _, _, err := c.Accounts.Balances(ctx, aisPresent, id); return err }
	}
	tests := []struct {
		name  string
		call  func() error
		field string
		dot   bool // also ErrCrossOrigin
	}{
		{"path parameter", raw("/v1/accounts/A;x=1/balances"), "path", false},
		{"path parameter at the end", raw("/v1/accounts/A/balances;jsessionid=1"), "path", false},
		{"escaped semicolon", raw("/v1/accounts/A%3Bx/balances"), "path", false},
		{"backslash escaped", raw("/v1/accounts/A%5C..%5Cbalances"), "path", true},
		{"backslash", raw("/v1/accounts/A%5Cx/balances"), "path", false},
		{"dot-semicolon", raw("/v1/accounts/A/.;/balances"), "path", true},
		{"dot-dot-semicolon", raw("/v1/accounts/B/..;/A/balances"), "path", true},
		{"escaped dots", raw("/v1/accounts/B/%2e%2e/A/balances"), "path", true},
		{"dots escaped twice", raw("/v1/accounts/B/%252e%252E/A/balances"), "path", true},
		{"dots between escaped slashes", raw("/v1/accounts/B%2F..%2FA/balances"), "path", true},
		{"an escaped dot in a segment", raw("/v1/accounts/A%2Ex/balances"), "path", false},
		{"overlong dots", raw("/v1/accounts/%C0%AE%C0%AE/balances"), "path", false},
		{"an escaped slash that leads to balances", raw("/v1/accounts/A%2Fbalances"), "path", false},
		{"an escaped slash twice", raw("/v1/accounts/A%252Fbalances"), "path", false},
		{"plain dots", raw("/v1/accounts/B/../A/balances"), "path", true},
		// Out of the base path and back: the dots are read once, below
		// the base path, whatever the spelling or form of the href.
		{"dots out of the base path", raw("/../../admin"), "path", true},
		{"escaped dots out of the base path", raw("/%2e%2e/%2E%2E/admin"), "path", true},
		{"an absolute href climbing out", raw(c.BaseURL() + "/v1/../../admin"), "path", true},
		{"a link climbing out", func() error {
			_, _, err := c.Payments.Get(ctx, aisPresent, Link{Href: "/v1/payments/p/X/../../../../admin"})
			return err
		}, "link", true},
		{"id with a semicolon", balances("a;b"), "accountID", false},
		{"id dot-dot-semicolon", balances("..;"), "accountID", true},
		{"id with a backslash", balances(`a\b`), "accountID", false},
		{"id with escaped dots", balances("%2e%2e"), "accountID", true},
		{"id with a slash to another endpoint", func() error {
			_, _, err := c.Accounts.Get(ctx, aisPresent, "A/balances")
			return err
		}, "accountID", false},
		{"id with a slash and dots", balances("B/../A"), "accountID", true},
		{"transaction id", func() error {
			_, _, err := c.Accounts.Transaction(ctx, aisPresent, "A", "x;y")
			return err
		}, "transactionID", false},
		{"card account id", func() error {
			_, _, err := c.CardAccounts.Balances(ctx, aisPresent, "c;d")
			return err
		}, "cardAccountID", false},
		{"link with a path parameter", func() error {
			_, _, err := c.Payments.Get(ctx, aisPresent, Link{Href: "/v1/payments/p/X;a=b"})
			return err
		}, "link", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.Equal(t, tt.dot, errors.Is(err, ErrCrossOrigin), "ErrCrossOrigin")
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
		})
	}
	assert.Zero(t, bank.count(), "nothing sent")
}

// hrefRE finds the hrefs of the fixtures.
var hrefRE = regexp.MustCompile(`"href"\s*:\s*"([^"]+)"`)

// TestProductionIDsPass: every /v1 href of the recorded and written
// fixtures, and the ids the tests and the fake bank use, pass the bank's
// view as they are, encoded slashes and sub-delims included.
func TestProductionIDsPass(t *testing.T) {
	t.Parallel()
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range hrefRE.FindAllStringSubmatch(string(b), -1) {
			p, _, _ := strings.Cut(m[1], "?")
			if !strings.HasPrefix(p, "/v1/") {
				continue
			}
			n++
			rt, err := bankView(p, "link")
			if assert.NoError(t, err, "%s: %s", path, m[1]) {
				assert.NotEqual(t, routeOther, rt.kind, "%s: %s", path, m[1])
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, n, 20, "the fixtures' hrefs")
	for _, id := range []string{recAccountID, aisAccountID, aisCardID, aisTxID, "enc!!+/+/QkFOSy03Nzc=",
		"enc!!QUNDT1VOVC0xMjM0NTY3ODkwMy1CUlVL=", "enc!!YmV0YWxpbmctNzczMTA=", "sub-delims!$&'()*+,=:@", "konto-ø", "100%"} {
		assert.NoError(t, checkResourceID("accountID", id), id)
		rt, err := bankView(accountPath(id)+"/balances", "accountID")
		require.NoError(t, err, id)
		assert.Equal(t, route{kind: routeBalances, id: id}, rt, id)
	}
}

// TestLinksReachOnlyTheirPurpose: a link passed back to the SDK reaches
// only the endpoint it is for, in the bank's view; anything else is a
// *ValidationError on "link" before sending.
func TestLinksReachOnlyTheirPurpose(t *testing.T) {
	t.Parallel()
	bank, c := anyAnswerBank(t, `{"transactionStatus":"ACSC","scaStatus":"finalised"}`)
	ctx := context.Background()
	const pay = "/v1/payments/norwegian-domestic-credit-transfers/enc!!YmV0YWxpbmctNzczMTA="
	const basket = "/v1/signing-baskets/enc!!a3Vydi01NTEyMzQ="
	calls := map[string]func(href string) error{
		"Payments.Status": func(h string) error { _, _, err := c.Payments.Status(ctx, aisPresent, Link{Href: h}); return err },
		"Payments.Get":    func(h string) error { _, _, err := c.Payments.Get(ctx, aisPresent, Link{Href: h}); return err },
		"Payments.Cancel": func(h string) error { _, err := c.Payments.Cancel(ctx, aisPresent, Link{Href: h}); return err },
		"StartAuthorisation": func(h string) error {
			_, _, err := c.Payments.StartAuthorisation(ctx, aisPresent, Link{Href: h})
			return err
		},
		"AuthorisationStatus": func(h string) error {
			_, _, err := c.Payments.AuthorisationStatus(ctx, aisPresent, Link{Href: h})
			return err
		},
		"SigningBaskets.Get":    func(h string) error { _, _, err := c.SigningBaskets.Get(ctx, aisPresent, Link{Href: h}); return err },
		"SigningBaskets.Status": func(h string) error { _, _, err := c.SigningBaskets.Status(ctx, aisPresent, Link{Href: h}); return err },
		"SigningBaskets.Cancel": func(h string) error { _, err := c.SigningBaskets.Cancel(ctx, aisPresent, Link{Href: h}); return err },
	}
	allowed := map[string][]string{
		"Payments.Status":       {pay + "/status", "/v1/bulk-payments/p/x/status", testBasePath + pay + "/status/"},
		"Payments.Get":          {pay, "/v1/periodic-payments/p/x"},
		"Payments.Cancel":       {pay},
		"StartAuthorisation":    {pay + "/authorisations", basket + "/authorisations"},
		"AuthorisationStatus":   {pay + "/authorisations/a1", basket + "/authorisations/a1", pay + "/authorisations/enc!!c2lnbmF0dXItMDAwMjE="},
		"SigningBaskets.Get":    {basket},
		"SigningBaskets.Status": {basket + "/status"},
		"SigningBaskets.Cancel": {basket},
	}
	targets := []string{
		pay, pay + "/status", pay + "/authorisations", pay + "/authorisations/a1",
		basket, basket + "/status", basket + "/authorisations", basket + "/authorisations/a1",
		aisAccountPath + "/balances", aisAccountPath + "/transactions", "/v1/accounts", "/v1/consents",
		"/v1/payments/norwegian-domestic-credit-transfers", pay + "/status/x",
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ok := map[string]bool{}
			for _, h := range allowed[name] {
				ok[h] = true
				require.NoError(t, call(h), h)
			}
			for _, h := range targets {
				if ok[h] {
					continue
				}
				before := bank.count()
				err := call(h)
				var ve *ValidationError
				if assert.ErrorAs(t, err, &ve, h) {
					assert.Equal(t, "link", ve.Field, h)
				}
				assert.Equal(t, before, bank.count(), "%s: nothing sent", h)
			}
		})
	}
}

// TestFollowedLinksAreCounted: without the PSU present, every page a walk
// reads by next links counts, in whatever spelling the bank wrote the
// link: the fifth page is refused before it is sent.
func TestFollowedLinksAreCounted(t *testing.T) {
	t.Parallel()
	// The bank spells each next link of the same account differently.
	links := []string{
		"/v1/accounts/enc%21%21abc%2F%2B%3D/transactions?page=2",
		testBasePath + "/v1/accounts/enc!!abc%2f+=/transactions/?page=3",
		"/v1//accounts/enc!!abc%2F+=/Transactions?page=4",
		aisAccountPath + "/transactions?page=5",
	}
	pages := map[string]string{"": bookedPage(1, 1, links[0])}
	for i := range links {
		next := ""
		if i+1 < len(links) {
			next = links[i+1]
		}
		pages[string(rune('2'+i))] = bookedPage(10*(i+2), 1, next)
	}
	bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, _ int) {
		byQuery(t, "page", pages)(w, r)
	}}
	_, c := newTestServer(t, bank, WithClock(fixedNow))
	txs, err := collect(t, c.Accounts.Transactions(context.Background(), aisNotPresent, aisAccountID, nil))
	var ae *AccessExceededError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, BudgetTransactions, ae.Endpoint)
	assert.Equal(t, AccessLimit, bank.count())
	assert.Len(t, txs, 1+AccessLimit, "a booked entry per page, and the pending one once")

	// A next link asking for more than 90 days back is refused then.
	old := map[string]string{"": bookedPage(1, 1, aisAccountPath+"/transactions?page=2&dateFrom=2020-01-01")}
	bank2, c2 := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/transactions": byQuery(t, "page", old)})
	_, err = collect(t, c2.Accounts.Transactions(context.Background(), aisNotPresent, aisAccountID, nil))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "link", ve.Field)
	assert.Equal(t, 1, bank2.count())
}

// TestWalkStaysOnItsAccount: a next link to another account's
// transactions, to the account's balances or, for a card account, to an
// account's transactions ends the walk with a *ValidationError on "link"
// before it is followed.
func TestWalkStaysOnItsAccount(t *testing.T) {
	t.Parallel()
	for _, next := range []string{
		"/v1/accounts/other/transactions?page=2",
		aisAccountPath + "/balances",
		aisAccountPath + "/transactions/t1",
		aisCardPath + "/transactions?page=2",
	} {
		t.Run(next, func(t *testing.T) {
			t.Parallel()
			bank, c := anyAnswerBank(t, bookedPage(1, 1, next))
			txs, err := collect(t, c.Accounts.Transactions(context.Background(), aisPresent, aisAccountID, nil))
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "link", ve.Field)
			assert.Len(t, txs, 2)
			assert.Equal(t, 1, bank.count())
		})
	}
	bank, c := anyAnswerBank(t, `{"cardTransactions":{"booked":[{"cardTransactionId":"c1","transactionAmount":{"amount":"1","currency":"NOK"}}],"_links":{"next":{"href":"`+aisAccountPath+`/transactions"}}}}`)
	_, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, aisCardID, nil))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, 1, bank.count())
}

// FuzzBankView: bankView never panics; a path it accepts has no ';',
// backslash or dot segment in any reading, and its route does not change
// when empty segments or a trailing "/" are added.
func FuzzBankView(f *testing.F) {
	for _, p := range []string{
		"/v1/accounts/enc!!abc%2F+=/balances", "/v1/accounts/A/..;/B/balances", "/v1/accounts/%2e%2e",
		"/v1/payments/p/x/authorisations/a", "/v1/accounts/A%2Fbalances", "/v1/accounts/%252e", "/v1/a;b",
		"/v1/signing-baskets/b/status", "//v1//card-accounts/c/transactions/", "/v1/accounts/%C0%AE",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rt, err := bankView(p, "path")
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "path" {
				t.Fatalf("%q: %v is no *ValidationError on path", p, err)
			}
			return
		}
		if strings.ContainsAny(p, ";\\") {
			t.Fatalf("%q accepted with a ';' or '\\'", p)
		}
		for seg := range strings.SplitSeq(p, "/") {
			if dotSpelling(seg) {
				t.Fatalf("%q accepted with a dot segment %q", p, seg)
			}
		}
		for _, same := range []string{p + "/", strings.ReplaceAll(p, "/", "//")} {
			if rt2, err := bankView(same, "path"); err != nil || rt2 != rt {
				t.Fatalf("%q routes to %+v, %q to %+v (%v)", p, rt, same, rt2, err)
			}
		}
	})
}

// dotSpelling reports whether seg is a dot segment in any of the spellings
// a servlet container or gateway resolves: "." or "..", with ";params"
// ("..;x"), escaped once or twice ("%2e%2e", "%252e"), or as a piece
// between encoded slashes or backslashes ("a%2F.."). FuzzBankView's
// oracle, written apart from bankSegment.
func dotSpelling(seg string) bool {
	s := seg
	for range 3 {
		for piece := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '\\' }) {
			piece, _, _ = strings.Cut(piece, ";")
			if piece == "." || piece == ".." {
				return true
			}
		}
		if strings.IndexByte(s, '%') < 0 {
			return false
		}
		var err error
		if s, err = url.PathUnescape(s); err != nil {
			return false
		}
	}
	return false
}
