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
// # Getting started
//
//	signer, err := xs2a.LoadPKCS12("qseal.p12", password) // or LoadSigner(certPEM, keyPEM)
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
// still returned when the bank answered.
//
// # Request signing
//
// A Signer holds the TPP's eIDAS key and certificate (PEM, PKCS#12, or any
// crypto.Signer such as an HSM or KMS key). Transport, an http.RoundTripper,
// stamps each request with Date, X-Request-ID, TPP-Redirect-URI,
// TPP-Signature-Certificate and Digest and signs it: the Signature header holds
// keyId ("SN=<serial, upper-case hex>,CA=<issuer, RFC 2253>"), algorithm
// (rsa-sha256 or ecdsa-sha256), headers (those of date, digest, x-request-id,
// psu-id, psu-corporate-id and tpp-redirect-uri present, in that order) and the
// signature, RFC 2047 encoded when the issuer has non-ASCII text. Signer
// options cover the variants banks are known to want (WithLowerCaseSerial,
// WithEscapedSpacesInCA, WithKeyID, WithSignedHeaders, WithDigestOnEmptyBody).
// Transport works on its own: &http.Client{Transport: &xs2a.Transport{...}}
// signs any request.
//
// WithResponseVerification checks the bank's response signatures.
//
// # The PSU and its headers
//
// PSU carries the psu-id and psu-corporate-id of the SCA callback, the PSU's
// IP address (set only when the PSU is present in real time), the
// TPP-Session-ID and TPP-Redirect-Preferred. Values are checked before a
// request is built: a malformed id or address is a *ValidationError, and no
// value can inject a header.
//
// # SCA
//
// SCA is by redirect. Any answer may ask for it: a 401 whose body holds a
// scaRedirect link, or a data call answered with one, is a *SCARequiredError
// (errors.Is(err, ErrSCARequired)). Consents.Create, Users.Register,
// Users.User and Payments.StartAuthorisation return the redirect as their
// result (*SCALinks). After SCA the bank sends the PSU to the TPP-Redirect-URI;
// ParseCallback (or the http.Handler of CallbackHandler) reads the psu-id,
// psu-corporate-id, tpp-session-id and context, or a *SCAFailure. A
// SessionManager keeps the rules of TPP-Session-ID: an SCA holds for one hour;
// a new session id needs a new SCA, which invalidates the old id when it
// completes and leaves it valid when aborted.
//
// # Errors
//
// The bank's answers of status 400 and above are *Error values (status, first
// code, all tppMessages, X-Request-ID, the raw body capped at 1 MiB); bodies
// that are not JSON, and problem+json bodies, are handled. Callers branch with
// errors.Is on the sentinels: ErrSCARequired, ErrSignatureInvalid,
// ErrAccessExceeded, ErrConsentInvalid, ErrCorporateIDRequired,
// ErrInsufficientFunds, ErrReferenceMixInvalid, ErrNotFound, ErrCrossOrigin,
// ErrOutcomeUnknown, ErrSCAFailed. Input the SDK refuses before sending is a
// *ValidationError naming the field. Error messages start with "xs2a: " and
// never hold PSU ids, keys or bodies.
//
// # Retries and payments sent once
//
// GET calls are retried (DefaultRetryPolicy: 3 attempts, exponential backoff
// with jitter, Retry-After honoured, waits end with the context), each attempt
// signed afresh under the same X-Request-ID. A POST is never re-sent once it may
// have reached the bank: when a payment initiation's answer is lost the error is
// a *TransportError that answers errors.Is(err, ErrOutcomeUnknown) and carries
// the X-Request-ID, so the TPP can look the payment up instead of paying twice.
//
// # Limits and the access budget
//
// Without the PSU present (no PSU-IP-Address) the bank allows 4 calls per 24
// hours to an account's balances and to its transactions, and transactions of
// at most 90 days back. The client counts these calls (per PSU, account and
// endpoint, in a rolling window) and refuses the fifth locally with an
// *AccessExceededError that says when the next call is allowed, so the bank's
// quota is not spent on a refusal; a too old DateFrom is a *ValidationError.
// The counting Store is in memory by default; share one between replicas with
// WithAccessBudget, or turn the guard off with WithAccessBudget(nil).
//
// # x-accept-fix
//
// Early-access behaviour is enabled per request with x-accept-fix. The client
// sends the fixes of WithAcceptFixes on every call; ContextWithAcceptFixes and
// ContextWithoutAcceptFixes add and remove fixes per call. Card transaction
// calls send CardAccountSwitchAmounts unless removed, and the SDK swaps the
// amounts back when it is not sent, so TransactionAmount is always the amount
// in the account's currency.
//
// # Security
//
// The default transport requires TLS 1.2 or newer (mutual TLS with a QWAC is
// configured on the *http.Client given to WithHTTPClient, which is copied,
// never modified). Signed requests go only to the base address's origin:
// absolute links elsewhere and redirects to other hosts are refused. The SDK
// logs (WithLogger) only the operation, method, status, X-Request-ID, attempt
// and duration.
//
// # Testing a TPP
//
// Package xs2atest runs the interface in-process: sandbox customers, the SCA
// page, consent, sessions, limits, payment lifecycles on a controllable clock,
// fault injection, and response signing. See its documentation and
// examples/mocking.
package xs2a
