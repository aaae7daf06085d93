package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a"
)

// TestHelpEveryCommand: every command's -h, -help and --help, and "xs2a
// help <command>", print its usage on standard output and exit 0, the
// same text each way; its flags' environment variables are listed.
func TestHelpEveryCommand(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		// sandbox's words take the same flags; "sandbox -h" shows them.
		for _, words := range [][]string{nil, c.words[:min(1, len(c.words))]} {
			if c.name != "sandbox" && len(words) > 0 {
				continue
			}
			name := strings.Join(append([]string{c.name}, words...), " ")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var first string
				for _, args := range [][]string{
					append(append([]string{c.name}, words...), "-h"),
					append(append([]string{c.name}, words...), "-help"),
					append(append([]string{c.name}, words...), "--help"),
					append([]string{"help", c.name}, words...),
				} {
					code, stdout, stderr := runCmd(t, nil, args...)
					require.Equal(t, 0, code, "%q: %s", args, stderr)
					assert.Empty(t, stderr, "%q", args)
					assert.True(t, strings.HasPrefix(stdout, "Usage: xs2a "+c.name), "%q: %s", args, stdout)
					if first == "" {
						first = stdout
					}
					assert.Equal(t, first, stdout, "%q prints the same usage", args)
				}
				switch c.name {
				case "accounts", "balances", "transactions", "pay", "sandbox":
					for _, s := range []string{"-base-url", "XS2A_BASE_URL", "XS2A_P12_PASSWORD", "XS2A_PSU_ID", "XS2A_REDIRECT_URI"} {
						assert.Contains(t, first, s)
					}
				case "doctor", "sign":
					assert.Contains(t, first, "XS2A_CERT")
				case "fakebank", "version", "help", "completion":
					assert.NotContains(t, first, "Environment")
				}
			})
		}
	}
}

// TestHelpOverview: the overview on -h, -help, --help and help (exit 0,
// standard output) lists every command and the environment; no command,
// an unknown one or help about an unknown one is a usage error (exit 2,
// standard error) that names it.
func TestHelpOverview(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}} {
		code, stdout, stderr := runCmd(t, nil, args...)
		require.Equal(t, 0, code, "%q", args)
		assert.Empty(t, stderr)
		for _, c := range commands() {
			assert.Contains(t, stdout, "  "+c.name+" ", "%q lists %s", args, c.name)
		}
		for _, v := range envVars {
			assert.Contains(t, stdout, v.name)
		}
		assert.Contains(t, stdout, "2 on a usage error")
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{nil, "Usage: xs2a <command>"},
		{[]string{"frobnicate"}, `xs2a: unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `xs2a: help: unknown command "frobnicate"`},
		{[]string{"completion", "fish"}, "xs2a: completion: want bash or zsh"},
		{[]string{"completion"}, "xs2a: completion: want bash or zsh"},
		{[]string{"version", "extra"}, `xs2a: version: unexpected argument "extra"`},
	} {
		code, stdout, stderr := runCmd(t, nil, tc.args...)
		assert.Equal(t, 2, code, "%q", tc.args)
		assert.Empty(t, stdout, "%q", tc.args)
		assert.Contains(t, stderr, tc.stderr, "%q", tc.args)
	}
}

// TestVersion: the module version of the build information, the VCS
// revision for a "(devel)" build from a clone, and the SDK's version.
func TestVersion(t *testing.T) {
	t.Parallel()
	info := func(version string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/tppkit/xs2a", Version: version}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "3e7ab41c0f2a9d8e7f6a5b4c3d2e1f0a9b8c7d6e"}
	for _, tc := range []struct {
		name string
		args []string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"installed @v1.2.0", []string{"version"}, info("v1.2.0", rev), "xs2a version v1.2.0 (SDK " + xs2a.Version + ", go"},
		{"clone", []string{"version"}, info("(devel)", rev), "xs2a version (devel) 3e7ab41c0f2a (SDK "},
		{"clone with changes", []string{"version"}, info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "xs2a version (devel) 3e7ab41c0f2a+dirty (SDK "},
		{"clone without VCS", []string{"version"}, info(""), "xs2a version (devel) (SDK "},
		{"no build information", []string{"version"}, func() (*debug.BuildInfo, bool) { return nil, false }, "xs2a version unknown (SDK "},
		{"--version", []string{"--version"}, info("v1.2.0"), "xs2a version v1.2.0 "},
		{"-version", []string{"-version"}, info("v1.2.0"), "xs2a version v1.2.0 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, func(e *env) { e.buildInfo = tc.read }, tc.args...)
			require.Equal(t, 0, code, stderr)
			assert.True(t, strings.HasPrefix(stdout, tc.want), stdout)
			assert.Equal(t, 1, strings.Count(stdout, "\n"), "one line")
		})
	}
}

// TestUsageErrorsNameTheFlag: a value the SDK refuses before sending is a
// usage error (exit 2) that names the flag as typed, or the environment
// variable that gave it, never the Go field the SDK names.
func TestUsageErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	withEnv := func(vars map[string]string) func(*env) {
		return func(e *env) { e.getenv = func(k string) string { return vars[k] } }
	}
	for _, tc := range []struct {
		name  string
		setup func(*env)
		args  []string
		want  string
	}{
		{"amount not a decimal", nil, []string{"pay", "-amount", "12,50"}, "pay: -amount: must be a decimal number"},
		{"amount zero", nil, []string{"pay", "-amount", "0.00"}, "pay: -amount: must be greater than zero"},
		{"currency", nil, []string{"pay", "-currency", "nok"}, "pay: -currency: must be an ISO 4217 currency code"},
		{"creditor account", nil, []string{"pay", "-to", "12345678900"}, "pay: -to: must be a Norwegian account number"},
		{"debtor account", nil, []string{"pay", "-from", "1234"}, "pay: -from: must be a Norwegian account number"},
		{"creditor name", nil, []string{"pay", "-creditor-name", ""}, "pay: -creditor-name: is required"},
		{"message", nil, []string{"pay", "-message", "emoji \U0001F600"}, "pay: -message: has a character the bank cannot process"},
		{"product", nil, []string{"pay", "-product", "SEPA"}, "pay: -product: must be a payment product"},
		{"psu-ip", nil, []string{"accounts", "-psu-ip", "localhost"}, "accounts: -psu-ip: must be an IPv4 or IPv6 address"},
		{"psu-id", nil, []string{"balances", "-psu-id", "kari"}, "balances: -psu-id: must be the RFC 4122 UUID"},
		{"psu-id from the environment", withEnv(map[string]string{"XS2A_PSU_ID": "kari"}), []string{"transactions"}, "transactions: XS2A_PSU_ID: must be the RFC 4122 UUID"},
		{"account", nil, []string{"balances", "-account", ".."}, "balances: -account: must not be a dot segment"},
		{"session-id", nil, []string{"accounts", "-session-id", strings.Repeat("s", 201)}, "accounts: -session-id: must be 1 to 200 printable ASCII"},
		{"transactions account", nil, []string{"transactions", "-account", "."}, "transactions: -account: must not be a dot segment"},
		{"dates the wrong way round", nil, []string{"transactions", "-from", "2025-02-01", "-to", "2025-01-01"}, "transactions: -to 2025-01-01 is before -from 2025-02-01"},
		{"base-url", nil, []string{"accounts", "-base-url", "ftp://bank.example/api", "-cert", c.cert, "-key", c.key, "-redirect-uri", "http://127.0.0.1:0/cb"}, "accounts: -base-url: must be an absolute http(s) URL"},
		{"base-url from the environment", withEnv(map[string]string{"XS2A_BASE_URL": "ftp://bank.example/api", "XS2A_CERT": c.cert, "XS2A_KEY": c.key}),
			[]string{"accounts", "-redirect-uri", "http://127.0.0.1:0/cb"}, "accounts: XS2A_BASE_URL: must be an absolute http(s) URL"},
		{"redirect-uri from the environment", withEnv(map[string]string{"XS2A_REDIRECT_URI": "ftp://127.0.0.1/cb"}),
			[]string{"accounts", "-base-url", "https://bank.example/api", "-cert", c.cert, "-key", c.key}, "XS2A_REDIRECT_URI: -redirect-uri"},
		{"unknown flag", nil, []string{"pay", "-amuont", "1"}, "flag provided but not defined: -amuont"},
		{"bad duration", nil, []string{"accounts", "-timeout", "soon"}, `invalid value "soon" for flag -timeout`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, tc.setup, tc.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			assert.True(t, strings.HasPrefix(last, "xs2a: "), last)
			assert.Contains(t, last, tc.want)
			for _, goName := range []string{"Payment.", "PSU.", "TransactionsOptions", "accountID", "baseURL", "RedirectURI", " product:", "invalid "} {
				if goName != "invalid " || !strings.Contains(tc.want, "invalid value") {
					assert.NotContains(t, last, goName, "names the flag, not the Go field")
				}
			}
		})
	}
}
