// Package python_test runs the Python TPP of this directory (xs2a_client.py)
// against `xs2a fakebank`, built from cmd/xs2a and started on a free port,
// as a TPP in another language would run it.
package python_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// installHint is what a machine without Python or its cryptography package
// needs; the test fails with it rather than skip.
const installHint = "apt-get install -y python3-cryptography"

// python returns the python3 command, failing the test when it or the
// cryptography module is missing.
func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed for the Python TPP test (%v): %s", err, installHint)
	}
	if out, err := exec.Command(py, "-c", "import cryptography").CombinedOutput(); err != nil {
		t.Fatalf("the Python cryptography module is needed for the Python TPP test (%v: %s): %s", err, out, installHint)
	}
	return py
}

// buildXS2A builds the xs2a command into the test's temporary directory.
func buildXS2A(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "xs2a")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/xs2a").CombinedOutput(); err != nil {
		t.Fatalf("go build ../../cmd/xs2a: %v\n%s", err, out)
	}
	return bin
}

var urlInBanner = regexp.MustCompile(`https?://\S+`)

// startFakebank runs `xs2a fakebank -addr 127.0.0.1:0 args...` until the test
// ends and returns the base URL from the first line it prints.
func startFakebank(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"fakebank", "-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-done; err != nil {
			t.Errorf("xs2a fakebank did not stop cleanly: %v; stderr: %s", err, stderr.String())
		}
	})
	br := bufio.NewReader(stdout)
	first, err := br.ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, br)
		done <- cmd.Wait()
	}()
	if err != nil {
		t.Fatalf("xs2a fakebank did not start: %v; stderr: %s", err, stderr.String())
	}
	u := urlInBanner.FindString(first)
	if u == "" {
		t.Fatalf("no base URL in the fake bank's first line %q", first)
	}
	return u
}

// TestPythonTPP runs examples/python/xs2a_client.py against a default
// `xs2a fakebank` (and one over TLS at the root): the whole flow (sandbox
// customers, consent through the SCA page's form, accounts, balances,
// transaction pages with pending entries, a payment signed and polled
// until PDNG, a payment cancelled) must pass; its transcript is the
// failure message. A fault on the SCA page must make it fail, with a
// non-zero exit and the reason: a client that cannot fail proves nothing.
func TestPythonTPP(t *testing.T) {
	py := python(t)
	bin := buildXS2A(t)
	for _, tc := range []struct {
		name       string
		bankArgs   []string
		clientArgs []string
		fail       string // the FAIL line the client must print; "" for PASS
	}{
		{"default fakebank", nil, nil, ""},
		{"tls at the root", []string{"-tls", "-base-path", ""}, []string{"--insecure"}, ""},
		{"the SCA page fails", []string{"-fault", "path=/sca/,method=POST,status=500,times=1"}, nil,
			"FAIL: the callback has no psu-id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := startFakebank(t, bin, tc.bankArgs...)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			out, err := exec.CommandContext(ctx, py, append([]string{"xs2a_client.py", base}, tc.clientArgs...)...).CombinedOutput()
			took := time.Since(start)
			transcript := string(out)
			if tc.fail == "" {
				if err != nil || !strings.Contains(transcript, "\nPASS") {
					t.Fatalf("the Python TPP failed (%v) against %s; transcript:\n%s", err, base, transcript)
				}
				t.Logf("the Python flow took %v (process included) against %s", took.Round(time.Millisecond), base)
				return
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("want exit status 1, got %v; transcript:\n%s", err, transcript)
			}
			if !strings.Contains(transcript, tc.fail) || strings.Contains(transcript, "\nPASS") {
				t.Fatalf("want %q and no PASS; transcript:\n%s", tc.fail, transcript)
			}
		})
	}
}
