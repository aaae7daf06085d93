package xs2a

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestScanExtraAllocatesNothingWithoutUnknownMembers: the common path, an
// object whose members the model all names, allocates nothing.
func TestScanExtraAllocatesNothingWithoutUnknownMembers(t *testing.T) {
	data := []byte(`{"transactionId":"t1","bookingDate":"2026-03-02","transactionAmount":{"amount":"-1.00","currency":"NOK"},` +
		`"remittanceInformationUnstructuredArray":["a","b\"}"],"additionalInformationProprietary1":"x"}`)
	var got Extra
	allocs := testing.AllocsPerRun(50, func() { got = scanExtra(data, transactionNames) })
	assert.Zero(t, allocs)
	assert.Nil(t, got)
}

// referenceExtra is what scanExtra must find, by encoding/json: the
// object's members (the last of duplicates), less those names takes.
func referenceExtra(t *testing.T, data []byte, names *fieldNames) Extra {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("the reference cannot decode %q: %v", data, err)
	}
	var want Extra
	for k, v := range all {
		if names.known(k) {
			continue
		}
		if want == nil {
			want = Extra{}
		}
		want[k] = v
	}
	return want
}

// FuzzScanExtra checks the key scanner against referenceExtra on every
// JSON object encoding/json accepts, and that it never panics on others.
func FuzzScanExtra(f *testing.F) {
	f.Add(`{"transactionId":"t","zz":1}`)
	f.Add(`{"a":{"b":["}",{"c":"\"]"}]},"a":2, "\u0074ransactionId" : "x"}`)
	f.Add(`{"merchantCity":"Bergen","entryKind":{"code":"CARD","sub":1},"TRANSACTIONID":"t"}`)
	f.Add(`{"\ud800":1,"k\u212a":[true,false,null],"x\\":"\\\\"}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, in string) {
		data := []byte(in)
		got := scanExtra(data, transactionNames) // never panics, whatever the input
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			return
		}
		want := referenceExtra(t, data, transactionNames)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanExtra(%q) = %q, reference %q", in, got, want)
		}
	})
}

// BenchmarkScanExtra is the key scan alone over the 500 entries of
// BenchmarkDecodeTransactions' page (all members known): what Extra adds
// to decoding a page on the common path.
//
//	go test -run='^$' -bench=ScanExtra -count=6 .
func BenchmarkScanExtra(b *testing.B) {
	entries := make([][]byte, 500) // the entries of appendTransactionsPage, in its shape
	size := 0
	for k := range entries {
		entries[k] = fmt.Appendf(nil, `{"transactionId":"2026-03-booked-%08d","bookingDate":"2026-03-%02d","valueDate":"2026-03-%02d",`+
			`"transactionAmount":{"amount":"-%d.%02d","currency":"NOK"},"creditorName":"Rema 1000 Torget",`+
			`"creditorAccount":{"bban":"98765432106"},"remittanceInformationUnstructured":"Varekjøp %d",`+
			`"remittanceInformationUnstructuredArray":["Varekjøp %d","Rema 1000 Torget"],`+
			`"proprietaryBankTransactionCode":"VARER","additionalInformation":"Kortkjøp"}`,
			k, 1+k%28, 1+k%28, k%9000+10, k%100, k, k)
		size += len(entries[k])
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, raw := range entries {
			if scanExtra(raw, transactionNames) != nil {
				b.Fatal("unknown members")
			}
		}
	}
}

// TestDecodeNested: the pooled decoder reads one value as json.Unmarshal
// does, refuses what follows it, and a failure does not spoil the next call.
func TestDecodeNested(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" for an error
	}{
		{`{"id":"a"}`, "a"},
		{"{\"id\":\"b\"}  \n", "b"},
		{`{"id":"c"} {"id":"d"}`, ""},
		{`{"id":"e"`, ""},
		{`{"id":7}`, ""},
		{`{"id":"f"}`, "f"},
	} {
		var v struct {
			ID string `json:"id"`
		}
		err := decodeNested([]byte(tc.in), &v)
		if tc.want == "" {
			if err == nil {
				t.Errorf("decodeNested(%q): no error", tc.in)
			}
			continue
		}
		if err != nil || v.ID != tc.want {
			t.Errorf("decodeNested(%q) = %q, %v; want %q", tc.in, v.ID, err, tc.want)
		}
	}
}
