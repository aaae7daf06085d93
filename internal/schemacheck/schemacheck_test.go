package schemacheck

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var spec = filepath.Join("..", "..", "testdata", "openapi", "berlin-group-psd2-api-1.3.12.yaml")

// checker loads the file with a deviations document holding rows.
func checker(t *testing.T, rows ...string) *Checker {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "interface.md")
	text := "| Id | Answer | Status | Where | Schema rule | Why |\n|---|---|---|---|---|---|\n"
	for _, r := range rows {
		text += r + "\n"
	}
	require.NoError(t, os.WriteFile(doc, []byte(text), 0o644))
	c, err := load(spec, doc)
	require.NoError(t, err)
	return c
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

const rid = "99391c7e-ad88-49ec-a2ad-99ddcb1f7721"

// TestCheckerFindsMismatches: answers that break the schema are found,
// named by operation, status, pointer and keyword; a listed deviation is
// accepted, and only that one.
func TestCheckerFindsMismatches(t *testing.T) {
	t.Parallel()
	json := hdr("Content-Type", "application/json", "X-Request-ID", rid)
	account := `{"resourceId":"a1","bban":"32010012345","currency":"NOK","name":"Brukskonto","_links":{"balances":{"href":"/v1/accounts/a1/balances"}}}`
	tests := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		want         []string // problem keys; none: passes
	}{
		{"account list", "GET", "/v1/accounts", 200, json, `{"accounts":[` + account + `]}`, nil},
		{"account without currency", "GET", "/v1/accounts", 200, json,
			`{"accounts":[{"resourceId":"a1","bban":"32010012345","name":"x"}]}`,
			[]string{"GET /v1/accounts 200 /accounts/*/currency required"}},
		{"no X-Request-ID", "GET", "/v1/accounts", 200, hdr("Content-Type", "application/json"), `{"accounts":[]}`,
			[]string{"GET /v1/accounts 200 header X-Request-ID required"}},
		{"X-Request-ID not a UUID", "GET", "/v1/accounts", 200, hdr("Content-Type", "application/json", "X-Request-ID", "abc"), `{"accounts":[]}`,
			[]string{"GET /v1/accounts 200 header X-Request-ID format"}},
		{"status the operation does not document", "GET", "/v1/accounts", 418, json, `{}`,
			[]string{"GET /v1/accounts 418 / status"}},
		{"transactions without _links", "GET", "/v1/accounts/a1/transactions", 200, json,
			`{"account":{"bban":"32010012345"},"transactions":{"booked":[]}}`,
			[]string{"GET /v1/accounts/{account-id}/transactions 200 /transactions/_links required"}},
		{"transactions without the account link", "GET", "/v1/accounts/a1/transactions", 200, json,
			`{"account":{"bban":"32010012345"},"transactions":{"booked":[],"_links":{"next":{"href":"/x"}}}}`,
			[]string{"GET /v1/accounts/{account-id}/transactions 200 /transactions/_links/account required"}},
		{"card balance type outside the list", "GET", "/v1/card-accounts/c1/balances", 200, json,
			`{"cardAccount":{"maskedPan":"525412******3241"},"balances":[{"balanceAmount":{"currency":"NOK","amount":"1.00"},"balanceType":"any_balance_type"}]}`,
			[]string{"GET /v1/card-accounts/{account-id}/balances 200 /balances/*/balanceType enum"}},
		{"an id with an escaped slash stays in its segment", "GET", "/v1/accounts/enc!!a%2Fb=/balances", 200, json,
			`{"account":{"bban":"32010012345"},"balances":[{"balanceAmount":{"currency":"NOK","amount":"1.00"},"balanceType":"expected"}]}`, nil},
		{"an escaped letter is the letter", "GET", "/v1/accounts/a1/%62alances", 200, json,
			`{"account":{"bban":"32010012345"},"balances":[{"balanceAmount":{"currency":"NOK","amount":"1.00"},"balanceType":"other"}]}`,
			[]string{"GET /v1/accounts/{account-id}/balances 200 /balances/*/balanceType enum"}},
		{"payment read: the closest branch of the oneOf", "GET", "/v1/payments/norwegian-domestic-credit-transfers/p1", 200, json,
			`{"instructedAmount":{"currency":"NOK","amount":"1.00"},"creditorAccount":{"bban":"32010012345"},"creditorName":"x"}`,
			[]string{"GET /v1/{payment-service}/{payment-product}/{paymentId} 200 /debtorAccount required"}},
		{"error body with an unknown category", "GET", "/v1/accounts", 400, json,
			`{"tppMessages":[{"category":"OOPS","code":"FORMAT_ERROR"}]}`,
			[]string{"GET /v1/accounts 400 /tppMessages/*/category enum"}},
		{"text where JSON is due", "GET", "/v1/accounts", 200, hdr("Content-Type", "text/plain", "X-Request-ID", rid), `hello`,
			[]string{"GET /v1/accounts 200 / content"}},
		{"a path the file does not route, answered 200", "GET", "/v1/nothing/here/at/all", 200, json, `{}`,
			[]string{"GET /v1/nothing/here/at/all 200  route"}},
	}
	c := checker(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.Check(tt.method, tt.path, "", tt.status, tt.header, []byte(tt.body))
			if len(tt.want) == 0 {
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

	// listed, the deviation is accepted and reported as seen; another is not
	listed := checker(t, "| **BG9** | `GET /v1/accounts` | 200 | `/accounts/*/currency` | `required` | why. Test: `TestX` |")
	res, err := listed.Check("GET", "/v1/accounts", "", 200, json, []byte(`{"accounts":[{"resourceId":"a1","bban":"32010012345","name":"x"}]}`))
	require.NoError(t, err)
	require.Len(t, res.Seen, 1)
	assert.Equal(t, "BG9", res.Seen[0].ID)
	_, err = listed.Check("GET", "/v1/accounts", "", 200, json, []byte(`{"accounts":[{"resourceId":"a1","bban":"32010012345","currency":"NOK","name":"x","product":"`+long+`"}]}`))
	require.Error(t, err, "a deviation listed elsewhere in the same answer does not cover another")
	_, err = listed.Check("GET", "/v1/accounts", "", 400, json, []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}],"accounts":[{}]}`))
	require.NoError(t, err, "an error body passes")
}

const long = "a product name longer than the thirty-five characters of Max35Text"

// TestCheckerSkipsPlatformRoutes: the platform's own endpoints and pages
// are not checked, nor a 404 or 405 to a path the file does not route.
func TestCheckerSkipsPlatformRoutes(t *testing.T) {
	t.Parallel()
	c := checker(t)
	for _, path := range []string{"/v1/users", "/v1/user", "/v1/agreements", "/v1/bank-offered-consents", "/v1/sandbox/customers",
		"/v1/sandbox/accounts/x/transactions", "/v1/tpps/NO-FSA-1/contact-information", "/sca/token"} {
		res, err := c.Check("POST", path, "", 200, http.Header{}, []byte("<html>"))
		require.NoError(t, err, path)
		assert.Empty(t, res.Operation, path)
	}
	for _, status := range []int{404, 405} {
		_, err := c.Check("GET", "/v1/nothing/here/at/all", "", status, http.Header{}, nil)
		require.NoError(t, err)
	}
	for _, path := range []string{"/v1/usersx", "/v1/sandboxes"} {
		assert.False(t, Platform(path), path)
	}
}

// TestReadDeviationsOfTheInterfaceDoc: the table of docs/interface.md reads
// into rows, each with its id, operation, status, pointer and keyword.
func TestReadDeviationsOfTheInterfaceDoc(t *testing.T) {
	t.Parallel()
	devs, err := ReadDeviations(filepath.Join("..", "..", "docs", "interface.md"))
	require.NoError(t, err)
	require.NotEmpty(t, devs)
	for _, d := range devs {
		assert.NotEmpty(t, d.Operation+d.Status+d.Pointer+d.Keyword, d.ID)
	}
}
