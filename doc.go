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
// Every call ends. When its context has no deadline, the call gets one of 30
// seconds (WithTimeout changes it); the retries, the waits between them and
// the reading of the answer happen within it. A context with a deadline of
// its own keeps it, shorter or longer: that is how a call gets more time.
// A call that ends this way is a *TransportError wrapping
// context.DeadlineExceeded (for a payment sent, also ErrOutcomeUnknown).
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
// WithEscapedSpacesInCA, WithKeyID, WithSignedHeaders, WithDigestOnEmptyBody,
// and WithRFC2047Signature, which wraps every Signature value as
// =?utf-8?B?...?= the way the platform's public clients send it).
// Transport works on its own: &http.Client{Transport: &xs2a.Transport{...}}
// signs any request.
//
// WithResponseVerification checks the bank's response signatures.
//
// # The PSU and its headers
//
// PSU carries the psu-id and psu-corporate-id of the SCA callback, the PSU's
// IP address (set only when the PSU is present in real time), the
// TPP-Session-ID, TPP-Redirect-Preferred and the PSU-Context (PRIVATE or
// CORPORATE), which is sent only on the calls that start a consent or
// registration SCA. Values are checked before a request is built: a
// malformed id, address or context is a *ValidationError, and no value can
// inject a header.
//
// # Consent: which call
//
// Consents.CreateBankOffered (POST /v1/bank-offered-consents, empty body,
// PSU-Context) is the consent call the production banks of the platform are
// seen to run; Consents.Create (POST /v1/consents) is the one the written
// interface description names. Both answer with a scaRedirect and give the
// same consent. Use CreateBankOffered against the production banks, Create
// for a bank (or test double) that serves only /v1/consents.
//
// # Ids and links
//
// Resource ids ("enc!!QkFOSy0xMjM0NTY3ODkwMTI=") are sent as the bank wrote
// them: a path built from an id escapes only what RFC 3986 forbids in a
// segment ("/", "%", "?", "#", space, non-ASCII bytes), never "!", "=",
// "+", "," or ";". _links hrefs are followed verbatim, their escaping kept.
//
// # Transactions and bookingStatus
//
// The iterators follow _links.next (or page by offset) and yield pending
// entries once, though an account sends all of them on every page for
// BookingBoth, BookingPending and BookingAll. BookingAll has the Berlin
// Group's meaning: booked, pending and information (standing orders, in
// AccountReport.Information, yielded once with Status BookingInformation).
// A card walk that follows next links stops on a next link that leads back
// to a page read, not on equal content: card pages can hold equal entries
// without ids. A walk by offset (no next links) still stops on a page whose
// content repeats the previous one, as a bank ignoring offset would send.
//
// # SCA
//
// SCA is by redirect. Any answer may ask for it: a 401 whose body holds a
// scaRedirect link, or a data call answered with one, is a *SCARequiredError
// (errors.Is(err, ErrSCARequired)). Consents.CreateBankOffered,
// Consents.Create, Users.Register,
// Users.User and Payments.StartAuthorisation return the redirect as their
// result (*SCALinks); Payments.AuthorisationStatus reads one SCA's state
// (SCAStatus: started, then finalised or failed) from the scaStatus link
// of that result. After SCA the bank sends the PSU to the TPP-Redirect-URI;
// ParseCallback (or the http.Handler of CallbackHandler) reads the psu-id,
// psu-corporate-id, tpp-session-id and context, or a *SCAFailure. A
// SessionManager keeps the rules of TPP-Session-ID: an SCA holds for one hour;
// a new session id needs a new SCA, which invalidates the old id when it
// completes and leaves it valid when aborted.
//
// # Members the models do not name
//
// Account, CardAccount, Balances, Balance, Transaction, CardTransaction,
// Agreement, SCALinks, Initiation, PaymentStatus, AuthorisationStatus,
// BasketDetails and BasketStatus keep the members of the bank's JSON that
// their fields do not name in Extra (the values as the bank sent them; nil
// when there are none): read one with Extra.Decode.
// Marshalling such a model writes them back after its named fields; a named
// field always wins over an Extra member of the same name.
//
// # Errors
//
// The bank's answers of status 400 and above are *Error values (status, first
// code, all tppMessages, X-Request-ID, the raw body capped at 1 MiB); bodies
// that are not JSON, and problem+json bodies, are handled. Callers branch with
// errors.Is on the sentinels: ErrSCARequired, ErrSignatureInvalid,
// ErrAccessExceeded, ErrConsentInvalid, ErrCorporateIDRequired,
// ErrInsufficientFunds, ErrReferenceMixInvalid, ErrNotFound, ErrCrossOrigin,
// ErrOutcomeUnknown, ErrDuplicatePayment, ErrSCAFailed, ErrSCARedirectInvalid. PollStatus reports a payment held for
// lack of funds (ACCP, not final) as a *FundsError: cancel it before
// retrying. Input the SDK refuses before sending is a *ValidationError naming
// the field. Error messages start with "xs2a: " and never hold keys or
// bodies; the PSU-ID, PSU-CORPORATE-ID and TPP-Session-ID a call carried are
// replaced by "[redacted]" where the bank's text echoes them (in any case),
// in messages and logs. Error.Code, Error.Messages, Error.Body,
// SCARequiredError.Messages and TransportError.Err keep the raw text.
//
// # Retries and payments sent once
//
// GET calls are retried (DefaultRetryPolicy: 3 attempts, exponential backoff
// with jitter, Retry-After honoured, waits end with the context), each attempt
// signed afresh under the same X-Request-ID. The client's retries are the only
// ones: net/http, which re-sends a request by itself when a reused connection
// fails, is never given one it can send again, so each attempt reaches the
// bank at most once, Response.Attempts (and TransportError.Attempts) counts
// every request that may have reached it, and RetryPolicy.MaxAttempts is the
// true limit. A POST is never re-sent once it may
// have reached the bank: when a payment initiation's answer is lost the error is
// an error that answers errors.Is(err, ErrOutcomeUnknown) and carries the
// X-Request-ID, so the TPP can find out before paying twice (see Lost payment
// answers). So is a 5xx answer to a payment, and a 2xx answer that cannot be
// read or verified.
//
// # Lost payment answers
//
// After ErrOutcomeUnknown the bank may or may not hold the payment, and the
// interface cannot look one up: no endpoint lists payments or finds one by
// X-Request-ID or any reference of the TPP; the payment's id and links were
// in the lost answer only. What a TPP can do:
//
//   - An e-invoice: PaymentsService.ResolveEInvoice sends the invoice again
//     without allowLogicalDuplicate. The bank refuses a second live payment
//     of one invoice (same KID, invoice number and creditor) unless that
//     flag is set, so the answer says whether the first attempt landed
//     (ErrDuplicatePayment) and the invoice is never paid twice.
//   - Other payments (single, periodic, bulk): the interface documents no
//     duplicate check for them. A refusal that answers ErrDuplicatePayment
//     proves an earlier payment, but an acceptance proves nothing: sending
//     again makes a second payment. The SDK sends allowLogicalDuplicate only
//     when asked (InitiateOptions.AllowLogicalDuplicate, for Initiate and
//     InitiateEInvoice).
//   - The bank executes a payment after the PSU's SCA, which starts from the
//     startAuthorisation link of the initiation's answer; a payment whose
//     answer was lost stays unauthorised unless the bank exempted it from
//     SCA, which the interface allows.
//   - Ask the PSU, who can check the bank's own channels, and initiate
//     again only on the PSU's decision; the new payment needs the PSU's SCA.
//     With an account-information consent for the debtor account,
//     Accounts.Transactions (pending and booked) shows what was executed.
//   - Keep the X-Request-ID of the error: the bank's support can trace the
//     request by it; the interface cannot.
//
// # Limits and the access budget
//
// Without the PSU present (no PSU-IP-Address) the bank allows 4 calls per 24
// hours to an account's balances and to its transactions, and transactions of
// at most 90 days back. The client counts these calls (per PSU, account and
// endpoint, in a rolling window; also transaction details and card account
// balances, which a bank may count too) and refuses the fifth locally with an
// *AccessExceededError that says when the next call is allowed, so the bank's
// quota is not spent on a refusal; a too old DateFrom is a *ValidationError.
// The counting BudgetStore is in memory by default; share one between
// replicas with WithBudgetStore, or turn the guard off with
// WithBudgetStore(nil). The
// nested module github.com/tppkit/xs2a/redisstore has a BudgetStore and a
// SessionStore in Redis for that; when the store cannot be reached a
// PSU-not-present call is not sent (it fails closed).
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
// An answer is untrusted. A scaRedirect is handed out only as an https
// address with a host (any host: banks run SCA pages elsewhere), plain http
// on a loopback host (test banks), or a relative link resolved under the base
// address; anything else (javascript:, data:, "//host", whitespace or
// backslash tricks) is a *SCARedirectError. An amount (and exchangeRate, and
// the sandbox's balances) must be a plain decimal, as a JSON string or
// number: an optional '-', 1 to 14 digits, optionally '.' and 1 to 3 digits
// (up to 15 for a rate, which has no sign); exponents ("1e2"), '+', spaces,
// NaN and hexadecimal are refused with a *json.UnmarshalTypeError naming the
// JSON path of the field.
//
// # Testing a TPP
//
// Package xs2atest runs the interface in-process: sandbox customers, the SCA
// page, consent, sessions, limits, payment lifecycles on a controllable clock,
// fault injection, and response signing. See its documentation and
// examples/mocking. The command github.com/tppkit/xs2a/cmd/xs2a serves the
// same fake bank on a real port for TPPs in any language (xs2a fakebank) and
// runs account and payment calls from a terminal.
//
// # Conformance
//
// The end-to-end suite (e2e_*_test.go) runs every flow of the interface
// description and every row of its Errors and Limits tables that the fake
// bank produces through the public API against xs2atest, each test asserting
// the exact typed error or state; what the fake does not produce is listed
// after the table. The rules and the tests that cover them:
//
//	docs/interface.md rule                                  test
//	Flow 1: 401 scaRedirect, SCA, callback psu-id, PSU-ID,   TestFlow1AccountAccess
//	  accounts, balances, 1100 booked in 3 pages of 499,
//	  pending once and unfiltered, transaction details,
//	  stable ids, reads after the PSU's session ended
//	Flow 1: card accounts; card amounts right with and       TestFlow1CardAccounts
//	  without cardaccount-switch-...-transactionamount
//	Bank-offered consent with PSU-Context preselected,       TestFlowBankOfferedConsent
//	  callback context, Accounts.Get
//	Card account details and balances (any_balance_type)     TestFlowCardAccountReads
//	Ids with "+", "/", "=" in every path                     TestFlowIDsWithReservedCharacters
//	bookingStatus both/pending: all pending on every page    TestFlowPendingOnEveryPage
//	bookingStatus all: booked, pending, standing orders      TestFlowBookingStatusAll
//	Flow 2: psu-corporate-id from the consent callback and   TestFlow2CorporateContext
//	  from GET /v1/users and /v1/user; Users.Agreements;
//	  PSU-CORPORATE-ID without consent starts a consent flow
//	  with the agreement preselected
//	Flow 3: PISP-only registration (Users.Register; 401 on   TestFlow3SinglePayment
//	  a payment with an unknown PSU-ID), initiate, authorise,
//	  PollStatus to ACSC (RunBatch); AISP+PISP registers
//	  through the account flow; instant product and fee;
//	  domestic-norway-...: no status before approval
//	Flow 4: e-invoice (SCOR + CINV, debtor chosen at SCA);   TestFlow4ElectronicInvoice
//	  duplicate refused; allowLogicalDuplicate on the retry
//	  only
//	Flow 5: single SCA for PISP-only journeys: a new PSU's   TestFlow5SingleSCAPISPOnly
//	  payment without PSU-ID takes one SCA (sign-in,
//	  context, debtor), no registration first, and ends
//	  final; the callback's psu-id serves later payments;
//	  a registered PSU: one SCA per payment and per basket
//	Payment status PATC (two signers, same link)             TestPaymentStatusPATC
//	Payment cancellation by DELETE (sandbox)                 TestPaymentCancellation
//	Payment status with paymentId and links; a PATC          TestPaymentPATCSecondSignerFromStatus
//	  payment's next signer starts from the status answer
//	Authorisation status (scaStatus) before and after SCA,   TestPaymentAuthorisationStatus
//	  failed after a cancelled SCA
//	Signing basket: get, status, authorise, delete           TestSigningBasketReadAndDelete
//	Cross-border payments: fees accumulated (1.15.0)         TestCrossBorderPaymentFees
//	TPP-Redirect-Preferred False: app biometrics SCA         TestRedirectPreferredFalseAppSCA
//	Flow 4: requestedExecutionDate adjusted (ACWC, next      TestExecutionDateAdjusted
//	  banking day); invoice processed when authorised        TestEInvoiceProcessedAtScheme
//	Sandbox mock data: initialize, customers, create         TestSandboxService
//	  customer, account, transaction (not with another
//	  account as debtor), balance; AIS and PIS on them
//	Members outside the models kept (Extra), marshalled back TestExtraProductionAccounts, TestExtraRoundTrip
//	Pages and lists decoded in one pass, as encoding/json    TestReaderMatchesEncodingJSON, FuzzReader
//	  decodes them; a million transactions hold one page     BenchmarkIterateTransactionsPeak
//	TPP contact e-mail                                       TestTPPService
//	  bound to the TPP's certificate (403 for another's)     TestTPPContactBoundToCertificate
//	cash-account-type-iso                                    TestFlow1AccountAccess/cash-account-type-iso
//	The service may sign responses (and TLS)                 TestResponseSigning
//	Errors: signature missing or invalid: 400                TestErrorsSignatureMissingOrInvalid
//	Errors: TPP-Redirect-URI on every request                TestErrorsRedirectURIRequired
//	Errors: text the backend cannot process: 400             TestErrorsUnprocessableText
//	Errors: account resource without PSU-ID and consent:     TestErrorsSCARequired401
//	  401 with scaRedirect (also per account consented)
//	Errors: corporate user without PSU-CORPORATE-ID: 400     TestFlow2CorporateContext/without_PSU-CORPORATE-ID
//	Errors: KID error: 400                                   TestErrorsKID
//	Errors: bulk or periodic in a signing basket:            TestErrorsBasketReferenceMix
//	  400 REFERENCE_MIX_INVALID
//	Errors: MonthlyVariable with duplicate months            TestErrorsMonthlyVariableDuplicateMonths
//	Errors: insufficient funds: no 500; ACCP, fundsAvailable TestErrorsInsufficientFunds
//	  (ErrInsufficientFunds from PollStatus); the instant     TestErrorsInsufficientFundsAtInitiation
//	  product refused at initiation: ErrInsufficientFunds
//	Errors: failed SCA: redirect with status, code, message  TestErrorsFailedSCA
//	Errors: closed account; consented user with no account:  TestErrorsClosedAccountEmptyList,
//	  empty list, not 404                                    TestErrorsConsentedUserWithoutAccounts
//	Errors: sandbox invalid CustomerType; PSU-ID format      TestErrorsSandboxValidation
//	Consent revoked at the bank: 403, new consent SCA        TestErrorsConsentRevoked
//	Payment POST whose answer is lost: ErrOutcomeUnknown,    TestErrorsPaymentOutcomeUnknown
//	  one payment at the bank; a 503 to a POST not resent
//	E-invoice whose answer is lost: ResolveEInvoice says     TestErrorsEInvoiceOutcomeResolved
//	  whether it landed, or makes the one payment
//	503 with Retry-After on a GET: retried to success        TestErrorsRetry503
//	Limits: PSU not present, 4 calls per 24 h (balances,     TestLimitsPSUNotPresent
//	  transactions, details): SDK budget and bank's 429
//	Limits: transactions at most 90 days old, accounts SCA'd TestLimits90Days,
//	  within 90 days; the 90 days in the bank's calendar     TestLimits90DaysBankCalendar
//	Limits: SCA session 1 hour; new TPP-Session-ID needs     TestLimitsSCASession
//	  SCA; completing invalidates the old; aborting keeps it
//	Limits: name 70 characters with longer-names, 35 without TestLimitsNameLength
//	Limits: batch processing 5 runs a day                    TestLimitsBatchRuns
//	Sandbox: batches leave periodic payments out             TestLimitsBatchExcludesPeriodic
//	Limits: payment initiation needs PSU-IP-Address          TestFlow3SinglePayment/PSU-IP-Address_required
//
// Not covered here: the failure callback's system parameter (the fake sends
// it only when a Fault fails an SCA page with a server error, tested in
// xs2atest; ParseCallback's handling of it in sca_test.go) and checks of
// certificates against registries. Transaction codes with both value and
// code are read back in TestSandboxService.
package xs2a
