package xs2a_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// rawAccounts is the part of GET /v1/accounts the raw calls below read.
type rawAccounts struct {
	Accounts []struct {
		ResourceID string `json:"resourceId"`
		BBAN       string `json:"bban"`
	} `json:"accounts"`
}

// Client.Do reads an account list through the signed pipeline, as
// Accounts.List does.
func TestDoReadsAccountList(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	kari := b.account(t, xs2atest.PrivateCustomer1, 0)
	mark := b.rec.len()

	var out rawAccounts
	resp, err := b.c.Do(context.Background(), psu, http.MethodGet, "/v1/accounts", nil, &out)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, out.Accounts, 2)
	assert.Equal(t, kari.ResourceID, out.Accounts[0].ResourceID)
	assert.Equal(t, kari.BBAN, out.Accounts[0].BBAN)

	sent := b.rec.since(mark, http.MethodGet, "/v1/accounts")
	require.Len(t, sent, 1)
	assert.Equal(t, "/api/v1/accounts", sent[0].Path, "under the base path")
	assert.NotEmpty(t, sent[0].Header.Get("Signature"))
	assert.Equal(t, psu.ID, sent[0].Header.Get("PSU-ID"))
	assert.Equal(t, resp.RequestID, sent[0].Header.Get("X-Request-ID"))
}

// A POST through Client.Do is sent once, even when the bank answers 503
// and the policy retries POST: the bank may have acted on it.
func TestDoNeverRetriesPOST(t *testing.T) {
	t.Parallel()
	b := newBank(t, xs2atest.WithFaults(xs2atest.Fault{Method: http.MethodPost, Path: "/v1/payments/", Status: http.StatusServiceUnavailable, Times: 1}))
	psu := b.register(t, xs2atest.PrivateCustomer1)
	c := b.client(t, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 3, Methods: []string{http.MethodGet, http.MethodPost}}))
	noWait(c)
	mark := b.rec.len()

	var out map[string]any
	resp, err := c.Do(context.Background(), psu, http.MethodPost, "/v1/payments/"+xs2a.NorwegianDomesticCreditTransfers, b.payment(t, "10.00", ""), &out)
	require.ErrorIs(t, err, xs2a.ErrOutcomeUnknown)
	var e *xs2a.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	require.NotNil(t, resp)
	assert.Equal(t, 1, resp.Attempts)
	sent := b.rec.since(mark, http.MethodPost, "/v1/payments/")
	require.Len(t, sent, 1, "sent once")
	assert.NotEmpty(t, sent[0].Header.Get("Digest"), "the JSON body is digested")
	assert.NotEmpty(t, sent[0].Header.Get("Signature"))
	assert.Zero(t, b.PaymentCount())
}

// Client.Do refuses, before sending anything, a path the named calls would
// refuse too, and input it cannot send.
func TestDoRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := xs2a.PSU{IPAddress: psuIP}
	origin := strings.TrimSuffix(b.URL(), xs2atest.DefaultBasePath)
	tests := []struct {
		name, method, path string
		psu                xs2a.PSU
		wantErr            error  // or
		wantField          string // a *ValidationError's Field
	}{
		{name: "outside the base path", method: http.MethodGet, path: origin + "/v1/accounts", psu: psu, wantErr: xs2a.ErrCrossOrigin},
		{name: "dot segments", method: http.MethodGet, path: "/v1/../../admin", psu: psu, wantErr: xs2a.ErrCrossOrigin},
		{name: "another origin", method: http.MethodGet, path: "https://bank.example/api/v1/accounts", psu: psu, wantErr: xs2a.ErrCrossOrigin},
		{name: "method", method: http.MethodPatch, path: "/v1/accounts", psu: psu, wantField: "method"},
		{name: "empty method", method: "", path: "/v1/accounts", psu: psu, wantField: "method"},
		{name: "empty path", method: http.MethodGet, path: "", psu: psu, wantField: "path"},
		{name: "psu", method: http.MethodGet, path: "/v1/accounts", psu: xs2a.PSU{IPAddress: "not-an-ip"}, wantField: "PSU.IPAddress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := b.rec.len()
			resp, err := b.c.Do(context.Background(), tt.psu, tt.method, tt.path, nil, nil)
			assert.Nil(t, resp)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				var ve *xs2a.ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, tt.wantField, ve.Field)
			}
			assert.Equal(t, mark, b.rec.len(), "nothing sent")
		})
	}
}

// The bank's error answer to Client.Do is an *Error, as for a named call.
func TestDoErrorAnswer(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	var out map[string]any
	resp, err := b.c.Do(context.Background(), psu, http.MethodGet, "/v1/accounts/no-such-account/balances", nil, &out)
	require.ErrorIs(t, err, xs2a.ErrNotFound)
	var e *xs2a.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusNotFound, e.StatusCode)
	assert.Equal(t, "client.do", e.Op)
	assert.NotContains(t, err.Error(), psu.ID)
	assert.Nil(t, out, "nothing decoded")
	require.NotNil(t, resp, "the answer's request id stays readable")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// Without the PSU present, a raw read of balances or transactions counts
// against the access budget as the named reads do; the fifth is refused
// locally.
func TestDoCountsAccessBudget(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"/balances", "/transactions", "/transactions/tx-1", "/%62alances"} {
		t.Run(suffix, func(t *testing.T) {
			t.Parallel()
			b := newBank(t)
			psu := b.signIn(t, xs2atest.PrivateCustomer1)
			psu.IPAddress = "" // not present
			kari := b.account(t, xs2atest.PrivateCustomer1, 0)
			path := "/v1/accounts/" + kari.ResourceID + suffix
			for range xs2a.AccessLimit {
				_, _ = b.c.Do(context.Background(), psu, http.MethodGet, path, nil, nil)
			}
			mark := b.rec.len()
			_, err := b.c.Do(context.Background(), psu, http.MethodGet, path, nil, nil)
			var ae *xs2a.AccessExceededError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, mark, b.rec.len(), "refused before sending")
			_, _, err = b.c.Accounts.List(context.Background(), psu)
			require.NoError(t, err, "the account list is not counted")
		})
	}
}

// ExampleClient_Do reads GET /v1/accounts through the signed pipeline into a
// type of the caller's own, for an endpoint the SDK does not name yet.
func ExampleClient_Do() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)

	var out struct {
		Accounts []struct {
			Name string `json:"name"`
		} `json:"accounts"`
	}
	resp, err := client.Do(ctx, psu, http.MethodGet, "/v1/accounts", nil, &out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, len(out.Accounts), "accounts")
	// Output:
	// 200 2 accounts
}
