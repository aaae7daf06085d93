package xs2a

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/davecgh/go-spew/spew"
	"github.com/stretchr/testify/require"
)

// The decoding oracle: what every answer type decodes every input into,
// recorded in testdata/golden/decode from the SDK's decoding as it was
// before json/v2 (its own one-pass reader and encoding/json), and compared
// with what it decodes into now. The inputs are every fixture under
// testdata, every fuzz corpus entry and the reader's edge cases
// (readerSeeds); the types are every answer type and model.

// oracleTypes are the answer types, each as a fresh value to decode into.
var oracleTypes = []struct {
	name  string
	fresh func() any
}{
	{"TransactionReport", func() any { return new(TransactionReport) }},
	{"cardTransactionReport", func() any { return new(cardTransactionReport) }},
	{"accounts", func() any { return &listBody[Account]{key: "accounts"} }},
	{"cardAccounts", func() any { return &listBody[CardAccount]{key: "cardAccounts"} }},
	{"account", func() any { return &singleBody[Account]{key: "account"} }},
	{"transactionDetails", func() any { return new(transactionDetailsBody) }},
	{"cardBalances", func() any { return new(cardBalancesBody) }},
	{"Transaction", func() any { return new(Transaction) }},
	{"CardTransaction", func() any { return new(CardTransaction) }},
	{"Account", func() any { return new(Account) }},
	{"CardAccount", func() any { return new(CardAccount) }},
	{"Balance", func() any { return new(Balance) }},
	{"Balances", func() any { return new(Balances) }},
	{"Agreement", func() any { return new(Agreement) }},
	{"SCALinks", func() any { return new(SCALinks) }},
	{"Initiation", func() any { return new(Initiation) }},
	{"PaymentStatus", func() any { return new(PaymentStatus) }},
	{"AuthorisationStatus", func() any { return new(AuthorisationStatus) }},
	{"BasketDetails", func() any { return new(BasketDetails) }},
	{"BasketStatus", func() any { return new(BasketStatus) }},
	{"SandboxAccount", func() any { return new(SandboxAccount) }},
	{"Amount", func() any { return new(Amount) }},
	{"Link", func() any { return new(Link) }},
	{"TransactionCode", func() any { return new(TransactionCode) }},
	{"Date", func() any { return new(Date) }},
}

// oracleInput is one input of the oracle and the golden file it has.
type oracleInput struct {
	golden string
	data   []byte
}

// oracleInputs lists the inputs: fixtures, fuzz corpus entries, seeds.
func oracleInputs(t *testing.T) []oracleInput {
	t.Helper()
	var in []oracleInput
	for _, dir := range []string{"ais", "ais/recorded", "pis", "sandbox"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		require.NoError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			in = append(in, oracleInput{"fixture_" + strings.ReplaceAll(strings.TrimPrefix(f, "testdata/"), "/", "_"), data})
		}
	}
	corpus, err := filepath.Glob(filepath.Join("testdata", "fuzz", "*", "*"))
	require.NoError(t, err)
	for _, f := range corpus {
		for i, v := range corpusValues(t, f) {
			in = append(in, oracleInput{fmt.Sprintf("corpus_%s_%s_%d", filepath.Base(filepath.Dir(f)), filepath.Base(f), i), v})
		}
	}
	for i, s := range readerSeeds {
		in = append(in, oracleInput{fmt.Sprintf("seed_%02d", i), []byte(s.json)})
	}
	return in
}

// corpusValues reads the []byte and string values of a fuzz corpus file.
func corpusValues(t *testing.T, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var out [][]byte
	for _, line := range strings.Split(string(data), "\n") {
		for _, prefix := range []string{"[]byte(", "string("} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(rest, ")"))
				require.NoError(t, err, "%s: %s", file, line)
				out = append(out, []byte(s))
			}
		}
	}
	return out
}

var oracleDump = spew.ConfigState{Indent: " ", DisablePointerAddresses: true, DisableCapacities: true, SortKeys: true}

// oracleResult describes what decoding data into a fresh value of each
// oracle type gave: the SHA-256 of a dump of the value (every field,
// unexported ones too, map keys sorted) and of what encoding/json (v1)
// encodes it into, as callers who store the models do; or that it failed
// (and the Field of a *json.UnmarshalTypeError).
func oracleResult(data []byte) []byte {
	var b bytes.Buffer
	for _, typ := range oracleTypes {
		v := typ.fresh()
		err := decodeAnswer(data, v)
		fmt.Fprintf(&b, "== %s\n", typ.name)
		if err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				fmt.Fprintf(&b, "error: type, field %q\n", te.Field)
			} else {
				b.WriteString("error\n")
			}
			continue
		}
		fmt.Fprintf(&b, "%x\n", sha256.Sum256([]byte(oracleDump.Sdump(v))))
		if out, err := json.Marshal(publicPart(v)); err != nil {
			b.WriteString("v1 JSON: error\n")
		} else {
			fmt.Fprintf(&b, "v1 JSON: %x\n", sha256.Sum256(out))
		}
	}
	return b.Bytes()
}

// publicPart is what a caller gets of an answer type: the value itself, or
// the list, item or balances an internal body type hands out.
func publicPart(v any) any {
	switch v := v.(type) {
	case *listBody[Account]:
		return v.list()
	case *listBody[CardAccount]:
		return v.list()
	case *singleBody[Account]:
		return v.item
	case *transactionDetailsBody:
		return v.tx
	case *cardBalancesBody:
		return v.balances()
	}
	return v
}

// decodeAnswer decodes data as the client decodes a 2xx answer's body.
func decodeAnswer(data []byte, into any) error { return unmarshal(pieces{data}, into) }

// TestDecodeOracleGolden: every answer type decodes every fixture, corpus
// entry and edge case into what the SDK decoded it into before json/v2.
func TestDecodeOracleGolden(t *testing.T) {
	t.Parallel()
	inputs := oracleInputs(t)
	names := map[string]bool{}
	for _, in := range inputs {
		require.False(t, names[in.golden], in.golden)
		names[in.golden] = true
		t.Run(in.golden, func(t *testing.T) {
			checkGolden(t, filepath.Join("decode", in.golden+".txt"), oracleResult(in.data))
		})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "decode", "*.txt"))
	require.NoError(t, err)
	var stale []string
	for _, f := range files {
		if !names[strings.TrimSuffix(filepath.Base(f), ".txt")] {
			stale = append(stale, f)
		}
	}
	sort.Strings(stale)
	require.Empty(t, stale, "golden files without an input")
}

// TestDecodeJSONMatchesOldDecoding: the json/v2 path gives what the
// SDK's decoding gives, on every input of the oracle.
func TestDecodeJSONMatchesOldDecoding(t *testing.T) {
	t.Parallel()
	for _, in := range oracleInputs(t) {
		for _, typ := range oracleTypes {
			old, v2 := typ.fresh(), typ.fresh()
			oldErr, v2Err := decodeAnswer(in.data, old), decodeJSON(in.data, v2)
			require.Equal(t, oldErr == nil, v2Err == nil, "%s into %s: %v / %v", in.golden, typ.name, oldErr, v2Err)
			if oldErr == nil {
				require.Equal(t, oracleDump.Sdump(old), oracleDump.Sdump(v2), "%s into %s", in.golden, typ.name)
			}
		}
	}
}

// readerSeeds are answers in the bank's shape and edge cases (they were
// the seeds of the SDK's own reader, which json/v2 replaced).
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

// FuzzDecodePieces: an answer decodes alike from one buffer and from the
// pieces a body of unknown length is read in (streamed through a
// jsontext.Decoder, never joined), for every answer type, cut anywhere.
//
//	go test -run='^$' -fuzz='^FuzzDecodePieces$' -fuzztime=60s .
func FuzzDecodePieces(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s.json), uint16(7))
	}
	for _, name := range []string{"transactions_page1.json", "card_transactions_fixed.json", "accounts_production.json"} {
		f.Add(fixture(f, name), uint16(1000))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		var p pieces
		for rest, n := data, 1+int(cut); len(rest) > 0; n = n*2 + 1 {
			k := min(n, len(rest))
			p, rest = append(p, rest[:k:k]), rest[k:]
		}
		for _, typ := range oracleTypes {
			whole, streamed := typ.fresh(), typ.fresh()
			wErr, sErr := unmarshal(pieces{data}, whole), unmarshal(p, streamed)
			if (wErr == nil) != (sErr == nil) {
				t.Fatalf("%s: %q in %d pieces: %v; whole: %v", typ.name, data, len(p), sErr, wErr)
			}
			if wErr == nil && oracleDump.Sdump(whole) != oracleDump.Sdump(streamed) {
				t.Fatalf("%s: %q in %d pieces decodes otherwise", typ.name, data, len(p))
			}
		}
	})
}
