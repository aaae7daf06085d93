package xs2a_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tppkit/xs2a"
)

// The "Measure" section of the signing issue: what signing costs a typical
// payment POST over its floor, the bare private-key operation plus the same
// request sent unsigned, both through a canned RoundTripper (no network).
//
//	go test -run='^$' -bench=Sign -benchtime=2s .
//
// Targets: ratio (signed ns / floor ns) < 1.05, allocs-over-floor <= 15.

// benchPaymentBody is a typical single payment initiation, compact JSON of
// about 400 bytes.
var benchPaymentBody = []byte(`{"instructedAmount":{"currency":"NOK","amount":"1250.00"},` +
	`"debtorAccount":{"bban":"12345678903","currency":"NOK"},` +
	`"creditorAccount":{"bban":"98765432106","currency":"NOK"},` +
	`"creditorName":"Kraftverket Energi AS","creditorAddress":{"country":"NO"},` +
	`"purposeCode":"SUPP","requestedExecutionDate":"2026-03-04",` +
	`"remittanceInformationStructuredArray":[{"reference":"2345678901234567","referenceType":"SCOR","referenceIssuer":"Kraftverket Energi AS"}]}`)

// cannedRT answers every request with the same 201, reading and closing the
// request body as a real transport would.
type cannedRT struct{ header http.Header }

func (c cannedRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: c.header, Body: http.NoBody, ContentLength: 0, Request: r}, nil
}

var canned = cannedRT{header: http.Header{"Content-Type": {"application/json"}}}

// sendPayment sends the typical payment POST through hc. X-Request-ID is
// left for the Transport to generate.
func sendPayment(b *testing.B, hc *http.Client) {
	req, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example/api/v1/payments/norwegian-domestic-credit-transfers", bytes.NewReader(benchPaymentBody))
	if err != nil {
		b.Fatal(err)
	}
	h := req.Header
	h["Content-Type"] = []string{"application/json"}
	h["Psu-Id"] = []string{"0b8c4f6e-1d2a-4e3b-8f9c-7a6b5c4d3e2f"}
	h["Psu-Ip-Address"] = []string{"192.0.2.10"}
	h["Tpp-Session-Id"] = []string{"5c0e7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"}
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
}

func loadBenchKey(b *testing.B, certFile, keyFile string) (*xs2a.Signer, crypto.Signer) {
	b.Helper()
	dir := filepath.Join("testdata", "certs")
	s, err := xs2a.LoadSigner(filepath.Join(dir, certFile), filepath.Join(dir, keyFile))
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, keyFile))
	if err != nil {
		b.Fatal(err)
	}
	block, _ := pem.Decode(data)
	var key crypto.Signer
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	}
	if err != nil || key == nil {
		b.Fatalf("key %s: %v", keyFile, err)
	}
	return s, key
}

// pair holds the per-operation cost of a floor and of the signed path.
type pair struct {
	floorNs, signedNs         float64
	floorAllocs, signedAllocs float64
}

// measurePair runs floor and signed alternately, once each per iteration,
// timing each with the monotonic clock so that drift and noise from other
// processes fall on both alike; allocations come from testing.AllocsPerRun.
func measurePair(b *testing.B, floor, signed func()) pair {
	b.Helper()
	floor() // warm up: pools, lazily built state
	signed()
	var p pair
	p.floorAllocs = testing.AllocsPerRun(20, floor)
	p.signedAllocs = testing.AllocsPerRun(20, signed)
	var tf, ts time.Duration
	n := 0
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		floor()
		t1 := time.Now()
		signed()
		ts += time.Since(t1)
		tf += t1.Sub(t0)
		n++
	}
	p.floorNs = float64(tf.Nanoseconds()) / float64(n)
	p.signedNs = float64(ts.Nanoseconds()) / float64(n)
	return p
}

func (p pair) report(b *testing.B) {
	b.ReportMetric(p.signedNs, "ns/op")
	b.ReportMetric(p.floorNs, "floor-ns/op")
	b.ReportMetric(p.signedNs, "signed-ns/op")
	b.ReportMetric(p.signedNs/p.floorNs, "ratio")
	b.ReportMetric(p.floorAllocs, "floor-allocs/op")
	b.ReportMetric(p.signedAllocs, "signed-allocs/op")
	b.ReportMetric(p.signedAllocs-p.floorAllocs, "allocs-over-floor")
}

// BenchmarkSignRSA: a payment POST signed with the 2048-bit RSA key, against
// one bare rsa.SignPKCS1v15 plus the same request sent unsigned.
func BenchmarkSignRSA(b *testing.B) {
	signer, key := loadBenchKey(b, "tpp-rsa.cert.pem", "tpp-rsa.key.pem")
	rsaKey := key.(*rsa.PrivateKey)
	digest := sha256.Sum256([]byte("date: Mon, 02 Mar 2026 10:04:05 GMT\ndigest: SHA-256=..."))
	unsigned := &http.Client{Transport: canned}
	signed := &http.Client{Transport: &xs2a.Transport{Base: canned, Signer: signer, RedirectURI: "https://tpp.example/cb"}}
	p := measurePair(b, func() {
		if _, err := rsa.SignPKCS1v15(nil, rsaKey, crypto.SHA256, digest[:]); err != nil {
			b.Fatal(err)
		}
		sendPayment(b, unsigned)
	}, func() {
		sendPayment(b, signed)
	})
	p.report(b)
}

// BenchmarkSignECDSA: the same with the P-256 key; the floor signs with
// ecdsa.SignASN1.
func BenchmarkSignECDSA(b *testing.B) {
	signer, key := loadBenchKey(b, "tpp-ec.cert.pem", "tpp-ec.key.pem")
	ecKey := key.(*ecdsa.PrivateKey)
	digest := sha256.Sum256([]byte("date: Mon, 02 Mar 2026 10:04:05 GMT\ndigest: SHA-256=..."))
	unsigned := &http.Client{Transport: canned}
	signed := &http.Client{Transport: &xs2a.Transport{Base: canned, Signer: signer, RedirectURI: "https://tpp.example/cb"}}
	p := measurePair(b, func() {
		if _, err := ecdsa.SignASN1(rand.Reader, ecKey, digest[:]); err != nil {
			b.Fatal(err)
		}
		sendPayment(b, unsigned)
	}, func() {
		sendPayment(b, signed)
	})
	p.report(b)
}

// readySigner is a crypto.Signer that returns a signature made in advance:
// it takes the private-key operation out of the measurement.
type readySigner struct {
	pub crypto.PublicKey
	sig []byte
}

func (r readySigner) Public() crypto.PublicKey { return r.pub }
func (r readySigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return r.sig, nil
}

// replayBody is a request body that can be rewound, so that one request
// can be sent again and again without allocating.
type replayBody struct{ bytes.Reader }

func (*replayBody) Close() error { return nil }

// fixedRT answers every request with the same response, allocating nothing.
type fixedRT struct{ resp *http.Response }

func (f fixedRT) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return f.resp, nil
}

// BenchmarkSignOverhead: the SDK's own work per request (Date, X-Request-ID,
// body read, Digest, signing string, Signature header, request copy) with
// the RSA operation taken out by a crypto.Signer that returns a ready
// signature: Transport.RoundTrip over a base that allocates nothing, for the
// same payment request each time (RoundTrip leaves the caller's request
// alone, only its body is rewound). allocs/op and B/op are the SDK's alone.
func BenchmarkSignOverhead(b *testing.B) {
	rsaSigner, key := loadBenchKey(b, "tpp-rsa.cert.pem", "tpp-rsa.key.pem")
	digest := sha256.Sum256(nil)
	sig, err := rsa.SignPKCS1v15(nil, key.(*rsa.PrivateKey), crypto.SHA256, digest[:])
	if err != nil {
		b.Fatal(err)
	}
	signer, err := xs2a.NewSigner(readySigner{pub: key.Public(), sig: sig}, rsaSigner.Certificate())
	if err != nil {
		b.Fatal(err)
	}
	resp := &http.Response{StatusCode: http.StatusCreated, Header: http.Header{}, Body: http.NoBody}
	tr := &xs2a.Transport{Base: fixedRT{resp}, Signer: signer, RedirectURI: "https://tpp.example/cb"}
	body := &replayBody{}
	req, err := http.NewRequest(http.MethodPost, "https://psd2.bank.example/api/v1/payments/norwegian-domestic-credit-transfers", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Psu-Id"] = []string{"0b8c4f6e-1d2a-4e3b-8f9c-7a6b5c4d3e2f"}
	req.Header["Psu-Ip-Address"] = []string{"192.0.2.10"}
	req.Header["Tpp-Session-Id"] = []string{"5c0e7f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"}
	req.Body, req.ContentLength = body, int64(len(benchPaymentBody))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(benchPaymentBody)), nil }
	roundTrip := func() {
		body.Reset(benchPaymentBody)
		if _, err := tr.RoundTrip(req); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		roundTrip()
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1e3, "µs/op")
}
