// Command xs2a is the SDK's terminal tool: it runs the fake bank as a server
// for a TPP in any language, calls a bank (the embedded fake bank, or a real
// one with the TPP's certificate), shows how a request is signed, and checks
// a certificate and key pair.
//
//	xs2a fakebank [-addr 127.0.0.1:8080] [-tls] [-base-path /api] [-seed N]
//	xs2a accounts | balances | transactions | pay [-base-url URL -p12 FILE]
//	xs2a sandbox init | sandbox customers
//	xs2a sign -url URL [-method GET] [-body JSON]
//	xs2a doctor -p12 FILE | -cert FILE -key FILE [-base-url URL]
//
// With -base-url, the command listens on -redirect-uri for the bank's
// redirect after SCA. It gives the bank that URI with a random state added,
// and takes only the callback of the SCA it started: a GET with that state
// and the TPP-Session-ID it sent (a failed SCA's redirect may carry none),
// once, that is no other site's image, frame or script request. Any other
// request gets a short error page and the command goes on waiting.
//
// Text from the bank (names, transaction texts, error texts, links) is
// printed without control, bidi or format characters: they are shown
// escaped ("\u202e") in tables, on standard error and in links, and as
// \u escapes in -json output, which decodes to the bank's text.
//
// Each subcommand's -h lists its flags. The exit status is 0 on success, 1
// on a failure and 2 on a usage error; errors go to standard error as one
// line starting "xs2a: ".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a subcommand may use of its surroundings; tests replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// open shows a URL to the person at the terminal (xdg-open); nil: never.
	open func(url string) error
	now  func() time.Time // the local clock (doctor)
}

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"fakebank", "run the fake bank on a port, for a TPP in any language", runFakebank},
		{"accounts", "list the accounts a customer consents to", runAccounts},
		{"balances", "show an account's balances", runBalances},
		{"transactions", "list an account's transactions, every page", runTransactions},
		{"pay", "initiate a payment and have the customer sign it", runPay},
		{"sandbox", "sandbox init | sandbox customers", runSandbox},
		{"sign", "print the headers, signing string and Signature of a request", runSign},
		{"doctor", "check a certificate and key pair, and the clock against a bank", runDoctor},
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// run runs the command line args (without the program name) and returns
// the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, open: xdgOpen, now: time.Now}
	return runEnv(ctx, e, args)
}

func runEnv(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(e, c.run(ctx, e, args[1:]))
		}
	}
	return exitCode(e, usagef("unknown command %q (see xs2a -h)", args[0]))
}

// exitCode reports err on one inert line (see line) and maps it to the
// exit status.
func exitCode(e *env, err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(e.stderr, "xs2a:", line(err.Error()))
		return 2
	default:
		fmt.Fprintln(e.stderr, "xs2a:", line(strings.TrimPrefix(err.Error(), "xs2a: ")))
		return 1
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: xs2a <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'xs2a <command> -h' for a command's flags.")
}

// newFlags returns a flag set for a subcommand whose errors come back from
// parse instead of being printed.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args; -h prints the usage on stdout (flag.ErrHelp, exit 0),
// a bad flag or a stray argument is a usage error.
func parse(e *env, fs *flag.FlagSet, synopsis string, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(e.stdout, "Usage: xs2a %s\n\n", synopsis)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		return flag.ErrHelp
	}
	if err != nil {
		return usagef("%s: %v (see xs2a %s -h)", fs.Name(), err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (see xs2a %s -h)", fs.Name(), fs.Arg(0), fs.Name())
	}
	return nil
}
