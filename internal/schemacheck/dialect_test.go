package schemacheck

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var dialect = filepath.Join("..", "..", "docs", "openapi.yaml")

// TestDialectDocumentValid: docs/openapi.yaml is a valid OpenAPI 3.0
// document as kin-openapi reads it (references resolved, schemas,
// parameters and responses well formed).
func TestDialectDocumentValid(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromFile(dialect)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	require.Regexp(t, `^3\.0\.`, doc.OpenAPI)
}

// TestDialectCheckerFindsMismatches: against docs/openapi.yaml every route
// is checked, the platform's own ones and the SCA pages included; a member
// the document does not name is a problem (strict), as is a missing
// required one, a status or a route it does not document; the same
// response shared by several operations keeps its headers for each.
func TestDialectCheckerFindsMismatches(t *testing.T) {
	t.Parallel()
	c, err := loadDialect(dialect)
	require.NoError(t, err)
	json := hdr("Content-Type", "application/json", "X-Request-ID", rid)
	html := hdr("Content-Type", "text/html; charset=utf-8", "X-Request-ID", rid)
	agreement := `{"id":"` + rid + `","name":"Firma AS","organisationNumber":"912345678"}`
	redirect := `{"_links":{"scaRedirect":{"href":"https://bank.example/api/sca/t","verbs":["GET"]}}}`
	tests := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		want         []string // problem keys; none: passes
	}{
		{"agreements", "GET", "/v1/agreements", 200, json, `{"agreements":[` + agreement + `]}`, nil},
		{"agreements: a member the document does not name", "GET", "/v1/agreements", 200, json,
			`{"agreements":[{"id":"` + rid + `","name":"Firma AS","organisationNumber":"912345678","secret":"x"}]}`,
			[]string{"GET /v1/agreements 200 /agreements/* properties"}},
		{"agreements: id not a UUID", "GET", "/v1/agreements", 200, json,
			`{"agreements":[{"id":"a1","name":"Firma AS","organisationNumber":"912345678"}]}`,
			[]string{"GET /v1/agreements 200 /agreements/*/id format"}},
		{"users: the scaRedirect", "GET", "/v1/users", 200, json, redirect, nil},
		{"users: no scaRedirect", "GET", "/v1/users", 200, json, `{"_links":{}}`,
			[]string{"GET /v1/users 200 /_links/scaRedirect required"}},
		{"user: the shared response keeps its X-Request-ID", "GET", "/v1/user", 200,
			hdr("Content-Type", "application/json"), redirect, []string{"GET /v1/user 200 header X-Request-ID required"}},
		{"sandbox customers", "GET", "/v1/sandbox/customers", 200, json,
			`{"customers":[{"customerNumber":"13039319955","customerType":"PRIVATE","name":"Kari"}]}`, nil},
		{"sandbox customers: customerType outside the list", "GET", "/v1/sandbox/customers", 200, json,
			`{"customers":[{"customerNumber":"13039319955","customerType":"SOLE","name":"Kari"}]}`,
			[]string{"GET /v1/sandbox/customers 200 /customers/*/customerType enum"}},
		{"contact e-mail", "GET", "/v1/tpps/NO-FSA-1/contact-information", 200, json, `{"email":"ops@tpp.example"}`, nil},
		{"error body: code missing", "GET", "/v1/accounts", 401, json, `{"tppMessages":[{"category":"ERROR"}]}`,
			[]string{"GET /v1/accounts 401 /tppMessages/*/code required"}},
		{"transaction: an extra proprietary reference", "GET", "/v1/accounts/a1/transactions/t1", 200, json,
			`{"transactionsDetails":{"transactionAmount":{"currency":"NOK","amount":"-1.00"},"additionalInformationProprietary1":"x"}}`, nil},
		{"transaction: an amount that is no decimal", "GET", "/v1/accounts/a1/transactions/t1", 200, json,
			`{"transactionsDetails":{"transactionAmount":{"currency":"NOK","amount":"1,00"}}}`,
			[]string{"GET /v1/accounts/{account-id}/transactions/{transactionId} 200 /transactionsDetails/transactionAmount/amount pattern"}},
		{"status 200 to a DELETE", "DELETE", "/v1/payments/norwegian-domestic-credit-transfers/p1", 200, json, `{}`,
			[]string{"DELETE /v1/{payment-service}/{payment-product}/{paymentId} 200 / status"}},
		{"SCA page", "GET", "/sca/t1", 200, html, `<html></html>`, nil},
		{"SCA page as JSON", "GET", "/sca/t1", 200, json, `{}`,
			[]string{"GET /sca/{token} 200 / content"}},
		{"SCA step: on to the TPP", "POST", "/sca/t1", 303, hdr("X-Request-ID", rid, "Location", "https://tpp.example/cb?psu-id=x"), "", nil},
		{"SCA step: a redirect without Location", "POST", "/sca/t1", 303, hdr("X-Request-ID", rid), "",
			[]string{"POST /sca/{token} 303 header Location required"}},
		{"a route the document does not have", "GET", "/v2/accounts", 200, json, `{}`,
			[]string{"GET /v2/accounts 200  route"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.Check(tt.method, tt.path, "", tt.status, tt.header, []byte(tt.body))
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, e.Error(), dialect)
			var got []string
			for _, p := range e.Problems {
				got = append(got, p.Key())
			}
			assert.Equal(t, tt.want, got, "%v", err)
		})
	}
}

// TestDialectCheckerSkipsOnlyTheFakeBanksControls: the fake bank's own
// controls are not checked against the dialect; the platform's own
// endpoints, which the Berlin Group check skips, are.
func TestDialectCheckerSkipsOnlyTheFakeBanksControls(t *testing.T) {
	t.Parallel()
	c, err := loadDialect(dialect)
	require.NoError(t, err)
	res, err := c.Check("POST", "/_control/faults", "", 200, http.Header{}, []byte("{}"))
	require.NoError(t, err)
	assert.Empty(t, res.Operation)
	for _, path := range PlatformRoutes {
		assert.False(t, matchRoutes(c.skip, path+"x"), path)
	}
	res, err = c.Check("GET", "/v1/sandbox/customers", "", 200, hdr("Content-Type", "application/json", "X-Request-ID", rid), []byte(`{"customers":[]}`))
	require.NoError(t, err)
	assert.Equal(t, "GET /v1/sandbox/customers", res.Operation)
}
