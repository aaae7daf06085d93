package xs2aotel_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestNoIdentifiersInTelemetry: after a flow that carries every kind of
// identifier (consent, corporate context, accounts, balances with the PSU
// present and not, transactions, a payment and its status, a refusal, a
// Client.Do of a path full of ids), no span name, attribute, event, status
// description or metric data point's attribute holds a PSU id, corporate
// id, session id, IP address, account resource id, BBAN, payment id,
// creditor name, amount or remittance text, in any letter case, and no
// value is a URL.
func TestNoIdentifiersInTelemetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, nil, nil)
	psu := f.signIn(t, xs2atest.PrivateCustomer1)
	acc := f.account(t, xs2atest.PrivateCustomer1, 0)
	other := f.account(t, xs2atest.PrivateCustomer1, 1)
	stranger := f.account(t, xs2atest.PrivateCustomer2, 0)
	payee := f.account(t, xs2atest.CorporateCustomer1, 0)

	nordlys, ok := f.bank.Customer(xs2atest.CorporateCustomer1)
	require.True(t, ok)
	require.NotEmpty(t, nordlys.Agreements)
	corp := f.signIn(t, xs2atest.CorporateCustomer1, xs2atest.Corporate(nordlys.Agreements[0].ID))
	require.NotEmpty(t, corp.CorporateID)
	_, _, err := f.c.Accounts.List(ctx, corp)
	require.NoError(t, err)

	_, _, err = f.c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	_, _, err = f.c.Accounts.Balances(ctx, psu, acc.ResourceID)
	require.NoError(t, err)
	away := psu
	away.IPAddress = ""
	_, _, err = f.c.Accounts.Balances(ctx, away, other.ResourceID)
	require.NoError(t, err)
	_, _, err = f.c.Accounts.TransactionsPage(ctx, psu, acc.ResourceID, nil)
	require.NoError(t, err)
	_, _, err = f.c.Accounts.Balances(ctx, psu, stranger.ResourceID)
	require.Error(t, err, "not the PSU's account: the bank refuses")

	payer := f.register(t, xs2atest.PrivateCustomer1)
	amount, err := xs2a.ParseAmount("NOK", "12.50")
	require.NoError(t, err)
	pay := &xs2a.Payment{
		InstructedAmount:                  amount,
		DebtorAccount:                     &xs2a.AccountReference{BBAN: acc.BBAN, Currency: "NOK"},
		CreditorAccount:                   xs2a.AccountReference{BBAN: payee.BBAN},
		CreditorName:                      "Nordlys Bygg AS",
		RemittanceInformationUnstructured: "Secret remittance text",
	}
	ini, _, err := f.c.Payments.Initiate(ctx, payer, xs2a.NorwegianDomesticCreditTransfers, pay, nil)
	require.NoError(t, err)
	_, _, err = f.c.Payments.Status(ctx, payer, ini.Links.Status)
	require.NoError(t, err)
	_, _ = f.c.Do(ctx, psu, http.MethodGet, "/v1/accounts/"+acc.ResourceID+"/transactions/enc!!tx-secret-1", nil, nil)

	values := telemetryText(t, f)
	require.Greater(t, len(values), 100, "the flow was recorded")
	ids := []string{psu.ID, psu.SessionID, corp.ID, corp.CorporateID, corp.SessionID, payer.ID, payer.SessionID, psuIP,
		acc.ResourceID, acc.BBAN, other.ResourceID, other.BBAN, stranger.ResourceID, payee.ResourceID, payee.BBAN,
		ini.PaymentID, pay.CreditorName, "12.50", "secret remittance", "tx-secret"}
	for _, v := range values {
		for _, id := range ids {
			require.NotEmpty(t, id)
			assert.NotContains(t, strings.ToLower(v), strings.ToLower(id))
		}
		assert.NotContains(t, v, "://", "no URL")
	}
	assert.Contains(t, values, "/v1/accounts/{id}/transactions/{id}")
	assert.Contains(t, values, "/v1/payments/norwegian-domestic-credit-transfers/{id}/status")
}

// telemetryText is every name, attribute key and value, event and status
// description of the spans ended, and every metric's name and data point
// attributes, as text.
func telemetryText(t *testing.T, f *fixture) []string {
	t.Helper()
	var out []string
	add := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			out = append(out, string(kv.Key), kv.Value.String())
		}
	}
	for _, s := range f.ended() {
		out = append(out, s.Name(), s.Status().Description)
		add(s.Attributes())
		for _, e := range s.Events() {
			out = append(out, e.Name)
			add(e.Attributes)
		}
		for _, l := range s.Links() {
			add(l.Attributes)
		}
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, f.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out = append(out, m.Name, m.Description, m.Unit)
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					add(dp.Attributes.ToSlice())
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					add(dp.Attributes.ToSlice())
				}
			default:
				require.Failf(t, "unexpected metric data", "%s: %s", m.Name, fmt.Sprintf("%T", d))
			}
		}
	}
	return out
}
