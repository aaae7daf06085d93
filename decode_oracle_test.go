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
