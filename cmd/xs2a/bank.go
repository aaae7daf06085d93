package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/inert"
	"github.com/tppkit/xs2a/xs2atest"
)

// certFlags name the TPP's certificate and key. src records the flags an
// environment variable gave (flag name to variable), so that a message
// names what the person set.
type certFlags struct {
	p12, p12Password, cert, key string
	src                         map[string]string
}

func (c *certFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.p12, "p12", "", "PKCS#12 file with the TPP's certificate and key")
	fs.StringVar(&c.p12Password, "p12-password", "", "password of -p12")
	fs.StringVar(&c.cert, "cert", "", "PEM certificate of the TPP (with -key)")
	fs.StringVar(&c.key, "key", "", "PEM private key of the TPP (with -cert)")
}

// name is how the person gave flag: "-p12", or the environment variable
// that gave it.
func (c *certFlags) name(flag string) string {
	if v, ok := c.src[flag]; ok {
		return v
	}
	return "-" + flag
}

// fromEnv fills each flag the command line did not give (set) from its
// environment variable, when that is not empty. The certificate is one
// unit: XS2A_P12, XS2A_CERT and XS2A_KEY apply only when none of -p12,
// -cert and -key was given, so a certificate typed is never mixed with one
// from the environment. Only the flags listed in names are filled.
func (c *certFlags) fromEnv(e *env, set map[string]bool, values map[string]*string) {
	if c.src == nil {
		c.src = map[string]string{}
	}
	certGiven := set["p12"] || set["cert"] || set["key"]
	for _, v := range envVars {
		dst, ok := values[v.flag]
		if !ok || set[v.flag] || (certGiven && (v.flag == "p12" || v.flag == "cert" || v.flag == "key")) {
			continue
		}
		if val := e.getenv(v.name); val != "" {
			*dst = val
			c.src[v.flag] = v.name
		}
	}
}

// certValues are the certificate's flags fromEnv may fill.
func (c *certFlags) certValues() map[string]*string {
	return map[string]*string{"p12": &c.p12, "p12-password": &c.p12Password, "cert": &c.cert, "key": &c.key}
}

func (c *certFlags) given() bool { return c.p12 != "" || c.cert != "" || c.key != "" }

// check reports a half-given certificate as a usage error.
func (c *certFlags) check(cmd string) error {
	switch {
	case c.p12 != "" && (c.cert != "" || c.key != ""):
		return usagef("%s: give %s, or %s and %s, not both", cmd, c.name("p12"), c.name("cert"), c.name("key"))
	case c.p12 == "" && (c.cert == "") != (c.key == ""):
		return usagef("%s: %s and %s go together", cmd, c.name("cert"), c.name("key"))
	}
	return nil
}

// signer loads the certificate and key; a wrong password or a key that does
// not match the certificate is an error that says so.
// The SDK's record of a certificate near or past its dates goes to stderr
// on the command's clock, unless opts says otherwise.
func (c *certFlags) signer(e *env, opts *xs2a.SignerOptions) (*xs2a.Signer, error) {
	var o xs2a.SignerOptions
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = e.now
	}
	if o.Logger == nil {
		o.Logger = stderrLogger(e)
	}
	opts = &o
	if c.p12 != "" {
		s, err := xs2a.LoadPKCS12(c.p12, c.p12Password, opts)
		if err != nil && strings.Contains(err.Error(), "password") {
			return nil, fmt.Errorf("%s: wrong password (-p12-password or XS2A_P12_PASSWORD)", c.p12)
		}
		return s, err
	}
	return xs2a.LoadSigner(c.cert, c.key, opts)
}

// stderrLogger writes the SDK's log records to stderr as text lines,
// without the time.
func stderrLogger(e *env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// bankFlags choose the bank the client subcommands call, and how.
type bankFlags struct {
	certFlags
	cmd                                          string // the command's name, for messages
	baseURL, redirectURI, customer, psuID, psuIP string
	sessionID                                    string
	open, json                                   bool
	timeout                                      time.Duration
}

func (b *bankFlags) register(fs *flag.FlagSet) {
	b.certFlags.register(fs)
	fs.StringVar(&b.baseURL, "base-url", "", "base address of a real bank (empty: the embedded fake bank)")
	fs.StringVar(&b.redirectURI, "redirect-uri", "http://localhost:8642/callback", "TPP-Redirect-URI: the bank sends the customer back here, to a listener of this command, which adds a random state parameter (port 0: a free one)")
	fs.BoolVar(&b.open, "open", false, "open the SCA page in the browser (xdg-open)")
	fs.StringVar(&b.customer, "customer", xs2atest.PrivateCustomer1, "embedded fake bank: the sandbox customer who completes SCA")
	fs.StringVar(&b.psuID, "psu-id", "", "psu-id from an earlier SCA callback (a consent already given); each SCA prints the one it got")
	fs.StringVar(&b.sessionID, "session-id", "", "TPP-Session-ID of an earlier run, to stay in its SCA session (an hour) with -psu-id (default: a new one)")
	fs.StringVar(&b.psuIP, "psu-ip", "127.0.0.1", "PSU-IP-Address: the customer is present")
	fs.BoolVar(&b.json, "json", false, "print JSON instead of a table")
	fs.DurationVar(&b.timeout, "timeout", 5*time.Minute, "give up after this long")
}

// fromEnv fills the flags the command line did not give from XS2A_...
// variables (see certFlags.fromEnv).
func (b *bankFlags) fromEnv(e *env, fs *flag.FlagSet) {
	values := b.certValues()
	values["base-url"], values["redirect-uri"], values["psu-id"], values["session-id"] = &b.baseURL, &b.redirectURI, &b.psuID, &b.sessionID
	b.certFlags.fromEnv(e, setFlags(fs), values)
}

// fields maps the SDK's validation fields of the values the command builds
// from the bank flags to those flags (see flagFields.usage).
func (b *bankFlags) fields() flagFields {
	return flagFields{"PSU.ID": b.name("psu-id"), "PSU.IPAddress": "-psu-ip", "PSU.SessionID": b.name("session-id"),
		"baseURL": b.name("base-url"), "RedirectURI": b.name("redirect-uri")}
}

// psu is the PSU the flags give: -psu-id, -psu-ip and -session-id (a new
// session id without it).
func (b *bankFlags) psu() xs2a.PSU {
	return xs2a.PSU{ID: b.psuID, IPAddress: b.psuIP, SessionID: firstNonEmpty(b.sessionID, xs2a.NewSessionID())}
}

func (b *bankFlags) check(cmd string) error {
	if err := b.certFlags.check(cmd); err != nil {
		return err
	}
	if b.baseURL != "" && !b.given() {
		return usagef("%s: %s needs the TPP's certificate: -p12, or -cert and -key", cmd, b.name("base-url"))
	}
	if b.baseURL == "" && b.given() {
		cert := b.name("p12")
		if b.p12 == "" {
			cert = b.name("cert") + " and " + b.name("key")
		}
		return usagef("%s: %s need -base-url (without it the embedded fake bank signs with a test certificate)", cmd, cert)
	}
	return nil
}

// bank is a client and the way its customer gets through SCA.
type bank struct {
	client *xs2a.Client
	fake   *xs2atest.Server // nil for a real bank
	// authenticate sends the customer to scaRedirect, for the SCA that the
	// request with TPP-Session-ID session started, and returns the callback
	// URL.
	authenticate func(ctx context.Context, scaRedirect, session string) (*url.URL, error)
	close        func()
}

// openBank starts the embedded fake bank, or prepares for a real one. rt,
// when not nil, wraps the HTTP transport (progress lines).
func openBank(e *env, b *bankFlags, rt func(http.RoundTripper) http.RoundTripper) (*bank, error) {
	if rt == nil {
		rt = func(t http.RoundTripper) http.RoundTripper { return t }
	}
	if b.baseURL == "" {
		return openFake(e, b, rt)
	}
	return openReal(e, b, rt)
}

func openFake(e *env, b *bankFlags, rt func(http.RoundTripper) http.RoundTripper) (*bank, error) {
	srv, err := xs2atest.Start()
	if err != nil {
		return nil, err
	}
	cust, ok := srv.Customer(b.customer)
	if !ok {
		srv.Close()
		return nil, usagef("-customer %s is not a sandbox customer (see xs2a sandbox customers)", b.customer)
	}
	hc := srv.HTTPClient()
	hc.Transport = rt(hc.Transport)
	client, err := srv.Client(nil, xs2a.WithHTTPClient(hc))
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &bank{
		client: client,
		fake:   srv,
		authenticate: func(ctx context.Context, href, _ string) (*url.URL, error) {
			u, err := srv.CompleteSCA(ctx, href, b.customer)
			if err == nil {
				fmt.Fprintf(e.stderr, "xs2a: embedded fake bank: SCA completed for the sandbox customer %s (%s)\n", inert.Text(cust.Name, 0), inert.Text(strings.ToLower(cust.CustomerType), 0))
			}
			return u, err
		},
		close: func() { client.Close(); srv.Close() },
	}, nil
}

func openReal(e *env, b *bankFlags, rt func(http.RoundTripper) http.RoundTripper) (*bank, error) {
	signer, err := b.signer(e, nil)
	if err != nil {
		return nil, err
	}
	cb, redirectURI, err := listenCallback(b.redirectURI)
	if v, ok := b.src["redirect-uri"]; ok && err != nil {
		err = fmt.Errorf("%s: %w", v, err) // the error names the flag
	}
	if err != nil {
		return nil, err
	}
	// The client's TPP-Redirect-URI carries the listener's state. A run
	// starts one SCA and builds one client, so the state is that SCA's.
	hc := &http.Client{Transport: rt(http.DefaultTransport.(*http.Transport).Clone())}
	client, err := xs2a.NewClient(b.baseURL, signer, xs2a.WithRedirectURI(redirectURI), xs2a.WithHTTPClient(hc))
	if err != nil {
		cb.close()
		return nil, b.fields().usage(b.cmd, err)
	}
	return &bank{
		client: client,
		authenticate: func(ctx context.Context, href, session string) (*url.URL, error) {
			cb.expect(session)
			fmt.Fprintf(e.stderr, "xs2a: the customer must authenticate at the bank; open this page in a browser:\n  %s\n", inert.Text(href, 0))
			if b.open && e.open != nil {
				if err := e.open(href); err != nil {
					fmt.Fprintf(e.stderr, "xs2a: could not open a browser (%s): open the page yourself\n", inert.Text(err.Error(), 0))
				}
			}
			fmt.Fprintf(e.stderr, "xs2a: waiting for the bank's redirect to %s\n", inert.Text(cb.listening(), 0))
			return cb.wait(ctx)
		},
		close: func() { client.Close(); cb.close() },
	}, nil
}

// withConsent calls f for the PSU; when the bank asks for SCA first, the
// customer goes through it, the callback's psu-id is printed (printPSUID)
// and f runs again with it. A value of a flag the SDK refuses is a usage
// error that names the flag.
func withConsent(ctx context.Context, e *env, bk *bank, b *bankFlags, f func(xs2a.PSU) error) (xs2a.PSU, error) {
	psu := b.psu()
	err := b.fields().usage(b.cmd, f(psu))
	var sca *xs2a.SCARequiredError
	if !errors.As(err, &sca) {
		return psu, err
	}
	u, err := bk.authenticate(ctx, sca.Redirect.Href, psu.SessionID)
	if err != nil {
		return psu, err
	}
	cb, err := xs2a.ParseCallback(u.Query())
	if err != nil {
		return psu, fmt.Errorf("SCA did not succeed: %w", err)
	}
	session := psu.SessionID
	psu = cb.PSU(b.psuIP)
	printPSUID(e, bk, cb.PSUID, session)
	return psu, f(psu)
}

// printPSUID shows the psu-id an SCA gave and the TPP-Session-ID it was
// started under, on standard error (standard output stays the answer,
// -json clean), for the next run: -psu-id with -session-id stays in the
// SCA session (an hour, docs/interface.md CS3); -psu-id with -psu-ip ""
// reads without the customer (4 reads a day per account, L1).
func printPSUID(e *env, bk *bank, psuID, session string) {
	if psuID == "" {
		return
	}
	id, sid := inert.Text(psuID, 0), inert.Text(session, 0)
	note := ""
	if bk.fake != nil {
		note = " (the embedded fake bank forgets it at exit)"
	}
	fmt.Fprintf(e.stderr, "xs2a: psu-id %s%s: reuse with -psu-id %s -session-id %s (within the SCA's hour) or -psu-id %s -psu-ip \"\" (the customer absent)\n",
		id, note, id, sid, id)
}

// xdgOpen opens url in the desktop's browser, where xdg-open exists.
func xdgOpen(url string) error {
	path, err := exec.LookPath("xdg-open")
	if err != nil {
		return err
	}
	return exec.Command(path, url).Start()
}
