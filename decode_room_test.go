package xs2a

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnstructuredArrayDecodesAsAList: remittanceInformationUnstructuredArray,
// decoded in a room the transaction wires reuse, comes out as json/v2
// decodes a []string: nil when absent or null, empty for [], null elements
// "" (not what the entry before left in the room), a repeated member
// merged into the first, a long list whole.
func TestUnstructuredArrayDecodesAsAList(t *testing.T) {
	page := `{"transactions":{"booked":[
		{"remittanceInformationUnstructuredArray":["a","b","c","d","e","f","g","h"]},
		{"remittanceInformationUnstructuredArray":[null,null,null,null,null,null,null,null]},
		{},
		{"remittanceInformationUnstructuredArray":[]},
		{"remittanceInformationUnstructuredArray":null},
		{"remittanceInformationUnstructuredArray":["a","b"],"REMITTANCEINFORMATIONUNSTRUCTUREDARRAY":[null]},
		{"remittanceInformationUnstructuredArray":["1","2","3","4","5","6","7","8","9"]},
		{"remittanceInformationUnstructuredArray":[null,"x"]}]}}`
	want := [][]string{
		{"a", "b", "c", "d", "e", "f", "g", "h"},
		{"", "", "", "", "", "", "", ""},
		nil,
		{},
		nil,
		{"a"},
		{"1", "2", "3", "4", "5", "6", "7", "8", "9"},
		{"", "x"},
	}
	for _, decode := range []struct {
		name string
		fn   func([]byte, *TransactionReport) error
	}{
		{"client", func(b []byte, r *TransactionReport) error { return unmarshal(pieces{b}, r) }},
		{"encoding/json", func(b []byte, r *TransactionReport) error { return json.Unmarshal(b, r) }},
	} {
		t.Run(decode.name, func(t *testing.T) {
			for range 3 { // the wires are reused from one page to the next
				var rep TransactionReport
				require.NoError(t, decode.fn([]byte(page), &rep))
				require.Len(t, rep.Transactions.Booked, len(want))
				for i, tx := range rep.Transactions.Booked {
					assert.Equal(t, want[i], tx.RemittanceInformationUnstructuredArray, "entry %d", i)
					assert.Equal(t, want[i] == nil, tx.RemittanceInformationUnstructuredArray == nil, "entry %d: nil", i)
				}
				// No entry shares the room: changing one changes no other.
				rep.Transactions.Booked[0].RemittanceInformationUnstructuredArray[0] = "changed"
				assert.Equal(t, "", rep.Transactions.Booked[1].RemittanceInformationUnstructuredArray[0])
			}
		})
	}
}

// TestAcceptorDateTimeParsedInPlace: acceptorTransactionDateTime, parsed
// from the answer's bytes, decodes as the *string it was read into: the
// last member wins, "" and null give no time, escapes are read, another
// kind of value is the error a string gives, a text that is no date-time
// the error naming the field.
func TestAcceptorDateTimeParsedInPlace(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
		return &v
	}
	for _, c := range []struct {
		in   string
		want *time.Time
		err  string
	}{
		{`{"acceptorTransactionDateTime":"2026-02-01T18:30:00+01:00"}`, at("2026-02-01T18:30:00+01:00"), ""},
		{`{"acceptorTransactionDateTime":"2026-02-01T18:30:00+0130"}`, at("2026-02-01T18:30:00+01:30"), ""},
		{`{"acceptorTransactionDateTime":"\u0032026-02-01T18:30:00Z"}`, at("2026-02-01T18:30:00Z"), ""},
		{`{"acceptorTransactionDateTime":"2026-02-01T18:30:00Z","ACCEPTORTRANSACTIONDATETIME":null}`, nil, ""},
		{`{"acceptorTransactionDateTime":"x","acceptorTransactionDateTime":"2027-01-01T00:00:00.5Z"}`, at("2027-01-01T00:00:00.5Z"), ""},
		{`{"acceptorTransactionDateTime":""}`, nil, ""},
		{`{"acceptorTransactionDateTime":"yesterday"}`, nil, "xs2a: decoding acceptorTransactionDateTime: not an ISO 8601 date-time with an offset"},
		{`{"acceptorTransactionDateTime":5}`, nil, "json: cannot unmarshal number into Go struct field .acceptorTransactionDateTime of type string"},
	} {
		var tx CardTransaction
		err := decodeJSON([]byte(c.in), &tx)
		if c.err != "" {
			assert.EqualError(t, err, c.err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		if c.want == nil {
			assert.Nil(t, tx.AcceptorTransactionDateTime, c.in)
		} else if assert.NotNil(t, tx.AcceptorTransactionDateTime, c.in) {
			assert.True(t, c.want.Equal(*tx.AcceptorTransactionDateTime), c.in)
		}
	}
}
