package xs2a

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWireLayouts: each wire type has the fields of the model it decodes
// (same names, tags, offsets and types), but for a date-time, which it
// holds as a dateTimeField where the model has a *time.Time.
func TestWireLayouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ wire, model reflect.Type }{
		{reflect.TypeFor[cardTransactionWire](), reflect.TypeFor[CardTransaction]()},
		{reflect.TypeFor[cardTransactionReportWire](), reflect.TypeFor[cardTransactionReport]()},
		{reflect.TypeFor[balanceWire](), reflect.TypeFor[Balance]()},
		{reflect.TypeFor[transactionWire](), reflect.TypeFor[Transaction]()},
		{reflect.TypeFor[accountReportWire](), reflect.TypeFor[AccountReport]()},
	} {
		assertSameLayout(t, c.wire, c.model, c.model.Name())
	}
}

func assertSameLayout(t *testing.T, wire, model reflect.Type, at string) {
	t.Helper()
	if wire == reflect.TypeFor[dateTimeField]() && model == reflect.TypeFor[*time.Time]() ||
		wire == reflect.TypeFor[structuredField]() && model == reflect.TypeFor[*StructuredRemittance]() {
		return
	}
	require.Equal(t, model.Kind(), wire.Kind(), at)
	require.Equal(t, model.Size(), wire.Size(), at)
	switch model.Kind() {
	case reflect.Slice:
		assertSameLayout(t, wire.Elem(), model.Elem(), at+"[]")
	case reflect.Struct:
		require.Equal(t, model.NumField(), wire.NumField(), at)
		for i := range model.NumField() {
			m, w := model.Field(i), wire.Field(i)
			require.Equal(t, m.Name, w.Name, at)
			require.Equal(t, m.Tag, w.Tag, at+"."+m.Name)
			require.Equal(t, m.Offset, w.Offset, at+"."+m.Name)
			assertSameLayout(t, w.Type, m.Type, at+"."+m.Name)
		}
	default:
		require.Equal(t, model, wire, at)
	}
}

// TestCardListDecodesAsEntries: a page's card transactions, decoded as a
// list of wires, give what decoding each with CardTransaction's own method
// gives: the same values, and the first error of the first entry that
// fails, a bad date-time counting when its entry ends (the last member
// wins; a value of the wrong type after it in its entry is the error).
func TestCardListDecodesAsEntries(t *testing.T) {
	t.Parallel()
	const bad, good = `"acceptorTransactionDateTime":"yesterday"`, `"acceptorTransactionDateTime":"2026-02-27T18:30:00+0100"`
	const badDate = "xs2a: decoding acceptorTransactionDateTime: not an ISO 8601 date-time with an offset"
	const badAmount = "json: cannot unmarshal string that is not a plain decimal into Go struct field .cardTransactions.booked.transactionAmount.amount of type string"
	for _, c := range []struct{ name, booked, pending, err string }{
		{"good", `[{` + good + `},{"acceptorTransactionDateTime":""},null,{"acceptorTransactionDateTime":null}]`, `[{` + good + `}]`, ""},
		{"bad date first", `[{` + bad + `},{"transactionAmount":{"amount":"x"}}]`, ``, badDate},
		{"type error first", `[{"transactionAmount":{"amount":"x"}},{` + bad + `}]`, ``, badAmount},
		{"type error after the date in its entry", `[{` + bad + `,"transactionAmount":{"amount":"x"}}]`, ``, badAmount},
		{"the last date-time wins", `[{` + bad + `,` + good + `}]`, ``, ""},
		{"a bad last date-time", `[{` + good + `,` + bad + `}]`, ``, badDate},
		{"a number", `[{"acceptorTransactionDateTime":5}]`, ``,
			"json: cannot unmarshal number into Go struct field .cardTransactions.booked.acceptorTransactionDateTime of type string"},
		{"bad date, then pending", `[{` + bad + `}]`, `[{"transactionAmount":5}]`, badDate},
		{"bad date in the last entry", `[{},{` + bad + `}]`, `[5]`, badDate},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"cardTransactions":{"booked":` + c.booked
			if c.pending != "" {
				body += `,"pending":` + c.pending
			}
			body += `}}`
			var page cardTransactionReport
			err := decodeJSON([]byte(body), &page)
			if c.err != "" {
				assert.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			var entries struct {
				CardTransactions struct {
					Booked  []CardTransaction `json:"booked,omitempty"`
					Pending []CardTransaction `json:"pending,omitempty"`
				} `json:"cardTransactions"`
			}
			require.NoError(t, decodeJSON([]byte(body), &entries))
			assert.Equal(t, entries.CardTransactions.Booked, page.CardTransactions.Booked)
			assert.Equal(t, entries.CardTransactions.Pending, page.CardTransactions.Pending)
		})
	}
}

// TestCardListRepeatedMember: a list repeated in a page is checked each
// time, as its entries would be: a bad date-time in the first is the error
// even when the second list mends it.
func TestCardListRepeatedMember(t *testing.T) {
	t.Parallel()
	body := `{"cardTransactions":{"booked":[{"acceptorTransactionDateTime":"x"}],` +
		`"booked":[{"acceptorTransactionDateTime":"2026-02-27T18:30:00Z"}]}}`
	var page cardTransactionReport
	assert.EqualError(t, decodeJSON([]byte(body), &page), "xs2a: decoding acceptorTransactionDateTime: not an ISO 8601 date-time with an offset")
}

// TestListOfAnotherKey: a list answer under a key the remembered lengths do
// not name decodes (it once found no counter and panicked).
func TestListOfAnotherKey(t *testing.T) {
	for _, key := range []string{"agreements", "items"} {
		b := listBody[Account]{key: key}
		require.NoError(t, unmarshal(pieces{[]byte(`{"` + key + `":[{"resourceId":"a"},{"resourceId":"b"}]}`)}, &b))
		require.Len(t, b.list(), 2)
	}
}

// TestListKeyInAnyLetterCase: the list's key matches as the models' member
// names do, in any letter case (Unicode simple folding), and an error inside
// it names the field from the item whatever the key's spelling.
func TestListKeyInAnyLetterCase(t *testing.T) {
	for _, key := range []string{"accounts", "ACCOUNTS", "Accounts", "aCCOUNTſ"} {
		b := listBody[Account]{key: "accounts"}
		require.NoError(t, decodeJSON([]byte(`{"`+key+`":[{"resourceId":"a"},{"resourceId":"b"}]}`), &b), key)
		require.Len(t, b.list(), 2, key)
		b = listBody[Account]{key: "accounts"}
		err := decodeJSON([]byte(`{"`+key+`":[{"resourceId":5}]}`), &b)
		var te *json.UnmarshalTypeError
		require.ErrorAs(t, err, &te, key)
		assert.Equal(t, "resourceId", te.Field, key)
	}
}

// TestTransactionListDecodesAsEntries: a page of transactions decodes its
// lists as the entries' own UnmarshalJSONFrom gives them, values and first
// error alike, lists repeated in the page included (the second is decoded
// by the entries' method into the list the first left).
func TestTransactionListDecodesAsEntries(t *testing.T) {
	t.Parallel()
	const full = `{"transactionId":"a","remittanceInformationStructured":{"reference":"1234","referenceType":"KID"},` +
		`"remittanceInformationUnstructuredArray":["x","y"],"additionalInformationProprietaryA":"p","odd":1,` +
		`"transactionAmount":{"currency":"NOK","amount":"-1.50"}}`
	for _, c := range []struct{ name, booked string }{
		{"good", `{"booked":[` + full + `,null,{"remittanceInformationStructured":"5555"}]}`},
		{"repeated list", `{"booked":[` + full + `,` + full + `],"booked":[{"transactionId":"b"}]}`},
		{"repeated list, longer", `{"booked":[{"transactionId":"b"}],"booked":[` + full + `,` + full + `]}`},
		{"three lists", `{"booked":[` + full + `],"pending":[{"transactionId":"p"}],"information":[{"transactionId":"i"}]}`},
		{"bad structured", `{"booked":[{"remittanceInformationStructured":5},` + full + `]}`},
		{"bad amount after a bad structured", `{"booked":[{"remittanceInformationStructured":5},{"transactionAmount":{"amount":"x"}}]}`},
		{"bad amount first", `{"booked":[{"transactionAmount":{"amount":"x"}},{"remittanceInformationStructured":5}]}`},
		{"a number entry", `{"booked":[` + full + `,5]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(`{"transactions":` + c.booked + `}`)
			var page TransactionReport
			err := decodeJSON(body, &page)
			var entries struct {
				Transactions struct {
					Booked      []Transaction `json:"booked,omitempty"`
					Pending     []Transaction `json:"pending,omitempty"`
					Information []Transaction `json:"information,omitempty"`
				} `json:"transactions"`
			}
			want := decodeJSON(body, &entries)
			if want != nil {
				require.Error(t, err)
				assert.Equal(t, want.Error(), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, entries.Transactions.Booked, page.Transactions.Booked)
			assert.Equal(t, entries.Transactions.Pending, page.Transactions.Pending)
			assert.Equal(t, entries.Transactions.Information, page.Transactions.Information)
		})
	}
}
