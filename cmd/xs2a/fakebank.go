package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tppkit/xs2a/xs2atest"
)

const fakebankSynopsis = "fakebank [-addr 127.0.0.1:8080] [-tls] [-base-path /api] [-seed N] [-fault SPEC]... [-batch-every D] [-time T] [-date-skew D] [-control=false] [-read-header-timeout D] [-idle-timeout D] [-log]"

// faultList is the repeatable -fault flag.
type faultList []xs2atest.Fault

func (l *faultList) String() string { return fmt.Sprint(len(*l), " faults") }

func (l *faultList) Set(spec string) error {
	f, err := parseFault(spec)
	if err != nil {
		return err
	}
	*l = append(*l, f)
	return nil
}

// parseFault reads a -fault spec: xs2atest.ParseFault, the parser of
// POST /_control/faults too.
func parseFault(spec string) (xs2atest.Fault, error) { return xs2atest.ParseFault(spec) }

type fakebankFlags struct {
	addr, basePath, startTime     string
	tls, log, keyIDVariants       bool
	control                       bool
	seed                          uint64
	faults                        faultList
	batchEvery, dateSkew          time.Duration
	readHeaderTimeout, idleTimout time.Duration
}

func parseFakebank(e *env, args []string) (fakebankFlags, error) {
	var c fakebankFlags
	fs := newFlags("fakebank")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: a free one)")
	fs.BoolVar(&c.tls, "tls", false, "serve HTTPS with a self-signed test certificate (curl -k)")
	fs.StringVar(&c.basePath, "base-path", xs2atest.DefaultBasePath, "path the interface is served under (\"\" for the root)")
	fs.Uint64Var(&c.seed, "seed", 0, "seed of the sandbox data: the same seed gives the same ids (0: the fake bank's default)")
	fs.Var(&c.faults, "fault", "inject a fault, repeatable: path=/v1/payments,method=POST,status=503,times=1 (keys: path, method, status, retry-after, system, delay, drop, times, rate)")
	fs.DurationVar(&c.batchEvery, "batch-every", 0, "also run a payment batch this often (0: only at 06, 09, 12, 15 and 18 Oslo time)")
	fs.StringVar(&c.startTime, "time", "", "start the bank's clock at this RFC 3339 time; it runs on from there")
	fs.BoolVar(&c.keyIDVariants, "keyid-variants", false, "accept a lower-case serial and %20 for spaces in keyId, as some banks do")
	fs.DurationVar(&c.dateSkew, "date-skew", xs2atest.DefaultDateSkew, "refuse a Date header further than this from the bank's clock (400 SIGNATURE_INVALID); 0 turns the check off")
	fs.BoolVar(&c.control, "control", true, "serve the control API under "+xs2atest.ControlPrefix+" (SCA without a browser, batch, clock, faults, reset; unsigned)")
	fs.DurationVar(&c.readHeaderTimeout, "read-header-timeout", xs2atest.DefaultReadHeaderTimeout, "close a connection that sends no complete request header in this time")
	fs.DurationVar(&c.idleTimout, "idle-timeout", xs2atest.DefaultIdleTimeout, "close an idle keep-alive connection after this time")
	fs.BoolVar(&c.log, "log", false, "log each request (method, path, status, X-Request-ID; code and reason of a refusal) to standard error")
	return c, parse(e, fs, fakebankSynopsis, args)
}

// options turns the flags into the fake bank's options.
func (c fakebankFlags) options(e *env) ([]xs2atest.Option, error) {
	opts := []xs2atest.Option{xs2atest.WithAddress(c.addr), xs2atest.WithBasePath(c.basePath), xs2atest.WithFaults(c.faults...),
		xs2atest.WithDateSkew(c.dateSkew), xs2atest.WithServerTimeouts(c.readHeaderTimeout, c.idleTimout)}
	if c.control {
		opts = append(opts, xs2atest.WithControl())
	}
	if c.tls {
		opts = append(opts, xs2atest.WithTLS())
	}
	if c.seed != 0 {
		opts = append(opts, xs2atest.WithSeed(c.seed))
	}
	if c.keyIDVariants {
		opts = append(opts, xs2atest.WithKeyIDVariants())
	}
	if c.log {
		opts = append(opts, xs2atest.WithLogger(slog.New(slog.NewTextHandler(e.stderr, nil))))
	}
	if c.startTime != "" {
		start, err := time.Parse(time.RFC3339, c.startTime)
		if err != nil {
			return nil, usagef("fakebank: -time %q is not an RFC 3339 time (2025-03-12T10:00:00Z)", c.startTime)
		}
		offset := time.Until(start)
		opts = append(opts, xs2atest.WithClock(func() time.Time { return time.Now().Add(offset) }))
	}
	return opts, nil
}

// runFakebank serves the fake bank until ctx ends (SIGINT, SIGTERM).
func runFakebank(ctx context.Context, e *env, args []string) error {
	c, err := parseFakebank(e, args)
	if err != nil {
		return err
	}
	opts, err := c.options(e)
	if err != nil {
		return err
	}
	srv, err := xs2atest.Start(opts...)
	if err != nil {
		return fmt.Errorf("fakebank: %w", err)
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "xs2a fakebank: %s (test data only; Ctrl-C stops it)\n\n", srv.URL())
	printSandboxCustomers(e, srv.Customers())
	fmt.Fprintf(e.stdout, "\nEvery request under %s/v1 must be signed; any self-signed certificate will do.\n", srv.URL())
	if c.control {
		fmt.Fprintf(e.stdout, "Control API (unsigned, for tests; -control=false turns it off): %s\n", srv.ControlURL())
	}
	if c.batchEvery > 0 {
		go runBatches(ctx, srv, c.batchEvery)
	}
	<-ctx.Done()
	fmt.Fprintln(e.stdout, "xs2a fakebank: stopped")
	return nil
}

// printSandboxCustomers writes the customers and their accounts as a table.
func printSandboxCustomers(e *env, customers []xs2atest.Customer) {
	rows := make([][]string, 0, len(customers))
	for _, cu := range customers {
		var accts []string
		for _, a := range cu.Accounts {
			accts = append(accts, firstNonEmpty(a.BBAN, a.MaskedPan))
		}
		rows = append(rows, []string{cu.CustomerNumber, cu.CustomerType, cu.Name, strings.Join(accts, " ")})
	}
	table(e.stdout, []string{"CUSTOMER", "TYPE", "NAME", "ACCOUNTS"}, rows)
}

func runBatches(ctx context.Context, srv *xs2atest.Server, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			srv.RunBatch()
		}
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
