package xs2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// split cuts data into pieces of n bytes (the last may be shorter).
func split(data []byte, n int) pieces {
	var p pieces
	for len(data) > n {
		p = append(p, data[:n])
		data = data[n:]
	}
	return append(p, data)
}

// piecedCase decodes an answer body through a window, against
// json.Unmarshal of the whole body.
type piecedCase struct {
	name      string
	window    func(p pieces, first int) (v any, ok bool)
	reference func(data []byte) (v any, ok bool)
	large     func(size int) []byte // an answer of about size bytes, in the bank's shape
}

func bodyPieced[T any, P interface {
	*T
	fastDecoder
}](name string, fresh func() T, list func(*T) any, large func(int) []byte) piecedCase {
	return piecedCase{name: name,
		window: func(p pieces, first int) (any, bool) {
			v := fresh()
			ok := decodePieces(P(&v), p, first)
			return list(&v), ok
		},
		reference: func(data []byte) (any, bool) {
			v := fresh()
			ok := json.Unmarshal(data, P(&v)) == nil
			return list(&v), ok
		},
		large: large}
}

var piecedCases = []piecedCase{
	bodyPieced[TransactionReport]("TransactionReport", func() TransactionReport { return TransactionReport{} },
		self[TransactionReport], transactionsAnswer),
	bodyPieced[cardTransactionReport]("cardTransactionReport", func() cardTransactionReport { return cardTransactionReport{} },
		self[cardTransactionReport], cardTransactionsAnswer),
	bodyPieced[listBody[Account]]("accounts list", func() listBody[Account] { return listBody[Account]{key: "accounts"} },
		func(l *listBody[Account]) any { return l.list() }, accountsAnswer),
}

// transactionsAnswer is a transaction page of about size bytes, booked and
// pending entries half each, in the platform's shape (text in UTF-8, not
// escaped, as the banks send it).
func transactionsAnswer(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"account":{"bban":"12345678903","currency":"NOK"},"transactions":{"booked":[`)
	entry := func(i int, status string) {
		fmt.Fprintf(&b, `{"transactionId":"2026-03-%s-%08d","bookingDate":"2026-03-%02d","valueDate":"2026-03-%02d",`+
			`"transactionAmount":{"amount":"-%d.50","currency":"NOK"},"creditorName":"Rema 1000 Åsane",`+
			`"remittanceInformationUnstructured":"Varekjøp %d","proprietaryBankTransactionCode":{"value":"VARER","code":"714"}}`,
			status, i, 1+i%28, 1+i%28, i%997, i)
	}
	for i := 0; b.Len() < size/2; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		entry(i, "booked")
	}
	b.WriteString(`],"pending":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		entry(i, "pending")
	}
	b.WriteString(`],"_links":{"next":{"href":"/v1/accounts/enc!!A=/transactions?page=2"}}}}`)
	return b.Bytes()
}

// cardTransactionsAnswer is a card transaction page of about size bytes.
func cardTransactionsAnswer(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"cardAccount":{"maskedPan":"525412******3241"},"cardTransactions":{"booked":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"cardTransactionId":"c-%08d","transactionDate":"2026-02-%02d","transactionAmount":`+
			`{"amount":"-%d.20","currency":"NOK"},"originalAmount":{"amount":"-%d.00","currency":"EUR"},`+
			`"cardAcceptorAddress":{"townName":"Paris"},"proprietaryBankTransactionCode":"KORT","invoiced":false}`,
			i, 1+i%28, i%997, i%97)
	}
	b.WriteString(`],"_links":{"cardAccount":{"href":"/v1/card-accounts/enc!!C="}}}}`)
	return b.Bytes()
}

// checkPieces decodes data, cut in pieces of n bytes, through a window of
// at least first bytes with every case: where the window takes it, the
// result must be encoding/json's. It reports how many cases took it.
func checkPieces(t *testing.T, data []byte, n, first int) int {
	t.Helper()
	took := 0
	for _, c := range piecedCases {
		got, ok := c.window(split(data, n), first)
		if !ok {
			continue
		}
		took++
		want, wantOK := c.reference(data)
		if !wantOK {
			t.Fatalf("%s: the window took %q (pieces of %d, first %d), which encoding/json refuses", c.name, data, n, first)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %q (pieces of %d, first %d)\nwindow:        %#v\nencoding/json: %#v", c.name, data, n, first, got, want)
		}
	}
	return took
}

// TestWindowMatchesEncodingJSON: a body decoded from its pieces through a
// window, whatever the pieces and however little the window takes at first,
// decodes as encoding/json decodes it whole, or is left to it.
func TestWindowMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	var inputs [][]byte
	for _, s := range readerSeeds {
		inputs = append(inputs, []byte(s.json))
	}
	for _, name := range []string{"transactions_page1.json", "card_transactions_fixed.json", "accounts_production.json"} {
		inputs = append(inputs, fixture(t, name))
	}
	for _, data := range inputs {
		for _, n := range []int{1, 2, 3, 7, 64, 4096} {
			for _, first := range []int{0, 1, 13, 256} {
				checkPieces(t, data, n, first)
			}
		}
	}
}

// TestWindowTakesLargeAnswers: large answers in the bank's shape, in small
// pieces, are decoded through the window (not left to encoding/json), to
// what encoding/json gives, and the window never holds much of them.
func TestWindowTakesLargeAnswers(t *testing.T) {
	t.Parallel()
	for _, c := range piecedCases {
		data := c.large(256 << 10)
		for _, n := range []int{97, 4 << 10} {
			t.Run(c.name, func(t *testing.T) {
				got, ok := c.window(split(data, n), 1<<10)
				require.True(t, ok, "the window must take a %d B answer in pieces of %d", len(data), n)
				want, _ := c.reference(data)
				assert.Equal(t, want, got)
				checkPieces(t, data, n, 1<<10)
			})
		}
	}
}

// TestWindowHoldsLittle: reading an account list through the window, the
// window's buffer stays near the size of the pieces and the elements.
func TestWindowHoldsLittle(t *testing.T) {
	data := accountsAnswer(1 << 20)
	var r reader
	w := newWindow(&r, split(data, 4<<10), 8<<10)
	r.win = w
	var l listBody[Account]
	l.key = "accounts"
	require.True(t, l.read(&r))
	assert.NotEmpty(t, l.list())
	assert.LessOrEqual(t, cap(w.buf), 32<<10, "the window grew to %d B for 4 kB pieces", cap(w.buf))
}

// FuzzReaderPieces is the differential fuzz target of the window: on any
// input, cut anywhere, what it takes decodes as encoding/json decodes the
// whole.
//
//	go test -run='^$' -fuzz='^FuzzReaderPieces$' -fuzztime=60s .
func FuzzReaderPieces(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s.json), uint8(3), uint16(16))
	}
	f.Add(fixture(f, "accounts_production.json"), uint8(41), uint16(200))
	f.Add(fixture(f, "transactions_page1.json"), uint8(17), uint16(500))
	f.Fuzz(func(t *testing.T, data []byte, n uint8, first uint16) {
		checkPieces(t, data, int(n)+1, int(first))
	})
}

func TestPiecesContainsAcrossSeams(t *testing.T) {
	body := []byte(`{"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)
	for n := 1; n <= len(body); n++ {
		p := split(body, n)
		assert.True(t, p.contains(`"scaRedirect"`), "pieces of %d", n)
		assert.False(t, p.contains(`"scaStatus"`), "pieces of %d", n)
		assert.Equal(t, body, p.join())
		assert.Equal(t, len(body), p.len())
	}
	assert.True(t, split([]byte(" \n\t "), 1).blank())
	assert.False(t, split([]byte("  {} "), 2).blank())
	assert.True(t, pieces(nil).blank())
}

func TestListScanCountsAcrossPieces(t *testing.T) {
	for _, tt := range []struct {
		content string
		want    int
		objects bool // every element an object or null
	}{
		{`]`, 0, true}, {` ] `, 0, true}, {`1]`, 1, false}, {`1,2,3]`, 3, false},
		{`"a,]",{"b":[1,2]},[3,4]]`, 3, false}, {`{"a":"]"}, null ,{"b":[1,{}]}]`, 3, true},
		{`{},{},0]`, 3, false}, {`"\"",",\\",5]`, 3, false}, {`{},{}`, 1, true}, // not closed: the commas
	} {
		n, objects := countElements([]byte(tt.content), 0)
		assert.Equal(t, tt.want, n, tt.content)
		assert.Equal(t, tt.objects, objects, tt.content)
		for size := 1; size <= len(tt.content); size++ {
			s := listScan{next: true}
			for _, b := range split([]byte(tt.content), size) {
				s.scan(b)
			}
			assert.Equal(t, tt.want, s.count(), "%s in pieces of %d", tt.content, size)
			assert.Equal(t, tt.objects, !s.notObject, "%s in pieces of %d", tt.content, size)
		}
	}
	n, _ := countElements([]byte(`[1,[2,3]]`), 1)
	assert.Equal(t, 2, n)
	// An empty piece between a backslash and the byte it escapes.
	s := listScan{next: true}
	for _, b := range []string{`"a\`, ``, `"",1]`} {
		s.scan([]byte(b))
	}
	assert.Equal(t, 2, s.count(), "the escaped quote does not end the string")
	assert.True(t, s.closed)
}
