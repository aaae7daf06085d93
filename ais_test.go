package xs2a

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	aisPSUID       = "5c0a8a2e-3b1f-4e0b-9d7e-2f1a9b6c4d11"
	aisCorporateID = "8d3f5a61-2c4b-4e7a-9f10-3b2c1d0e9a77"
	aisAccountID   = "enc!!abc/+="
	aisAccountPath = "/v1/accounts/enc!!abc%2F+="
	aisCardID      = "card!!x/y"
	aisCardPath    = "/v1/card-accounts/card!!x%2Fy"
	aisTxID        = "tx/1+2=3"
)

var (
	aisNotPresent = PSU{ID: aisPSUID}
	aisPresent    = PSU{ID: aisPSUID, IPAddress: "192.0.2.10"}
)

// newAISBank starts a fake bank under /api with routes and a client for it.
func newAISBank(t testing.TB, routes map[string]http.HandlerFunc, opts ...Option) (*testBank, *Client) {
	t.Helper()
	b := &testBank{fn: func(w http.ResponseWriter, r *http.Request, _ int) {
		key := r.Method + " " + r.URL.EscapedPath()
		h := routes[key]
		if h == nil {
			t.Errorf("fake bank: unexpected request %s", key)
			http.Error(w, "no route", 599)
			return
		}
		h(w, r)
	}}
	_, c := newTestServer(t, b, append([]Option{WithClock(fixedNow)}, opts...)...)
	return b, c
}

// fixture reads testdata/ais/name, or testdata/name when name has a
// directory ("pis/status_patc.json").
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	if !strings.Contains(name, "/") {
		name = filepath.Join("ais", name)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// serve answers with status and a fixture (or, without ".json", the text itself).
func serve(t testing.TB, status int, bodyOrFixture string) http.HandlerFunc {
	body := []byte(bodyOrFixture)
	if strings.HasSuffix(bodyOrFixture, ".json") {
		body = fixture(t, bodyOrFixture)
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}
}

// byQuery answers by a query parameter's value ("" when absent).
func byQuery(t testing.TB, param string, answers map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query().Get(param)
		a, ok := answers[v]
		if !ok {
			t.Errorf("fake bank: no answer for %s=%q", param, v)
			http.Error(w, "no answer", 599)
			return
		}
		serve(t, http.StatusOK, a)(w, r)
	}
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) ([]T, error) {
	t.Helper()
	var out []T
	for x, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, x)
	}
	return out, nil
}

func TestAccountsList(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/accounts": serve(t, 200, "accounts.json")})
	accounts, resp, err := c.Accounts.List(context.Background(), aisPresent)
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, 200, resp.StatusCode)
	require.Len(t, accounts, 2)

	a := accounts[0]
	assert.Equal(t, aisAccountID, a.ResourceID)
	assert.Equal(t, "12345678903", a.BBAN)
	assert.Equal(t, "NO9312345678903", a.IBAN)
	assert.Equal(t, "Brukskonto med et navn som er lengre enn trettifem tegn", a.Name)
	assert.Equal(t, CashAccountCurrent, a.CashAccountType)
	assert.True(t, a.CashAccountType.ISO())
	assert.Equal(t, AccountEnabled, a.Status)
	assert.Equal(t, UsagePrivate, a.Usage)
	assert.Equal(t, "SPRONO22XXX", a.BIC)
	assert.Equal(t, Link{Href: aisAccountPath + "/balances", Verbs: []string{"GET"}}, a.Links.Balances)
	assert.Equal(t, aisAccountPath+"/transactions", a.Links.Transactions.Href)
	assert.Equal(t, aisAccountPath, a.Links.Self.Href)

	s := accounts[1]
	assert.Equal(t, CashAccountType("Sparekonto"), s.CashAccountType, "a proprietary value decodes as it is")
	assert.False(t, s.CashAccountType.ISO())
	require.Len(t, s.Balances, 1)
	assert.Equal(t, Amount{Currency: "NOK", Amount: "2500.5"}, s.Balances[0].BalanceAmount, "a JSON number amount")

	reqs := bank.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodGet, reqs[0].Method)
	assert.Equal(t, aisPSUID, reqs[0].Header.Get("PSU-ID"))
	assert.Equal(t, "192.0.2.10", reqs[0].Header.Get("PSU-IP-Address"))
	assert.NotEmpty(t, reqs[0].Header.Get("Signature"))
}

func TestAccountsListEmpty(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"accounts":[]}`, `{}`, `{"accounts":null}`, ``, `[]`} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			_, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/accounts": serve(t, 200, body)})
			accounts, _, err := c.Accounts.List(context.Background(), aisNotPresent)
			require.NoError(t, err)
			require.NotNil(t, accounts)
			assert.Empty(t, accounts)
		})
	}
}

// A closed account is left out of the list by the bank (docs/interface.md, Errors:
// "empty list, not 404"); the remaining accounts come back as they are.
func TestAccountsListClosedAccountAbsent(t *testing.T) {
	t.Parallel()
	var doc struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	require.NoError(t, json.Unmarshal(fixture(t, "accounts.json"), &doc))
	body, _ := json.Marshal(map[string]any{"accounts": doc.Accounts[1:]})
	_, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/accounts": serve(t, 200, string(body))})
	accounts, _, err := c.Accounts.List(context.Background(), aisNotPresent)
	require.NoError(t, err)
	require.Len(t, accounts, 1)
	assert.Equal(t, "enc!!savings", accounts[0].ResourceID)
}

func TestAccountsBalances(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/balances": serve(t, 200, "balances.json")})
	b, resp, err := c.Accounts.Balances(context.Background(), aisPresent, aisAccountID)
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, AccountReference{BBAN: "12345678903", IBAN: "NO9312345678903", Currency: "NOK"}, b.Account)
	require.Len(t, b.Balances, 4)
	assert.Equal(t, Balance{BalanceAmount: Amount{"NOK", "100.26"}, BalanceType: BalanceClosingBooked, ReferenceDate: Date{2026, 3, 1}}, b.Balances[0])
	assert.Equal(t, "1234.5", b.Balances[1].BalanceAmount.Amount, "a JSON number amount")
	want := time.Date(2026, 3, 2, 8, 15, 0, 0, time.UTC)
	require.NotNil(t, b.Balances[1].LastChangeDateTime)
	assert.True(t, want.Equal(*b.Balances[1].LastChangeDateTime))
	require.NotNil(t, b.Balances[2].LastChangeDateTime, "an offset without a colon")
	assert.True(t, want.Equal(*b.Balances[2].LastChangeDateTime))
	require.NotNil(t, b.Balances[2].CreditLimitIncluded)
	assert.False(t, *b.Balances[2].CreditLimitIncluded)
	got, ok := b.Find(BalanceAuthorised)
	assert.True(t, ok)
	assert.Equal(t, "0", got.BalanceAmount.Amount)
	_, ok = b.Find(BalanceForwardAvailable)
	assert.False(t, ok)
	assert.Equal(t, aisAccountPath+"/balances", bank.requests()[0].Path, "the id is path-escaped")
}

// aisCalls runs each AIS data endpoint once and returns its error.
var aisCalls = []struct {
	name, route string
	call        func(c *Client, psu PSU) error
}{
	{"List", "GET /v1/accounts", func(c *Client, psu PSU) error {
		_, _, err := c.Accounts.List(context.Background(), psu)
		return err
	}},
	{"Balances", "GET " + aisAccountPath + "/balances", func(c *Client, psu PSU) error {
		_, _, err := c.Accounts.Balances(context.Background(), psu, aisAccountID)
		return err
	}},
	{"TransactionsPage", "GET " + aisAccountPath + "/transactions", func(c *Client, psu PSU) error {
		_, _, err := c.Accounts.TransactionsPage(context.Background(), psu, aisAccountID, nil)
		return err
	}},
	{"Transactions", "GET " + aisAccountPath + "/transactions", func(c *Client, psu PSU) error {
		for _, err := range c.Accounts.Transactions(context.Background(), psu, aisAccountID, nil) {
			if err != nil {
				return err
			}
		}
		return nil
	}},
	{"Transaction", "GET " + aisAccountPath + "/transactions/tx%2F1+2=3", func(c *Client, psu PSU) error {
		_, _, err := c.Accounts.Transaction(context.Background(), psu, aisAccountID, aisTxID)
		return err
	}},
	{"CardAccounts.List", "GET /v1/card-accounts", func(c *Client, psu PSU) error {
		_, _, err := c.CardAccounts.List(context.Background(), psu)
		return err
	}},
	{"CardAccounts.Transactions", "GET " + aisCardPath + "/transactions", func(c *Client, psu PSU) error {
		for _, err := range c.CardAccounts.Transactions(context.Background(), psu, aisCardID, nil) {
			if err != nil {
				return err
			}
		}
		return nil
	}},
}

func TestAISErrors(t *testing.T) {
	t.Parallel()
	for _, call := range aisCalls {
		t.Run(call.name, func(t *testing.T) {
			t.Parallel()
			t.Run("401 with scaRedirect", func(t *testing.T) {
				t.Parallel()
				_, c := newAISBank(t, map[string]http.HandlerFunc{call.route: serve(t, 401, "error_sca_required.json")})
				err := call.call(c, PSU{IPAddress: "192.0.2.10"})
				var sca *SCARequiredError
				require.ErrorAs(t, err, &sca)
				assert.ErrorIs(t, err, ErrSCARequired)
				assert.Equal(t, "https://auth.bank.example/sca?session=consent", sca.Redirect.Href)
				assert.Equal(t, []string{"GET"}, sca.Redirect.Verbs)
			})
			t.Run("403 consent revoked", func(t *testing.T) {
				t.Parallel()
				_, c := newAISBank(t, map[string]http.HandlerFunc{call.route: serve(t, 403, "error_consent_revoked.json")})
				err := call.call(c, aisPresent)
				assert.ErrorIs(t, err, ErrConsentInvalid)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, 403, e.StatusCode)
			})
			t.Run("403 without body", func(t *testing.T) {
				t.Parallel()
				_, c := newAISBank(t, map[string]http.HandlerFunc{call.route: serve(t, 403, "")})
				assert.ErrorIs(t, call.call(c, aisPresent), ErrConsentInvalid)
			})
			t.Run("429", func(t *testing.T) {
				t.Parallel()
				bank, c := newAISBank(t, map[string]http.HandlerFunc{call.route: serve(t, 429, "error_access_exceeded.json")})
				err := call.call(c, aisNotPresent)
				assert.ErrorIs(t, err, ErrAccessExceeded)
				assert.Equal(t, 1, bank.count(), "ACCESS_EXCEEDED is not retried")
			})
			t.Run("400 CORPORATE_ID_INVALID", func(t *testing.T) {
				t.Parallel()
				_, c := newAISBank(t, map[string]http.HandlerFunc{call.route: serve(t, 400, "error_corporate_id.json")})
				err := call.call(c, aisPresent)
				assert.ErrorIs(t, err, ErrCorporateIDRequired)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, CodeCorporateIDInvalid, e.Code)
				assert.Contains(t, err.Error(), "Users.Agreements")
				assert.Contains(t, err.Error(), "set PSU.CorporateID")

				err = call.call(c, PSU{ID: aisPSUID, CorporateID: aisCorporateID, IPAddress: "192.0.2.10"})
				assert.ErrorIs(t, err, ErrCorporateIDRequired)
				assert.Contains(t, err.Error(), "refused PSU.CorporateID")
			})
		})
	}
}

func TestAISSendsPSUCorporateID(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/accounts": serve(t, 200, "accounts.json")})
	_, _, err := c.Accounts.List(context.Background(), PSU{ID: aisPSUID, CorporateID: aisCorporateID})
	require.NoError(t, err)
	h := bank.requests()[0].Header
	assert.Equal(t, aisCorporateID, h.Get("PSU-CORPORATE-ID"))
	assert.Empty(t, h.Get("PSU-IP-Address"))
}

func TestAISAccessBudget(t *testing.T) {
	t.Parallel()
	t.Run("balances", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/balances": serve(t, 200, "balances.json")})
		ctx := context.Background()
		for i := range AccessLimit {
			_, _, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
			require.NoError(t, err, "call %d", i+1)
		}
		_, resp, err := c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		assert.Nil(t, resp)
		assert.ErrorIs(t, err, ErrAccessExceeded)
		var ae *AccessExceededError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, BudgetBalances, ae.Endpoint)
		assert.Equal(t, AccessLimit, bank.count(), "the fifth call is refused locally")

		// With the PSU present there is no limit.
		for range 2 * AccessLimit {
			_, _, err := c.Accounts.Balances(ctx, aisPresent, aisAccountID)
			require.NoError(t, err)
		}
		assert.Equal(t, 3*AccessLimit, bank.count())
	})
	t.Run("each page counts", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, map[string]http.HandlerFunc{
			"GET " + aisAccountPath + "/transactions": byQuery(t, "page", map[string]string{"": "transactions_page1.json", "2": "transactions_page2.json", "3": "transactions_page3.json"}),
		})
		ctx := context.Background()
		_, err := collect(t, c.Accounts.Transactions(ctx, aisNotPresent, aisAccountID, nil))
		require.NoError(t, err)
		assert.Equal(t, 3, bank.count())
		_, _, err = c.Accounts.TransactionsPage(ctx, aisNotPresent, aisAccountID, nil)
		require.NoError(t, err)
		// The fifth page in 24 hours is refused, in the middle of a walk.
		txs, err := collect(t, c.Accounts.Transactions(ctx, aisNotPresent, aisAccountID, nil))
		assert.ErrorIs(t, err, ErrAccessExceeded)
		assert.Empty(t, txs)
		assert.Equal(t, AccessLimit, bank.count())
	})
	t.Run("transaction details count separately", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, map[string]http.HandlerFunc{
			"GET " + aisAccountPath + "/transactions/tx%2F1+2=3": serve(t, 200, "transaction_details.json"),
			"GET " + aisAccountPath + "/balances":                serve(t, 200, "balances.json"),
		})
		ctx := context.Background()
		for range AccessLimit {
			_, _, err := c.Accounts.Transaction(ctx, aisNotPresent, aisAccountID, aisTxID)
			require.NoError(t, err)
		}
		_, _, err := c.Accounts.Transaction(ctx, aisNotPresent, aisAccountID, aisTxID)
		assert.ErrorIs(t, err, ErrAccessExceeded)
		_, _, err = c.Accounts.Balances(ctx, aisNotPresent, aisAccountID)
		require.NoError(t, err)
		assert.Equal(t, AccessLimit+1, bank.count())
	})
}

func TestAISHistoryLimit(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + aisAccountPath + "/transactions": serve(t, 200, `{"transactions":{}}`)})
	ctx := context.Background()
	old := fixedNow().AddDate(0, 0, -91)
	_, _, err := c.Accounts.TransactionsPage(ctx, aisNotPresent, aisAccountID, &TransactionsOptions{DateFrom: old})
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "TransactionsOptions.DateFrom", ve.Field)
	_, err = collect(t, c.Accounts.Transactions(ctx, aisNotPresent, aisAccountID, &TransactionsOptions{DateFrom: old}))
	require.ErrorAs(t, err, &ve)
	assert.Zero(t, bank.count(), "refused locally")

	_, _, err = c.Accounts.TransactionsPage(ctx, aisNotPresent, aisAccountID, &TransactionsOptions{DateFrom: fixedNow().AddDate(0, 0, -90)})
	require.NoError(t, err, "90 days back is allowed")
	_, _, err = c.Accounts.TransactionsPage(ctx, aisPresent, aisAccountID, &TransactionsOptions{DateFrom: old.AddDate(-1, 0, 0)})
	require.NoError(t, err, "with the PSU present history is not limited")
	assert.Equal(t, 2, bank.count())
	assert.Equal(t, "dateFrom="+old.AddDate(-1, 0, 0).Format(time.DateOnly), bank.requests()[1].Query)
}

func TestAISValidation(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 2, d, 12, 0, 0, 0, time.UTC) }
	tests := []struct {
		name  string
		field string
		call  func(c *Client) error
	}{
		{"empty account id", "accountID", func(c *Client) error {
			_, _, err := c.Accounts.Balances(context.Background(), aisPresent, "")
			return err
		}},
		{"control character", "accountID", func(c *Client) error {
			_, _, err := c.Accounts.Balances(context.Background(), aisPresent, "abc\r\nX: y")
			return err
		}},
		{"dot segment", "accountID", func(c *Client) error {
			_, _, err := c.Accounts.Balances(context.Background(), aisPresent, "..")
			return err
		}},
		{"transactions page account id", "accountID", func(c *Client) error {
			_, _, err := c.Accounts.TransactionsPage(context.Background(), aisPresent, "a\x00b", nil)
			return err
		}},
		{"iterator account id", "accountID", func(c *Client) error {
			_, err := collect(t, c.Accounts.Transactions(context.Background(), aisPresent, "", nil))
			return err
		}},
		{"empty transaction id", "transactionID", func(c *Client) error {
			_, _, err := c.Accounts.Transaction(context.Background(), aisPresent, aisAccountID, "")
			return err
		}},
		{"transaction id control character", "transactionID", func(c *Client) error {
			_, _, err := c.Accounts.Transaction(context.Background(), aisPresent, aisAccountID, "t\x7f")
			return err
		}},
		{"card account id", "cardAccountID", func(c *Client) error {
			_, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, "", nil))
			return err
		}},
		{"negative limit", "TransactionsOptions.Limit", func(c *Client) error {
			_, _, err := c.Accounts.TransactionsPage(context.Background(), aisPresent, aisAccountID, &TransactionsOptions{Limit: -1})
			return err
		}},
		{"negative offset", "TransactionsOptions.Offset", func(c *Client) error {
			_, err := collect(t, c.CardAccounts.Transactions(context.Background(), aisPresent, aisCardID, &TransactionsOptions{Offset: -5}))
			return err
		}},
		{"dateTo before dateFrom", "TransactionsOptions.DateTo", func(c *Client) error {
			_, _, err := c.Accounts.TransactionsPage(context.Background(), aisPresent, aisAccountID, &TransactionsOptions{DateFrom: day(10), DateTo: day(9)})
			return err
		}},
		{"year out of range", "TransactionsOptions.DateFrom", func(c *Client) error {
			_, _, err := c.Accounts.TransactionsPage(context.Background(), aisPresent, aisAccountID, &TransactionsOptions{DateFrom: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
			return err
		}},
		{"booking status with a newline", "TransactionsOptions.BookingStatus", func(c *Client) error {
			_, err := collect(t, c.Accounts.Transactions(context.Background(), aisPresent, aisAccountID, &TransactionsOptions{BookingStatus: "booked\nX"}))
			return err
		}},
		{"bad PSU id", "PSU.ID", func(c *Client) error {
			_, _, err := c.Accounts.List(context.Background(), PSU{ID: "not-a-uuid"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, nil)
			err := tt.call(c)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "))
			assert.Zero(t, bank.count(), "nothing is sent")
		})
	}
}

func TestAISQueryEncoding(t *testing.T) {
	t.Parallel()
	oslo := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		q    *TransactionsOptions
		want string
	}{
		{"nil", nil, ""},
		{"zero", &TransactionsOptions{}, ""},
		{"dates in their own location", &TransactionsOptions{DateFrom: time.Date(2026, 2, 1, 0, 30, 0, 0, oslo), DateTo: time.Date(2026, 2, 1, 23, 59, 0, 0, oslo)}, "dateFrom=2026-02-01&dateTo=2026-02-01"},
		{"unknown booking status sent as is", &TransactionsOptions{BookingStatus: "information"}, "bookingStatus=information"},
		{"all fields", &TransactionsOptions{BookingStatus: BookingPending, DateFrom: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), DateTo: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), Limit: 499, Offset: 998},
			"bookingStatus=pending&dateFrom=2026-01-01&dateTo=2026-01-31&limit=499&offset=998"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := transactionQueryValues(tt.q)
			require.NoError(t, err)
			assert.Equal(t, tt.want, v.Encode())
		})
	}
}

func TestAISIDsAreEscaped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, wantPath string
	}{
		{"enc!!abc/+=", "/v1/accounts/enc!!abc%2F+=/balances"},
		{"a b?c#d", "/v1/accounts/a%20b%3Fc%23d/balances"},
		{"100%", "/v1/accounts/100%25/balances"},
		{"ø", "/v1/accounts/%C3%B8/balances"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET " + tt.wantPath: serve(t, 200, "balances.json")})
			_, _, err := c.Accounts.Balances(context.Background(), aisPresent, tt.id)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPath, bank.requests()[0].Path)
		})
	}
}
