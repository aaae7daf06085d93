package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// completionScript runs "xs2a completion shell" and returns the script.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := runCmd(t, nil, "completion", shell)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	return stdout
}

// flagLine finds the flags in a command's -h output.
var flagLine = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)

// TestCompletionSpecIsTheFlagSets: the flags completion knows of each
// command are the ones its -h lists, every command is there, and the
// words of sandbox, completion and help too: the scripts are made from
// the flag sets the commands parse.
func TestCompletionSpecIsTheFlagSets(t *testing.T) {
	t.Parallel()
	spec, err := completionSpec(context.Background())
	require.NoError(t, err)
	require.Len(t, spec, len(commands()))
	for i, c := range commands() {
		cc := spec[i]
		require.Equal(t, c.name, cc.name)
		_, usage, _ := runCmd(t, nil, c.name, "-h")
		var fromHelp, fromSpec []string
		for _, m := range flagLine.FindAllStringSubmatch(usage, -1) {
			fromHelp = append(fromHelp, m[1])
		}
		for _, f := range cc.flags {
			fromSpec = append(fromSpec, f.name)
		}
		assert.ElementsMatch(t, fromHelp, fromSpec, "%s: -h and completion list the same flags", c.name)
		switch c.name {
		case "accounts", "pay", "doctor", "fakebank", "sign":
			assert.NotEmpty(t, cc.flags, c.name)
		case "sandbox":
			assert.Equal(t, []string{"init", "customers"}, cc.words)
			assert.Contains(t, fromSpec, "base-url")
		case "completion":
			assert.Equal(t, []string{"bash", "zsh"}, cc.words)
		case "help":
			assert.Len(t, cc.words, len(commands()))
		}
	}
}

// TestCompletionBash: the bash script parses (bash -n), names every
// command and flag, and completes as a person expects when bash runs it:
// commands, a command's words, its flags.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	script := completionScript(t, "bash")
	file := filepath.Join(t.TempDir(), "xs2a.bash")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o600))
	out, err := exec.Command("bash", "-n", file).CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)

	spec, err := completionSpec(context.Background())
	require.NoError(t, err)
	for _, c := range spec {
		assert.Contains(t, script, "'"+c.name+"')", "command %s", c.name)
		for _, f := range c.flags {
			assert.Regexp(t, `(?m)^\t\tflags='[^']*-`+regexp.QuoteMeta(f.name)+`( |')`, script, "%s -%s", c.name, f.name)
		}
	}

	for _, tc := range []struct {
		words []string // the command line, the word completed last
		want  []string
	}{
		{[]string{"xs2a", "pa"}, []string{"pay"}},
		{[]string{"xs2a", "s"}, []string{"sandbox", "sign"}},
		{[]string{"xs2a", "--v"}, []string{"--version"}},
		{[]string{"xs2a", "pay", "-am"}, []string{"-amount"}},
		{[]string{"xs2a", "accounts", "-json", "-p"}, []string{"-p12", "-p12-password", "-psu-id", "-psu-ip"}},
		{[]string{"xs2a", "fakebank", "-ba"}, []string{"-base-path", "-batch-every"}},
		{[]string{"xs2a", "sandbox", ""}, []string{"init", "customers"}},
		{[]string{"xs2a", "sandbox", "customers", "-js"}, []string{"-json"}},
		{[]string{"xs2a", "completion", "z"}, []string{"zsh"}},
		{[]string{"xs2a", "help", "tr"}, []string{"transactions"}},
		{[]string{"xs2a", "doctor", "-h"}, []string{"-h"}},
	} {
		var quoted []string
		for _, w := range tc.words {
			quoted = append(quoted, shellQuote(w))
		}
		prog := "source " + shellQuote(file) + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(tc.words)-1) + "\n_xs2a\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command("bash", "-c", prog).CombinedOutput()
		require.NoError(t, err, "%s", out)
		got := strings.Fields(string(out))
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		assert.Equal(t, want, got, "%q", tc.words)
	}
}

// TestCompletionZsh: the zsh script defines _xs2a for compdef and fpath,
// describes every command and gives _arguments a spec for every flag:
// "-name=[usage]:value:" for a flag with a value, "-name[usage]" for a
// bool, file names after -p12, -cert and -key; brackets and quotes in a
// usage text are escaped.
func TestCompletionZsh(t *testing.T) {
	t.Parallel()
	script := completionScript(t, "zsh")
	assert.True(t, strings.HasPrefix(script, "#compdef xs2a\n"))
	assert.Contains(t, script, "compdef _xs2a xs2a")
	spec, err := completionSpec(context.Background())
	require.NoError(t, err)
	for _, c := range spec {
		assert.Contains(t, script, "\t\t'"+c.name+":", "command %s described", c.name)
		assert.Contains(t, script, "\t\t'"+c.name+"')", "command %s has its case", c.name)
		for _, f := range c.flags {
			assert.Contains(t, script, shellQuote(zshFlagSpec(f)), "%s -%s", c.name, f.name)
		}
	}
	assert.Contains(t, script, `'-p12=[PKCS#12 file with the TPP'\''s certificate and key]:value:_files'`)
	assert.Contains(t, script, `'-json[print JSON instead of a table]'`)
	assert.Contains(t, script, `'1:word:(init customers)'`)
	assert.Equal(t, `-x=[a \[b\] c\\d]:value: `, zshFlagSpec(compFlag{name: "x", usage: `a [b] c\d`}))
	// Every single quote is closed: the script's quotes pair up once the
	// escaped ones ('\'') are taken out.
	assert.Zero(t, strings.Count(strings.ReplaceAll(script, `'\''`, ""), "'")%2)
}
