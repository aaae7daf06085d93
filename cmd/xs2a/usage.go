package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tppkit/xs2a"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// envVar is an environment variable that gives a flag its value when the
// command line does not.
type envVar struct{ name, flag, note string }

// envVars are the command's environment variables, in the order help
// lists them. The certificate ones count as one: they apply only when none
// of -p12, -cert and -key is given (see certFlags.fromEnv).
var envVars = []envVar{
	{"XS2A_BASE_URL", "base-url", ""},
	{"XS2A_P12", "p12", "the certificate: XS2A_P12, or XS2A_CERT and XS2A_KEY"},
	{"XS2A_P12_PASSWORD", "p12-password", ""},
	{"XS2A_CERT", "cert", ""},
	{"XS2A_KEY", "key", ""},
	{"XS2A_REDIRECT_URI", "redirect-uri", ""},
	{"XS2A_PSU_ID", "psu-id", ""},
	{"XS2A_SESSION_ID", "session-id", ""},
}

// printEnv lists the environment variables of the flags has holds (all of
// them when has is nil).
func printEnv(w io.Writer, has func(flag string) bool) {
	var lines []string
	for _, v := range envVars {
		if has == nil || has(v.flag) {
			l := fmt.Sprintf("  %-19s -%s", v.name, v.flag)
			if v.note != "" {
				l += " (" + v.note + ")"
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nEnvironment (a flag on the command line wins):")
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// printUsage writes the overview: the commands, the environment and the
// exit status.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: xs2a <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	printEnv(w, nil)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Exit status: 0 on success, 1 on a failure (the bank refused, a payment lacks funds), 2 on a usage error.")
	fmt.Fprintln(w, "Run 'xs2a help <command>' or 'xs2a <command> -h' for a command's flags.")
}

// newFlags returns a flag set for a subcommand whose errors come back from
// parse instead of being printed.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args; -h, -help or --help prints the usage on stdout
// (flag.ErrHelp, exit 0), a bad flag or a stray argument is a usage error.
func parse(e *env, fs *flag.FlagSet, synopsis string, args []string) error {
	words, err := parseWords(e, fs, synopsis, args)
	if err == nil && len(words) > 0 {
		return usagef("%s: unexpected argument %q (see xs2a %s -h)", fs.Name(), words[0], fs.Name())
	}
	return err
}

// parseWords is parse for a command that takes words after its flags
// ("completion bash"), which it returns; a help flag among the words is
// help too. Under e.describe nothing is parsed: the flag set is handed
// over and the error is flag.ErrHelp.
func parseWords(e *env, fs *flag.FlagSet, synopsis string, args []string) ([]string, error) {
	if e.describe != nil {
		e.describe(fs)
		return nil, flag.ErrHelp
	}
	err := fs.Parse(args)
	if err == nil && slices.ContainsFunc(fs.Args(), isHelp) {
		err = flag.ErrHelp
	}
	if errors.Is(err, flag.ErrHelp) {
		printFlags(e.stdout, fs, synopsis)
		return nil, flag.ErrHelp
	}
	if err != nil {
		return nil, usagef("%s: %v (see xs2a %s -h)", fs.Name(), err, fs.Name())
	}
	return fs.Args(), nil
}

// printFlags writes a command's usage: its synopsis, its flags and the
// environment variables of those flags.
func printFlags(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "Usage: xs2a %s\n", synopsis)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	printEnv(w, func(name string) bool { return fs.Lookup(name) != nil })
}

// setFlags returns the names of the flags the command line gave.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// flagFields maps the Field of an SDK *xs2a.ValidationError (a Go path
// such as "Payment.InstructedAmount.Amount") to the flag that fed it, for
// a value the command built from its flags.
type flagFields map[string]string

// usage turns err, when it is a *xs2a.ValidationError of a field fields
// names (the field itself or one below it), into a usage error of cmd that
// names the flag, as the person typed it, instead of the Go field. Any
// other error is returned as it is.
func (fields flagFields) usage(cmd string, err error) error {
	var ve *xs2a.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	best := ""
	for field := range fields {
		if (ve.Field == field || strings.HasPrefix(ve.Field, field+".") || strings.HasPrefix(ve.Field, field+"[")) && len(field) > len(best) {
			best = field
		}
	}
	if best == "" {
		return err
	}
	return usagef("%s: %s: %s (see xs2a %s -h)", cmd, fields[best], ve.Reason, strings.Fields(cmd)[0])
}
