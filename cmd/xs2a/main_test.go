package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// runCmd runs the command line in-process; setup, when not nil, adjusts
// the env first (variables, the browser hook). It returns the exit status
// and what was written to standard output and error.
func runCmd(t *testing.T, setup func(*env), args ...string) (int, string, string) {
	t.Helper()
	return runCmdContext(t, context.Background(), setup, args...)
}

// runCmdContext is runCmd under ctx (a test ends a command that waits).
func runCmdContext(t *testing.T, ctx context.Context, setup func(*env), args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, now: time.Now}
	if setup != nil {
		setup(e)
	}
	code := runEnv(ctx, e, args)
	return code, stdout.String(), stderr.String()
}

// TestUsage: the command's own usage and its mistakes.
func TestUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"help", []string{"-h"}, 0, "Usage: xs2a <command>", ""},
		{"long help", []string{"--help"}, 0, "fakebank", ""},
		{"no command", nil, 2, "", "Usage: xs2a <command>"},
		{"unknown command", []string{"frobnicate"}, 2, "", `xs2a: unknown command "frobnicate"`},
		{"sandbox without what", []string{"sandbox"}, 2, "", "xs2a: sandbox: want init or customers"},
		{"sandbox help", []string{"sandbox", "-h"}, 0, "Usage: xs2a sandbox", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, tc.args...)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}

// TestLine: a bank's text reaches the terminal as one line, its escape
// sequences and bidi controls shown escaped, not acted on.
func TestLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text":                                       "plain text",
		"two\nlines\tand\r\ntabs":                          "two lines and tabs",
		"\x1b[2Jcleared \x1b]0;title\a":                    `\x1b[2Jcleared \x1b]0;title\x07`,
		"nul\x00 and del\x7f":                              `nul\x00 and del\x7f`,
		"ﬁne ünïcode":                                      "ﬁne ünïcode",
		"left\u202eright\u2066 next\u0085line\u2028\u200b": `left\u202eright\u2066 next line \u200b`,
	} {
		if got := line(in); got != want {
			t.Errorf("line(%q) = %q, want %q", in, got, want)
		}
	}
}
