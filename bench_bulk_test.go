package xs2a_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tppkit/xs2a"
)

// benchBulkSize is the number of payments in BenchmarkBulkPayment10k.
const benchBulkSize = 10_000

// benchBBAN returns a valid Norwegian account number (MOD11 control digit)
// made from n.
func benchBBAN(n int) string {
	weights := [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	for ; ; n++ {
		d := []byte(strconv.Itoa(1200_0000_00 + n%8_0000_0000))
		sum := 0
		for i, w := range weights {
			sum += int(d[i]-'0') * w
		}
		switch r := sum % 11; r {
		case 0:
			return string(append(d, '0'))
		case 1: // no account number has this payload
		default:
			return string(append(d, byte('0'+11-r)))
		}
	}
}

// benchBulkPayment is a bulk payment of n payments to different suppliers,
// each with an unstructured message, as a payroll or supplier run looks.
func benchBulkPayment(n int) *xs2a.BulkPayment {
	ps := make([]xs2a.Payment, n)
	for i := range ps {
		ps[i] = xs2a.Payment{
			EndToEndIdentification:            "RUN-2026-03-" + strconv.Itoa(100000+i),
			InstructedAmount:                  xs2a.Amount{Currency: "NOK", Amount: strconv.Itoa(100+i%9000) + "." + strconv.Itoa(10+i%90)},
			CreditorAccount:                   xs2a.AccountReference{BBAN: benchBBAN(i * 7919)},
			CreditorName:                      benchCounterparties[i%len(benchCounterparties)],
			RemittanceInformationUnstructured: "Faktura " + strconv.Itoa(2026000+i),
		}
	}
	return &xs2a.BulkPayment{
		DebtorAccount:          xs2a.AccountReference{BBAN: "12345678903"},
		PaymentInformationID:   "RUN-2026-03",
		RequestedExecutionDate: xs2a.Date{Year: 2026, Month: 3, Day: 4},
		Payments:               ps,
	}
}

// bodySizeRT answers every request with the platform's 201 for an
// initiation and remembers the size of the last request body.
type bodySizeRT struct{ last int64 }

const benchInitiation = `{"paymentId":"bulk-1","transactionStatus":"RCVD","transactionFees":{"amount":"0.00","currency":"NOK"},` +
	`"transactionFeeIndicator":false,"_links":{"self":{"href":"/v1/bulk-payments/norwegian-domestic-credit-transfers/bulk-1"},` +
	`"status":{"href":"/v1/bulk-payments/norwegian-domestic-credit-transfers/bulk-1/status"},` +
	`"startAuthorisation":{"href":"/v1/bulk-payments/norwegian-domestic-credit-transfers/bulk-1/authorisations","verbs":["POST"]}}}`

func (s *bodySizeRT) RoundTrip(r *http.Request) (*http.Response, error) {
	n, _ := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	s.last = n
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(benchInitiation)),
		ContentLength: int64(len(benchInitiation)), Request: r}, nil
}

// BenchmarkBulkPayment10k: Payments.Initiate of a bulk payment of 10 000
// payments through a canned RoundTripper (readySigner: no RSA operation): checking every
// entry, encoding the body, digesting and sending it, and decoding the
// answer. alloc-bytes-per-body-byte is all bytes allocated per call over
// the size of the JSON body sent (about 2.3 MB).
//
//	go test -run='^$' -bench=BulkPayment10k -benchtime=2s -count=5 .
//
// Target: alloc-bytes-per-body-byte < 3.
func BenchmarkBulkPayment10k(b *testing.B) {
	bulk := benchBulkPayment(benchBulkSize)
	rt := &bodySizeRT{}
	c := benchClient(b, readySignerFor(b), rt)
	ctx := context.Background()
	initiate := func() {
		ini, _, err := c.Payments.Initiate(ctx, benchPSU, xs2a.NorwegianDomesticCreditTransfers, bulk, nil)
		if err != nil || ini.PaymentID != "bulk-1" {
			b.Fatalf("Initiate: %v", err)
		}
	}
	initiate()
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	n := 0
	for b.Loop() {
		initiate()
		n++
	}
	runtime.ReadMemStats(&m1)
	perCall := float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
	b.ReportMetric(float64(rt.last), "body-bytes")
	b.ReportMetric(perCall/float64(rt.last), "alloc-bytes-per-body-byte")
}
