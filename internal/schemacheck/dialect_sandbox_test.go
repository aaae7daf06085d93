package schemacheck

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handleFunc is a route the fake bank registers with a literal pattern:
// m.HandleFunc("PUT /v1/sandbox/customers/{customerNumber}", ...).
var handleFunc = regexp.MustCompile(`HandleFunc\("([A-Z]+) (/[^"]*)"`)

// variable is a path template's variable, whatever its name.
var variable = regexp.MustCompile(`\{[^}]*\}`)

// fakeBankRoutes are the literal route patterns of the fake bank
// (xs2atest, its non-test files): the platform's own paths and the Berlin
// Group ones but the payment routes, which it builds per payment service.
func fakeBankRoutes(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "xs2atest", "*.go"))
	require.NoError(t, err)
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range handleFunc.FindAllStringSubmatch(string(src), -1) {
			out = append(out, m[1]+" "+m[2])
		}
	}
	return out
}

// TestDialectRoutesEveryFakeBankRoute: every route the fake bank serves
// under a literal pattern is routed by kin-openapi, in docs/openapi.yaml,
// to an operation of the same path template, never to another's. The
// router takes any segment for a path variable whatever its enum, so a
// platform path the document lacks (POST /v1/sandbox/card-accounts) went to
// the payment initiation template /v1/{payment-service}/{payment-product},
// where the bank's error answers passed unnoticed.
func TestDialectRoutesEveryFakeBankRoute(t *testing.T) {
	t.Parallel()
	c, err := loadDialect(dialect)
	require.NoError(t, err)
	routes := fakeBankRoutes(t)
	require.Contains(t, routes, "POST /v1/sandbox/card-accounts", "the fake bank's sources are read")
	require.GreaterOrEqual(t, len(routes), 30)
	for _, r := range routes {
		method, pattern, _ := strings.Cut(r, " ")
		t.Run(r, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(method, "http://bank.invalid", nil)
			require.NoError(t, err)
			req.URL.Path = variable.ReplaceAllString(pattern, "enc!!x1")
			route, _, err := c.router.FindRoute(req)
			require.NoError(t, err, "docs/openapi.yaml has no operation for %s", r)
			assert.Equal(t, variable.ReplaceAllString(pattern, "{}"), variable.ReplaceAllString(route.Path, "{}"),
				"%s is routed to the operation of another path", r)
		})
	}
}

// TestDialectSandboxAnswers: the sandbox's answers as the fake bank writes
// them pass docs/openapi.yaml on their own operations, error answers
// included, and strictly.
func TestDialectSandboxAnswers(t *testing.T) {
	t.Parallel()
	c, err := loadDialect(dialect)
	require.NoError(t, err)
	jsonHdr := hdr("Content-Type", "application/json", "X-Request-ID", rid)
	card := `{"resourceId":"enc!!c1","maskedPan":"1234xxxxxxxx4321","currency":"NOK","name":"Test","product":"Basic Credit",` +
		`"card":true,"balance":"0.00","bookedTransactions":0,"pendingTransactions":0,"creditLimit":"1000.00"}`
	account := `{"resourceId":"enc!!a1","bban":"90412263056","iban":"NO2390412263056","currency":"NOK","name":"Brukskonto",` +
		`"product":"Brukskonto","balance":"10000.00","bookedTransactions":0,"pendingTransactions":0}`
	customer := `{"customerNumber":"13039319955","customerType":"PRIVATE","name":"Kari Nordmann-Hansen","accounts":[` + account + `]}`
	agreement := `{"id":"enc!!g1","name":"Testavtale 1","organisationNumber":"912345678","customerNumber":"17099233842",` +
		`"accounts":["enc!!a2"],"signersRequired":1,"members":["17099233842","01078900497"]}`
	tx := `{"transactionId":"enc!!t1","bookingDate":"2025-03-10","valueDate":"2025-03-10","transactionAmount":{"amount":"1500.00","currency":"NOK"},` +
		`"creditorName":"Aftenposten","creditorAccount":{"bban":"90412263056"},"proprietaryBankTransactionCode":{"value":"Varekjøp","code":"VK"}}`
	refused := `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"[1].bookingDate","text":"bookingDate must be a date (YYYY-MM-DD) in the past"}]}`
	tests := []struct {
		name, method, path string
		status             int
		body               string
		op                 string   // the operation it is checked against
		want               []string // problem keys; none: passes
	}{
		{"card account", "POST", "/v1/sandbox/card-accounts", 201, card, "POST /v1/sandbox/card-accounts", nil},
		{"card account: refused", "POST", "/v1/sandbox/card-accounts", 400, refused, "POST /v1/sandbox/card-accounts", nil},
		{"card account: a member the document does not name", "POST", "/v1/sandbox/card-accounts", 201,
			strings.Replace(card, `"card":true`, `"card":true,"cardId":"1"`, 1), "POST /v1/sandbox/card-accounts",
			[]string{"POST /v1/sandbox/card-accounts 201 / properties"}},
		{"card account changed", "PUT", "/v1/sandbox/card-accounts/enc!!c1", 200, card, "PUT /v1/sandbox/card-accounts/{mockCardAccountId}", nil},
		{"account changed", "PUT", "/v1/sandbox/accounts/enc!!a1", 200, account, "PUT /v1/sandbox/accounts/{mockAccountId}", nil},
		{"customer renamed", "PUT", "/v1/sandbox/customers/13039319955", 200, customer, "PUT /v1/sandbox/customers/{customerNumber}", nil},
		{"customer: unknown", "PUT", "/v1/sandbox/customers/01017099999", 404, refused, "PUT /v1/sandbox/customers/{customerNumber}", nil},
		{"agreement changed", "PUT", "/v1/sandbox/agreements/enc!!g1", 200, agreement, "PUT /v1/sandbox/agreements/{mockAgreementId}", nil},
		{"engagements added", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", 201, agreement,
			"POST /v1/sandbox/agreements/{mockAgreementId}/engagements", nil},
		{"engagements: the agreement without members", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", 201,
			strings.Replace(agreement, `,"members":["17099233842","01078900497"]`, "", 1), "POST /v1/sandbox/agreements/{mockAgreementId}/engagements",
			[]string{"POST /v1/sandbox/agreements/{mockAgreementId}/engagements 201 /members required"}},
		{"transactions: an array", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", 201, "[" + tx + "," + tx + "]",
			"POST /v1/sandbox/accounts/{mockAccountId}/transactions", nil},
		{"transactions: one object", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", 201, tx,
			"POST /v1/sandbox/accounts/{mockAccountId}/transactions", nil},
		{"transactions: an array with an amount that is no decimal", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", 201,
			"[" + tx + "," + strings.Replace(tx, `"1500.00"`, `"1500,00"`, 1) + "]", "POST /v1/sandbox/accounts/{mockAccountId}/transactions",
			[]string{"POST /v1/sandbox/accounts/{mockAccountId}/transactions 201 /*/transactionAmount/amount pattern"}},
		{"card transactions", "POST", "/v1/sandbox/card-accounts/enc!!c1/transactions", 201, "[" + tx + "]",
			"POST /v1/sandbox/card-accounts/{mockCardAccountId}/transactions", nil},
		{"transaction replaced", "PUT", "/v1/sandbox/accounts/enc!!a1/transactions/enc!!t1", 200, tx,
			"PUT /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId}", nil},
		{"transaction replaced: an array", "PUT", "/v1/sandbox/accounts/enc!!a1/transactions/enc!!t1", 200, "[" + tx + "]",
			"PUT /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId}",
			[]string{"PUT /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId} 200 / type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := c.Check(tt.method, tt.path, "", tt.status, jsonHdr, []byte(tt.body))
			assert.Equal(t, tt.op, res.Operation)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			var got []string
			for _, p := range e.Problems {
				got = append(got, p.Key())
			}
			assert.Equal(t, tt.want, got, "%v", err)
		})
	}
}

// TestDialectSandboxRequestBodies: the mock-data bodies of docs/openapi.yaml
// take the shapes the platform's scripts send and the fake bank's
// additions, as the fake bank takes them (SB9 to SB12), and are closed as
// the fake bank is: what it refuses for its form, the document refuses.
func TestDialectSandboxRequestBodies(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromFile(dialect)
	require.NoError(t, err)
	doc.Servers = nil // as written: not closed by strict, routed below the base path
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	const (
		scriptAccount = `{"customerNumber":"01078900497","accountName":"Brukskonto","bban":"90412263056","iban":"NO2390412263056",` +
			`"currency":"NOK","product":"Brukskonto","cashAccountType":"CACC","creditLine":0,` +
			`"balances":[{"balanceType":"EXPECTED","balanceAmount":{"amount":10000,"currency":"NOK"}}]}`
		scriptCard = `{"customerNumber":"01078900497","maskedPan":"1234xxxxxxxx4321","currency":"NOK","creditLimit":{"currency":"NOK","amount":1000},` +
			`"balances":[{"balanceAmount":{"currency":"NOK","amount":0},"balanceType":"EXPECTED","referenceDate":"2020-01-01",` +
			`"lastChangeDateTime":"2019-10-14T13:55:45.494Z","lastCommittedTransaction":"test"}],"cardId":"1","cardIdVNo":"2",` +
			`"accountNumber":"123412341234","expiry":"2020-01-01","name":"Test","product":"Basic Credit","status":"ENABLED"}`
		engagement = `{"customer":"01078900497","account":{"iban":"NO6595681425005"},"roles":["VIEW","REGISTER"]}`
		scriptTx   = `{"amount":1500,"currency":"NOK","valueDate":"2025-03-10","bookingDate":"2025-03-10","remittanceInformationUnstructured":"63444766",` +
			`"creditorId":"1","creditorName":"Aftenposten","creditorAccount":{"iban":"NO2390412263056","bban":"90412263056"},"ultimateCreditor":"Test",` +
			`"debtorName":"Testperson 2","ultimateDebtor":"test","purposeCode":"code","bankTransactionCode":"PMNT"}`
		scriptCardTx = `{"cardTransactionId":"test-1","terminalId":"tid","bookingDate":"2025-03-08","transactionDate":"2025-03-08",` +
			`"transactionAmount":{"currency":"NOK","amount":100},"originalAmount":{"currency":"NOK","amount":100},"merchantCategoryCode":"BOB",` +
			`"markupFee":{"currency":"NOK","amount":10},"markupFeePercentage":"20","cardAcceptorId":"","cardAcceptorAddress":{},"maskedPan":"",` +
			`"transactionDetails":"","invoiced":"","proprietaryBankTransactionCode":""}`
		sdkTx = `{"transactionAmount":{"currency":"NOK","amount":"-123.50"},"bookingDate":"2025-03-09","creditorName":"Sognekraft",` +
			`"proprietaryBankTransactionCode":{"value":"Varekjøp","code":"VK"},"pending":true}`
	)
	tests := []struct {
		name, method, path, body string
		ok                       bool
	}{
		{"customer: the scripts' shape", "POST", "/v1/sandbox/customers", `{"customerNumber":"01078900497","name":"Test Testperson 1","type":"private"}`, true},
		{"customer: the earlier customerType", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012345","customerType":"PRIVATE","name":"A"}`, true},
		{"customer: no type", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012346","name":"A"}`, false},
		{"customer: an unknown type", "POST", "/v1/sandbox/customers", `{"customerNumber":"01017012346","type":"sole_trader","name":"A"}`, false},
		{"customer: 8 digits", "POST", "/v1/sandbox/customers", `{"customerNumber":"77777777","name":"Testfirma 2","type":"corporate"}`, false},
		{"customer: renamed", "PUT", "/v1/sandbox/customers/13039319955", `{"name":"Kari Nordmann-Hansen","type":"private"}`, true},
		{"customer: renamed without a name", "PUT", "/v1/sandbox/customers/13039319955", `{"type":"private"}`, false},
		{"account: the scripts' shape", "POST", "/v1/sandbox/accounts", scriptAccount, true},
		{"account: the earlier shape, a card", "POST", "/v1/sandbox/accounts",
			`{"customerNumber":"01078900497","currency":"NOK","name":"Visa Gull","card":true,"creditLimit":"200.00","balance":"1.50"}`, true},
		{"account: no name", "POST", "/v1/sandbox/accounts", `{"customerNumber":"01078900497","currency":"NOK"}`, false},
		{"account: an unknown member", "POST", "/v1/sandbox/accounts", strings.Replace(scriptAccount, `"creditLine":0`, `"accountType":"CARD"`, 1), false},
		{"account: an amount with a comma", "POST", "/v1/sandbox/accounts", strings.Replace(scriptAccount, `"amount":10000`, `"amount":"1,5"`, 1), false},
		{"account: an unknown balanceType", "POST", "/v1/sandbox/accounts", strings.Replace(scriptAccount, `"EXPECTED"`, `"SOMETIME"`, 1), false},
		{"account: changed", "PUT", "/v1/sandbox/accounts/enc!!a1", `{"accountName":"Felleskonto","cashAccountType":"SVGS"}`, true},
		{"card account: the scripts' shape", "POST", "/v1/sandbox/card-accounts", scriptCard, true},
		{"card account: a product alone", "POST", "/v1/sandbox/card-accounts", `{"customerNumber":"01078900497","currency":"NOK","product":"Visa"}`, true},
		{"card account: a bban", "POST", "/v1/sandbox/card-accounts", `{"customerNumber":"01078900497","currency":"NOK","name":"Visa","bban":"95681425021"}`, false},
		{"card account: card false", "POST", "/v1/sandbox/card-accounts", `{"customerNumber":"01078900497","currency":"NOK","name":"Visa","card":false}`, false},
		{"card account: changed", "PUT", "/v1/sandbox/card-accounts/enc!!c1", `{"creditLimit":{"currency":"NOK","amount":75000},"name":"Mastercard Platinum"}`, true},
		{"agreement: the scripts' shape", "POST", "/v1/sandbox/agreements", `{"owner":"17099233842","name":"Testavtale 1","engagements":[` + engagement + `]}`, true},
		{"agreement: the earlier shape", "POST", "/v1/sandbox/agreements",
			`{"customerNumber":"17099233842","name":"X","accounts":["enc!!a2"],"members":["01078900497"],"signersRequired":2}`, true},
		{"agreement: no owner", "POST", "/v1/sandbox/agreements", `{"name":"X"}`, false},
		{"agreement: a role the platform does not document", "POST", "/v1/sandbox/agreements",
			`{"owner":"17099233842","name":"X","engagements":[` + strings.Replace(engagement, `"REGISTER"`, `"ADMIN"`, 1) + `]}`, false},
		{"agreement: changed", "PUT", "/v1/sandbox/agreements/enc!!g1", `{"name":"Nordlys Bygg AS - drift","signersRequired":2}`, true},
		{"engagements: one", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", engagement, true},
		{"engagements: an array", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", "[" + engagement + "]", true},
		{"engagements: an empty array", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", `[]`, false},
		{"engagements: no account", "POST", "/v1/sandbox/agreements/enc!!g1/engagements", `{"customer":"01078900497","roles":["VIEW"]}`, false},
		{"transactions: the scripts' array", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", "[" + scriptTx + "," + scriptTx + "]", true},
		{"transactions: the SDK's", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", "[" + sdkTx + "]", true},
		{"transactions: one object", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", sdkTx, true},
		{"transactions: an empty array", "POST", "/v1/sandbox/accounts/enc!!a1/transactions", `[]`, false},
		{"transactions: an unknown member", "POST", "/v1/sandbox/accounts/enc!!a1/transactions",
			"[" + scriptTx + "," + strings.Replace(scriptTx, `"amount":1500`, `"amount":1500,"colour":"red"`, 1) + "]", false},
		{"transactions: an amount in words", "POST", "/v1/sandbox/accounts/enc!!a1/transactions",
			"[" + strings.Replace(scriptTx, `"amount":1500`, `"amount":"ten"`, 1) + "]", false},
		{"card transactions: the scripts' array", "POST", "/v1/sandbox/card-accounts/enc!!c1/transactions", "[" + scriptCardTx + "]", true},
		{"transaction replaced", "PUT", "/v1/sandbox/accounts/enc!!a1/transactions/enc!!t1", sdkTx, true},
		{"transaction replaced: an array", "PUT", "/v1/sandbox/accounts/enc!!a1/transactions/enc!!t1", "[" + sdkTx + "]", false},
		{"balance", "PUT", "/v1/sandbox/accounts/enc!!a1/balances", `{"balanceAmount":{"amount":100,"currency":"NOK"}}`, true},
		{"balance: without currency", "PUT", "/v1/sandbox/accounts/enc!!a1/balances", `{"balanceAmount":{"amount":"100.26"}}`, true},
		{"balance: the earlier flat form", "PUT", "/v1/sandbox/accounts/enc!!a1/balances", `{"amount":"100.26","currency":"NOK"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tt.method, "http://bank.invalid", nil)
			require.NoError(t, err)
			req.URL.Path = tt.path
			route, _, err := router.FindRoute(req)
			require.NoError(t, err)
			rb := route.Operation.RequestBody
			require.NotNil(t, rb, "%s %s documents no body", tt.method, route.Path)
			mt := rb.Value.Content.Get("application/json")
			require.NotNil(t, mt)
			var v any
			require.NoError(t, json.Unmarshal([]byte(tt.body), &v))
			err = mt.Schema.Value.VisitJSON(v, formats()...)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
