// Package xs2a is a client for the PSD2 interface (NextGenPSD2 XS2A 1.3 with
// the platform's deviations) that many Norwegian banks run on one shared
// platform: account information (AISP) and payment initiation (PISP) for
// third-party providers. The sub-package xs2atest is an in-process fake bank,
// so a TPP's whole flow runs offline in tests.
//
// The interface's rules, each with the symbol that serves it and the test that
// covers it, are in docs/interface.md (rule ids such as G3 or SIG5); the
// code's layout is in docs/architecture.md.
//
// # Getting started
//
//	signer, err := xs2a.LoadPKCS12("qseal.p12", password, nil) // or LoadSigner(certPEM, keyPEM, nil)
//	client, err := xs2a.NewClient("https://psd2.bank.no/api", signer,
//		xs2a.WithRedirectURI("https://tpp.example/xs2a/callback"))
//	accounts, resp, err := client.Accounts.List(ctx, xs2a.PSU{ID: psuID, IPAddress: psuIP})
//	var sca *xs2a.SCARequiredError
//	if errors.As(err, &sca) {
//		// send the PSU's browser to sca.Redirect.Href; the bank returns it to
//		// the redirect URI, where ParseCallback gives the psu-id to persist.
//	}
//
// Every call takes a context first and returns its result, the *Response
// (status, X-Request-ID, attempts; also on failure when the bank answered) and
// an error. A call whose context has no deadline gets one (WithTimeout).
//
// # Services
//
// The Client groups the endpoints: Accounts, CardAccounts, Consents, Users,
// Payments, SigningBaskets, Sandbox and TPP. The Transactions methods are
// iterators that follow the pages. Models keep the JSON members they do not
// name in Extra.
//
// # The PSU, SCA and sessions
//
// PSU carries the PSU headers; malformed values are refused before sending.
// An answer asking for SCA is a *SCARequiredError; after SCA, ParseCallback
// (or CallbackHandler) reads the result. SessionManager keeps the
// TPP-Session-ID rules (docs/interface.md CS3 to CS6): CallPresent makes a
// call with the customer present and begins SCA when the bank asks,
// Payments.Authorise starts a payment's SCA that way, and
// SessionManager.Callback resolves the callback, success or failure, to the
// TPP's user and purpose by the SCA's state (CB7).
//
// # Request signing
//
// A Signer holds the TPP's eIDAS key (PEM, PKCS#12 or any crypto.Signer, such
// as an HSM key). Transport, an http.RoundTripper usable on its own, signs each
// request (docs/interface.md SIG1 to SIG7); WithResponseVerification checks the
// bank's signatures.
//
// # Errors
//
// The bank's answers of status 400 and above are *Error values; callers branch
// with errors.Is on the sentinels (ErrSCARequired, ErrConsentInvalid,
// ErrOutcomeUnknown, ...). Input refused before sending is a *ValidationError.
// Messages start with "xs2a: " and never hold keys, bodies or identifiers;
// RequestIDOf gives the X-Request-ID of an error, ErrorType a fixed word for
// it, ProblemOf a code and status a TPP's frontend may be told.
//
// # Telemetry
//
// WithObserver reports every call and attempt, with nothing identifying
// (docs/interface.md T1); the module github.com/tppkit/xs2a/xs2aotel turns
// that into OpenTelemetry spans and metrics.
//
// # Payments sent once
//
// Reads are retried; a POST is never re-sent once it may have reached the
// bank. A payment whose answer is lost answers errors.Is(err,
// ErrOutcomeUnknown): see Payments.ResolveEInvoice and the README's "Lost
// payment answers".
//
// # Limits
//
// Without the PSU present the bank allows 4 calls per 24 hours to an account's
// balances and to its transactions (docs/interface.md L1). The client counts
// them in a BudgetStore (WithBudgetStore; redisstore shares one in Redis) and
// refuses the fifth with an *AccessExceededError. Accounts.Sync reads an
// account's new booked entries night after night from a stored SyncMark,
// within those calls.
//
// # Security
//
// TLS 1.2 or newer; signed requests go only to the base address's origin. The
// bank's answers are untrusted: an unsafe scaRedirect or an amount that is no
// plain decimal is refused, and the bank's text is inert in errors and logs.
//
// # Testing a TPP
//
// Package xs2atest runs the interface in-process: sandbox customers, the SCA
// page, consent, sessions, limits and payments on a controllable clock, fault
// injection and response signing. The command github.com/tppkit/xs2a/cmd/xs2a
// serves the same fake bank on a real port.
package xs2a
