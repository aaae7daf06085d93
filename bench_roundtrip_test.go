//go:build unix

package xs2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/xs2a"
)

// benchServerEnv makes the test binary a bank for BenchmarkRoundTripGET
// instead of running tests: the benchmark starts the binary again with it
// set, so that the server's work runs in another process and getrusage in
// the benchmark's process counts the client alone.
const benchServerEnv = "XS2A_BENCH_SERVER"

func init() {
	if os.Getenv(benchServerEnv) == "1" {
		os.Exit(runBenchServer())
	}
}

// benchBalances is a balances answer of the platform's shape.
const benchBalances = `{"account":{"bban":"12345678903","iban":"NO9312345678903","currency":"NOK"},` +
	`"balances":[{"balanceAmount":{"amount":"100.26","currency":"NOK"},"balanceType":"closingBooked","referenceDate":"2026-03-01"},` +
	`{"balanceAmount":{"amount":"1234.50","currency":"NOK"},"balanceType":"expected","lastChangeDateTime":"2026-03-02T09:15:00+01:00"}],` +
	`"_links":{"account":{"href":"/v1/accounts/acc-1","verbs":["GET"]}}}`

// runBenchServer serves benchBalances on a loopback port, writes the
// address to stdout and returns when stdin closes (the benchmark ended or
// died).
func runBenchServer() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/accounts/acc-1/balances" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchBalances)
	}))
	os.Stdout.WriteString(ln.Addr().String() + "\n")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startBenchServer runs the test binary as the bank and returns its
// address; the process ends with the benchmark.
func startBenchServer(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchServerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("bench server: %v", err)
	}
	return strings.TrimSpace(addr)
}

// cpuTime is the CPU time (user and system) used so far by this process,
// all threads together (getrusage RUSAGE_SELF: exact for the calling
// thread, the others' time counted at their last context switch or tick,
// which averages out over many calls).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRoundTripGET: a signed GET, client.Accounts.Balances, against a
// bank on a loopback port, with the RSA operation taken out (readySigner).
// The bank runs in a child process (this test binary started again, see
// benchServerEnv), so that the process CPU time read with getrusage around
// each call is the client's alone: the SDK, net/http's client side
// (connection kept alive, reads and writes) and the kernel's work in the
// client's system calls, plus the garbage collector's share.
//
// Each iteration also sends the floor: the same GET by a bare http.Client
// (no signature, no Digest; Accept, X-Request-ID, PSU-ID, PSU-IP-Address and
// TPP-Redirect-URI set by hand; the body decoded into the same Balances).
// Reported, per request:
//   - ns/op, floor-ns/op: wall time of the round trip (the bank's work and
//     the loopback included; the machine has 2 shared cores, so noisy);
//   - cpu-ns/op, floor-cpu-ns/op: the client process's CPU time;
//   - sdk-cpu-ns/op: cpu-ns/op minus floor-cpu-ns/op, what the SDK adds;
//   - client-allocs/op, client-B/op (the SDK path), floor-allocs/op and
//     floor-B/op: allocations in the client process (the bank allocates in
//     its own).
//
// Run it with
//
//	go test -run='^$' -bench=RoundTripGET -benchtime=2s -count=5 .
func BenchmarkRoundTripGET(b *testing.B) {
	addr := startBenchServer(b)
	base := "http://" + addr + "/api"
	c, err := xs2a.NewClient(base, readySignerFor(b), xs2a.WithRedirectURI("https://tpp.example/cb"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	psu := xs2a.PSU{ID: "0b8c4f6e-1d2a-4e3b-8f9c-7a6b5c4d3e2f", IPAddress: "192.0.2.10"}
	ctx := context.Background()
	sdk := func() {
		bal, _, err := c.Accounts.Balances(ctx, psu, "acc-1")
		if err != nil || len(bal.Balances) != 2 {
			b.Fatalf("Balances: %v", err)
		}
	}

	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	b.Cleanup(hc.CloseIdleConnections)
	floorURL := base + "/v1/accounts/acc-1/balances"
	floor := func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, floorURL, nil)
		if err != nil {
			b.Fatal(err)
		}
		h := req.Header
		h["Accept"] = []string{"application/json"}
		h["X-Request-Id"] = []string{uuid.NewString()}
		h["Psu-Id"] = []string{psu.ID}
		h["Psu-Ip-Address"] = []string{psu.IPAddress}
		h["Tpp-Redirect-Uri"] = []string{"https://tpp.example/cb"}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var bal xs2a.Balances
		if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(body, &bal) != nil || len(bal.Balances) != 2 {
			b.Fatalf("floor: status %d, %v", resp.StatusCode, err)
		}
	}

	allocs, bytes := allocsPerRun(20, sdk)
	floorAllocs, floorBytes := allocsPerRun(20, floor)
	var wall, floorWall, cpu, floorCPU time.Duration
	n := 0
	b.ResetTimer()
	for b.Loop() {
		c0, t0 := cpuTime(b), time.Now()
		floor()
		c1, t1 := cpuTime(b), time.Now()
		sdk()
		c2, t2 := cpuTime(b), time.Now()
		floorCPU += c1 - c0
		floorWall += t1.Sub(t0)
		cpu += c2 - c1
		wall += t2.Sub(t1)
		n++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
	b.ReportMetric(per(wall), "ns/op")
	b.ReportMetric(per(floorWall), "floor-ns/op")
	b.ReportMetric(per(cpu), "cpu-ns/op")
	b.ReportMetric(per(floorCPU), "floor-cpu-ns/op")
	b.ReportMetric(per(cpu)-per(floorCPU), "sdk-cpu-ns/op")
	b.ReportMetric(allocs, "client-allocs/op")
	b.ReportMetric(bytes, "client-B/op")
	b.ReportMetric(floorAllocs, "floor-allocs/op")
	b.ReportMetric(floorBytes, "floor-B/op")
}
