package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tppkit/xs2a"
)

const doctorSynopsis = "doctor (-p12 FILE | -cert FILE -key FILE) [-base-url URL]"

// maxSkew is the clock difference to a bank's Date that doctor reports.
const maxSkew = 5 * time.Second

// report collects doctor's findings, one line each.
type report struct {
	e      *env
	failed bool
}

func (r *report) ok(format string, a ...any)   { r.write("ok    ", format, a) }
func (r *report) warn(format string, a ...any) { r.write("warn  ", format, a) }
func (r *report) fail(format string, a ...any) {
	r.failed = true
	r.write("FAIL  ", format, a)
}

// write writes one finding as one inert line: an error may quote a bank's
// answer.
func (r *report) write(prefix, format string, a []any) {
	fmt.Fprintln(r.e.stdout, prefix+line(fmt.Sprintf(format, a...)))
}

// runDoctor checks a certificate and key pair, and the clock against a
// bank's Date, and says what a bank would refuse. It exits 1 when a bank
// would refuse the requests.
func runDoctor(ctx context.Context, e *env, args []string) error {
	var c certFlags
	var baseURL string
	fs := newFlags("doctor")
	c.register(fs)
	fs.StringVar(&baseURL, "base-url", "", "also compare this machine's clock with the bank's Date header")
	if err := parse(e, fs, doctorSynopsis, args); err != nil {
		return err
	}
	values := c.certValues()
	values["base-url"] = &baseURL
	c.fromEnv(e, setFlags(fs), values)
	if err := c.check("doctor"); err != nil {
		return err
	}
	if !c.given() {
		return usagef("doctor: give the certificate: -p12, or -cert and -key")
	}
	// The report says what NewSigner would log (checkValidity).
	signer, err := c.signer(e, &xs2a.SignerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		if strings.Contains(err.Error(), "does not match") {
			return errors.New("the key does not belong to the certificate: a bank would refuse every signature (400 SIGNATURE_INVALID)")
		}
		return err
	}
	r := &report{e: e}
	r.ok("key matches the certificate (%s)", signer.Algorithm())
	checkValidity(r, signer.Certificate(), e.now())
	checkKeyID(r, signer)
	checkTPPID(r, signer)
	if baseURL != "" {
		checkClock(ctx, r, c.name("base-url"), baseURL)
	}
	if r.failed {
		return errors.New("a bank would refuse requests signed with this certificate (see FAIL above)")
	}
	return nil
}

// checkValidity reports the certificate's dates as NewSigner logs them: a
// warning within xs2a.CertificateExpiryWarning of the end, a failure
// outside them.
func checkValidity(r *report, cert *x509.Certificate, now time.Time) {
	const day = 24 * time.Hour
	switch left := cert.NotAfter.Sub(now); {
	case now.Before(cert.NotBefore):
		r.fail("not valid before %s: a bank refuses it until then", cert.NotBefore.UTC().Format(time.DateTime))
	case left < 0:
		r.fail("expired on %s: a bank refuses every request signed with it", cert.NotAfter.UTC().Format(time.DateTime))
	case left < xs2a.CertificateExpiryWarning:
		r.warn("expires in %d days (%s): renew it, or a bank will refuse it then", int(left/day), cert.NotAfter.UTC().Format(time.DateOnly))
	default:
		r.ok("valid from %s to %s", cert.NotBefore.UTC().Format(time.DateOnly), cert.NotAfter.UTC().Format(time.DateOnly))
	}
}

// checkKeyID shows the keyId and the variants some banks accept.
func checkKeyID(r *report, s *xs2a.Signer) {
	id := s.KeyID()
	r.ok("keyId %s", id)
	serial := strings.ToLower(s.Certificate().SerialNumber.Text(16))
	if strings.ContainsAny(serial, "abcdef") {
		r.ok("the serial is upper-case hex as the bank wants; lower case (%s) is refused by banks that follow the rule strictly", serial)
	}
	if _, ca, _ := strings.Cut(id, ",CA="); strings.Contains(ca, " ") {
		r.ok("the issuer's spaces are written as spaces; %%20 instead is refused by banks that follow the rule strictly")
	}
	if !isASCII(id) {
		r.warn("the issuer holds text other than ASCII: the Signature must be RFC 2047 encoded (=?utf-8?B?...?=), which the SDK does; a bank refuses raw non-ASCII text")
	} else {
		r.ok("the keyId is ASCII: no RFC 2047 encoding needed")
	}
}

func checkTPPID(r *report, s *xs2a.Signer) {
	if id := s.TPPID(); id != "" {
		r.ok("TPP id %s (the subject's organizationIdentifier)", id)
		return
	}
	r.warn("no PSD2 organizationIdentifier (PSD<country>-<authority>-<number>) in the subject: not a PSD2 QSealC, which a production bank refuses; a sandbox may accept it")
}

// checkClock compares this machine's clock with the bank's Date header;
// flag is how the person gave baseURL.
func checkClock(ctx context.Context, r *report, flag, baseURL string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL, nil)
	if err != nil {
		r.fail("%s %q: %v", flag, baseURL, err)
		return
	}
	before := r.e.now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.fail("the bank does not answer: %v", err)
		return
	}
	resp.Body.Close()
	after := r.e.now()
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		r.warn("the bank sent no Date header: the clock could not be compared")
		return
	}
	mid := before.Add(after.Sub(before) / 2)
	skew := mid.Sub(date).Round(time.Second)
	if skew > maxSkew || skew < -maxSkew {
		r.warn("this machine's clock is %s off the bank's: a bank may refuse the Date header of signed requests; set the clock (NTP)", skew)
		return
	}
	r.ok("the clock agrees with the bank's Date (within %s)", maxSkew)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
