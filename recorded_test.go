package xs2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests against fixtures shaped like traffic recorded between a public TPP
// client and a production bank of the platform (testdata/ais/recorded):
// base path /api, ids "enc!!<base64>=" written literally in paths.

const (
	recAccountID   = "enc!!QkFOSy0xMjM0NTY3ODkwMTI="
	recAccountPath = "/v1/accounts/enc!!QkFOSy0xMjM0NTY3ODkwMTI="
	recCardID      = "enc!!+/+/QkFOSy03Nzc="
	recCardPath    = "/v1/card-accounts/enc!!+%2F+%2FQkFOSy03Nzc="
)

func TestRecordedBankOfferedConsent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		context PSUContext
	}{
		{"private", ContextPrivate},
		{"corporate", ContextCorporate},
		{"no context", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, map[string]http.HandlerFunc{
				"POST /v1/bank-offered-consents": serve(t, http.StatusCreated, "ais/recorded/bank_offered_consent.json"),
			})
			links, resp, err := c.Consents.CreateBankOffered(context.Background(), PSU{IPAddress: "192.0.2.10", Context: tt.context})
			require.NoError(t, err, "the scaRedirect is the result, not an error")
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
			assert.Equal(t, "https://psd2.bank.example/api/sca/start?token=c2NhLTQ0MjE=", links.Links.SCARedirect.Href)
			r := bank.only(t)
			assert.Equal(t, testBasePath+"/v1/bank-offered-consents", r.RequestURI)
			assert.Empty(t, r.Body)
			assert.Zero(t, r.ContentLength)
			assert.Equal(t, emptyDigest, r.Header.Get("Digest"), "an empty body is digested")
			assert.Contains(t, r.Header.Get("Signature"), "digest", "and the Digest is signed")
			assert.Equal(t, string(tt.context), r.Header.Get("PSU-Context"))
			_, sent := r.Header["Psu-Context"]
			assert.Equal(t, tt.context != "", sent)
		})
	}
}

// TestPSUContextHeader: PSU-Context goes on the calls that start a consent
// or registration SCA, and on no other.
func TestPSUContextHeader(t *testing.T) {
	t.Parallel()
	psu := PSU{ID: aisPSUID, IPAddress: "192.0.2.10", Context: ContextCorporate}
	for _, tt := range []struct {
		name, route string
		call        func(c *Client) error
		want        string
	}{
		{"CreateBankOffered", "POST /v1/bank-offered-consents", func(c *Client) error {
			_, _, err := c.Consents.CreateBankOffered(context.Background(), psu)
			return err
		}, "CORPORATE"},
		{"Create", "POST /v1/consents", func(c *Client) error {
			_, _, err := c.Consents.Create(context.Background(), psu)
			return err
		}, "CORPORATE"},
		{"Register", "GET /v1/users", func(c *Client) error {
			_, _, err := c.Users.Register(context.Background(), psu)
			return err
		}, "CORPORATE"},
		{"User", "GET /v1/user", func(c *Client) error {
			_, _, err := c.Users.ChooseContext(context.Background(), psu)
			return err
		}, "CORPORATE"},
		{"Get", "GET " + recAccountPath, func(c *Client) error {
			_, _, err := c.Accounts.Get(context.Background(), psu, recAccountID)
			return err
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answer := `{"_links":{"scaRedirect":{"href":"https://sca.example/x"}}}`
			if tt.want == "" {
				answer = "ais/recorded/account.json"
			}
			bank, c := newAISBank(t, map[string]http.HandlerFunc{tt.route: serve(t, http.StatusOK, answer)})
			require.NoError(t, tt.call(c))
			assert.Equal(t, tt.want, bank.only(t).Header.Get("PSU-Context"))
		})
	}
}

func TestPSUContextValidation(t *testing.T) {
	t.Parallel()
	for _, v := range []PSUContext{"private", "Corporate", "BUSINESS", "PRIVATE\r\nX: y"} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, nil)
			_, resp, err := c.Consents.CreateBankOffered(context.Background(), PSU{Context: v})
			assert.Nil(t, resp)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "PSU.Context", ve.Field)
			assert.Zero(t, bank.count(), "nothing is sent")
		})
	}
}

func TestRecordedSingleResources(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET " + recAccountPath:               serve(t, http.StatusOK, "ais/recorded/account.json"),
		"GET " + recCardPath:                  serve(t, http.StatusOK, "ais/recorded/card_account.json"),
		"GET " + recCardPath + "/balances":    serve(t, http.StatusOK, "ais/recorded/card_balances.json"),
		"GET /v1/accounts/bare":               serve(t, http.StatusOK, `{"resourceId":"bare","bban":"32010012345"}`),
		"GET /v1/card-accounts/bare":          serve(t, http.StatusOK, `{"resourceId":"bare","maskedPan":"5254******1234"}`),
		"GET /v1/card-accounts/bare/balances": serve(t, http.StatusOK, `{"account":{"maskedPan":"5254******1234"},"balances":[]}`),
	})
	ctx := context.Background()

	a, _, err := c.Accounts.Get(ctx, aisPresent, recAccountID)
	require.NoError(t, err)
	assert.Equal(t, recAccountID, a.ResourceID)
	assert.Equal(t, "32010012345", a.BBAN)
	assert.Equal(t, CashAccountCurrent, a.CashAccountType)
	assert.Equal(t, recAccountPath+"/balances", a.Links.Balances.Href, "the href as the bank wrote it")

	ca, _, err := c.CardAccounts.Get(ctx, aisPresent, recCardID)
	require.NoError(t, err)
	assert.Equal(t, recCardID, ca.ResourceID)
	assert.Equal(t, "525412******3241", ca.MaskedPAN)
	require.NotNil(t, ca.CreditLimit)
	assert.Equal(t, "50000.00", ca.CreditLimit.Amount)

	b, _, err := c.CardAccounts.Balances(ctx, aisPresent, recCardID)
	require.NoError(t, err)
	assert.Equal(t, AccountReference{MaskedPAN: "525412******3241", Currency: "NOK"}, b.Account, "cardAccount decodes into Account")
	require.Len(t, b.Balances, 2)
	assert.Equal(t, BalanceType("any_balance_type"), b.Balances[0].BalanceType, "a type outside the Berlin Group list passes through")
	assert.Equal(t, "-1520.50", b.Balances[0].BalanceAmount.Amount)
	got, ok := b.Find(BalanceInterimAvailable)
	assert.True(t, ok)
	assert.Equal(t, "48479.50", got.BalanceAmount.Amount)

	wantURIs := []string{recAccountPath, recCardPath, recCardPath + "/balances"}
	for i, want := range wantURIs {
		assert.Equal(t, testBasePath+want, bank.request(i).RequestURI)
	}

	a, _, err = c.Accounts.Get(ctx, aisPresent, "bare")
	require.NoError(t, err)
	assert.Equal(t, "32010012345", a.BBAN, "a bare account object decodes too")
	ca, _, err = c.CardAccounts.Get(ctx, aisPresent, "bare")
	require.NoError(t, err)
	assert.Equal(t, "5254******1234", ca.MaskedPAN, "a bare card account object decodes too")
	b, _, err = c.CardAccounts.Balances(ctx, aisPresent, "bare")
	require.NoError(t, err)
	assert.Equal(t, "5254******1234", b.Account.MaskedPAN, "a reference under account decodes too")
}

// TestIDsInTheRequestLine: every path built from an id escapes only what
// RFC 3986 forbids in a segment, as the server reads the request line.
func TestIDsInTheRequestLine(t *testing.T) {
	t.Parallel()
	ids := []struct{ id, seg string }{
		{recAccountID, "enc!!QkFOSy0xMjM0NTY3ODkwMTI="},
		{"enc!!+/8=", "enc!!+%2F8="},
		{"a%2Fb", "a%252Fb"},
		{"a b", "a%20b"},
		{"konto-ø", "konto-%C3%B8"},
		{"x?y#z", "x%3Fy%23z"},
		{"sub-delims!$&'()*+,=:@", "sub-delims!$&'()*+,=:@"},
	}
	calls := []struct {
		name, path string // path: %s for the segment
		call       func(c *Client, id string) error
	}{
		{"Get", "/v1/accounts/%s", func(c *Client, id string) error {
			_, _, err := c.Accounts.Get(context.Background(), aisPresent, id)
			return err
		}},
		{"Balances", "/v1/accounts/%s/balances", func(c *Client, id string) error {
			_, _, err := c.Accounts.Balances(context.Background(), aisPresent, id)
			return err
		}},
		{"TransactionsPage", "/v1/accounts/%s/transactions", func(c *Client, id string) error {
			_, _, err := c.Accounts.TransactionsPage(context.Background(), aisPresent, id, nil)
			return err
		}},
		{"Transaction", "/v1/accounts/a/transactions/%s", func(c *Client, id string) error {
			_, _, err := c.Accounts.Transaction(context.Background(), aisPresent, "a", id)
			return err
		}},
		{"CardAccounts.Get", "/v1/card-accounts/%s", func(c *Client, id string) error {
			_, _, err := c.CardAccounts.Get(context.Background(), aisPresent, id)
			return err
		}},
		{"CardAccounts.Balances", "/v1/card-accounts/%s/balances", func(c *Client, id string) error {
			_, _, err := c.CardAccounts.Balances(context.Background(), aisPresent, id)
			return err
		}},
		{"CardAccounts.Transactions", "/v1/card-accounts/%s/transactions", func(c *Client, id string) error {
			_, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, id, nil))
			return err
		}},
	}
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			t.Parallel()
			bank := &testBank{fn: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"balances":[]}`))
			}}
			_, c := newTestServer(t, bank, WithClock(fixedNow))
			for _, tt := range ids {
				require.NoError(t, call.call(c, tt.id), tt.id)
				want := testBasePath + replaceSeg(call.path, tt.seg)
				assert.Equal(t, want, bank.last().RequestURI, tt.id)
			}
		})
	}
}

func replaceSeg(path, seg string) string {
	for i := 0; i+1 < len(path); i++ {
		if path[i:i+2] == "%s" {
			return path[:i] + seg + path[i+2:]
		}
	}
	return path
}

// TestLinksFollowedVerbatim: an href is sent as the bank wrote it, its
// escaping kept.
func TestLinksFollowedVerbatim(t *testing.T) {
	t.Parallel()
	_, c := newAISBank(t, nil)
	for _, href := range []string{
		recAccountPath + "/transactions?bookingStatus=both&page=2",
		recCardPath + "/transactions",
		"/v1/accounts/enc!!a,b;c=/balances",
		testBasePath + "/v1/accounts/enc!!%2B%2F=/balances",
	} {
		u, err := c.resolve(href)
		require.NoError(t, err, href)
		want := href
		if want[:len(testBasePath)] != testBasePath {
			want = testBasePath + want
		}
		assert.Equal(t, want, u.RequestURI())
	}
}

// TestRecordedCardPagesWithoutIDs: booked card entries without
// cardTransactionId, equal on two pages a next link leads through, are
// all yielded; a next link that leads back to a page read stops the walk.
func TestRecordedCardPagesWithoutIDs(t *testing.T) {
	t.Parallel()
	t.Run("equal pages", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + recCardPath + "/transactions": byQuery(t, "page", map[string]string{
			"": "ais/recorded/card_transactions_page1.json", "2": "ais/recorded/card_transactions_page2.json", "3": "ais/recorded/card_transactions_page3.json",
		})})
		txs, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, recCardID, &TransactionsOptions{BookingStatus: BookingBooked}))
		require.NoError(t, err)
		assert.Len(t, txs, 6)
		assert.Equal(t, 3, bank.count())
		assert.Equal(t, testBasePath+recCardPath+"/transactions?bookingStatus=booked&page=2", bank.request(1).RequestURI, "the next href as written")
	})
	t.Run("next leads back", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + recCardPath + "/transactions": byQuery(t, "page", map[string]string{
			"": "ais/recorded/card_transactions_page1.json", "2": "ais/recorded/card_transactions_loop.json",
		})})
		txs, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, recCardID, nil))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "already read")
		assert.Len(t, txs, 4)
		assert.Equal(t, 2, bank.count())
	})
}

// TestCardBalancesBudget: card balances count as account balances without
// the PSU present (per card account); the single-resource reads do not.
func TestCardBalancesBudget(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET " + recCardPath + "/balances":    serve(t, http.StatusOK, "ais/recorded/card_balances.json"),
		"GET " + recCardPath:                  serve(t, http.StatusOK, "ais/recorded/card_account.json"),
		"GET " + recAccountPath:               serve(t, http.StatusOK, "ais/recorded/account.json"),
		"GET " + recAccountPath + "/balances": serve(t, http.StatusOK, "ais/recorded/account_balances.json"),
	})
	ctx := context.Background()
	for range AccessLimit {
		_, _, err := c.CardAccounts.Balances(ctx, aisNotPresent, recCardID)
		require.NoError(t, err)
	}
	_, _, err := c.CardAccounts.Balances(ctx, aisNotPresent, recCardID)
	var ae *AccessExceededError
	require.True(t, errors.As(err, &ae), "the fifth is refused locally: %v", err)
	assert.Equal(t, BudgetBalances, ae.Endpoint)
	for range AccessLimit + 1 {
		_, _, err := c.Accounts.Get(ctx, aisNotPresent, recAccountID)
		require.NoError(t, err)
		_, _, err = c.CardAccounts.Get(ctx, aisNotPresent, recCardID)
		require.NoError(t, err)
	}
	_, _, err = c.Accounts.Balances(ctx, aisNotPresent, recAccountID)
	require.NoError(t, err, "each account has its own count")
	assert.Equal(t, AccessLimit+2*(AccessLimit+1)+1, bank.count())
}

// FuzzSingleResources: the decoders of GET /v1/accounts/{id},
// GET /v1/card-accounts/{id} and GET /v1/card-accounts/{id}/balances never
// panic, and a wrapped object decodes as the bare one does.
func FuzzSingleResources(f *testing.F) {
	for _, name := range []string{"account.json", "card_account.json", "card_balances.json", "account_balances.json"} {
		f.Add(fixture(f, "ais/recorded/"+name))
	}
	f.Add([]byte(`{"account":null}`))
	f.Add([]byte(`{"account":"x","resourceId":"y"}`))
	f.Add([]byte(`{"cardAccount":{"maskedPan":1}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := singleBody[Account]{key: "account"}
		if decodeJSON(data, &a) == nil {
			wrapped := singleBody[Account]{key: "account"}
			enc, err := json.Marshal(a.item)
			require.NoError(t, err)
			require.NoError(t, decodeJSON([]byte(`{"account":`+string(enc)+`}`), &wrapped))
			assert.Equal(t, a.item.ResourceID, wrapped.item.ResourceID)
		}
		ca := singleBody[CardAccount]{key: "cardAccount"}
		_ = decodeJSON(data, &ca)
		var b cardBalancesBody
		if decodeJSON(data, &b) == nil {
			got := b.balances()
			if b.Account != (AccountReference{}) {
				assert.Equal(t, b.Account, got.Account, "account wins over cardAccount")
			}
		}
	})
}

// TestTransactionsStandingOrders: with bookingStatus all the standing
// orders (information) that come on every page are yielded once, after the
// booked entries, with Status BookingInformation; two equal ones on a page
// are two.
func TestTransactionsStandingOrders(t *testing.T) {
	t.Parallel()
	info := `"information":[{"transactionAmount":{"amount":"-750.00","currency":"NOK"},"creditorName":"Husleie",` +
		`"additionalInformationStructured":{"standingOrderDetails":{"startDate":"2026-03-05","frequency":"Monthly"}}},` +
		`{"transactionAmount":{"amount":"-50.00","currency":"NOK"}},{"transactionAmount":{"amount":"-50.00","currency":"NOK"}}]`
	page := func(id, next string) string {
		links := `{}`
		if next != "" {
			links = `{"next":{"href":"` + recAccountPath + `/transactions?bookingStatus=all&page=` + next + `"}}`
		}
		return `{"transactions":{"booked":[{"transactionId":"` + id + `","transactionAmount":{"amount":"-1.00","currency":"NOK"}}],` +
			`"pending":[],` + info + `,"_links":` + links + `}}`
	}
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + recAccountPath + "/transactions": byQuery(t, "page", map[string]string{
		"": page("b1", "2"), "2": page("b2", ""),
	})})
	var got []string
	for tx, err := range c.Accounts.Transactions(context.Background(), aisPresent, recAccountID, &TransactionsOptions{BookingStatus: BookingAll}) {
		require.NoError(t, err)
		got = append(got, string(tx.BookingStatus)+":"+tx.TransactionID+tx.TransactionAmount.Amount)
	}
	assert.Equal(t, []string{"booked:b1-1.00", "information:-750.00", "information:-50.00", "information:-50.00", "booked:b2-1.00"}, got)
	assert.Equal(t, "bookingStatus=all", bank.request(0).Query)
}
