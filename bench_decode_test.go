package xs2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// Decoding and memory benchmarks of the issue "Proof: benchmarks against
// the floor and a peer", Performance items 4 and 5. They run the client
// against canned RoundTrippers (no network) with readySigner (no RSA
// operation), so what is measured is the client's own reading and decoding.

const (
	benchPageSize = 500 // transactions per page
	benchPages    = 200 // pages of BenchmarkIterateTransactions
)

// benchPSU is present (PSU-IP-Address set): the calls do not count against
// the PSU-not-present access budget of 4 per day.
var benchPSU = xs2a.PSU{ID: "0b8c4f6e-1d2a-4e3b-8f9c-7a6b5c4d3e2f", IPAddress: "192.0.2.10"}

var benchCounterparties = []string{"Rema 1000 Torget", "Kraftverket Energi AS", "Arbeidsgiver AS", "Bergen Kommune", "Vinmonopolet Sentrum"}

// appendTransactionsPage appends page number page (0-based) of an account's
// booked transactions in the platform's JSON shape (docs/interface.md, Production,
// Transactions: transactionId, bookingDate, valueDate, transactionAmount,
// creditorName or debtorName, creditorAccount or debtorAccount,
// remittanceInformationUnstructured, remittanceInformationUnstructuredArray,
// proprietaryBankTransactionCode, additionalInformation), n entries, and a
// _links.next to the following page when next is set. The content is a
// function of page and n only; nothing is allocated when dst has room.
func appendTransactionsPage(dst []byte, page, n int, next bool) []byte {
	dst = append(dst, `{"account":{"bban":"12345678903","currency":"NOK"},"transactions":{"booked":[`...)
	for i := range n {
		k := page*n + i // the entry's number across pages
		if i > 0 {
			dst = append(dst, ',')
		}
		day := 1 + k%28
		dst = append(dst, `{"transactionId":"2026-03-booked-`...)
		dst = appendPadded(dst, k, 8)
		dst = append(dst, `","bookingDate":"2026-03-`...)
		dst = appendPadded(dst, day, 2)
		dst = append(dst, `","valueDate":"2026-03-`...)
		dst = appendPadded(dst, day, 2)
		dst = append(dst, `","transactionAmount":{"amount":"`...)
		debit := k%3 != 0
		if debit {
			dst = append(dst, '-')
		}
		dst = strconv.AppendInt(dst, int64(k%9000+10), 10)
		dst = append(dst, '.')
		dst = appendPadded(dst, k%100, 2)
		dst = append(dst, `","currency":"NOK"},`...)
		who := benchCounterparties[k%len(benchCounterparties)]
		if debit {
			dst = append(dst, `"creditorName":"`...)
			dst = append(dst, who...)
			dst = append(dst, `","creditorAccount":{"bban":"98765432106"},`...)
		} else {
			dst = append(dst, `"debtorName":"`...)
			dst = append(dst, who...)
			dst = append(dst, `","debtorAccount":{"bban":"11112222333"},`...)
		}
		dst = append(dst, `"remittanceInformationUnstructured":"Varekjøp `...)
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, `","remittanceInformationUnstructuredArray":["Varekjøp `...)
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, `","`...)
		dst = append(dst, who...)
		dst = append(dst, `"],"proprietaryBankTransactionCode":"VARER","additionalInformation":"Kortkjøp"}`...)
	}
	dst = append(dst, `],"_links":{"account":{"href":"/v1/accounts/acc-1","verbs":["GET"]}`...)
	if next {
		dst = append(dst, `,"next":{"href":"/v1/accounts/acc-1/transactions?bookingStatus=booked&page=`...)
		dst = strconv.AppendInt(dst, int64(page+1), 10)
		dst = append(dst, `","verbs":["GET"]}`...)
	}
	return append(dst, `}}}`...)
}

// appendPadded appends v in decimal with leading zeros to width digits.
func appendPadded(dst []byte, v, width int) []byte {
	var b [20]byte
	s := strconv.AppendInt(b[:0], int64(v), 10)
	for range width - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// pageRT answers every request with a 200 and a body from page, given the
// request (canned: nothing leaves the process).
type pageRT struct {
	page func(r *http.Request) []byte
}

func (p pageRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	body := p.page(r)
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

// benchClient is a Client over rt that signs with readySigner.
func benchClient(b testing.TB, signer *xs2a.Signer, rt http.RoundTripper) *xs2a.Client {
	b.Helper()
	c, err := xs2a.NewClient("https://psd2.bank.example/api", signer,
		xs2a.WithRedirectURI("https://tpp.example/cb"), xs2a.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkDecodeTransactions: one page of 500 booked transactions (about
// 220 kB of JSON) fetched with Accounts.TransactionsPage through a canned
// RoundTripper that returns the bytes, against the floor, json.Unmarshal of
// the same bytes into the same TransactionReport; alternately, in the same
// run (measurePair). The client adds the request (signed, RSA taken out),
// reading the body, looking for "scaRedirect" and marking each entry
// booked. Two pages: known-fields, every member named by the model (the
// common path), and two-unknown-per-entry, each entry with two members the
// model does not name, which go to Transaction.Extra.
//
//	go test -run='^$' -bench=DecodeTransactions -benchtime=2s -count=5 .
//
// Target: ratio (client / json.Unmarshal) < 1.10.
func BenchmarkDecodeTransactions(b *testing.B) {
	known := appendTransactionsPage(nil, 0, benchPageSize, false)
	// two members outside the model at the start of every entry
	unknown := bytes.ReplaceAll(known, []byte(`{"transactionId":`),
		[]byte(`{"merchantCity":"Bergen","entryKind":{"code":"CARD","sub":1},"transactionId":`))
	for _, page := range []struct {
		name string
		body []byte
	}{{"known-fields", known}, {"two-unknown-per-entry", unknown}} {
		b.Run(page.name, func(b *testing.B) { benchDecodePage(b, page.body) })
	}
}

// benchDecodePage is BenchmarkDecodeTransactions for one page.
func benchDecodePage(b *testing.B, page []byte) {
	c := benchClient(b, readySignerFor(b), pageRT{page: func(*http.Request) []byte { return page }})
	ctx := context.Background()
	client := func() {
		rep, _, err := c.Accounts.TransactionsPage(ctx, benchPSU, "acc-1", nil)
		if err != nil || len(rep.Transactions.Booked) != benchPageSize {
			b.Fatalf("TransactionsPage: %v", err)
		}
	}
	floor := func() {
		var rep xs2a.TransactionReport
		if err := json.Unmarshal(page, &rep); err != nil || len(rep.Transactions.Booked) != benchPageSize {
			b.Fatalf("json.Unmarshal: %v", err)
		}
	}
	p := measurePair(b, floor, client)
	b.ReportMetric(p.signedNs, "ns/op")
	b.ReportMetric(p.floorNs, "floor-ns/op")
	b.ReportMetric(p.signedNs/p.floorNs, "ratio")
	p.reportCPU(b, "floor", "client")
	b.ReportMetric(p.signedAllocs, "client-allocs/op")
	b.ReportMetric(p.floorAllocs, "floor-allocs/op")
	b.ReportMetric(float64(len(page)), "page-bytes")
}

// transactionsPages is a canned bank of pages pages of size transactions
// linked by _links.next, each generated when asked for into one reused
// buffer: the generator holds one page of JSON, allocated before any
// measurement.
type transactionsPages struct {
	pages, size int
	buf         []byte
}

func newTransactionsPages(pages, size int) *transactionsPages {
	g := &transactionsPages{pages: pages, size: size}
	g.buf = appendTransactionsPage(nil, pages-1, size, true) // the largest page
	g.buf = append(make([]byte, 0, cap(g.buf)+cap(g.buf)/8), g.buf...)
	return g
}

func (g *transactionsPages) page(r *http.Request) []byte {
	n := 0
	if v := r.URL.Query().Get("page"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	g.buf = appendTransactionsPage(g.buf[:0], n, g.size, n < g.pages-1)
	return g.buf
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkIterateTransactions: 100 000 transactions, 200 pages of 500
// linked by _links.next, read with Accounts.Transactions from a canned
// RoundTripper that generates each page when asked (transactionsPages).
// B/op and bytes-per-tx are everything allocated per run (the generator
// allocates nothing once its buffer is grown). After the timed runs one
// more run measures the live heap: at the first entry of every page, after
// a full collection, the heap in use above what it was before the run
// (which holds the generator's buffer) is the client's; its maximum is
// peak-heap-bytes. It is one page twice over: page-bytes, the live size of
// one page decoded on its own with json.Unmarshal (held, after a full
// collection), and page-json-bytes, the size of its JSON, which stays in
// the walk's read buffer until the next page is read into it. peak-per-page is peak-heap-bytes over their sum: about 1
// shows that the iterator holds one page, not all 200.
//
//	go test -run='^$' -bench=IterateTransactions -benchtime=2s -count=5 .
func BenchmarkIterateTransactions(b *testing.B) {
	g := newTransactionsPages(benchPages, benchPageSize)
	c := benchClient(b, readySignerFor(b), pageRT{page: g.page})
	ctx := context.Background()
	q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked}
	iterate := func(atPageStart func()) {
		n := 0
		for tx, err := range c.Accounts.Transactions(ctx, benchPSU, "acc-1", q) {
			if err != nil {
				b.Fatal(err)
			}
			if tx.TransactionAmount.Currency != "NOK" {
				b.Fatal("bad entry")
			}
			if atPageStart != nil && n%benchPageSize == 0 {
				atPageStart()
			}
			n++
		}
		if n != benchPages*benchPageSize {
			b.Fatalf("%d transactions, want %d", n, benchPages*benchPageSize)
		}
	}

	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	runs := 0
	for b.Loop() {
		iterate(nil)
		runs++
	}
	runtime.ReadMemStats(&m1)
	txs := float64(runs * benchPages * benchPageSize)
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/txs, "bytes-per-tx")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/txs, "ns-per-tx")
	b.StopTimer()

	// The live size of one decoded page, for comparison; a first
	// collection empties the pools, so that the difference is the page's.
	pageJSON := appendTransactionsPage(nil, 0, benchPageSize, true)
	runtime.GC()
	before := liveHeap()
	var one xs2a.TransactionReport
	if err := json.Unmarshal(pageJSON, &one); err != nil {
		b.Fatal(err)
	}
	pageBytes := float64(liveHeap() - before)
	runtime.KeepAlive(&one)
	runtime.KeepAlive(pageJSON) // counted in before: keep it out of the difference
	one = xs2a.TransactionReport{}

	base := liveHeap()
	var peak uint64
	iterate(func() {
		if h := liveHeap(); h > base && h-base > peak {
			peak = h - base
		}
	})
	b.ReportMetric(float64(peak), "peak-heap-bytes")
	b.ReportMetric(pageBytes, "page-bytes")
	b.ReportMetric(float64(len(pageJSON)), "page-json-bytes")
	b.ReportMetric(float64(peak)/(pageBytes+float64(len(pageJSON))), "peak-per-page")
}

// TestTransactionsIteratorHoldsOnePage checks that Accounts.Transactions
// keeps at most one page (memory stays bounded by one page):
// once the first entry of page N is yielded, page N-1 must be unreachable.
// The probe is a weak pointer to the backing array of the first entry's
// RemittanceInformationUnstructuredArray, allocated by the decoder and
// referenced only from the page (the yielded copy of the entry is gone by
// then): after a full collection it is nil exactly when the page's backing
// array no longer holds it. As a control, the probe of the page being read
// must still be set in the middle of that page.
func TestTransactionsIteratorHoldsOnePage(t *testing.T) {
	const pages, size = 6, 40
	g := newTransactionsPages(pages, size)
	c := benchClient(t, readySignerFor(t), pageRT{page: g.page})
	var probes []weak.Pointer[string]
	n := 0
	for tx, err := range c.Accounts.Transactions(context.Background(), benchPSU, "acc-1", &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked}) {
		require.NoError(t, err)
		page := n / size
		switch n % size {
		case 0:
			require.Len(t, tx.RemittanceInformationUnstructuredArray, 2)
			probes = append(probes, weak.Make(&tx.RemittanceInformationUnstructuredArray[0]))
			runtime.GC()
			if page > 0 {
				require.Nil(t, probes[page-1].Value(), "page %d is still reachable while page %d is read", page-1, page)
			}
		case size / 2:
			runtime.GC()
			require.NotNil(t, probes[page].Value(), "control: page %d must be held while it is read", page)
		}
		n++
	}
	require.Equal(t, pages*size, n)
}

// BenchmarkIterateTransactionsPeak: the live heap while Accounts.Transactions
// walks 10 000 and then 1 000 000 transactions (20 and 2 000 pages of 500,
// generated as BenchmarkIterateTransactions' are), sampled after a full
// collection at the first entry of every page (every tenth page of the
// long walk), above what it was before the walk. peak-per-page-10k and
// peak-per-page-1M are each peak over one page decoded plus its JSON (see
// BenchmarkIterateTransactions); 1M-over-10k is how much the peak grows
// with a walk a hundred times as long. Target: peak-per-page-1M <= 1.1.
//
//	go test -run='^$' -bench=IterateTransactionsPeak -benchtime=1x .
func BenchmarkIterateTransactionsPeak(b *testing.B) {
	page := onePageBytes(b)
	var short, long uint64
	for b.Loop() {
		short = peakWhileIterating(b, 20, 1)
		long = peakWhileIterating(b, 2000, 10)
	}
	b.ReportMetric(float64(short), "peak-heap-bytes-10k")
	b.ReportMetric(float64(long), "peak-heap-bytes-1M")
	b.ReportMetric(float64(short)/page, "peak-per-page-10k")
	b.ReportMetric(float64(long)/page, "peak-per-page-1M")
	b.ReportMetric(float64(long)/float64(short), "1M-over-10k")
}

// onePageBytes is the live size of one page of benchPageSize transactions
// decoded with json.Unmarshal, plus the size of its JSON.
func onePageBytes(b *testing.B) float64 {
	pageJSON := appendTransactionsPage(nil, 0, benchPageSize, true)
	runtime.GC()
	before := liveHeap()
	var one xs2a.TransactionReport
	if err := json.Unmarshal(pageJSON, &one); err != nil {
		b.Fatal(err)
	}
	size := float64(liveHeap() - before)
	runtime.KeepAlive(&one)
	runtime.KeepAlive(pageJSON) // counted in before: keep it out of the difference
	return size + float64(len(pageJSON))
}

// peakWhileIterating walks pages pages of benchPageSize transactions with
// Accounts.Transactions and returns the highest live heap above the start,
// sampled at the first entry of every every-th page.
func peakWhileIterating(b *testing.B, pages, every int) uint64 {
	g := newTransactionsPages(pages, benchPageSize)
	c := benchClient(b, readySignerFor(b), pageRT{page: g.page})
	q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked}
	runtime.GC() // with liveHeap's, two collections empty the pools: the walk's read buffer counts in its peak
	base := liveHeap()
	var peak uint64
	n := 0
	for tx, err := range c.Accounts.Transactions(context.Background(), benchPSU, "acc-1", q) {
		if err != nil || tx.TransactionAmount.Currency != "NOK" {
			b.Fatalf("entry %d: %v", n, err)
		}
		if n%(benchPageSize*every) == 0 {
			if h := liveHeap(); h > base && h-base > peak {
				peak = h - base
			}
		}
		n++
	}
	if n != pages*benchPageSize {
		b.Fatalf("%d transactions, want %d", n, pages*benchPageSize)
	}
	return peak
}
