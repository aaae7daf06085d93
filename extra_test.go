package xs2a

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExtraProductionAccounts reads an account list shaped like a
// production answer (accountName, creditLine as a JSON number,
// customerNumber, ids "enc!!<base64>=") through the client from a server
// under /api: the members the model does not name are in Extra with the
// bytes the bank sent, also after the client's read buffer served another
// answer.
func TestExtraProductionAccounts(t *testing.T) {
	t.Parallel()
	_, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET /v1/accounts":   serve(t, 200, "accounts_production.json"),
		"GET /v1/agreements": serve(t, 200, "agreements.json"),
	})
	ctx := context.Background()
	accts, _, err := c.Accounts.List(ctx, aisPresent)
	require.NoError(t, err)
	require.Len(t, accts, 2)
	_, _, err = c.Users.Agreements(ctx, aisPresent) // reuses the client's read buffer
	require.NoError(t, err)

	a := accts[0]
	assert.Equal(t, "enc!!QUNDT1VOVC0xMjM0NTY3ODkwMy1CUlVL=", a.ResourceID)
	assert.Equal(t, Extra{
		"accountName":    json.RawMessage(`"Brukskonto"`),
		"creditLine":     json.RawMessage(`5000.0`),
		"customerNumber": json.RawMessage(`"70012345"`),
	}, a.Extra)
	var credit float64
	ok, err := a.Extra.Decode("creditLine", &credit)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 5000.0, credit)
	var name string
	ok, err = accts[1].Extra.Decode("accountName", &name)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, `Sparekonto "Bolig"`, name)
	require.Len(t, a.Balances, 1)
	assert.Equal(t, Extra{"balanceLabel": json.RawMessage(`{"no":"Disponibelt","en":"Available"}`)}, a.Balances[0].Extra)
}

// TestExtraRoundTrip: a model marshalled back keeps the members it does not
// name, each value byte for byte as the bank sent it (compact, as the
// recorded answers are: encoding/json drops insignificant white space from
// any value it marshals), next to the named fields.
func TestExtraRoundTrip(t *testing.T) {
	t.Parallel()
	var doc struct {
		Accounts []map[string]json.RawMessage `json:"accounts"`
	}
	require.NoError(t, json.Unmarshal(fixture(t, "accounts_production.json"), &doc))
	var list struct {
		Accounts []Account `json:"accounts"`
	}
	require.NoError(t, json.Unmarshal(fixture(t, "accounts_production.json"), &list))
	for i, a := range list.Accounts {
		out, err := json.Marshal(a)
		require.NoError(t, err)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(out, &got))
		for _, k := range []string{"accountName", "creditLine", "customerNumber"} {
			assert.Equal(t, string(doc.Accounts[i][k]), string(got[k]), "account %d, %s", i, k)
		}
		assert.Equal(t, string(doc.Accounts[i]["resourceId"]), string(got["resourceId"]))
		var back Account
		require.NoError(t, json.Unmarshal(out, &back))
		assert.Equal(t, a, back, "decoding the encoding gives the same account")
	}
}

// TestExtraNamedFieldWins: an Extra member whose name a field takes (in any
// letter case) is left out on marshalling; the others follow the named
// fields, sorted; a value that is not JSON is an error.
func TestExtraNamedFieldWins(t *testing.T) {
	t.Parallel()
	a := Account{ResourceID: "enc!!QQ==", Extra: Extra{
		"resourceId":  json.RawMessage(`"from extra"`),
		"RESOURCEID":  json.RawMessage(`"from extra too"`),
		"name":        json.RawMessage(`"not the named field"`),
		"zeta":        json.RawMessage(`[1, 2]`),
		"accountName": json.RawMessage(`"Brukskonto"`),
	}}
	out, err := json.Marshal(a)
	require.NoError(t, err)
	assert.Equal(t, `{"resourceId":"enc!!QQ==","accountName":"Brukskonto","zeta":[1,2]}`, string(out))

	tx := Transaction{TransactionID: "t1", AdditionalInformationProprietary: map[string]string{"additionalInformationProprietary1": "a"},
		Extra: Extra{"additionalInformationProprietary2": json.RawMessage(`"x"`), "merchantCity": json.RawMessage(`"Bergen"`)}}
	out, err = json.Marshal(tx)
	require.NoError(t, err)
	assert.Equal(t, `{"transactionId":"t1","transactionAmount":{"currency":"","amount":""},"additionalInformationProprietary1":"a","merchantCity":"Bergen"}`, string(out))

	_, err = json.Marshal(Account{Extra: Extra{"bad": json.RawMessage(`{`)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"bad"`)
}

// TestExtraOnEveryModel decodes each model that carries Extra from an
// object with named members and unknown ones (nested, escaped, with
// strings holding braces and quotes), and checks Extra and the way back.
func TestExtraOnEveryModel(t *testing.T) {
	t.Parallel()
	unknown := `"zNested":{"a":[1,"}\"]"],"b":{}},"zNum":-1.5e3,"z\u00e6":null,"zBool":true`
	want := Extra{
		"zNested": json.RawMessage(`{"a":[1,"}\"]"],"b":{}}`),
		"zNum":    json.RawMessage(`-1.5e3`),
		"zæ":      json.RawMessage(`null`),
		"zBool":   json.RawMessage(`true`),
	}
	tests := []struct {
		name  string
		model any // pointer to a zero model
		known string
	}{
		{"Account", new(Account), `"resourceId":"enc!!QQ==","_links":{"balances":{"href":"/v1/x"}}`},
		{"CardAccount", new(CardAccount), `"maskedPan":"1234 **** 5678","creditLimit":{"currency":"NOK","amount":"1"}`},
		{"Balances", new(Balances), `"account":{"bban":"12345678903"},"balances":[]`},
		{"Balance", new(Balance), `"balanceType":"any_balance_type","lastChangeDateTime":"2026-03-02T10:00:00+0100"`},
		{"Transaction", new(Transaction), `"transactionId":"t","remittanceInformationStructured":"ref","additionalInformationProprietary1":"p"`},
		{"CardTransaction", new(CardTransaction), `"cardTransactionId":"c","acceptorTransactionDateTime":"2026-03-02T10:00:00+01:00"`},
		{"Agreement", new(Agreement), `"id":"a","Name":"case-insensitive name"`},
		{"SCALinks", new(SCALinks), `"consentId":"c","_links":{"scaRedirect":{"href":"/sca"}}`},
		{"Initiation", new(Initiation), `"paymentId":"p","transactionStatus":"RCVD","_links":{}`},
		{"PaymentStatus", new(PaymentStatus), `"transactionStatus":"ACCP","fundsAvailable":false`},
		{"AuthorisationStatus", new(AuthorisationStatus), `"scaStatus":"finalised","_links":{"self":{"href":"/v1/x"}}`},
		{"BasketDetails", new(BasketDetails), `"payments":["p"],"transactionStatus":"RCVD"`},
		{"BasketStatus", new(BasketStatus), `"transactionStatus":"ACTC"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := "{ " + tt.known + " , " + unknown + " }"
			require.NoError(t, json.Unmarshal([]byte(doc), tt.model))
			extra := reflect.ValueOf(tt.model).Elem().FieldByName("Extra").Interface().(Extra)
			assert.Equal(t, want, extra)

			out, err := json.Marshal(tt.model)
			require.NoError(t, err)
			back := reflect.New(reflect.TypeOf(tt.model).Elem()).Interface()
			require.NoError(t, json.Unmarshal(out, back))
			assert.Equal(t, tt.model, back, "encoded: %s", out)

			plain := reflect.New(reflect.TypeOf(tt.model).Elem()).Interface()
			require.NoError(t, json.Unmarshal([]byte("{"+tt.known+"}"), plain))
			assert.Nil(t, reflect.ValueOf(plain).Elem().FieldByName("Extra").Interface(), "no unknown members, no map")
		})
	}
}

// TestExtraDecode covers Extra.Decode: present, absent and of the wrong type.
func TestExtraDecode(t *testing.T) {
	t.Parallel()
	e := Extra{"creditLine": json.RawMessage(`5000.0`)}
	var n float64
	ok, err := e.Decode("creditLine", &n)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 5000.0, n)

	s := "unchanged"
	ok, err = e.Decode("accountName", &s)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "unchanged", s)

	ok, err = e.Decode("creditLine", &s)
	assert.True(t, ok)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), `xs2a: decoding the member "creditLine": `), err.Error())
	var none Extra
	ok, err = none.Decode("x", &s)
	assert.False(t, ok)
	assert.NoError(t, err)
}
