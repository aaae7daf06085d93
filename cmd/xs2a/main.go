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
//	xs2a completion bash | zsh
//	xs2a version
//	xs2a help [command]
//
// Install it from a clone with "go install ./cmd/xs2a", or with
// "go install github.com/tppkit/xs2a/cmd/xs2a@latest".
//
// # Help and exit status
//
// "xs2a help", "xs2a -h", "-help" and "--help" print the overview of the
// commands on standard output; "xs2a help <command>" and a command's -h,
// -help or --help print its usage and flags there. Each exits 0. The exit
// status is otherwise 0 on success, 1 on a failure (the bank refused, a
// payment lacks funds, a certificate cannot be used) and 2 on a usage
// error: an unknown command or flag, a flag's value the SDK refuses before
// sending. A usage error names the flag as it is typed ("-amount"), or the
// environment variable that gave the value; errors go to standard error as
// one line starting "xs2a: ".
//
// # Environment
//
// XS2A_BASE_URL, XS2A_REDIRECT_URI, XS2A_PSU_ID, XS2A_SESSION_ID and
// XS2A_P12_PASSWORD give the flag of the same name when the command line does not give it (a flag
// given, even empty, wins: -base-url "" calls the embedded fake bank).
// XS2A_P12, or XS2A_CERT with XS2A_KEY, give the certificate when none of
// -p12, -cert and -key is on the command line. "xs2a help" lists them.
//
// # The SCA callback
//
// With -base-url, the command listens on -redirect-uri for the bank's
// redirect after SCA. It gives the bank that URI with a random state added,
// and takes only the callback of the SCA it started: a GET with that state
// and the TPP-Session-ID it sent (a failed SCA's redirect may carry none),
// once, that is no other site's image, frame or script request. Any other
// request gets a short error page and the command goes on waiting.
//
// After an SCA the callback's psu-id and the TPP-Session-ID the SCA was
// started under are printed on standard error. The next run needs no SCA
// with -psu-id and -session-id within the SCA's hour, or with -psu-id and
// -psu-ip "" (the customer absent: the bank allows 4 such reads a day per
// account), while the consent lasts. The embedded fake bank forgets both
// when the run ends.
//
// # Output
//
// Tables are for a person: a long name or text is shortened with "…" at a
// word boundary, and a balance's date is its referenceDate, else its
// lastChangeDateTime, else "as of" the time of the bank's answer. -json is
// for scripts: nothing is shortened, and transactions come as
// {"booked": [...], "pending": [...]} as the bank groups them. pay exits 1
// when the bank refuses the payment (RJCT, CANC) or reports fundsAvailable
// false, after printing the status.
//
// Text from the bank (names, transaction texts, error texts, links) is
// printed without control, bidi or format characters: they are shown
// escaped ("\u202e") in tables, on standard error and in links, and as
// \u escapes in -json output, which decodes to the bank's text.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
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
	// buildInfo is debug.ReadBuildInfo (version); tests replace it.
	buildInfo func() (*debug.BuildInfo, bool)
	// describe, when set, is handed each flag set parse sees instead of
	// the flags being parsed; parse then returns flag.ErrHelp, so the
	// command does nothing (completion reads the flag sets this way).
	describe func(*flag.FlagSet)
}

// command is one subcommand. words are the words it takes after its name
// ("sandbox init"), for completion.
type command struct {
	name, summary string
	words         []string
	run           func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"fakebank", "run the fake bank on a port, for a TPP in any language", nil, runFakebank},
		{"accounts", "list the accounts a customer consents to", nil, runAccounts},
		{"balances", "show an account's balances", nil, runBalances},
		{"transactions", "list an account's transactions, every page", nil, runTransactions},
		{"pay", "initiate a payment and have the customer sign it", nil, runPay},
		{"sandbox", "sandbox init | sandbox customers", sandboxWords, runSandbox},
		{"sign", "print the headers, signing string and Signature of a request", nil, runSign},
		{"doctor", "check a certificate and key pair, and the clock against a bank", nil, runDoctor},
		{"completion", "print a shell completion script: completion bash | completion zsh", completionShells, runCompletion},
		{"version", "print the command's version and the SDK's", nil, runVersion},
		{"help", "help <command>: a command's usage and flags", nil, runHelp},
	}
}

// findCommand returns the command called name.
func findCommand(name string) (command, bool) {
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands()[i], true
}

// isHelp reports whether arg asks for help, in any of the spellings the
// flag package takes.
func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// run runs the command line args (without the program name) and returns
// the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, open: xdgOpen, now: time.Now, buildInfo: debug.ReadBuildInfo}
	return runEnv(ctx, e, args)
}

// runEnv dispatches args: no command is a usage error (the overview on
// standard error, exit 2); -h, -help and --help print the overview (exit
// 0); -version and --version are the version command.
func runEnv(ctx context.Context, e *env, args []string) int {
	switch {
	case len(args) == 0:
		printUsage(e.stderr)
		return 2
	case isHelp(args[0]):
		printUsage(e.stdout)
		return 0
	case args[0] == "-version" || args[0] == "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	c, ok := findCommand(args[0])
	if !ok {
		return exitCode(e, usagef("unknown command %q (see xs2a help)", args[0]))
	}
	return exitCode(e, c.run(ctx, e, args[1:]))
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

// runHelp is "xs2a help [command [words]]": the overview, or the command's
// usage as its -h prints it.
func runHelp(ctx context.Context, e *env, args []string) error {
	if _, err := parseWords(e, newFlags("help"), "help [command]\n\nWithout a command: the commands, the environment and the exit status.", args); err != nil {
		return err
	}
	if len(args) == 0 {
		printUsage(e.stdout)
		return nil
	}
	c, ok := findCommand(args[0])
	if !ok {
		return usagef("help: unknown command %q (see xs2a help)", args[0])
	}
	return c.run(ctx, e, append(slices.Clone(args[1:]), "-h"))
}
