// Package xs2a is a client for the PSD2 interface (NextGenPSD2 XS2A 1.3 with
// the platform's deviations) that many Norwegian banks run on one shared
// platform. Third-party providers use it to read a customer's accounts,
// balances and transactions after consent (AISP), and to initiate payments the
// customer approves with strong customer authentication (PISP).
//
// It signs every request as the interface demands, keeps the customer's
// session and access limits, turns the bank's answers into typed errors, and
// never sends a payment twice on its own. The sub-package xs2atest is an
// in-process fake bank that behaves as the interface does, so a TPP's whole
// flow runs offline in tests.
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
// (status, X-Request-ID, attempts) and an error; on failure the *Response is
// still returned when the bank answered. A call whose context has no deadline
// gets one of 30 seconds (WithTimeout), covering its retries and the reading
// of the answer.
//
// # Services
//
// The Client groups the endpoints: Accounts (accounts, balances,
// transactions), CardAccounts (card accounts, their balances and
// transactions), Consents and Users (consent and registration SCA, corporate
// agreements), Payments (initiation, authorisation, status, cancellation,
// e-invoices), SigningBaskets, Sandbox (mock data) and TPP (contact
// e-mail). Accounts.Transactions and CardAccounts.Transactions are iterators that
// follow the pages; each pending entry is yielded once. Models keep the
// members of the bank's JSON they do not name in Extra. Early-access
// behaviour (x-accept-fix) is enabled with WithAcceptFixes, or per call with
// ContextWithAcceptFixes.
//
// # The PSU, SCA and sessions
//
// PSU carries the psu-id and psu-corporate-id of the SCA callback, the PSU's
// IP address (set only when the PSU is present in real time), the
// TPP-Session-ID and the other PSU headers; malformed values are refused
// before sending. SCA is by redirect: an answer asking for it is a
// *SCARequiredError, the calls that start one return *SCALinks, and after SCA
// ParseCallback (or CallbackHandler) reads the result. SessionManager keeps
// the rules of TPP-Session-ID (docs/interface.md CS3, CS4).
//
// # Request signing
//
// A Signer holds the TPP's eIDAS key and certificate (PEM, PKCS#12, or any
// crypto.Signer such as an HSM or KMS key). Transport, an http.RoundTripper
// usable on its own, stamps and signs each request (docs/interface.md SIG1 to
// SIG7); SignerOptions cover the variants banks are known to want.
// WithResponseVerification checks the bank's response signatures and requires
// them; WithResponseVerificationIfSigned checks those the bank sends.
//
// # Errors
//
// The bank's answers of status 400 and above are *Error values; callers branch
// with errors.Is on the sentinels (ErrSCARequired, ErrConsentInvalid,
// ErrOutcomeUnknown, ...) and read details with errors.As. Input the SDK
// refuses before sending is a *ValidationError naming the field. Messages
// start with "xs2a: " and never hold keys, bodies or the PSU's ids. The
// README's Errors table lists every error with what to do.
//
// # Payments sent once
//
// Reads are retried with backoff; a POST is never re-sent once it may have
// reached the bank. When a payment's answer is lost the error answers
// errors.Is(err, ErrOutcomeUnknown) and carries the X-Request-ID. The
// interface cannot look such a payment up: for an e-invoice,
// Payments.ResolveEInvoice tells whether it landed; for other payments ask the
// PSU, and initiate again only on the PSU's decision (README, "Lost payment
// answers").
//
// # Limits
//
// Without the PSU present the bank allows 4 calls per 24 hours to an
// account's balances and to its transactions, 90 days back
// (docs/interface.md L1, L2). The client counts these calls in a BudgetStore
// and refuses the fifth locally with an *AccessExceededError; share the store
// between replicas with WithBudgetStore (the nested module redisstore has one
// in Redis), or turn the guard off with WithBudgetStore(nil).
//
// # Security
//
// TLS 1.2 or newer; signed requests go only to the base address's origin;
// logs (WithLogger) hold only the operation, method, status, X-Request-ID,
// attempt and duration. Answers are untrusted: an scaRedirect that is no web
// address, or an amount that is no plain decimal, is refused.
//
// # Testing a TPP
//
// Package xs2atest runs the interface in-process: sandbox customers, the SCA
// page, consent, sessions, limits, payment lifecycles on a controllable clock,
// fault injection and response signing. The command
// github.com/tppkit/xs2a/cmd/xs2a serves the same fake bank on a real port
// (xs2a fakebank) and runs account and payment calls from a terminal.
package xs2a
