package xs2a

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readerCase is one model the one-pass reader decodes, with the
// encoding/json decoding it must equal.
type readerCase struct {
	name string
	// fast decodes data with the reader alone: ok false when the reader
	// leaves it to encoding/json. reference decodes it with encoding/json.
	fast, reference func(data []byte) (v any, ok bool)
}

// entryCase is the readerCase of a model with an Extra: the reader against
// its unmarshalReflect.
func entryCase[T any](name string, read func(*reader, *T) bool, reflectDecode func(*T, []byte) error) readerCase {
	return readerCase{name: name,
		fast: func(data []byte) (any, bool) {
			var v T
			r := reader{data: data}
			ok := read(&r, &v) && r.end()
			return v, ok
		},
		reference: func(data []byte) (any, bool) {
			var v T
			return v, reflectDecode(&v, data) == nil
		}}
}

// bodyCase is the readerCase of an answer body: its decodeFast against
// json.Unmarshal (whose entries decode through their UnmarshalJSON, checked
// against encoding/json by the entry cases).
func bodyCase[T any, P interface {
	*T
	fastDecoder
}](name string, fresh func() T, list func(*T) any) readerCase {
	return readerCase{name: name,
		fast: func(data []byte) (any, bool) {
			v := fresh()
			ok := decodeFast(P(&v), data)
			return list(&v), ok
		},
		reference: func(data []byte) (any, bool) {
			v := fresh()
			ok := json.Unmarshal(data, P(&v)) == nil
			return list(&v), ok
		}}
}

func self[T any](v *T) any { return *v }

var readerCases = []readerCase{
	entryCase("Transaction", (*reader).transaction, (*Transaction).unmarshalReflect),
	entryCase("CardTransaction", (*reader).cardTransaction, (*CardTransaction).unmarshalReflect),
	entryCase("Account", (*reader).account, (*Account).unmarshalReflect),
	entryCase("Balance", (*reader).balance, (*Balance).unmarshalReflect),
	bodyCase[TransactionReport]("TransactionReport", func() TransactionReport { return TransactionReport{} }, self[TransactionReport]),
	bodyCase[cardTransactionReport]("cardTransactionReport", func() cardTransactionReport { return cardTransactionReport{} }, self[cardTransactionReport]),
	bodyCase[listBody[Account]]("accounts list", func() listBody[Account] { return listBody[Account]{key: "accounts"} },
		func(l *listBody[Account]) any { return l.list() }),
}

// checkReader decodes data with every case: where the reader takes it, the
// result must be encoding/json's. It reports how many cases the reader took.
func checkReader(t *testing.T, data []byte) int {
	t.Helper()
	took := 0
	for _, c := range readerCases {
		got, ok := c.fast(data)
		if !ok {
			continue
		}
		took++
		want, wantOK := c.reference(data)
		if !wantOK {
			t.Fatalf("%s: the reader took %q, which encoding/json refuses", c.name, data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %q\nreader:        %#v\nencoding/json: %#v", c.name, data, got, want)
		}
	}
	return took
}

// readerSeeds are answers the reader must take, and edge cases it must
// either decode as encoding/json does or leave to it.
var readerSeeds = []struct {
	name string
	json string
	// takes lists the cases that must decode it in one pass.
	takes []string
}{
	{"transaction", `{"transactionId":"t1","bookingDate":"2026-03-01","valueDate":"2026-03-02T10:00:00+01:00",` +
		`"transactionAmount":{"amount":"-12.50","currency":"NOK","x":[1]},"creditorName":"Rema \u00e5 1000",` +
		`"creditorAccount":{"bban":"98765432106"},"remittanceInformationUnstructuredArray":["a","b\"c"],` +
		`"remittanceInformationStructured":"KID 1234","proprietaryBankTransactionCode":{"value":"V","code":"1"},` +
		`"additionalInformationProprietary1":"p1","additionalInformationProprietary2":{"a" : 1},` +
		`"currencyExchange":[{"exchangeRate":11.52,"sourceCurrency":"EUR"}],"entryDetails":[ {"x":1} ],` +
		`"merchantCity":"Bergen","entryKind":{"code":"CARD"},"_links":{"transactionDetails":"/tx/1"}}`,
		[]string{"Transaction"}},
	{"card transaction", `{"cardTransactionId":"c-1","transactionDate":"2026-02-27",` +
		`"acceptorTransactionDateTime":"2026-02-27T18:30:00+0100","transactionAmount":{"amount":"-115.20","currency":"NOK"},` +
		`"originalAmount":{"amount":-10.00,"currency":"EUR"},"markupFee":null,"invoiced":false,` +
		`"cardAcceptorAddress":{"townName":"Paris"},"proprietaryBankTransactionCode":"KORT","extraThing":true}`,
		[]string{"CardTransaction"}},
	{"account", `{"resourceId":"enc!!A=","bban":"12345678903","currency":"NOK","creditLine":5000.0,` +
		`"balances":[{"balanceAmount":{"currency":"NOK","amount":"1.5"},"balanceType":"expected",` +
		`"lastChangeDateTime":"2024-05-02T10:00:00Z","balanceLabel":{"no":"x"}}],` +
		`"_links":{"balances":{"href":"/b","verbs":["GET"]},"transactions":"/t","self":null}}`,
		[]string{"Account"}},
	{"transaction page", `{"account":{"bban":"1"},"transactions":{"booked":[{"transactionId":"a"},null,{}],` +
		`"pending":[],"_links":{"next":{"href":"/n"}}},"balances":null,"other":1}`,
		[]string{"TransactionReport"}},
	{"card page", `{"cardAccount":{"maskedPan":"5***"},"debitAccounting":true,"cardTransactions":` +
		`{"booked":[{"cardTransactionId":"c"}],"_links":{"cardAccount":{"href":"/c"}}}}`,
		[]string{"cardTransactionReport"}},
	{"bare account list", ` [{"resourceId":"a"},{"resourceId":"b","balances":[]}] `, []string{"accounts list"}},
	{"empty lists", `{"remittanceInformationUnstructuredArray":[],"_links":{"balances":{"href":"/b","verbs":[]}},` +
		`"balances":[],"transactions":{"booked":[]}}`, []string{"Transaction", "Account", "TransactionReport"}},
	{"accounts list", `{"x":[1,{"y":"]"}],"accounts":null,"accounts":[{"resourceId":"a"}]}`, []string{"accounts list"}},
	// left to encoding/json or decoded alike
	{"member in another letter case", `{"TRANSACTIONID":"t","Bban":"1","accounts":[{"ResourceId":"x"}]}`, nil},
	{"escaped key", `{"transaction\u0049d":"t","resourceId":"\u0041"}`, nil},
	{"repeated members", `{"transactionId":"a","transactionId":"b","transactionAmount":{"amount":"1"},` +
		`"transactionAmount":{"currency":"NOK"},"creditorAccount":{"bban":"1"},"creditorAccount":{"iban":"NO1"},` +
		`"additionalInformationProprietary1":"x","additionalInformationProprietary1":null,"merchant":1,"merchant":2}`, nil},
	{"type mismatch", `{"transactionId":5,"resourceId":["x"],"balanceAmount":"1"}`, nil},
	{"bad amount", `{"transactionAmount":{"amount":"1e2","currency":"NOK"}}`, nil},
	{"bad date", `{"bookingDate":"2026-02-30","transactionDate":"x"}`, nil},
	{"invalid JSON", `{"transactionId":"t",}`, nil},
	{"trailing data", `{"transactionId":"t"} x`, nil},
	{"control character", "{\"transactionId\":\"a\tb\"}", nil},
	{"invalid UTF-8", "{\"transactionId\":\"a\xffb\",\"resourceId\":\"\xc3\"}", nil},
	{"numbers", `{"batchNumberOfTransactions":-0.5e+3,"x":[0,-1,1.0,1E5,01]}`, nil},
	{"deep", `{"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, nil},
}

// TestReaderMatchesEncodingJSON: every model the one-pass reader decodes
// gives what encoding/json gives, on answers in the bank's shape and on edge
// cases, and the answers in the bank's shape are taken by the reader.
func TestReaderMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range readerSeeds {
		t.Run(s.name, func(t *testing.T) {
			checkReader(t, []byte(s.json))
			for _, name := range s.takes {
				for _, c := range readerCases {
					if c.name == name {
						_, ok := c.fast([]byte(s.json))
						assert.True(t, ok, "%s must decode it in one pass", name)
					}
				}
			}
		})
	}
}

// TestReaderTakesFixtures: the recorded and hand-written answers are
// decoded in one pass, as encoding/json decodes them.
func TestReaderTakesFixtures(t *testing.T) {
	t.Parallel()
	for _, f := range []struct{ file, c string }{
		{"transactions_page1.json", "TransactionReport"}, {"transactions_page2.json", "TransactionReport"},
		{"transactions_page3.json", "TransactionReport"}, {"card_transactions_fixed.json", "cardTransactionReport"},
		{"card_transactions_legacy.json", "cardTransactionReport"}, {"accounts.json", "accounts list"},
		{"accounts_production.json", "accounts list"},
	} {
		t.Run(f.file, func(t *testing.T) {
			data := fixture(t, f.file)
			require.Positive(t, checkReader(t, data))
			for _, c := range readerCases {
				if c.name == f.c {
					_, ok := c.fast(data)
					assert.True(t, ok, "%s must decode %s in one pass", f.c, f.file)
				}
			}
		})
	}
}

// FuzzReader is the differential fuzz target of the one-pass reader: on any
// input it takes, each model decodes as encoding/json decodes it.
//
//	go test -run='^$' -fuzz='^FuzzReader$' -fuzztime=60s .
func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s.json))
	}
	for _, name := range []string{"transactions_page1.json", "card_transactions_fixed.json", "accounts_production.json"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReader(t, data)
	})
}
