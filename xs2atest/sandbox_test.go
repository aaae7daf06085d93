package xs2atest

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

func TestSandboxInitialState(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	cs := s.Customers()
	require.Len(t, cs, 4)
	for _, c := range cs {
		assert.Len(t, c.CustomerNumber, 11)
		var plain, cards int
		for _, a := range c.Accounts {
			if a.Card {
				cards++
				continue
			}
			plain++
			assert.True(t, validBBAN(a.BBAN), a.BBAN)
			assert.Equal(t, bank.IBANOf(a.BBAN), a.IBAN)
			assert.Positive(t, a.Booked)
			assert.Equal(t, 2, a.Pending)
		}
		assert.Equal(t, 2, plain, c.CustomerNumber)
		if c.CustomerType == "PRIVATE" {
			assert.Equal(t, 1, cards)
		} else {
			assert.Equal(t, 0, cards)
			assert.NotEmpty(t, c.Agreements)
		}
	}
	assert.Equal(t, 1100, cs[0].Accounts[0].Booked)
	dual := cs[3].Agreements[1]
	assert.Equal(t, 2, dual.SignersRequired)
	assert.ElementsMatch(t, []string{CorporateCustomer2, CorporateCustomer1}, dual.Members)
	// deterministic: the same seed gives the same data
	s2 := NewServer(t)
	assert.Equal(t, cs, s2.Customers())
	s3 := NewServer(t, WithSeed(7))
	assert.NotEqual(t, cs[0].Accounts[0].ResourceID, s3.Customers()[0].Accounts[0].ResourceID)
}

func TestSandboxEndpoints(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)

	r := c.do("GET", "/v1/sandbox/customers?includeAccounts=true&includeAgreements=true", nil)
	require.Equal(t, 200, r.status)
	cs := r.json(t)["customers"].([]any)
	require.Len(t, cs, 4)
	assert.Contains(t, cs[0].(map[string]any), "accounts")
	r = c.do("GET", "/v1/sandbox/customers", nil)
	assert.NotContains(t, r.json(t)["customers"].([]any)[0].(map[string]any), "accounts")

	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
		code   string
	}{
		{"customer: short number", "POST", "/v1/sandbox/customers", `{"customerNumber":"123","customerType":"PRIVATE","name":"A"}`, 400, "FORMAT_ERROR"},
		{"customer: bad type", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012345","customerType":"COMPANY","name":"A"}`, 400, "FORMAT_ERROR"},
		{"customer: not JSON", "POST", "/v1/sandbox/customers", `{`, 400, "FORMAT_ERROR"},
		{"customer: ok", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012345","customerType":"PRIVATE","name":"Per Test"}`, 201, ""},
		{"customer: duplicate", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012345","customerType":"PRIVATE","name":"Per Test"}`, 400, "FORMAT_ERROR"},
		{"account: unknown customer", "POST", "/v1/sandbox/accounts", `{"customerNumber":"01017099999","currency":"NOK","name":"X","balance":"1.00"}`, 400, "FORMAT_ERROR"},
		{"account: bad bban", "POST", "/v1/sandbox/accounts", `{"customerNumber":"01017012345","bban":"86011117948","currency":"NOK","name":"X","balance":"1.00"}`, 400, "FORMAT_ERROR"},
		{"account: bad balance", "POST", "/v1/sandbox/accounts", `{"customerNumber":"01017012345","currency":"NOK","name":"X","balance":"1,00"}`, 400, "FORMAT_ERROR"},
		{"account: ok", "POST", "/v1/sandbox/accounts", `{"customerNumber":"01017012345","bban":"86011117947","currency":"NOK","name":"Ny konto","balance":"250.00"}`, 201, ""},
		{"agreement: private customer", "POST", "/v1/sandbox/agreements", `{"customerNumber":"01017012345","name":"X","accounts":[]}`, 400, "FORMAT_ERROR"},
		{"agreement: too many signers", "POST", "/v1/sandbox/agreements", `{"customerNumber":"18129215603","name":"X","accounts":[],"signersRequired":3}`, 400, "FORMAT_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(tt.method, tt.path, tt.body)
			assert.Equal(t, tt.status, r.status, "%s", r.body)
			assert.Equal(t, tt.code, r.code())
		})
	}

	cust := customerOf(t, s, "01017012345")
	require.Len(t, cust.Accounts, 1)
	id := cust.Accounts[0].ResourceID
	today := bank.DateOf(clock.Now())
	d := func(days int) string { return today.AddDate(0, 0, days).Format(time.DateOnly) }
	txTests := []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"another debtor", map[string]any{"transactionAmount": map[string]any{"amount": "-10.00", "currency": "NOK"},
			"debtorAccount": map[string]any{"bban": creditorBBAN + "0"}, "bookingDate": d(-1)}, 400},
		{"future booking date", map[string]any{"transactionAmount": map[string]any{"amount": "-10.00", "currency": "NOK"}, "bookingDate": d(1)}, 400},
		{"value before booking", map[string]any{"transactionAmount": map[string]any{"amount": "-10.00", "currency": "NOK"},
			"bookingDate": d(-2), "valueDate": d(-3)}, 400},
		{"wrong currency", map[string]any{"transactionAmount": map[string]any{"amount": "-10.00", "currency": "SEK"}}, 400},
		{"debit from this account", map[string]any{"transactionAmount": map[string]any{"amount": "10.00", "currency": "NOK"},
			"debtorAccount": map[string]any{"bban": "86011117947"}, "creditorName": "Kiwi", "bookingDate": d(-3), "valueDate": d(-2),
			"proprietaryBankTransactionCode": "VARER"}, 201},
		{"credit", map[string]any{"transactionAmount": map[string]any{"amount": "5.50", "currency": "NOK"}, "debtorName": "Mor"}, 201},
		{"pending", map[string]any{"transactionAmount": map[string]any{"amount": "-1.00", "currency": "NOK"}, "pending": true}, 201},
	}
	for _, tt := range txTests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", "/v1/sandbox/accounts/"+pathSeg(id)+"/transactions", tt.body)
			assert.Equal(t, tt.status, r.status, "%s", r.body)
		})
	}
	assert.Equal(t, "245.50", s.Balance(id), "booked transactions move the balance")
	r = c.do("PUT", "/v1/sandbox/accounts/"+pathSeg(id)+"/balances", `{"balanceAmount":{"amount":"1000.00","currency":"NOK"}}`)
	require.Equal(t, 200, r.status, "%s", r.body)
	assert.Equal(t, "1000.00", s.Balance(id))
	assert.Equal(t, 404, c.do("PUT", "/v1/sandbox/accounts/enc!!x/balances", `{"balanceAmount":{"amount":"1.00"}}`).status)

	// the new customer can log in and see the account with its transactions
	psu := c.privatePSU("01017012345")
	accts := c.accounts(psu)
	require.Len(t, accts, 1)
	tx := c.do("GET", "/v1/accounts/"+pathSeg(id)+"/transactions?bookingStatus=both", nil, "PSU-ID", psu)
	m := tx.json(t)["transactions"].(map[string]any)
	assert.Len(t, m["booked"].([]any), 2)
	assert.Len(t, m["pending"].([]any), 1)
	debit := m["booked"].([]any)[1].(map[string]any)
	assert.Equal(t, "-10.00", debit["transactionAmount"].(map[string]any)["amount"])
	assert.Equal(t, "VARER", debit["proprietaryBankTransactionCode"])

	// corporate: a new agreement with two members
	r = c.do("POST", "/v1/sandbox/agreements", map[string]any{"customerNumber": CorporateCustomer1, "name": "Nordlys Bygg AS - prosjekt",
		"accounts": []string{customerOf(t, s, CorporateCustomer1).Accounts[1].ResourceID}, "signersRequired": 2,
		"members": []string{CorporateCustomer2}})
	require.Equal(t, 201, r.status, "%s", r.body)
	assert.Len(t, customerOf(t, s, CorporateCustomer2).Agreements, 3)

	// initialize removes manual data and consents
	require.Equal(t, http.StatusNoContent, c.do("POST", "/v1/sandbox/initialize", nil).status)
	_, ok := s.Customer("01017012345")
	assert.False(t, ok)
	assert.Equal(t, 401, c.do("GET", "/v1/accounts", nil, "PSU-ID", psu).status)
}

func TestContactEmail(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	path := "/v1/tpps/NO-FSA-987654321/contact-information"
	assert.Equal(t, 404, c.do("GET", path, nil).status)
	for _, bad := range []string{`{"email":"not-an-address"}`, `{"email":"Ops <ops@tpp.example>"}`, `{"email":"ops@localhost"}`, `{}`} {
		r := c.do("PUT", path, bad)
		assert.Equal(t, 400, r.status, bad)
		assert.Equal(t, "FORMAT_ERROR", r.code())
	}
	require.Equal(t, 200, c.do("PUT", path, `{"email":"psd2-ops@tpp.example"}`).status)
	r := c.do("GET", path, nil)
	require.Equal(t, 200, r.status)
	assert.JSONEq(t, `{"email":"psd2-ops@tpp.example"}`, string(r.body))
}

// TestBBANAndKIDVectors checks the bank's own BBAN, IBAN and KID checks
// against the shared vectors (copied to testdata).
func TestBBANAndKIDVectors(t *testing.T) {
	t.Parallel()
	var bban struct {
		Valid, Invalid []string
		IBAN           map[string]string `json:"iban"`
	}
	readJSON(t, "testdata/bban.json", &bban)
	for _, v := range bban.Valid {
		assert.True(t, validBBAN(v), v)
	}
	for _, v := range bban.Invalid {
		assert.False(t, validBBAN(v), v)
	}
	for iban, b := range bban.IBAN {
		assert.Equal(t, iban, bank.IBANOf(b))
	}
	var kid struct {
		Mod11, Mod10 struct{ Valid []string }
		Invalid      []string `json:"invalid_under_both"`
	}
	readJSON(t, "testdata/kid.json", &kid)
	require.NotEmpty(t, kid.Mod11.Valid)
	for _, v := range append(kid.Mod11.Valid, kid.Mod10.Valid...) {
		assert.True(t, validKID(v), v)
	}
	for _, v := range kid.Invalid {
		assert.False(t, validKID(v), v)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

func TestAmounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		signed bool
		want   int64
		ok     bool
	}{
		{"100.26", false, 10026, true}, {"100.2", false, 10020, true}, {"100", false, 10000, true},
		{"-5.00", true, -500, true}, {"-5.00", false, 0, false}, {"01.00", false, 0, false},
		{"1.005", false, 0, false}, {"1,00", false, 0, false}, {"", false, 0, false}, {"1e3", false, 0, false},
	}
	for _, tt := range tests {
		got, ok := parseAmount(tt.in, tt.signed)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		if ok {
			back, _ := parseAmount(formatAmount(got), true)
			assert.Equal(t, got, back)
		}
	}
}

// TestSandboxTransactionDebtorMustBeThisAccount: docs/interface.md, Sandbox: a mock
// transaction "for an account with another account as debtor returns an
// error", whichever identifier names the other account (bban, iban or
// maskedPan); the account itself may be named by any of them.
func TestSandboxTransactionDebtorMustBeThisAccount(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	kari, ola := customerOf(t, s, PrivateCustomer1), customerOf(t, s, PrivateCustomer2)
	acc, other := kari.Accounts[0], ola.Accounts[0]
	card, otherCard := kari.Accounts[2], ola.Accounts[2]
	require.False(t, acc.Card)
	require.True(t, card.Card && otherCard.Card)
	spaced := acc.IBAN[:4] + " " + acc.IBAN[4:8] + " " + acc.IBAN[8:]
	tests := []struct {
		name    string
		account Account
		debtor  map[string]any
		status  int
	}{
		{"this account by bban", acc, map[string]any{"bban": acc.BBAN}, 201},
		{"this account by iban", acc, map[string]any{"iban": acc.IBAN}, 201},
		{"this account by iban, printed form", acc, map[string]any{"iban": spaced}, 201},
		{"this account by bban and iban", acc, map[string]any{"bban": acc.BBAN, "iban": acc.IBAN}, 201},
		{"this card by maskedPan", card, map[string]any{"maskedPan": card.MaskedPan}, 201},
		{"another account by bban", acc, map[string]any{"bban": other.BBAN}, 400},
		{"another account by iban", acc, map[string]any{"iban": other.IBAN}, 400},
		{"this bban with another iban", acc, map[string]any{"bban": acc.BBAN, "iban": other.IBAN}, 400},
		{"another card by maskedPan", card, map[string]any{"maskedPan": otherCard.MaskedPan}, 400},
		{"an account as debtor of a card", card, map[string]any{"bban": acc.BBAN}, 400},
		{"no identifier", acc, map[string]any{"currency": "NOK"}, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{
				"transactionAmount": map[string]any{"amount": "-10.00", "currency": "NOK"},
				"debtorAccount":     tt.debtor,
				"creditorName":      "Kiwi",
			}
			r := c.do("POST", "/v1/sandbox/accounts/"+tt.account.ResourceID+"/transactions", body)
			require.Equal(t, tt.status, r.status, "%s", r.body)
			if tt.status == 400 {
				assert.Equal(t, "FORMAT_ERROR", r.code())
				assert.Contains(t, string(r.body), `"path":"debtorAccount"`)
			}
		})
	}
}

// TestSandboxTransactionCode: docs/interface.md, Resources: "Transaction code can
// be given with both value and code in the sandbox". A mock transaction's
// proprietaryBankTransactionCode is a string (the value) or an object
// {"value","code"}; it reads back in the same form (a string when only a
// value was given), and the SDK's Transaction decodes both.
func TestSandboxTransactionCode(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	acc := customerOf(t, s, PrivateCustomer1).Accounts[0].ResourceID
	present := []string{"PSU-IP-Address", "192.0.2.7", "TPP-Session-ID", "s1"}
	psu := c.consent(PrivateCustomer1, present).Get("psu-id")
	tests := []struct {
		name   string
		code   string // the raw JSON of proprietaryBankTransactionCode; "" leaves it out
		status int
		back   string // the raw JSON read back; "" = absent
		sdk    xs2a.TransactionCode
	}{
		{"string", `"VARER"`, 201, `"VARER"`, xs2a.TransactionCode{Value: "VARER"}},
		{"value and code", `{"value":"Varekjøp","code":"VARER"}`, 201, `{"value":"Varekjøp","code":"VARER"}`,
			xs2a.TransactionCode{Value: "Varekjøp", Code: "VARER"}},
		{"code and value, other order", `{"code":"230","value":"LØNN"}`, 201, `{"value":"LØNN","code":"230"}`,
			xs2a.TransactionCode{Value: "LØNN", Code: "230"}},
		{"value only", `{"value":"GIRO"}`, 201, `"GIRO"`, xs2a.TransactionCode{Value: "GIRO"}},
		{"code only", `{"code":"714"}`, 201, `{"code":"714"}`, xs2a.TransactionCode{Code: "714"}},
		{"absent", "", 201, "", xs2a.TransactionCode{}},
		{"null", `null`, 201, "", xs2a.TransactionCode{}},
		{"empty string", `""`, 201, "", xs2a.TransactionCode{}},
		{"a number", `230`, 400, "", xs2a.TransactionCode{}},
		{"an array", `["VARER"]`, 400, "", xs2a.TransactionCode{}},
		{"empty object", `{}`, 400, "", xs2a.TransactionCode{}},
		{"object with another member", `{"value":"VARER","text":"x"}`, 400, "", xs2a.TransactionCode{}},
		{"object with a number", `{"value":"VARER","code":230}`, 400, "", xs2a.TransactionCode{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"transactionAmount":{"amount":"-10.00","currency":"NOK"},"creditorName":"Kiwi"`
			if tt.code != "" {
				body += `,"proprietaryBankTransactionCode":` + tt.code
			}
			body += "}"
			r := c.do("POST", "/v1/sandbox/accounts/"+pathSeg(acc)+"/transactions", body)
			require.Equal(t, tt.status, r.status, "%s", r.body)
			if tt.status != 201 {
				assert.Equal(t, "FORMAT_ERROR", r.code())
				assert.Contains(t, string(r.body), `"path":"proprietaryBankTransactionCode"`)
				return
			}
			created := map[string]json.RawMessage{}
			require.NoError(t, json.Unmarshal(r.body, &created))
			var id string
			require.NoError(t, json.Unmarshal(created["transactionId"], &id))

			// the answer to the POST, and the transaction read back with the list and alone
			list := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions", nil, append([]string{"PSU-ID", psu}, present...)...)
			require.Equal(t, 200, list.status, "%s", list.body)
			var report struct {
				Transactions struct{ Booked []map[string]json.RawMessage }
			}
			require.NoError(t, json.Unmarshal(list.body, &report))
			var listed map[string]json.RawMessage
			for _, e := range report.Transactions.Booked {
				if string(e["transactionId"]) == `"`+id+`"` {
					listed = e
				}
			}
			require.NotNil(t, listed, "transaction %s in the list", id)
			one := c.do("GET", "/v1/accounts/"+pathSeg(acc)+"/transactions/"+pathSeg(id), nil, append([]string{"PSU-ID", psu}, present...)...)
			require.Equal(t, 200, one.status, "%s", one.body)
			var details struct{ TransactionsDetails map[string]json.RawMessage }
			require.NoError(t, json.Unmarshal(one.body, &details))
			for where, tx := range map[string]map[string]json.RawMessage{"POST": created, "list": listed, "details": details.TransactionsDetails} {
				got, ok := tx["proprietaryBankTransactionCode"]
				if tt.back == "" {
					assert.False(t, ok, "%s: %s", where, got)
					continue
				}
				assert.JSONEq(t, tt.back, string(got), where)
				assert.Equal(t, tt.back[0], got[0], "%s: the same form (string or object)", where)
			}

			// the SDK's read model decodes either form
			var sdk struct{ TransactionsDetails xs2a.Transaction }
			require.NoError(t, json.Unmarshal(one.body, &sdk))
			assert.Equal(t, tt.sdk, sdk.TransactionsDetails.ProprietaryBankTransactionCode)
		})
	}
}
