// Package xs2atest is a fake bank for tests and examples: an in-process
// HTTP server that runs the interface of the SDK's spec (docs/interface.md) with
// sandbox data, so every flow of package xs2a runs offline.
//
//	s := xs2atest.NewServer(t)                      // closed by t.Cleanup
//	client, _ := s.Client(nil)                      // an xs2a.Client with a test signer
//	// ... a call answers *xs2a.SCARequiredError with a scaRedirect link:
//	callback, _ := s.CompleteSCA(ctx, href, xs2atest.PrivateCustomer1)
//	cb, _ := xs2a.ParseCallback(callback.Query())   // psu-id, tpp-session-id, context
//
// Programs (examples/quickstart) use Start and Close instead of NewServer;
// WithAddress makes it listen on a known address, as `xs2a fakebank` does
// for TPPs in other languages and processes.
//
// Like a real bank, the server sits below a base path: URL is
// http://127.0.0.1:PORT/api (DefaultBasePath; WithBasePath chooses another,
// "" the root), the interface's paths are below it (URL()+"/v1/accounts"),
// and a request outside it gets 404. _links hrefs are relative to the base
// address ("/v1/accounts/{id}/balances", as the platform writes them): the
// SDK resolves them under the base path. The SCA pages, the scaRedirect
// links and every other absolute URL the server builds (a payment's
// Location) are under URL() too. Fault.Path, Request.Path and RequestCount
// use the path below the base path ("/v1/payments").
//
// # What it checks
//
// Every request under /v1 must be signed. The server verifies the Signature
// header itself, independently of the SDK's Signer: keyId
// "SN=<hex serial, upper case>,CA=<issuer, RFC 2253>" must match the certificate in
// TPP-Signature-Certificate (base64 DER, PEM tolerated), algorithm rsa-sha256
// (PKCS#1 v1.5) or ecdsa-sha256 (P-256, ASN.1 DER), the parts in the order
// keyId, algorithm, headers, signature. A value with text other than ASCII
// (a non-ASCII issuer) must be RFC 2047 encoded (=?utf-8?B?...?=, docs/interface.md
// Authentication 7); raw non-ASCII text is refused. Any value may be sent so
// wrapped (the SDK's SignerOptions.RFC2047Signature): a value that starts with "=?"
// must then consist of encoded words only (charset utf-8, us-ascii or
// iso-8859-1; B or Q), separated by white space; a partial or malformed
// wrapping gets 400 SIGNATURE_INVALID. date, digest,
// x-request-id, psu-id, psu-corporate-id and tpp-redirect-uri must be signed
// when present; Digest (SHA-256 or SHA-512) must match the body and is
// required with a body. The certificate is not
// checked against a CA: a TPP is identified by its keyId, so psu-ids and
// payments belong to it.
//
// The strictness, and what tunes it:
//
//	Check                                   Refusal                                Tuning
//	Digest with a body                      400 SIGNATURE_INVALID                  none: a body needs its Digest
//	date, digest, x-request-id, psu-id,     400 SIGNATURE_INVALID                  none: a header present is signed
//	psu-corporate-id, tpp-redirect-uri
//	keyId serial upper-case hex, CA with    400 SIGNATURE_INVALID                  WithKeyIDVariants (-keyid-variants)
//	spaces (RFC 2253 or Go's pkix form)
//	Date within 5 minutes of the bank's     400 SIGNATURE_INVALID, path Date       WithDateSkew (-date-skew; 0: off)
//	clock (or the host's, when the bank's
//	was moved)
//
// Every refusal names its reason: the body's tppMessages carry a code and a
// text, and the log line of WithLogger the same code and reason (an SCA
// page's refusal: code SCA_PAGE and the reason the page shows), never
// bodies, PSU headers or resource ids. Answers that net/http writes itself
// (a malformed request line, a header over 64 KiB: 431) are plain text.
//
// The CA is the certificate's issuer in strict RFC 2253 form, as the SDK's
// Signer and Java's X500Principal (RFC2253) write it: RDNs last to first,
// the keywords CN, L, ST, O, OU, C, STREET, DC and UID only, every other
// attribute type (serialNumber, organizationIdentifier, postalCode, ...) as
// its dotted OID and "#" with the hex of the value's DER as the certificate
// holds it ("2.5.4.5=#13..."). The server also accepts Go's crypto/x509/pkix
// form of the issuer (SERIALNUMBER=, POSTALCODE=, other types as #hex of a
// re-encoded value), which some TPP libraries produce. Escapes compare by
// the character they stand for ("\22" or "\"" for a quote, hex in either
// case), as RFC 2253 allows both. The serial must be upper-case hex and the
// CA must write its spaces as spaces (docs/interface.md, Authentication 4): a
// lower-case serial or "%20" for a space gets 400 SIGNATURE_INVALID, unless
// WithKeyIDVariants makes the server accept these variants, which some
// banks accept (for testing the SDK's SignerOptions.LowerCaseSerial and
// EscapedSpacesInCA).
//
// # Sandbox data
//
// After Start (and after POST /v1/sandbox/initialize or Initialize) the bank
// holds two private customers, PrivateCustomer1 and PrivateCustomer2, each
// with two accounts and a card account, and two corporate customers,
// CorporateCustomer1 and CorporateCustomer2, each with two accounts. Every
// corporate customer has a default agreement; CorporateCustomer2's second
// account sits in an agreement with both corporate customers as members that
// needs two signers. Accounts have valid Norwegian BBANs (MOD11) and IBANs,
// opaque ids shaped as the platform's ("enc!!<base64>=", which may hold "+"
// and "/"; hrefs escape only what RFC 3986 forbids in a path segment, so
// "/" is %2F and "!", "+", "=" stay), booked transactions over the last 120
// days and two
// pending ones; PrivateCustomer1's first account has 1100 booked, three
// pages of 499. The data is generated from a seed (WithSeed): the same seed
// gives the same ids. Customers, Customer, CloseAccount, SetBalance, Balance,
// RevokeConsent and ExpireSessions read and change it from a test.
//
// # SCA, consent and sessions
//
// The scaRedirect link points to URL()+"/sca/<token>": an HTML page a
// browser can use (national id, context, accounts or payment, confirm or
// cancel) that ends in a 303 to the TPP-Redirect-URI of the request that
// started it. The page names the TPP (the organisation, else the common
// name, of the certificate that started the SCA, made inert) and what it
// asks for: account access (and the context the request asked for), or the
// payments with amount and creditor; it has a viewport for phones. The
// page is tied to the browser that opens it first: that GET sets a cookie
// scoped to the page (HttpOnly, SameSite=Strict, Secure under TLS) and the
// page's forms carry a per-page token; a POST without both, such as a form
// posted from another origin, or a GET from another browser, gets 403 and a
// page that says why. CompleteSCA walks the same pages over HTTP; SCAOption values
// (Private, Corporate, Accounts, Cancel) steer it; the module
// xs2atest/browsertest drives the pages in headless Chromium. The psu-id is
// a UUID derived from the TPP's keyId and the customer (PSUID), the
// psu-corporate-id one derived from the keyId and the agreement
// (CorporateID). A failed or cancelled SCA redirects with status=401,
// code=SCA_INVALID and a message; a link is single-use and valid for an hour.
// A Fault with a status on an SCA page fails the SCA with that status, its
// code and a message, and on a server error (status 500 or more) the system
// parameter too (Fault.System, default "SCA"), as docs/interface.md sends system
// "on server errors" only.
//
// A payment initiated without PSU-ID (single, periodic, bulk or e-invoice:
// the single SCA of a PISP-only journey, docs/interface.md Flow 5) is created for
// the TPP but bound to no customer; its status and details are the TPP's to
// read. At its SCA the PSU signs in, chooses the context and, where the
// payment names none, the debtor among the accounts and card accounts it
// may pay from there; the payment is then checked as initiation checks one
// with a PSU-ID. A debtorAccount the PSU may not pay from, or an instant
// payment it cannot pay, ends the SCA with a failure redirect carrying the
// status, code and message initiation would have answered (400 FORMAT_ERROR,
// 400 FUNDS_NOT_AVAILABLE) and the payment becomes RJCT. Otherwise the
// payment becomes the PSU's (in its agreement, with the agreement's signers)
// and is signed, and the success callback's psu-id (and psu-corporate-id)
// registers the PSU for the TPP as GET /v1/users does. The first SCA to
// complete binds the payment: another one under way then fails with
// SCA_INVALID, and a cancelled one leaves it unbound. A signing basket takes
// bound payments only.
//
// # Payments as production banks answer
//
// Beyond the interface description, the server answers as production banks
// of the platform do. A payment is RCVD until its last signer has signed,
// then PDNG until a batch run executes it (ACSC), even for today's date. Its
// status answer carries its paymentId and _links: status, self (GET, and
// DELETE while a signer is due) and startAuthorisation while a signer is due
// (RCVD, PATC), so the next signer of a PATC payment can start from a status
// read. The answer of a startAuthorisation link is {"scaStatus":"started"}
// and _links.scaRedirect, without authorisationId or scaStatus link;
// WithFullAuthorisationAnswer adds both, the link to that authorisation:
// scaStatus started, then finalised, or failed when the PSU cancels. A
// signing basket is read with GET (payments, transactionStatus,
// _links), its status link answers {"transactionStatus"} alone, and DELETE
// removes it while it is not authorised (204; then 404, an SCA of it under
// way fails, its payments stay); once authorised DELETE is 400
// CANCELLATION_INVALID.
//
// A requestedExecutionDate that is no longer possible when the last signer
// signs, because it has passed by then or is not a banking day, moves to the
// next banking day (Monday to Friday, not a Norwegian public holiday, not 24
// or 31 December): the payment becomes ACWC (accepted with a change) instead
// of PDNG, its status and details report the new date, and the batch runs
// book it then. Periodic payments keep their startDate. The instant
// product runs every day: its past date moves to today, and it is executed
// at once.
//
// An authorised e-invoice payment (CINV and SCOR) marks the invoice
// processed at the invoice scheme once all its signers have signed;
// EInvoiceProcessed reports it, and no call of the TPP changes it.
//
// An SCA started by a request with TPP-Redirect-Preferred: False (any case)
// is the app-biometrics variant: after sign-in a page asks the PSU to
// confirm in the bank's app and continue; the outcome and the callback are
// those of the plain redirect. A browser can use both; CompleteSCA walks
// both.
//
// # Cross-border payments
//
// ProductCrossBorder (cross-border-credit-transfers) pays an iban outside
// Norway (valid check digits; a Norwegian iban is refused: a domestic
// product pays it), with the creditorAddress and its country, in NOK, EUR,
// USD, GBP, SEK, DKK or CHF; a SCOR reference must be an ISO 11649 RF
// creditor reference, and e-invoices stay domestic. Its fees are
// accumulated (API release 1.15.0): 25.00 NOK per payment, and 15.00 NOK
// more when it is paid in another currency than the debtor account's (NOK
// when the PSU chooses the debtor at SCA), summed over the payments of a
// bulk and reported in transactionFees with transactionFeeIndicator true;
// a periodic payment reports the fees of one execution. The batch run
// debits the debtor at fixed rates (EUR 11.50, USD 10.60, GBP 13.60, SEK
// 0.98, DKK 1.54, CHF 12.20 NOK; a currency without a rate counts at par)
// and books the fees as one transaction, "Gebyr utlandsbetaling". The
// instant product's fee stays 2.00 NOK per payment.
//
// # Clock, batches and faults
//
// WithClock drives session expiry, the PSU-not-present limits, dates and the
// payment batch runs (06:00, 09:00, 12:00, 15:00 and 18:00 Europe/Oslo), which
// run lazily when a request arrives after their time; RunBatch forces one.
// WithFaults answers chosen requests with an error status, delays them, or
// drops the connection after processing (Fault.Drop), so a client can be
// shown a payment that exists although it never saw the answer. Requests and
// RequestCount give the request log (method, path, status, X-Request-ID;
// never bodies or PSU headers), bounded by WithRequestLogLimits. AddFault
// and ClearFaults change the faults at runtime. WithResponseSigning signs
// responses with the bank's own test certificate (Certificate). Package mockbank
// (xs2atest/mockbank) registers canned httpmock responses for tests that want
// no server at all.
//
// # Control API
//
// WithControl (on in `xs2a fakebank`, -control=false turns it off) serves
// JSON endpoints under ControlPrefix (/_control, at the server's root,
// outside the base path and never under /v1 or /sca), unsigned, so that a
// test in any language does what a Go test does with the methods above:
// POST /_control/sca completes or cancels an SCA through the same pages as
// CompleteSCA (in process, with a browser of its own) and answers
// {"callback"}; POST /_control/batch runs a batch; POST /_control/clock
// sets or advances the bank's clock (forward only; the batch runs that fall
// due run); POST and DELETE /_control/faults add faults (the keys of
// ParseFault) or remove them all, as AddFault and ClearFaults do; POST
// /_control/reset puts back the bank as started (data, faults of
// WithFaults, clock, request log). GET /_control lists them. Refusals are
// tppMessages, as the interface's.
//
// # A server left running
//
// The HTTP server closes a connection that sends no complete header within
// WithServerTimeouts' read-header timeout (10 s), and idle keep-alive
// connections after 2 minutes; headers are capped at 64 KiB. The request
// log keeps the latest DefaultRequestLogEntries entries within
// DefaultRequestLogBytes (WithRequestLogLimits), and SCAs expire after an
// hour.
//
// # What happens outside the interface
//
// Controls make the bank do what production banks do in their own channels,
// and options run it as some of them are run:
//
//   - WithdrawPaymentRights (RestorePaymentRights undoes it): the account stays
//     listed and readable, but a payment from it, named as debtorAccount or
//     picked at the SCA, gets 403 SERVICE_BLOCKED (docs/interface.md SCA6).
//   - CancelPaymentElsewhere, ChangePaymentElsewhere: the PSU cancels a payment
//     or changes its amount in the online bank; its paymentId stays, its
//     reads show CANC or the new amount (docs/interface.md PP5).
//   - SetPaymentSCA: the initiations that follow get a startAuthorisation link
//     (PaymentSCAStart, the default), an SCA exemption (PaymentSCAExempt: no
//     startAuthorisation, the payment already accepted) or SCA at once
//     (PaymentSCARedirect: a scaRedirect in the initiation answer)
//     (docs/interface.md PS1).
//   - WithoutCardAccounts: card accounts have left the PSD2 channel; every
//     /v1/card-accounts path answers 404 RESOURCE_UNKNOWN (docs/interface.md E13).
//   - PSD2 roles: a TPP certificate with a PSD2 QCStatement (ETSI TS 119 495)
//     gets 401 ROLE_INVALID for account information without PSP_AI and for
//     payments without PSP_PI; a QCStatement that does not parse, 401
//     CERTIFICATE_INVALID. A certificate without one is let through
//     (docs/interface.md AUTH2).
//   - WithAnswerHook hands each answer to the test as it leaves; the
//     end-to-end suites check them all against the Berlin Group 1.3.12 schemas
//     (docs/interface.md BG1).
//
// # Lack of funds
//
// docs/interface.md asks for "a proper error response (not a 500)" for
// insufficient funds and a payment status that carries fundsAvailable. The
// fake bank decides where each applies by when a payment is executed. The
// instant product (ProductInstant) is executed at authorisation: an
// initiation whose debtorAccount is given and whose amount plus fee exceeds
// what the account can pay (its balance, plus its creditLimit for a card
// account) is refused at once with 400 FUNDS_NOT_AVAILABLE, and no payment
// is created. Every other case is reported at execution: the other
// products, an instant payment with a future requestedExecutionDate, and an
// instant payment whose debtor is known only after the SCA (chosen there, or
// initiated without PSU-ID) stay or become ACCP with fundsAvailable false
// and are booked by a later batch run once the money is there.
//
// # Layout
//
// The bank itself (customers, accounts, agreements, consents, SCA sessions,
// the PSU-not-present limit, payments with their signatures, status moves,
// batch runs, fees, signing baskets, and what a completed SCA grants,
// signs and binds) is plain Go without HTTP in the internal package
// xs2atest/internal/bank. It locks itself: each exported method is one
// whole step under the bank's lock and hands out copies, never pointers
// into its state; it refuses with a *bank.Error (status, code, path,
// text). Server is its HTTP face: it checks signatures and headers, parses
// and validates bodies, calls the bank, writes the answer (a refusal as the
// error body above) and serves the SCA pages (HTML, forms, redirects). The
// face's own state (the SCAs under way, TPP contacts, the request log) has
// its own lock, taken before the bank's, never inside it. Package
// xs2atest/mockbank holds the httpmock responders, so that importing this
// package does not pull in httpmock.
//
// # Rules of docs/interface.md and what the server does
//
//	Rule (docs/interface.md)                                      Fake bank
//	Signature missing / invalid                            400 SIGNATURE_MISSING / SIGNATURE_INVALID
//	                                                       (no certificate: 400 CERTIFICATE_MISSING; unreadable: CERTIFICATE_INVALID)
//	TPP-Redirect-URI required on every request             400 FORMAT_ERROR
//	X-Request-ID: a UUID                                   400 FORMAT_ERROR (path X-Request-ID) when missing or not a UUID
//	Date: RFC 7231 date                                    400 FORMAT_ERROR (path Date) when present and not the IMF-fixdate
//	                                                       form "Wed, 12 Mar 2025 10:00:00 GMT"
//	Date near the bank's clock (the fake bank's own rule)  400 SIGNATURE_INVALID (path Date) further than 5 minutes
//	                                                       (WithDateSkew) from the bank's clock and the host's
//	Non-ASCII text in Signature: RFC 2047                  400 SIGNATURE_INVALID for raw non-ASCII text in the header,
//	                                                       or a value partly or wrongly RFC 2047 wrapped
//	PSU-IP-Address: the IP address of the PSU's device     400 FORMAT_ERROR when present and not an IPv4/IPv6 address
//	TPP-Redirect-Preferred: True or False                  400 FORMAT_ERROR when present and not True/False (any case)
//	Text the backend cannot process (e.g. emoji)           400 FORMAT_ERROR for any character outside printable
//	                                                       Latin-1 in a JSON string or a PSU-*/TPP-* header
//	PSU-ID in the wrong format (sandbox validation)        400 FORMAT_ERROR (not an RFC 4122 UUID); same for PSU-CORPORATE-ID
//	Account resource without valid PSU-ID and consent      401 with _links.scaRedirect (PSU_CREDENTIALS_INVALID when
//	                                                       PSU-ID is missing or unknown, CONSENT_INVALID without consent)
//	Consent revoked at the bank                            403 CONSENT_UNKNOWN (as production) until the PSU consents again
//	Consent collected during SCA, consented pre-ticked     the accounts page; the ticked set replaces the consent
//	POST /v1/consents ignores its body                     201 {"consentStatus":"received", _links.scaRedirect}
//	POST /v1/bank-offered-consents (production journeys)   as /v1/consents; PSU-Context PRIVATE or CORPORATE (any case)
//	                                                       preselects that context on the SCA page, which the callback
//	                                                       reports; another PSU-Context value: 400 FORMAT_ERROR
//	GET /v1/users, GET /v1/user                            200 with _links.scaRedirect (registration, context choice)
//	GET /v1/agreements needs a PSU-ID                      200 {"agreements":[{id (= psu-corporate-id), name, organisationNumber}]}
//	Corporate user without PSU-CORPORATE-ID                400 CORPORATE_ID_INVALID (PSU whose last SCA was corporate), on
//	                                                       account and payment calls alike; payment and basket calls
//	                                                       without PSU-ID (status polling) need no PSU
//	PSU-CORPORATE-ID of an agreement without consent       401 scaRedirect; the agreement is preselected on the SCA page
//	SCA session: 1 hour per TPP-Session-ID                 PSU-present requests (PSU-IP-Address) need the TPP-Session-ID of the
//	                                                       PSU's last completed SCA, within the hour; else 401 scaRedirect
//	New TPP-Session-ID: new SCA; completed: old invalid;   as stated; an aborted SCA (also after sign-in) leaves the old
//	aborted: old stays valid                               session as it was, and so does an SCA without TPP-Session-ID
//	Failed SCA: redirect with system, status, code,        status, code, message (cancel, expired link: 401 SCA_INVALID); system
//	message (system: on server errors)                     only on a server error: a Fault of status >= 500 on an SCA page
//	PSU not present: 4 calls per 24 h (balances,           the 5th call in a rolling 24 h per TPP, PSU, account and
//	transactions)                                          endpoint (also transaction details) gives 429 ACCESS_EXCEEDED;
//	                                                       /v1/accounts only: card-account calls are not counted
//	PSU not present: transactions at most 90 days old      dateFrom older than 90 days: 400 PERIOD_INVALID; no dateFrom: the
//	                                                       last 90 days; /v1/accounts only: card transactions have no 90-day rule
//	PSU not present: accounts the PSU accessed online      else 401 CONSENT_EXPIRED with scaRedirect; the 90 days (WithSCARenewal:
//	with SCA within the last 90 days                       another period, such as production's 180) count from the
//	                                                       later of the consent SCA for the account and the last PSU-present
//	                                                       request for it (account, balances, transactions) under a valid
//	                                                       TPP-Session-ID
//	bookingStatus both/pending: all pending transactions,  accounts: every pending entry on every page, whatever dateFrom,
//	dateFrom, dateTo, limit do not filter them             dateTo, limit, offset; card accounts: pending entries filtered
//	(sandbox and card accounts unaffected)                 by transactionDate and paged by offset/limit like booked ones
//	bookingStatus all (Berlin Group: booked, pending and   accounts: as both, plus "information": one entry per active
//	information); information                              standing order (an authorised periodic payment from the account,
//	                                                       its schedule in additionalInformationStructured.
//	                                                       standingOrderDetails), on every page; information alone gives
//	                                                       that list only; card accounts read all as both, information 400
//	limit/offset paging, next link                         limit default and maximum 499; _links.next, and previous as
//	                                                       member banks document it (account and card pages);
//	                                                       _links.account always (cards: cardTransactions._links.self)
//	additionalInformationProprietaryX, currencyExchange    AvtaleGiro and eFaktura debits carry agreement references;
//	where the backend has them                             entries booked in another currency their exchange, with
//	                                                       contractIdentification
//	GET /v1/accounts/{id}, GET /v1/card-accounts/{id}      {"account":{...}}, {"cardAccount":{...}} (Berlin Group shapes)
//	GET /v1/card-accounts/{id}/balances                    {"cardAccount":{maskedPan}, "balances"}; besides closingBooked,
//	                                                       expected, interimAvailable the Berlin Group's card type
//	                                                       nonInvoiced (the booked balance)
//	Closed account                                         left out of the list (an empty list, never 404)
//	Consented user with no account                         an empty list (not 404, not a new SCA)
//	cash-account-type-iso / longer-names accept-fixes      CACC/SVGS instead of BRUK/SPAR; names 70 instead of 35 characters
//	cardaccount-switch-originalamount-and-transactionamount without it transactionAmount and originalAmount come swapped
//	Payment initiation needs PSU-IP-Address                400 FORMAT_ERROR; unknown PSU-ID: 401 scaRedirect (registration)
//	Single SCA for PISP-only journeys (Flow 5, 1.17.0)     no PSU-ID: 201, the payment is bound to the PSU at its SCA (see
//	                                                       SCA, consent and sessions); debtor not payable: failure, RJCT
//	Unknown payment product                                400 PRODUCT_UNKNOWN
//	KID error                                              400 FORMAT_ERROR, path remittanceInformationStructuredArray, "invalid KID"
//	E-invoice: CINV with the scheme's issuer and a SCOR    400 FORMAT_ERROR, path remittanceInformationStructuredArray, for a
//	KID, both in remittanceInformationStructuredArray      CINV without a SCOR there (...[i].referenceIssuer without issuer)
//	Logical duplicate (same CINV, SCOR and creditor)       400 PAYMENT_FAILED, path remittanceInformationStructuredArray
//	                                                       (payments[i]. before it in a bulk), while any earlier payment of
//	                                                       the invoice is neither CANC nor RJCT, unless
//	                                                       ?allowLogicalDuplicate=true (xs2a.ErrDuplicatePayment)
//	MonthlyVariable with duplicate months                  400 FORMAT_ERROR (path monthsOfExecution)
//	startAuthorisation, one per signer                     201 scaStatus, scaRedirect; RCVD -> PDNG (self GET only, no
//	                                                       startAuthorisation), or PATC until enough distinct signers
//	domestic-norway-credit-transfers before approval       status and details: 400 RESOURCE_UNKNOWN while RCVD or PATC
//	Batch processing 5 times a day, not periodic           PDNG/ACWC/ACCP due -> ACSC when funded, else ACCP fundsAvailable=false;
//	                                                       instant product: ACSC right after authorisation when funded
//	Insufficient funds: an error response, not a 500;      instant product with debtorAccount: 400 FUNDS_NOT_AVAILABLE at
//	payment status carries fundsAvailable                  initiation; otherwise ACCP fundsAvailable=false (Lack of funds)
//	Payments from card accounts (sandbox)                  debtorAccount {"maskedPan"} of the PSU's card account; offered
//	                                                       at SCA as a debtor; funded down to minus its creditLimit
//	Cancellation by DELETE                                 204 and CANC unless final (400 CANCELLATION_INVALID)
//	Bulk or periodic payment in a signing basket           400 REFERENCE_MIX_INVALID
//	Signing basket GET, status, DELETE (Berlin Group)      {payments, transactionStatus, _links}; {transactionStatus}; DELETE
//	                                                       204 before authorisation, then 404; after it 400 CANCELLATION_INVALID
//	Flow 4: requestedExecutionDate may be adjusted         moved at SCA to the next banking day: ACWC, reported in status
//	                                                       and details (see Payments as production banks answer)
//	Flow 4: authorising sets the invoice processed         EInvoiceProcessed true once all signers have signed
//	TPP-Redirect-Preferred False: app biometrics           after sign-in a page to confirm in the bank's app; same callback
//	Fees accumulated for cross-border payments (1.15.0)    25.00 NOK per payment + 15.00 NOK in another currency, summed in
//	                                                       transactionFees (see Cross-border payments)
//	Sandbox: invalid CustomerType                          400 FORMAT_ERROR "invalid CustomerType"
//	Sandbox transaction with another account as debtor     400 FORMAT_ERROR (path debtorAccount) when a bban, iban or maskedPan
//	                                                       names another account; dates in the past, bookingDate <= valueDate
//	Sandbox: transaction code with both value and code     proprietaryBankTransactionCode a string (the value) or {"value","code"};
//	                                                       read back in the same form (a string when no code was given)
//	TPP contact e-mail                                     PUT/GET /v1/tpps/{tppId}/contact-information; bad address 400;
//	  bound to the TPP's certificate                       403 CERTIFICATE_INVALID (path tppId) for another TPP's tppId:
//	                                                       a certificate with a PSD2 organizationIdentifier
//	                                                       ("PSDNO-FSA-987654321") acts for that tppId
//	                                                       ("NO-FSA-987654321") only; one without is bound by its
//	                                                       public key to the first tppId it writes, and that tppId
//	                                                       to its key (a renewed certificate with the same key keeps it)
//	The service may sign responses                         WithResponseSigning: Date, Digest, Signature (date digest x-request-id)
//
// Errors are {"tppMessages":[{"category":"ERROR","code","path","text"}]} with
// Content-Type application/json; an unknown path, or one outside the base
// path, gives 404 RESOURCE_UNKNOWN.
package xs2atest
