package xs2a_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"runtime/debug"
	"strconv"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/tppkit/xs2a"
)

// The baseline of the issue "a typed page faster than a hand-written
// decode": what a client written by hand pays for a page, one RSA signature
// plus json.Unmarshal of the same bytes into plain structs of strings (the
// members the page holds, nothing checked or converted).

// plainAmount, plainRef, plainLink and the plain* page types are such
// structs: every member a string, an array of strings or an object of them.
type plainAmount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

type plainRef struct {
	BBAN      string `json:"bban"`
	IBAN      string `json:"iban"`
	MaskedPan string `json:"maskedPan"`
	Currency  string `json:"currency"`
}

type plainLink struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs"`
}

type plainTransaction struct {
	TransactionID                          string      `json:"transactionId"`
	BookingDate                            string      `json:"bookingDate"`
	ValueDate                              string      `json:"valueDate"`
	TransactionAmount                      plainAmount `json:"transactionAmount"`
	CreditorName                           string      `json:"creditorName"`
	CreditorAccount                        plainRef    `json:"creditorAccount"`
	DebtorName                             string      `json:"debtorName"`
	DebtorAccount                          plainRef    `json:"debtorAccount"`
	RemittanceInformationUnstructured      string      `json:"remittanceInformationUnstructured"`
	RemittanceInformationUnstructuredArray []string    `json:"remittanceInformationUnstructuredArray"`
	ProprietaryBankTransactionCode         string      `json:"proprietaryBankTransactionCode"`
	AdditionalInformation                  string      `json:"additionalInformation"`
}

type plainTransactionPage struct {
	Account      plainRef `json:"account"`
	Transactions struct {
		Booked  []plainTransaction `json:"booked"`
		Pending []plainTransaction `json:"pending"`
		Links   struct {
			Account plainLink `json:"account"`
			Next    plainLink `json:"next"`
		} `json:"_links"`
	} `json:"transactions"`
}

type plainCardTransaction struct {
	CardTransactionID           string      `json:"cardTransactionId"`
	TransactionDate             string      `json:"transactionDate"`
	AcceptorTransactionDateTime string      `json:"acceptorTransactionDateTime"`
	BookingDate                 string      `json:"bookingDate"`
	TransactionAmount           plainAmount `json:"transactionAmount"`
	OriginalAmount              plainAmount `json:"originalAmount"`
	TransactionDetails          string      `json:"transactionDetails"`
	MerchantCategoryCode        string      `json:"merchantCategoryCode"`
	MaskedPAN                   string      `json:"maskedPAN"`
	ProprietaryBankTransaction  string      `json:"proprietaryBankTransactionCode"`
}

type plainCardPage struct {
	CardAccount      plainRef `json:"cardAccount"`
	CardTransactions struct {
		Booked  []plainCardTransaction `json:"booked"`
		Pending []plainCardTransaction `json:"pending"`
		Links   struct {
			CardAccount plainLink `json:"cardAccount"`
		} `json:"_links"`
	} `json:"cardTransactions"`
}

type plainBalance struct {
	BalanceAmount plainAmount `json:"balanceAmount"`
	BalanceType   string      `json:"balanceType"`
	ReferenceDate string      `json:"referenceDate"`
}

type plainAccount struct {
	ResourceID      string         `json:"resourceId"`
	BBAN            string         `json:"bban"`
	Currency        string         `json:"currency"`
	Name            string         `json:"name"`
	Product         string         `json:"product"`
	CashAccountType string         `json:"cashAccountType"`
	OwnerName       string         `json:"ownerName"`
	Balances        []plainBalance `json:"balances"`
	Links           struct {
		Balances     plainLink `json:"balances"`
		Transactions plainLink `json:"transactions"`
	} `json:"_links"`
}

type plainAccountList struct {
	Accounts []plainAccount `json:"accounts"`
}

// benchAccounts is the size of the accounts list of BenchmarkPageVsPlain: a
// large company's list, so that decoding, not the request, is measured.
const benchAccounts = 200

// appendCardPage appends a card-transaction page of n booked entries in the
// platform's shape (a purchase abroad: both amounts, an acceptor time).
func appendCardPage(dst []byte, n int) []byte {
	dst = append(dst, `{"cardAccount":{"maskedPan":"525412******3241"},"cardTransactions":{"booked":[`...)
	for k := range n {
		if k > 0 {
			dst = append(dst, ',')
		}
		day := 1 + k%28
		dst = append(dst, `{"cardTransactionId":"card-`...)
		dst = appendPadded(dst, k, 8)
		dst = append(dst, `","transactionDate":"2026-02-`...)
		dst = appendPadded(dst, day, 2)
		dst = append(dst, `","acceptorTransactionDateTime":"2026-02-`...)
		dst = appendPadded(dst, day, 2)
		dst = append(dst, `T18:30:00+01:00","bookingDate":"2026-03-`...)
		dst = appendPadded(dst, day, 2)
		dst = append(dst, `","transactionAmount":{"amount":"-`...)
		dst = strconv.AppendInt(dst, int64(k%900+10), 10)
		dst = append(dst, '.')
		dst = appendPadded(dst, k%100, 2)
		dst = append(dst, `","currency":"NOK"},"originalAmount":{"amount":"-`...)
		dst = strconv.AppendInt(dst, int64(k%90+1), 10)
		dst = append(dst, `.00","currency":"EUR"},"transactionDetails":"`...)
		dst = append(dst, benchCounterparties[k%len(benchCounterparties)]...)
		dst = append(dst, `","merchantCategoryCode":"5814","maskedPAN":"525412******3241","proprietaryBankTransactionCode":"KORT"}`...)
	}
	return append(dst, `],"_links":{"cardAccount":{"href":"/v1/card-accounts/card-1","verbs":["GET"]}}}}`...)
}

// appendAccountList appends an accounts list of n accounts in the
// production shape, each with one balance and its links.
func appendAccountList(dst []byte, n int) []byte {
	dst = append(dst, `{"accounts":[`...)
	for k := range n {
		if k > 0 {
			dst = append(dst, ',')
		}
		id := strconv.AppendInt([]byte("enc!!QUNDT1VOVC0"), int64(100000+k), 10)
		dst = append(dst, `{"resourceId":"`...)
		dst = append(dst, id...)
		dst = append(dst, `=","bban":"1234567`...)
		dst = appendPadded(dst, k, 4)
		dst = append(dst, `","currency":"NOK","name":"Brukskonto","product":"Brukskonto","cashAccountType":"CACC",`...)
		dst = append(dst, `"ownerName":"Kari Nordmann","balances":[{"balanceAmount":{"currency":"NOK","amount":"`...)
		dst = strconv.AppendInt(dst, int64(k*37%100000), 10)
		dst = append(dst, `.55"},"balanceType":"interimAvailable","referenceDate":"2026-03-02"}],"_links":{"balances":{"href":"/v1/accounts/`...)
		dst = append(dst, id...)
		dst = append(dst, `=/balances","verbs":["GET"]},"transactions":{"href":"/v1/accounts/`...)
		dst = append(dst, id...)
		dst = append(dst, `=/transactions","verbs":["GET"]}}}`...)
	}
	return append(dst, `]}`...)
}

// BenchmarkPageVsPlain: a page read through the client (signing with the
// RSA key, as in production) against what a hand-written client pays, one
// bare RSA signature (rsa.SignPKCS1v15) plus json.Unmarshal of the same
// bytes into plain structs of strings; alternately, in the same run
// (measureAll). Three pages: transactions (500 entries, with
// Accounts.TransactionsPage), card-transactions (500 entries, one page of
// CardAccounts.Transactions) and accounts (200 accounts, Accounts.List).
// Two more contenders take the signature out of both sides: the client
// with readySigner and json.Unmarshal into the plain structs alone.
//
//	go test -run='^$' -bench=PageVsPlain -benchtime=2s -count=5 .
//
// Target: ratio-cpu (client ÷ signature + plain unmarshal) <= 1.00, and
// ratio-cpu-v2 (client ÷ signature + the same plain unmarshal with json/v2,
// github.com/go-json-experiment/json, default options) <= 1.25.
// decode-ratio-cpu and decode-ratio-cpu-v2 are the same without the
// signature on either side.
// Per entry: client-allocs/entry and client-B/entry are the whole call's
// divided by the entries; decode-allocs/entry and decode-B/entry leave out
// what the same call costs for an answer without entries; plain-* are
// json.Unmarshal's into the plain structs.
func BenchmarkPageVsPlain(b *testing.B) {
	for _, p := range []struct {
		name        string
		body, empty []byte
		plain       func() any
		call        func(c *xs2a.Client) int
	}{
		{"transactions", appendTransactionsPage(nil, 0, benchPageSize, false), appendTransactionsPage(nil, 0, 0, false),
			func() any { return new(plainTransactionPage) },
			func(c *xs2a.Client) int {
				rep, _, err := c.Accounts.TransactionsPage(context.Background(), benchPSU, "acc-1", nil)
				if err != nil {
					b.Fatal(err)
				}
				return len(rep.Transactions.Booked)
			}},
		{"card-transactions", appendCardPage(nil, benchPageSize), appendCardPage(nil, 0),
			func() any { return new(plainCardPage) },
			func(c *xs2a.Client) int {
				n := 0
				for _, err := range c.CardAccounts.Transactions(context.Background(), benchPSU, "card-1", nil) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				return n
			}},
		{"accounts", appendAccountList(nil, benchAccounts), appendAccountList(nil, 0),
			func() any { return new(plainAccountList) },
			func(c *xs2a.Client) int {
				list, _, err := c.Accounts.List(context.Background(), benchPSU)
				if err != nil {
					b.Fatal(err)
				}
				return len(list)
			}},
	} {
		b.Run(p.name, func(b *testing.B) { benchPageVsPlain(b, p.body, p.empty, p.plain, p.call) })
	}
}

// benchPageVsPlain is BenchmarkPageVsPlain for one page. empty is the same
// answer without entries: what the client allocates for it is the call's
// own (request, signature, reading), the rest is the entries'.
func benchPageVsPlain(b *testing.B, body, empty []byte, plain func() any, call func(*xs2a.Client) int) {
	rsaSigner, key := loadBenchKey(b, "tpp-rsa.cert.pem", "tpp-rsa.key.pem")
	rt := pageRT{page: func(*http.Request) []byte { return body }}
	signed, ready := benchClient(b, rsaSigner, rt), benchClient(b, readySignerFor(b), rt)
	want := call(ready)
	sum := sha256.Sum256(body[:64])
	unmarshal := func() {
		if err := json.Unmarshal(body, plain()); err != nil {
			b.Fatal(err)
		}
	}
	unmarshalV2 := func() {
		if err := jsonv2.Unmarshal(body, plain()); err != nil {
			b.Fatal(err)
		}
	}
	sign := func() {
		if _, err := rsa.SignPKCS1v15(nil, key.(*rsa.PrivateKey), crypto.SHA256, sum[:]); err != nil {
			b.Fatal(err)
		}
	}
	fns := []func(){
		func() { sign(); unmarshal() }, // the baseline: one signature, one plain decode
		func() {
			if call(signed) != want {
				b.Fatal("a different number of entries")
			}
		},
		unmarshal,
		func() { call(ready) },
		func() { sign(); unmarshalV2() }, // the same hand-written client on json/v2
		unmarshalV2,
	}
	// Allocations are counted with the collector off, so that it cannot
	// empty the client's pool of read buffers in between and add a page
	// buffer to some runs and not to others.
	gc := debug.SetGCPercent(-1)
	allocs := make([]float64, len(fns))
	bytes := make([]float64, len(fns))
	for i, f := range fns {
		allocs[i], bytes[i] = allocsPerRun(10, f)
	}
	emptyClient := benchClient(b, readySignerFor(b), pageRT{page: func(*http.Request) []byte { return empty }})
	callAllocs, callBytes := allocsPerRun(10, func() { call(emptyClient) })
	debug.SetGCPercent(gc)
	c := measureAll(b, fns...)
	b.ReportMetric(c[1].ns, "ns/op")
	b.ReportMetric(c[0].ns, "floor-ns/op")
	b.ReportMetric(c[1].ns/c[0].ns, "ratio")
	if c[0].cpuNs > 0 {
		b.ReportMetric(c[0].cpuNs, "floor-cpu-ns/op")
		b.ReportMetric(c[1].cpuNs, "client-cpu-ns/op")
		b.ReportMetric(c[1].cpuNs/c[0].cpuNs, "ratio-cpu")
		b.ReportMetric(c[3].cpuNs/c[2].cpuNs, "decode-ratio-cpu")
		b.ReportMetric(c[1].cpuNs/c[4].cpuNs, "ratio-cpu-v2")
		b.ReportMetric(c[3].cpuNs/c[5].cpuNs, "decode-ratio-cpu-v2")
	}
	n := float64(want)
	b.ReportMetric(allocs[3]/n, "client-allocs/entry")
	b.ReportMetric(bytes[3]/n, "client-B/entry")
	b.ReportMetric((allocs[3]-callAllocs)/n, "decode-allocs/entry")
	b.ReportMetric((bytes[3]-callBytes)/n, "decode-B/entry")
	b.ReportMetric(allocs[2]/n, "plain-allocs/entry")
	b.ReportMetric(bytes[2]/n, "plain-B/entry")
}
