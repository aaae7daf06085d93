package xs2atest

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
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

// errPath is the first tppMessage's path.
func errPath(r *res) string {
	var e struct {
		TPPMessages []tppMessage `json:"tppMessages"`
	}
	_ = json.Unmarshal(r.body, &e)
	if len(e.TPPMessages) == 0 {
		return ""
	}
	return e.TPPMessages[0].Path
}

// sandboxStep is one mock-data request and the answer it must get: the
// status, and for a refusal FORMAT_ERROR (or RESOURCE_UNKNOWN for 404)
// with the path of the member at fault.
type sandboxStep struct {
	name, method, path string
	body               any
	status             int
	errPath            string
}

func runSandboxSteps(t *testing.T, c *testClient, steps []sandboxStep) {
	t.Helper()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := c.do(st.method, st.path, st.body)
			require.Equal(t, st.status, r.status, "%s", r.body)
			switch st.status {
			case 400:
				assert.Equal(t, "FORMAT_ERROR", r.code())
				assert.Equal(t, st.errPath, errPath(r), "%s", r.body)
			case 404:
				assert.Equal(t, "RESOURCE_UNKNOWN", r.code())
				assert.Equal(t, st.errPath, errPath(r), "%s", r.body)
			}
		})
	}
}

// TestSandboxScriptShapes: docs/interface.md SB9 and SB10. The fake bank
// takes the customers, accounts, card accounts and agreements the
// platform's own mock-data scripts send (type in lower case, accountName,
// balances with JSON-number amounts, iban, creditLine, a card account's
// amount-object creditLimit and card members, owner and engagements), and
// answers 400 FORMAT_ERROR naming the member for a shape the sandbox
// refuses.
func TestSandboxScriptShapes(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(newFakeClock(wednesday10).Now))
	c := newTestClient(t, s)
	const person, firm = "01078900497", "17099233842"
	acct := func(mod func(m map[string]any)) map[string]any {
		m := map[string]any{"customerNumber": person, "accountName": "Brukskonto", "bban": "90412263056",
			"iban": "NO2390412263056", "currency": "NOK", "product": "Brukskonto", "cashAccountType": "CACC",
			"creditLine": 0, "balances": []any{map[string]any{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 10000, "currency": "NOK"}}}}
		mod(m)
		return m
	}
	card := map[string]any{"customerNumber": person, "maskedPan": "1234xxxxxxxx4321", "currency": "NOK",
		"creditLimit": map[string]any{"currency": "NOK", "amount": 1000},
		"balances": []any{map[string]any{"balanceAmount": map[string]any{"currency": "NOK", "amount": 0}, "balanceType": "EXPECTED",
			"referenceDate": "2020-01-01", "lastChangeDateTime": "2019-10-14T13:55:45.494Z", "lastCommittedTransaction": "test"}},
		"cardId": "1", "cardIdVNo": "2", "accountNumber": "123412341234", "expiry": "2020-01-01", "name": "Test",
		"product": "Basic Credit", "status": "ENABLED"}
	firmAcct := map[string]any{"customerNumber": firm, "accountName": "Driftskonto", "bban": "95681425005",
		"iban": "NO6595681425005", "currency": "NOK", "product": "Totalkonto", "cashAccountType": "CACC", "creditLine": 0,
		"balances": []any{map[string]any{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 30000, "currency": "NOK"}}}}
	eng := func(customer string, account map[string]any, roles ...string) map[string]any {
		return map[string]any{"customer": customer, "account": account, "roles": roles}
	}
	ag := func(engs ...map[string]any) map[string]any {
		return map[string]any{"owner": firm, "name": "Testavtale 1", "engagements": engs}
	}
	firmIBAN := map[string]any{"iban": "NO6595681425005"}
	runSandboxSteps(t, c, []sandboxStep{
		{"customer: type in lower case", "POST", "/v1/sandbox/customers", `{"customerNumber":"01078900497","name":"Test Testperson 1","type":"private"}`, 201, ""},
		{"customer: corporate", "POST", "/v1/sandbox/customers", `{"customerNumber":"17099233842","name":"Testfirma 2","type":"corporate"}`, 201, ""},
		{"customer: customerType, upper case", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012345","customerType":"PRIVATE","name":"A"}`, 201, ""},
		{"customer: unknown type", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012346","type":"sole_trader","name":"A"}`, 400, "type"},
		{"customer: type and customerType differ", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012346","type":"private","customerType":"CORPORATE","name":"A"}`, 400, "customerType"},
		{"customer: no type", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012346","name":"A"}`, 400, "type"},
		{"customer: 8-digit number", "POST", "/v1/sandbox/customers", `{"customerNumber":"77777777","name":"Testfirma 2","type":"corporate"}`, 400, "customerNumber"},
		{"customer: national id with letters", "POST", "/v1/sandbox/customers", `{"customerNumber":"0107890049a","name":"A","type":"private"}`, 400, "customerNumber"},

		{"account: the scripts' shape", "POST", "/v1/sandbox/accounts", acct(func(map[string]any) {}), 201, ""},
		{"account: iban of another bban", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { m["bban"] = "95681425013"; m["iban"] = "NO2390412263056" }), 400, "iban"},
		{"account: iban alone", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); m["iban"] = "NO4395681425013" }), 201, ""},
		{"account: name and accountName differ", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); delete(m, "iban"); m["name"] = "X" }), 400, "accountName"},
		{"account: no name", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); delete(m, "iban"); delete(m, "accountName") }), 400, "accountName"},
		{"account: unknown balanceType", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) {
			delete(m, "bban")
			delete(m, "iban")
			m["balances"] = []any{map[string]any{"balanceType": "SOMETIME", "balanceAmount": map[string]any{"amount": 1, "currency": "NOK"}}}
		}), 400, "balances[0].balanceType"},
		{"account: balance amount with a comma", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) {
			delete(m, "bban")
			delete(m, "iban")
			m["balances"] = []any{map[string]any{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": "1,5", "currency": "NOK"}}}
		}), 400, "balances[0].balanceAmount.amount"},
		{"account: balance in another currency", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) {
			delete(m, "bban")
			delete(m, "iban")
			m["balances"] = []any{map[string]any{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 1, "currency": "EUR"}}}
		}), 400, "balances[0].balanceAmount.currency"},
		{"account: balance and balances", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); delete(m, "iban"); m["balance"] = "1.00" }), 400, "balances"},
		{"account: negative creditLine", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); delete(m, "iban"); m["creditLine"] = -5 }), 400, "creditLine"},
		{"account: card members on an account", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { delete(m, "bban"); delete(m, "iban"); m["expiry"] = "2020-01-01" }), 400, "expiry"},
		{"account: malformed customerNumber", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { m["customerNumber"] = "123" }), 400, "customerNumber"},
		{"account: unknown member", "POST", "/v1/sandbox/accounts", acct(func(m map[string]any) { m["accountType"] = "CARD" }), 400, ""},

		{"card account: the scripts' shape", "POST", "/v1/sandbox/card-accounts", card, 201, ""},
		{"card account: with a bban", "POST", "/v1/sandbox/card-accounts", map[string]any{"customerNumber": person, "currency": "NOK", "name": "Visa", "bban": "95681425021"}, 400, "bban"},
		{"card account: card false", "POST", "/v1/sandbox/card-accounts", map[string]any{"customerNumber": person, "currency": "NOK", "name": "Visa", "card": false}, 400, "card"},
		{"card account: creditLimit in another currency", "POST", "/v1/sandbox/card-accounts", map[string]any{"customerNumber": person, "currency": "NOK", "name": "Visa",
			"creditLimit": map[string]any{"currency": "EUR", "amount": 5}}, 400, "creditLimit.currency"},
		{"card account: through the accounts endpoint", "POST", "/v1/sandbox/accounts", map[string]any{"customerNumber": person, "currency": "NOK", "name": "Visa Gull", "card": true, "creditLimit": "200.00"}, 201, ""},

		{"corporate account", "POST", "/v1/sandbox/accounts", firmAcct, 201, ""},
		{"agreement: owner and engagements", "POST", "/v1/sandbox/agreements", ag(eng(person, firmIBAN, "VIEW", "REGISTER")), 201, ""},
		{"agreement: engagement on an unknown account", "POST", "/v1/sandbox/agreements", ag(eng(person, map[string]any{"iban": "NO4395681425013x"}, "VIEW")), 400, "engagements[0].account"},
		{"agreement: engagement on another customer's account", "POST", "/v1/sandbox/agreements", ag(eng(person, map[string]any{"bban": "90412263056"}, "VIEW")), 400, "engagements[0].account"},
		{"agreement: engagement without account", "POST", "/v1/sandbox/agreements", ag(map[string]any{"customer": person, "roles": []string{"VIEW"}}), 400, "engagements[0].account"},
		{"agreement: engagement with an unknown role", "POST", "/v1/sandbox/agreements", ag(eng(person, firmIBAN, "VIEW", "ADMIN")), 400, "engagements[0].roles[1]"},
		{"agreement: engagement for an unknown customer", "POST", "/v1/sandbox/agreements", ag(eng("01017099999", firmIBAN, "VIEW")), 400, "engagements[0].customer"},
		{"agreement: engagement for a malformed customer", "POST", "/v1/sandbox/agreements", ag(eng("0101709999", firmIBAN, "VIEW")), 400, "engagements[0].customer"},
		{"agreement: second engagement bad", "POST", "/v1/sandbox/agreements", ag(eng(person, firmIBAN, "VIEW"), eng(person, firmIBAN, "view")), 400, "engagements[1].roles[0]"},
		{"agreement: owner and customerNumber differ", "POST", "/v1/sandbox/agreements", map[string]any{"owner": firm, "customerNumber": CorporateCustomer1, "name": "X"}, 400, "owner"},
		{"agreement: private owner", "POST", "/v1/sandbox/agreements", map[string]any{"owner": person, "name": "X"}, 400, "owner"},
		{"agreement: malformed member", "POST", "/v1/sandbox/agreements", map[string]any{"owner": firm, "name": "X", "members": []string{"1"}}, 400, "members[0]"},
	})

	// what the accepted shapes made
	p := customerOf(t, s, person)
	assert.Equal(t, "PRIVATE", p.CustomerType)
	assert.Equal(t, "CORPORATE", customerOf(t, s, firm).CustomerType)
	require.Len(t, p.Accounts, 4)
	assert.Equal(t, "Brukskonto", p.Accounts[0].Name)
	assert.Equal(t, "NO2390412263056", p.Accounts[0].IBAN)
	assert.Equal(t, "10000.00", p.Accounts[0].Balance)
	assert.Equal(t, "95681425013", p.Accounts[1].BBAN, "the bban of an iban given alone")
	cardAcct := p.Accounts[2]
	assert.True(t, cardAcct.Card)
	assert.Equal(t, "1234xxxxxxxx4321", cardAcct.MaskedPan)
	assert.Equal(t, "1000.00", cardAcct.CreditLimit)
	assert.Equal(t, "Test", cardAcct.Name)
	assert.True(t, p.Accounts[3].Card)
	// the engagement makes the PSU a member and grants the firm's account
	f := customerOf(t, s, firm)
	var made *Agreement
	for i := range p.Agreements {
		if p.Agreements[i].Name == "Testavtale 1" {
			made = &p.Agreements[i]
		}
	}
	require.NotNil(t, made, "the PSU is a member of the agreement")
	assert.Equal(t, []string{firm, person}, made.Members)
	assert.Contains(t, made.Accounts, f.Accounts[0].ResourceID)

	// the platform's route to add engagements: one object or an array;
	// without both VIEW and REGISTER the account is not granted
	second := map[string]any{"customerNumber": firm, "accountName": "Skattetrekk", "currency": "NOK", "cashAccountType": "TAXE"}
	require.Equal(t, 201, c.do("POST", "/v1/sandbox/accounts", second).status)
	f = customerOf(t, s, firm)
	agPath := "/v1/sandbox/agreements/" + pathSeg(made.ID) + "/engagements"
	runSandboxSteps(t, c, []sandboxStep{
		{"engagements: view only", "POST", agPath, eng(CorporateCustomer1, map[string]any{"iban": f.Accounts[1].IBAN}, "VIEW"), 201, ""},
		{"engagements: an array", "POST", agPath, []any{eng(person, map[string]any{"bban": f.Accounts[0].BBAN}, "REGISTER", "VIEW")}, 201, ""},
		{"engagements: an unknown account", "POST", agPath, []any{eng(person, firmIBAN, "VIEW"), eng(person, map[string]any{"bban": "86011117947"}, "VIEW")}, 400, "[1].account"},
		{"engagements: empty array", "POST", agPath, []any{}, 400, ""},
		{"engagements: unknown agreement", "POST", "/v1/sandbox/agreements/enc!!nope/engagements", eng(person, firmIBAN, "VIEW"), 404, "mockAgreementId"},
	})
	got, ok := s.bank.Agreement(made.ID)
	require.True(t, ok)
	assert.Equal(t, []string{firm, person, CorporateCustomer1}, got.Members)
	assert.Equal(t, []string{f.Accounts[0].ResourceID}, got.Accounts, "VIEW alone grants no account")
}

// TestSandboxTransactionArrays: docs/interface.md SB11. Several
// transactions go in one POST as a JSON array, in the scripts' shape (flat
// amount and currency, JSON numbers, members the bank does not keep) or the
// interface's; the answer is the array, in order. A refused item refuses
// the whole array with its index in the path, and nothing is added.
func TestSandboxTransactionArrays(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(wednesday10)
	s := NewServer(t, WithClock(clock.Now))
	c := newTestClient(t, s)
	kari := customerOf(t, s, PrivateCustomer1)
	acc, card := kari.Accounts[0], kari.Accounts[2]
	other := customerOf(t, s, PrivateCustomer2).Accounts[0]
	txPath := "/v1/sandbox/accounts/" + pathSeg(acc.ResourceID) + "/transactions"
	cardPath := "/v1/sandbox/card-accounts/" + pathSeg(card.ResourceID) + "/transactions"
	script := func(mod func(m map[string]any)) map[string]any {
		m := map[string]any{"amount": 1500, "currency": "NOK", "valueDate": "2025-03-10", "bookingDate": "2025-03-10",
			"remittanceInformationUnstructured": "63444766", "creditorId": "1", "creditorName": "Aftenposten",
			"creditorAccount": map[string]any{"iban": acc.IBAN, "bban": acc.BBAN}, "ultimateCreditor": "Test",
			"debtorName": "Testperson 2", "ultimateDebtor": "test", "purposeCode": "code", "bankTransactionCode": "PMNT"}
		mod(m)
		return m
	}
	same := func(map[string]any) {}
	cardTx := func(amount any) map[string]any {
		return map[string]any{"cardTransactionId": "test-1", "terminalId": "tid", "bookingDate": "2025-03-08",
			"transactionDate": "2025-03-08", "transactionAmount": map[string]any{"currency": "NOK", "amount": amount},
			"originalAmount": map[string]any{"currency": "NOK", "amount": 100}, "merchantCategoryCode": "BOB",
			"markupFee": map[string]any{"currency": "NOK", "amount": 10}, "markupFeePercentage": "20", "cardAcceptorId": "",
			"cardAcceptorAddress": map[string]any{}, "maskedPan": "", "transactionDetails": "", "invoiced": "",
			"proprietaryBankTransactionCode": ""}
	}
	before, bookedBefore := s.Balance(acc.ResourceID), len(s.mustAccount(t, acc.ResourceID).Booked)
	runSandboxSteps(t, c, []sandboxStep{
		{"array: future booking date at [1]", "POST", txPath, []any{script(same), script(func(m map[string]any) { m["bookingDate"] = "2025-03-13"; m["valueDate"] = "2025-03-13" })}, 400, "[1].bookingDate"},
		{"array: future value date at [0]", "POST", txPath, []any{script(func(m map[string]any) { m["valueDate"] = "2025-03-13" })}, 400, "[0].valueDate"},
		{"array: booking after value", "POST", txPath, []any{script(func(m map[string]any) { m["valueDate"] = "2025-03-09" })}, 400, "[0].valueDate"},
		{"array: another account as debtor", "POST", txPath, []any{script(same), script(func(m map[string]any) {
			m["debtorAccount"] = map[string]any{"iban": other.IBAN, "bban": other.BBAN}
		})}, 400, "[1].debtorAccount"},
		{"array: amount in words", "POST", txPath, []any{script(func(m map[string]any) { m["amount"] = "ten" })}, 400, "[0].amount"},
		{"array: amount as an object member", "POST", txPath, []any{script(func(m map[string]any) { m["amount"] = true })}, 400, "[0].amount"},
		{"array: another currency", "POST", txPath, []any{script(func(m map[string]any) { m["currency"] = "SEK" })}, 400, "[0].currency"},
		{"array: both amount forms", "POST", txPath, []any{script(func(m map[string]any) {
			m["transactionAmount"] = map[string]any{"amount": "1.00", "currency": "NOK"}
		})}, 400, "[0].amount"},
		{"array: no amount", "POST", txPath, []any{script(func(m map[string]any) { delete(m, "amount"); delete(m, "currency") })}, 400, "[0].transactionAmount"},
		{"array: unknown member", "POST", txPath, []any{script(same), script(func(m map[string]any) { m["colour"] = "red" })}, 400, "[1]"},
		{"array: an item that is no object", "POST", txPath, []any{script(same), "x"}, 400, "[1]"},
		{"array: empty", "POST", txPath, []any{}, 400, ""},
		{"array: a string body", "POST", txPath, `"x"`, 400, ""},
		{"array: unknown account", "POST", "/v1/sandbox/accounts/enc!!nope/transactions", []any{script(same)}, 404, "mockAccountId"},
		{"card: an account that is no card account", "POST", "/v1/sandbox/card-accounts/" + pathSeg(acc.ResourceID) + "/transactions", []any{cardTx(100)}, 404, "mockCardAccountId"},
		{"card: a bad markup fee", "POST", cardPath, []any{cardTx(100), func() map[string]any {
			m := cardTx(1)
			m["markupFee"] = map[string]any{"currency": "NOK", "amount": -1}
			return m
		}()}, 400, "[1].markupFee.amount"},
	})
	assert.Equal(t, before, s.Balance(acc.ResourceID), "a refused array adds nothing")
	assert.Len(t, s.mustAccount(t, acc.ResourceID).Booked, bookedBefore)

	// the scripts' array: three transactions, in order, the balance moves by their sum
	r := c.do("POST", txPath, []any{script(same), script(func(m map[string]any) { m["bookingDate"], m["valueDate"] = "2025-03-11", "2025-03-11" }),
		script(func(m map[string]any) { m["amount"] = 123.5 })})
	require.Equal(t, 201, r.status, "%s", r.body)
	var created []map[string]any
	require.NoError(t, json.Unmarshal(r.body, &created))
	require.Len(t, created, 3)
	assert.Equal(t, "123.50", created[2]["transactionAmount"].(map[string]any)["amount"])
	for _, tx := range created {
		assert.NotEmpty(t, tx["transactionId"])
	}
	b0, _ := parseAmount(before, true)
	assert.Equal(t, formatAmount(b0+150000+150000+12350), s.Balance(acc.ResourceID))

	// one object answers one object; the interface's shape is taken too
	r = c.do("POST", txPath, map[string]any{"transactionAmount": map[string]any{"amount": -10, "currency": "NOK"}, "bookingDate": "2025-03-01"})
	require.Equal(t, 201, r.status, "%s", r.body)
	assert.Equal(t, "-10.00", r.json(t)["transactionAmount"].(map[string]any)["amount"])

	// card transactions in the scripts' shape, on the card accounts route
	cardBooked := len(s.mustAccount(t, card.ResourceID).Booked)
	r = c.do("POST", cardPath, []any{cardTx(100), cardTx("1000")})
	require.Equal(t, 201, r.status, "%s", r.body)
	assert.Len(t, s.mustAccount(t, card.ResourceID).Booked, cardBooked+2)
}

// mustAccount is the bank's copy of an account.
func (s *Server) mustAccount(t *testing.T, id string) bank.Account {
	t.Helper()
	a, ok := s.bank.Account(id)
	require.True(t, ok, id)
	return a
}

// TestSandboxUpdates: docs/interface.md SB12. The fake bank's own routes
// change a customer, an account, a card account, an agreement and a
// transaction in place (PUT on the resource, as the platform's balances
// route does); what cannot change is refused with 400 naming the member.
func TestSandboxUpdates(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(newFakeClock(wednesday10).Now))
	c := newTestClient(t, s)
	kari := customerOf(t, s, PrivateCustomer1)
	acc, card := kari.Accounts[0], kari.Accounts[2]
	nordlys := customerOf(t, s, CorporateCustomer1)
	agID := nordlys.Agreements[0].ID
	accPath := "/v1/sandbox/accounts/" + pathSeg(acc.ResourceID)
	cardPath := "/v1/sandbox/card-accounts/" + pathSeg(card.ResourceID)
	agPath := "/v1/sandbox/agreements/" + pathSeg(agID)
	r := c.do("POST", accPath+"/transactions", map[string]any{"amount": "-100.00", "currency": "NOK", "bookingDate": "2025-03-10"})
	require.Equal(t, 201, r.status, "%s", r.body)
	txID := r.json(t)["transactionId"].(string)
	txPath := accPath + "/transactions/" + pathSeg(txID)
	balance := s.Balance(acc.ResourceID)

	runSandboxSteps(t, c, []sandboxStep{
		{"customer: rename", "PUT", "/v1/sandbox/customers/" + PrivateCustomer1, `{"name":"Kari Nordmann-Hansen","type":"private"}`, 200, ""},
		{"customer: type change", "PUT", "/v1/sandbox/customers/" + PrivateCustomer1, `{"name":"Kari","type":"corporate"}`, 400, "type"},
		{"customer: unknown type", "PUT", "/v1/sandbox/customers/" + PrivateCustomer1, `{"name":"Kari","type":"both"}`, 400, "type"},
		{"customer: another number in the body", "PUT", "/v1/sandbox/customers/" + PrivateCustomer1, `{"name":"Kari","customerNumber":"12085592767"}`, 400, "customerNumber"},
		{"customer: no name", "PUT", "/v1/sandbox/customers/" + PrivateCustomer1, `{"type":"private"}`, 400, "name"},
		{"customer: malformed number", "PUT", "/v1/sandbox/customers/1303931995", `{"name":"Kari"}`, 400, "customerNumber"},
		{"customer: unknown", "PUT", "/v1/sandbox/customers/01017099999", `{"name":"Kari"}`, 404, "customerNumber"},

		{"account: rename, savings, balance", "PUT", accPath, map[string]any{"accountName": "Felleskonto", "cashAccountType": "SVGS",
			"balances": []any{map[string]any{"balanceType": "EXPECTED", "balanceAmount": map[string]any{"amount": 500, "currency": "NOK"}}}}, 200, ""},
		{"account: currency change", "PUT", accPath, map[string]any{"currency": "EUR"}, 400, "currency"},
		{"account: bban change", "PUT", accPath, map[string]any{"bban": "86011117947"}, 400, "bban"},
		{"account: owner change", "PUT", accPath, map[string]any{"customerNumber": PrivateCustomer2}, 400, "customerNumber"},
		{"account: card member", "PUT", accPath, map[string]any{"maskedPan": "1234"}, 400, "maskedPan"},
		{"account: a card account on the accounts route", "PUT", "/v1/sandbox/accounts/" + pathSeg(card.ResourceID), map[string]any{"name": "X"}, 400, "mockAccountId"},
		{"account: unknown", "PUT", "/v1/sandbox/accounts/enc!!nope", map[string]any{"name": "X"}, 404, "mockAccountId"},
		{"card account: credit limit", "PUT", cardPath, map[string]any{"creditLimit": map[string]any{"currency": "NOK", "amount": 75000}, "name": "Mastercard Platinum"}, 200, ""},
		{"card account: negative credit limit", "PUT", cardPath, map[string]any{"creditLimit": "-1"}, 400, "creditLimit"},
		{"card account: an account on the card route", "PUT", "/v1/sandbox/card-accounts/" + pathSeg(acc.ResourceID), map[string]any{"name": "X"}, 404, "mockCardAccountId"},

		{"agreement: rename, two signers, a member", "PUT", agPath, map[string]any{"name": "Nordlys Bygg AS - drift", "accounts": []string{nordlys.Accounts[0].ResourceID},
			"members": []string{CorporateCustomer2}, "signersRequired": 2}, 200, ""},
		{"agreement: owner change", "PUT", agPath, map[string]any{"owner": CorporateCustomer2, "name": "X"}, 400, "owner"},
		{"agreement: an account of another customer", "PUT", agPath, map[string]any{"name": "X", "accounts": []string{acc.ResourceID}}, 400, "accounts[0]"},
		{"agreement: too many signers", "PUT", agPath, map[string]any{"name": "X", "signersRequired": 2}, 400, "signersRequired"},
		{"agreement: unknown", "PUT", "/v1/sandbox/agreements/enc!!nope", map[string]any{"name": "X"}, 404, "mockAgreementId"},

		{"transaction: replace", "PUT", txPath, map[string]any{"transactionAmount": map[string]any{"amount": "-250.00", "currency": "NOK"}, "bookingDate": "2025-03-09", "creditorName": "Kiwi"}, 200, ""},
		{"transaction: future date", "PUT", txPath, map[string]any{"amount": "-250.00", "currency": "NOK", "bookingDate": "2025-03-13"}, 400, "bookingDate"},
		{"transaction: unknown", "PUT", accPath + "/transactions/enc!!nope", map[string]any{"amount": "-1.00", "currency": "NOK"}, 404, "transactionId"},
		{"transaction: an array", "PUT", txPath, []any{map[string]any{"amount": "-1.00", "currency": "NOK"}}, 400, ""},
	})

	k := customerOf(t, s, PrivateCustomer1)
	assert.Equal(t, "Kari Nordmann-Hansen", k.Name)
	assert.Equal(t, "Felleskonto", k.Accounts[0].Name)
	a := s.mustAccount(t, acc.ResourceID)
	assert.Equal(t, "savings", a.Kind)
	// the balance was set to 500.00, then the transaction's -100.00 became -250.00
	assert.NotEqual(t, balance, s.Balance(acc.ResourceID))
	assert.Equal(t, "350.00", s.Balance(acc.ResourceID))
	i := slices.IndexFunc(a.Booked, func(x *bank.Transaction) bool { return x.ID == txID })
	require.GreaterOrEqual(t, i, 0, "the same id")
	assert.Equal(t, "Kiwi", a.Booked[i].CreditorName)
	assert.Equal(t, "75000.00", k.Accounts[2].CreditLimit)
	assert.Equal(t, "Mastercard Platinum", k.Accounts[2].Name)
	ag, _ := s.bank.Agreement(agID)
	assert.Equal(t, "Nordlys Bygg AS - drift", ag.Name)
	assert.Equal(t, 2, ag.SignersRequired)
	assert.Equal(t, []string{CorporateCustomer1, CorporateCustomer2}, ag.Members)
	assert.Equal(t, []string{nordlys.Accounts[0].ResourceID}, ag.Accounts)
}
