package xs2atest

import (
	"log/slog"
	"strings"
	"time"
)

// Option configures a fake bank started by NewServer or Start.
type Option func(*config)

type config struct {
	tls           bool
	now           func() time.Time
	logger        *slog.Logger
	signResponses bool
	faults        []Fault
	seed          uint64
	basePath      string // "" or "/api": no trailing slash
	keyIDVariants bool
	addr          string // "" : a free loopback port
	answerHook    func(Exchange)

	noCardAccounts bool // WithoutCardAccounts
	// fullAuthorisation: startAuthorisation answers carry authorisationId
	// and a scaStatus link
	fullAuthorisation bool
	// scaRenewal: how long a PSU-not-present read may follow the PSU's
	// last SCA access to the account
	scaRenewal time.Duration

	control  bool          // WithControl: the control API under ControlPrefix
	dateSkew time.Duration // WithDateSkew: 0 = no check
	// the request log's bounds (WithRequestLogLimits)
	logEntries, logBytes int
	// the HTTP server's limits (WithServerTimeouts)
	readHeaderTimeout, idleTimeout time.Duration
}

func defaultConfig() config {
	return config{
		now:        time.Now,
		logger:     slog.New(slog.DiscardHandler),
		seed:       20240601,
		basePath:   DefaultBasePath,
		scaRenewal: DefaultSCARenewal,
		dateSkew:   DefaultDateSkew,
		logEntries: DefaultRequestLogEntries, logBytes: DefaultRequestLogBytes,
		readHeaderTimeout: DefaultReadHeaderTimeout, idleTimeout: DefaultIdleTimeout,
	}
}

// DefaultDateSkew is how far a request's Date may be from the bank's clock
// unless WithDateSkew says otherwise.
const DefaultDateSkew = 5 * time.Minute

// WithDateSkew sets how far the Date header of a request under /v1 may be
// from the bank's clock (or from the host's clock, when WithClock, -time or
// the control API moved the bank's): further gets 400 SIGNATURE_INVALID,
// path Date. The default is DefaultDateSkew; d of zero or less turns the
// check off.
func WithDateSkew(d time.Duration) Option {
	return func(c *config) { c.dateSkew = max(d, 0) }
}

// The request log's default bounds (WithRequestLogLimits).
const (
	DefaultRequestLogEntries = 10000
	DefaultRequestLogBytes   = 4 << 20
)

// WithRequestLogLimits bounds what Server.Requests keeps: at most entries
// requests and bytes bytes (counted as the lengths of their text fields
// plus 64 per entry); the oldest go first. Values of zero or less keep the
// defaults, DefaultRequestLogEntries and DefaultRequestLogBytes, so that a
// server left running holds bounded memory.
func WithRequestLogLimits(entries, bytes int) Option {
	return func(c *config) {
		if entries > 0 {
			c.logEntries = entries
		}
		if bytes > 0 {
			c.logBytes = bytes
		}
	}
}

// The HTTP server's default timeouts (WithServerTimeouts).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	// maxHeaderBytes caps a request's header block (the Go default is 1 MB):
	// a signed request with its certificate needs a few kilobytes.
	maxHeaderBytes = 64 << 10
)

// WithServerTimeouts sets how long the server waits for a request's header
// (readHeader) and keeps an idle keep-alive connection open (idle); a
// connection that sends no complete header in time is closed. Values of
// zero or less keep the defaults, DefaultReadHeaderTimeout and
// DefaultIdleTimeout.
func WithServerTimeouts(readHeader, idle time.Duration) Option {
	return func(c *config) {
		if readHeader > 0 {
			c.readHeaderTimeout = readHeader
		}
		if idle > 0 {
			c.idleTimeout = idle
		}
	}
}

// DefaultSCARenewal is how long after the PSU's last SCA access to an
// account the fake bank serves PSU-not-present reads of it unless
// WithSCARenewal says otherwise: 90 days, as docs/interface.md (Limits, L2)
// states.
const DefaultSCARenewal = 90 * 24 * time.Hour

// WithSCARenewal sets how long after the PSU's last access with SCA to an
// account (the consent SCA, or a PSU-present request under a valid SCA
// session) reads without the PSU present are served; after it they get 401
// CONSENT_EXPIRED with a scaRedirect. Member banks' portals give 180 days
// (the 2023 amendment of the RTS); the interface says 90, the default
// (docs/interface.md L10). d of zero or less keeps the default.
func WithSCARenewal(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.scaRenewal = d
		}
	}
}

// WithFullAuthorisationAnswer makes the answer of a startAuthorisation link
// (payments and signing baskets) carry authorisationId and a scaStatus link
// to the authorisation besides scaStatus and scaRedirect. Production banks
// answer without them (docs/interface.md PP3), and so does the fake bank by
// default; this is for tests of PaymentsService.AuthorisationStatus.
func WithFullAuthorisationAnswer() Option { return func(c *config) { c.fullAuthorisation = true } }

// DefaultBasePath is the path the fake bank serves its interface under
// unless WithBasePath says otherwise: real banks sit below a base path
// (docs/interface.md, Production: /v1/accounts/x/balances under https://psd2.bank.no/api).
const DefaultBasePath = "/api"

// WithBasePath serves the interface under path p instead of
// DefaultBasePath: Server.URL is the server's origin followed by p, the SCA
// pages are under p too, and a request outside p gets 404. "" (or "/")
// serves at the root. _links hrefs are relative to the base address
// ("/v1/..."), as the bank writes them, whatever the base path.
func WithBasePath(p string) Option {
	return func(c *config) {
		p = strings.Trim(p, "/")
		if p != "" {
			p = "/" + p
		}
		c.basePath = p
	}
}

// WithAddress makes Start listen on addr ("127.0.0.1:8080", ":0") instead
// of a free loopback port, so a program in another process or language can
// reach the bank at a known address. Start fails when addr cannot be
// listened on.
func WithAddress(addr string) Option { return func(c *config) { c.addr = addr } }

// WithTLS serves over HTTPS with a test certificate (docs/interface.md: "Transport is
// TLS 1.2 or higher"). Server.Client and Server.HTTPClient trust it.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithClock sets the bank's clock. It drives SCA session expiry (1 hour), the
// PSU-not-present limits (4 calls per 24 hours, 90 days of transactions), the
// sandbox batch runs (5 a day) and the dates of generated data. Default: time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithLogger logs one line per request: method, path (as received, base path
// included, ids replaced by {id}), status and X-Request-ID.
// PSU ids, keys and bodies are never logged. Default: no logging.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithResponseSigning makes the bank sign its API responses (docs/interface.md
// "Authentication": "The service may sign response bodies"): each response
// gets Date, Digest (SHA-256 of the body) and a Signature over
// "date digest x-request-id" made with the server's own generated test
// certificate, available from Server.Certificate.
func WithResponseSigning() Option { return func(c *config) { c.signResponses = true } }

// WithKeyIDVariants makes the bank accept two keyId variants that some banks
// accept although docs/interface.md ("Authentication", 4) writes keyId as
// "SN=<hex serial, upper case>,CA=<issuer as RFC 2253>": the serial in
// lower-case hex, and "%20" for a space in the CA. It is for testing a
// signer that writes them, such as the SDK's SignerOptions
// LowerCaseSerial and EscapedSpacesInCA. Without it, a keyId with either variant
// gets 400 SIGNATURE_INVALID. Go's crypto/x509/pkix form of the issuer and
// RFC 2253's equivalent escapes are accepted either way.
func WithKeyIDVariants() Option { return func(c *config) { c.keyIDVariants = true } }

// WithFaults injects transport faults (errors, delays, dropped connections)
// into matching requests. The first matching fault applies. A fault with a
// status on an SCA page makes that SCA fail (see Fault.Status).
func WithFaults(faults ...Fault) Option {
	return func(c *config) { c.faults = append(c.faults, faults...) }
}

// WithSeed changes the seed of the generated sandbox data (resource ids,
// transactions) and of Fault.Rate. The same seed gives the same data.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// SCAOption steers how Server.CompleteSCA answers the SCA pages.
type SCAOption func(*scaChoice)

type scaChoice struct {
	context     string // "", "PRIVATE", "CORPORATE"
	agreement   string // agreement id (Agreement.ID) for CORPORATE; "" = preselected or first
	accounts    []string
	accountsSet bool
	cancel      bool
}

// Private makes the PSU choose the private context on the SCA page.
func Private() SCAOption { return func(c *scaChoice) { c.context = "PRIVATE" } }

// Corporate makes the PSU choose the corporate context and the agreement with
// the given id (Agreement.ID from Server.Customers, or the psu-corporate-id
// the TPP holds). An empty id keeps the preselected agreement, or the first one.
func Corporate(agreementID string) SCAOption {
	return func(c *scaChoice) { c.context = "CORPORATE"; c.agreement = agreementID }
}

// Accounts makes the PSU tick exactly these resource ids on the consent page
// (default: every account offered), or pick the first of them as the debtor
// account of a payment that names none.
func Accounts(ids ...string) SCAOption {
	return func(c *scaChoice) { c.accounts = append([]string(nil), ids...); c.accountsSet = true }
}

// Cancel makes the PSU abort the SCA: the bank redirects to the TPP with the
// failure parameters status (401), code (SCA_INVALID) and message. The
// system parameter comes on server errors only (docs/interface.md), which a
// Fault on an SCA page produces.
func Cancel() SCAOption { return func(c *scaChoice) { c.cancel = true } }
