package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

const signSynopsis = "sign -url URL [-method GET] [-body JSON] [-psu-id ID] [-date DATE] [-request-id UUID] [-p12 FILE | -cert FILE -key FILE] [-json]"

type signFlags struct {
	certFlags
	method, rawURL, body, redirectURI, date, requestID string
	psuID, psuCorporateID, psuIP, sessionID            string
	lowerSerial, escapeSpaces, rfc2047, asJSON         bool
}

func parseSign(e *env, args []string) (*signFlags, error) {
	f := new(signFlags)
	fs := newFlags("sign")
	f.certFlags.register(fs)
	fs.StringVar(&f.method, "method", "GET", "HTTP method")
	fs.StringVar(&f.rawURL, "url", "", "the request's full URL (required)")
	fs.StringVar(&f.body, "body", "", "request body (JSON); a body gets a Digest")
	fs.StringVar(&f.redirectURI, "redirect-uri", xs2atest.DefaultRedirectURI, "TPP-Redirect-URI")
	fs.StringVar(&f.date, "date", "", `fixed Date, as HTTP writes it ("Wed, 12 Mar 2025 10:00:00 GMT") or RFC 3339 (default: now)`)
	fs.StringVar(&f.requestID, "request-id", "", "fixed X-Request-ID, a UUID (default: a new one)")
	fs.StringVar(&f.psuID, "psu-id", "", "PSU-ID")
	fs.StringVar(&f.psuCorporateID, "psu-corporate-id", "", "PSU-CORPORATE-ID")
	fs.StringVar(&f.psuIP, "psu-ip", "", "PSU-IP-Address")
	fs.StringVar(&f.sessionID, "session-id", "", "TPP-Session-ID")
	fs.BoolVar(&f.lowerSerial, "lower-case-serial", false, "write the keyId's serial in lower case, as some banks want")
	fs.BoolVar(&f.escapeSpaces, "escaped-spaces", false, "write spaces in the keyId's CA as %20, as some banks want")
	fs.BoolVar(&f.rfc2047, "rfc2047", false, "RFC 2047 encode the Signature value")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON: headers, signingString, signature")
	if err := parse(e, fs, signSynopsis, args); err != nil {
		return nil, err
	}
	f.certFlags.fromEnv(e, setFlags(fs), f.certValues())
	if u, err := url.Parse(f.rawURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, usagef("sign: -url %q: want an absolute http or https URL", f.rawURL)
	}
	return f, f.certFlags.check("sign")
}

// signerOptions are the keyId variants the flags ask for.
func (f *signFlags) signerOptions() *xs2a.SignerOptions {
	return &xs2a.SignerOptions{LowerCaseSerial: f.lowerSerial, EscapedSpacesInCA: f.escapeSpaces, RFC2047Signature: f.rfc2047}
}

// clock is the fixed -date, or nil for now.
func (f *signFlags) clock() (func() time.Time, error) {
	if f.date == "" {
		return nil, nil
	}
	t, err := http.ParseTime(f.date)
	if err != nil {
		if t, err = time.Parse(time.RFC3339, f.date); err != nil {
			return nil, usagef("sign: -date %q: want an HTTP date or RFC 3339", f.date)
		}
	}
	return func() time.Time { return t }, nil
}

// request builds the request the flags describe, PSU headers and all.
func (f *signFlags) request() (*http.Request, error) {
	req, err := http.NewRequest(strings.ToUpper(f.method), f.rawURL, strings.NewReader(f.body))
	if err != nil {
		return nil, usagef("sign: %v", err)
	}
	if f.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for name, v := range map[string]string{"X-Request-ID": f.requestID, "PSU-ID": f.psuID, "PSU-Corporate-ID": f.psuCorporateID,
		"PSU-IP-Address": f.psuIP, "TPP-Session-ID": f.sessionID} {
		if v != "" {
			req.Header.Set(name, v)
		}
	}
	return req, nil
}

// capture is the base RoundTripper of a Transport that keeps the signed
// request instead of sending it.
type capture struct{ req *http.Request }

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	c.req = r
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

// runSign signs the request through the SDK's Transport and prints what it
// sent: headers, the signing string and the Signature.
func runSign(_ context.Context, e *env, args []string) error {
	f, err := parseSign(e, args)
	if err != nil {
		return err
	}
	signer, err := f.loadSigner(e)
	if err != nil {
		return err
	}
	now, err := f.clock()
	if err != nil {
		return err
	}
	req, err := f.request()
	if err != nil {
		return err
	}
	c := new(capture)
	tr := &xs2a.Transport{Base: c, Signer: signer, RedirectURI: f.redirectURI, Now: now}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	str, err := signingStringOf(c.req)
	if err != nil {
		return err
	}
	return printSigned(e, f.asJSON, c.req, str)
}

// loadSigner loads the certificate, or makes a test one (and says so).
func (f *signFlags) loadSigner(e *env) (*xs2a.Signer, error) {
	if f.given() {
		return f.signer(e, f.signerOptions())
	}
	fmt.Fprintln(e.stderr, "xs2a: no certificate given: signing with a new test certificate (the fake bank accepts it, a real bank never would)")
	return xs2atest.NewTestSigner(f.signerOptions())
}

// signingStringOf rebuilds the signing string from the request's headers
// and the headers= list of its Signature: one "name: value" line for each,
// joined by newlines.
func signingStringOf(r *http.Request) (string, error) {
	sig := r.Header.Get("Signature")
	if strings.HasPrefix(sig, "=?") {
		dec, err := new(mime.WordDecoder).DecodeHeader(sig)
		if err != nil {
			return "", fmt.Errorf("decoding the RFC 2047 Signature: %w", err)
		}
		sig = dec
	}
	_, rest, ok := strings.Cut(sig, `headers="`)
	names, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 {
		return "", errors.New("the Signature has no headers list")
	}
	var lines []string
	for _, n := range strings.Fields(names) {
		var v string
		switch n {
		case "(request-target)":
			v = strings.ToLower(r.Method) + " " + r.URL.RequestURI()
		case "host":
			v = r.URL.Host
		default:
			vs := r.Header.Values(n)
			for i := range vs {
				vs[i] = strings.TrimSpace(vs[i])
			}
			v = strings.Join(vs, ", ")
		}
		lines = append(lines, n+": "+v)
	}
	return strings.Join(lines, "\n"), nil
}

// printSigned writes the request line, the headers (sorted), the signing
// string and the Signature.
func printSigned(e *env, asJSON bool, r *http.Request, str string) error {
	if asJSON {
		h := map[string]string{}
		for k := range r.Header {
			h[k] = strings.Join(r.Header.Values(k), ", ")
		}
		return writeJSON(e.stdout, map[string]any{"method": r.Method, "url": r.URL.String(), "headers": h,
			"signingString": str, "signature": r.Header.Get("Signature")})
	}
	w := e.stdout
	fmt.Fprintf(w, "%s %s\n", r.Method, r.URL)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.Header {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		fmt.Fprintf(w, "%s: %s\n", k, strings.Join(r.Header.Values(k), ", "))
	}
	fmt.Fprintf(w, "\nSigning string:\n%s\n\nSignature:\n%s\n", str, r.Header.Get("Signature"))
	return nil
}
