package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakebank is an `xs2a fakebank` running in-process on a free port.
type fakebank struct {
	url    string
	stdout *bytes.Buffer // the rest of its output, read after stop
	stop   func() (code int, stderr string)
}

// startFakebank runs `xs2a fakebank -addr 127.0.0.1:0 args...` until the
// test ends (or stop), and reads the base URL from its first line.
func startFakebank(t *testing.T, args ...string) *fakebank {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"fakebank", "-addr", "127.0.0.1:0"}, args...), strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	first, err := br.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("fakebank did not start: %v; stderr: %s", err, stderr.String())
	}
	f := &fakebank{stdout: new(bytes.Buffer)}
	fields := strings.Fields(first)
	require.GreaterOrEqual(t, len(fields), 3, first)
	f.url = fields[2]
	copied := make(chan struct{})
	go func() { io.Copy(f.stdout, br); close(copied) }()
	var code = -1
	f.stop = func() (int, string) {
		if code == -1 {
			cancel()
			code = <-done
			<-copied
		}
		return code, stderr.String()
	}
	t.Cleanup(func() { f.stop() })
	return f
}

// TestFakebankScript: a TPP written in bash with curl and openssl (its own
// self-signed certificate) drives `xs2a fakebank` over loopback: it resets
// the sandbox, lists customers, is refused unsigned and gets 401 with a
// scaRedirect when signed.
func TestFakebankScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for this test: %v", tool, err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"http", nil},
		{"tls at the root", []string{"-tls", "-base-path", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFakebank(t, tc.args...)
			cmd := exec.Command("bash", "testdata/curl-client.sh", f.url)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "script output:\n%s", out)
			assert.Contains(t, string(out), "PASS")
			code, stderr := f.stop()
			assert.Equal(t, 0, code, stderr)
			assert.Contains(t, f.stdout.String(), "stopped")
		})
	}
}

// TestFakebankOutput: the banner lists the sandbox customers; -seed gives
// the same data on every start.
func TestFakebankOutput(t *testing.T) {
	t.Parallel()
	a := startFakebank(t, "-seed", "7")
	b := startFakebank(t, "-seed", "7")
	a.stop()
	b.stop()
	assert.Contains(t, a.stdout.String(), "Kari Nordmann")
	assert.Contains(t, a.stdout.String(), "CORPORATE")
	accounts := func(s string) string { return s[strings.Index(s, "CUSTOMER"):strings.Index(s, "Every request")] }
	assert.Equal(t, accounts(a.stdout.String()), accounts(b.stdout.String()))
}

// TestFakebankErrors: bad flags are usage errors (2), an address in use a
// failure (1), -h exits 0 with the usage on standard output.
func TestFakebankErrors(t *testing.T) {
	t.Parallel()
	busy := startFakebank(t)
	addr := strings.TrimPrefix(strings.TrimSuffix(busy.url, "/api"), "http://")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		stdout string
	}{
		{"help", []string{"-h"}, 0, "", "Usage: xs2a fakebank"},
		{"unknown flag", []string{"-nope"}, 2, "xs2a: fakebank: flag provided but not defined: -nope", ""},
		{"bad fault key", []string{"-fault", "paht=/v1"}, 2, `unknown key "paht"`, ""},
		{"bad fault status", []string{"-fault", "status=200"}, 2, "want an error status", ""},
		{"bad time", []string{"-time", "yesterday"}, 2, "not an RFC 3339 time", ""},
		{"stray argument", []string{"extra"}, 2, `unexpected argument "extra"`, ""},
		{"address in use", []string{"-addr", addr}, 1, "address already in use", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, append([]string{"fakebank"}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.stderr)
			assert.Contains(t, stdout, tc.stdout)
			assert.LessOrEqual(t, strings.Count(stderr, "\n"), 1, "one line: %q", stderr)
		})
	}
}

// TestFakebankFault: a -fault flag reaches the fake bank, and a client
// subcommand with -base-url and a certificate reports its answer.
func TestFakebankFault(t *testing.T) {
	t.Parallel()
	f := startFakebank(t, "-fault", "method=GET,path=/v1/sandbox/customers,status=403")
	c := ecCerts(t)
	code, _, stderr := runCmd(t, nil, "sandbox", "customers", "-base-url", f.url, "-cert", c.cert, "-key", c.key)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "403")
}

// TestFakebankDropsHalfOpenConnections: a thousand connections that send
// part of a request line and then nothing are closed by the server once
// its read-header timeout passes (here 200 ms), not kept. Each
// connection's read waits for the server to close it (EOF), under a
// generous deadline that only a connection kept open would reach.
func TestFakebankDropsHalfOpenConnections(t *testing.T) {
	t.Parallel()
	f := startFakebank(t, "-read-header-timeout", "200ms")
	addr := strings.TrimPrefix(strings.TrimSuffix(f.url, "/api"), "http://")
	const n = 1000
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = io.WriteString(c, "GET /api/v1/sandbox/cust")
		require.NoError(t, err)
	}
	deadline := time.Now().Add(time.Minute)
	errs := make(chan error, n)
	for _, c := range conns {
		go func() {
			if err := c.SetReadDeadline(deadline); err != nil {
				errs <- err
				return
			}
			_, err := io.Copy(io.Discard, c) // until the server closes it
			errs <- err
		}()
	}
	for range n {
		err := <-errs
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("a half-open connection was kept open: %v", err)
		}
		require.False(t, err != nil && !errors.Is(err, syscall.ECONNRESET), "closed with %v", err)
	}
}

// TestFakebankControl: the control API is on by default, outside the base
// path, unsigned; -control=false turns it off (404); the banner names it.
func TestFakebankControl(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		status int
	}{
		{"on by default", nil, 200},
		{"at the root", []string{"-base-path", ""}, 200},
		{"off", []string{"-control=false"}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFakebank(t, tc.args...)
			u, err := url.Parse(f.url)
			require.NoError(t, err)
			resp, err := http.Post("http://"+u.Host+"/_control/batch", "application/json", nil)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode, "%s", body)
			f.stop()
			if tc.status == 200 {
				assert.Contains(t, string(body), `"now"`)
				assert.Contains(t, f.stdout.String(), "Control API (unsigned, for tests; -control=false turns it off): http://"+u.Host+"/_control")
			} else {
				assert.Contains(t, string(body), "RESOURCE_UNKNOWN")
				assert.NotContains(t, f.stdout.String(), "Control API")
			}
		})
	}
	code, _, stderr := runCmd(t, nil, "fakebank", "-addr", "127.0.0.1:0", "-base-path", "/_control")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "control API")
}
