package mockbank_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
	"github.com/tppkit/xs2a/xs2atest/mockbank"
)

func TestResponders(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	base := "https://psd2.bank.example/api"
	mockbank.Responders(mt, base, mockbank.MockPaymentStatus("ACCP"), mockbank.MockInsufficientFunds())
	hc := &http.Client{Transport: mt}
	call := func(method, path string, body []byte) (int, map[string]any) {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return resp.StatusCode, m
	}
	status, m := call("GET", "/v1/accounts", nil)
	require.Equal(t, 200, status)
	accts := m["accounts"].([]any)
	require.Len(t, accts, 2)
	links := accts[0].(map[string]any)["_links"].(map[string]any)
	status, m = call("GET", links["balances"].(map[string]any)["href"].(string), nil)
	require.Equal(t, 200, status)
	assert.Len(t, m["balances"], 3)

	next := links["transactions"].(map[string]any)["href"].(string) + "?bookingStatus=both"
	pages := 0
	for next != "" {
		status, m = call("GET", next, nil)
		require.Equal(t, 200, status)
		pages++
		tx := m["transactions"].(map[string]any)
		next = ""
		if l, ok := tx["_links"].(map[string]any); ok {
			next = l["next"].(map[string]any)["href"].(string)
		}
	}
	assert.Equal(t, 3, pages)
	status, _ = call("GET", "/v1/accounts/enc!!nope/balances", nil)
	assert.Equal(t, 404, status)

	status, m = call("POST", "/v1/payments/norwegian-domestic-credit-transfers", []byte(`{}`))
	require.Equal(t, 201, status)
	self := m["_links"].(map[string]any)
	status, m = call("POST", self["startAuthorisation"].(map[string]any)["href"].(string), nil)
	require.Equal(t, 201, status)
	assert.Contains(t, m["_links"], "scaRedirect")
	status, m = call("GET", self["status"].(map[string]any)["href"].(string), nil)
	require.Equal(t, 200, status)
	assert.Equal(t, "ACCP", m["transactionStatus"])
	assert.Equal(t, false, m["fundsAvailable"])
	status, _ = call("POST", "/v1/payments/unknown-product", []byte(`{}`))
	assert.Equal(t, 400, status)

	mt2 := httpmock.NewMockTransport()
	mockbank.Responders(mt2, base, mockbank.MockSCARequired(), mockbank.MockCustomer(xs2atest.CorporateCustomer1))
	resp, err := (&http.Client{Transport: mt2}).Get(base + "/v1/accounts")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 401, resp.StatusCode)
}

// TestRespondersConcurrentPayments: the payment responder is called from
// many goroutines at once (httpmock runs responders concurrently); every
// payment gets its own id and the counter is race-free (run with -race).
func TestRespondersConcurrentPayments(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	base := "https://psd2.bank.example/api"
	mockbank.Responders(mt, base)
	hc := &http.Client{Transport: mt}
	const n = 16
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := hc.Post(base+"/v1/payments/norwegian-domestic-credit-transfers", "application/json", strings.NewReader(`{}`))
			if !assert.NoError(t, err) {
				return
			}
			defer resp.Body.Close()
			var m struct {
				PaymentID string `json:"paymentId"`
			}
			assert.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
			ids <- m.PaymentID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		assert.False(t, seen[id], "payment id %s given twice", id)
		seen[id] = true
	}
	assert.Len(t, seen, n)
}

// TestRespondersFundsAvailable: fundsAvailable is false only when asked for
// (MockInsufficientFunds, as the bank reports a payment refused for lack of
// funds); a rejection for another reason, and any other status, leave it out.
func TestRespondersFundsAvailable(t *testing.T) {
	t.Parallel()
	base := "https://psd2.bank.example/api"
	tests := []struct {
		name string
		opts []mockbank.ResponderOption
		want map[string]any
	}{
		{"default ACSC", nil, map[string]any{"transactionStatus": "ACSC"}},
		{"RJCT for another reason", []mockbank.ResponderOption{mockbank.MockPaymentStatus("RJCT")},
			map[string]any{"transactionStatus": "RJCT"}},
		{"ACCP, waiting for the next batch", []mockbank.ResponderOption{mockbank.MockPaymentStatus("ACCP")},
			map[string]any{"transactionStatus": "ACCP"}},
		{"ACCP for lack of funds", []mockbank.ResponderOption{mockbank.MockPaymentStatus("ACCP"), mockbank.MockInsufficientFunds()},
			map[string]any{"transactionStatus": "ACCP", "fundsAvailable": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt := httpmock.NewMockTransport()
			mockbank.Responders(mt, base, tt.opts...)
			resp, err := (&http.Client{Transport: mt}).Get(base + "/v1/payments/norwegian-domestic-credit-transfers/enc!!p1/status")
			require.NoError(t, err)
			defer resp.Body.Close()
			var m map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
			assert.Equal(t, tt.want, m)
		})
	}
}

// TestOverrideAsTheDocSays: an exact-URL responder registered as
// Responders' doc says (the id as written, "!" and "=" unescaped, "/" as
// %2F) wins for the SDK's own call; one registered with url.PathEscape's
// spelling is never reached.
func TestOverrideAsTheDocSays(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	base := "https://psd2.bank.example/api"
	mockbank.Responders(mt, base)
	signer, err := xs2atest.NewTestSigner(nil)
	require.NoError(t, err)
	c, err := xs2a.NewClient(base, signer, xs2a.WithHTTPClient(&http.Client{Transport: mt}), xs2a.WithRedirectURI(xs2atest.DefaultRedirectURI))
	require.NoError(t, err)
	psu := xs2a.PSU{ID: "3f0b5a0e-8a4e-4d7e-9a51-2b8c9f1e6d21", IPAddress: "192.0.2.1"}
	accounts, _, err := c.Accounts.List(context.Background(), psu)
	require.NoError(t, err)
	for _, id := range []string{accounts[0].ResourceID, "enc!!a/b=="} {
		require.Contains(t, id, "!!")
		asSent := strings.ReplaceAll(id, "/", "%2F")
		mt.RegisterResponder(http.MethodGet, base+"/v1/accounts/"+url.PathEscape(id)+"/balances",
			httpmock.NewStringResponder(http.StatusOK, `{"balances":[{"balanceType":"expected","balanceAmount":{"currency":"NOK","amount":"1.00"}}]}`))
		mt.RegisterResponder(http.MethodGet, base+"/v1/accounts/"+asSent+"/balances",
			httpmock.NewStringResponder(http.StatusOK, `{"balances":[{"balanceType":"expected","balanceAmount":{"currency":"NOK","amount":"42.00"}}]}`))
		bal, _, err := c.Accounts.Balances(context.Background(), psu, id)
		require.NoError(t, err, id)
		require.Len(t, bal.Balances, 1, id)
		assert.Equal(t, "42.00", bal.Balances[0].BalanceAmount.Amount, id)
	}
}
