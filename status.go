package xs2a

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// TransactionStatus is a payment's status code (transactionStatus), one of
// the ISO 20022 codes the Berlin Group guidelines use (docs/interface.md, "Payment
// status"). Codes the SDK does not know decode as they are; Known reports
// them.
type TransactionStatus string

// The Berlin Group transaction status codes.
const (
	// TransactionStatusACCC (AcceptedSettlementCompleted): settlement on the
	// creditor's account is completed. Final.
	TransactionStatusACCC TransactionStatus = "ACCC"
	// TransactionStatusACCP (AcceptedCustomerProfile): the preceding check
	// of technical validation was successful, and the customer profile
	// check too. This bank also reports a payment rejected for lack of funds
	// as ACCP with fundsAvailable false (docs/interface.md, Payment status), which
	// is not final: see PaymentStatus.InsufficientFunds.
	TransactionStatusACCP TransactionStatus = "ACCP"
	// TransactionStatusACSC (AcceptedSettlementCompleted): settlement on the
	// debtor's account is completed. Final.
	TransactionStatusACSC TransactionStatus = "ACSC"
	// TransactionStatusACSP (AcceptedSettlementInProcess): all preceding
	// checks passed and the payment has been accepted for execution.
	TransactionStatusACSP TransactionStatus = "ACSP"
	// TransactionStatusACTC (AcceptedTechnicalValidation): authentication
	// and syntactical and semantic validation are successful.
	TransactionStatusACTC TransactionStatus = "ACTC"
	// TransactionStatusACWC (AcceptedWithChange): accepted, but a change
	// will be made, such as the date.
	TransactionStatusACWC TransactionStatus = "ACWC"
	// TransactionStatusACWP (AcceptedWithoutPosting): accepted, but not
	// posted to the creditor's account.
	TransactionStatusACWP TransactionStatus = "ACWP"
	// TransactionStatusRCVD (Received): a new payment's first status.
	TransactionStatusRCVD TransactionStatus = "RCVD"
	// TransactionStatusPDNG (Pending): further checks and status updates
	// will follow. Banks of the platform answer it once the PSU has signed,
	// until they execute the payment (even on a same-day date): Accepted.
	TransactionStatusPDNG TransactionStatus = "PDNG"
	// TransactionStatusRJCT (Rejected): the payment was rejected. Final.
	TransactionStatusRJCT TransactionStatus = "RJCT"
	// TransactionStatusCANC (Cancelled): the payment was cancelled before
	// execution. Final.
	TransactionStatusCANC TransactionStatus = "CANC"
	// TransactionStatusACFC (AcceptedFundsChecked): technical validation,
	// customer profile and funds check were successful.
	TransactionStatusACFC TransactionStatus = "ACFC"
	// TransactionStatusPATC (PartiallyAcceptedTechnicalCorrect): the payment
	// needs several signatures and at least one but not all signers have
	// authorised it. Each further signer goes through the same
	// startAuthorisation link (docs/interface.md, Payment status; see
	// PollOptions.OnPATC).
	TransactionStatusPATC TransactionStatus = "PATC"
	// TransactionStatusPART (PartiallyAccepted): some payments of a bulk
	// payment were accepted, others rejected. Final for a bulk payment
	// (docs/interface.md, Production), which Final does not know: poll a bulk payment with
	// PollOptions.Bulk.
	TransactionStatusPART TransactionStatus = "PART"
)

// Final reports ACSC, ACCC, RJCT or CANC; not PART (see PollOptions.Bulk).
func (s TransactionStatus) Final() bool {
	switch s {
	case TransactionStatusACSC, TransactionStatusACCC, TransactionStatusRJCT, TransactionStatusCANC:
		return true
	}
	return false
}

// Accepted reports whether s says the PSU has signed and the bank has
// accepted the payment: PDNG, ACTC, ACCP, ACSP, ACWC, ACWP, ACCC or ACSC
// (docs/interface.md PS3). Banks of the platform answer PDNG once the PSU
// has signed and keep it until they execute the payment; public clients
// treat it as accepted. ACCP with fundsAvailable false is a refusal all the
// same (PaymentStatus.InsufficientFunds). PATC (signers missing) and RCVD
// are not accepted.
func (s TransactionStatus) Accepted() bool {
	switch s {
	case TransactionStatusPDNG, TransactionStatusACTC, TransactionStatusACCP, TransactionStatusACSP,
		TransactionStatusACWC, TransactionStatusACWP, TransactionStatusACCC, TransactionStatusACSC:
		return true
	}
	return false
}

// Known reports whether s is one of the Berlin Group codes above.
func (s TransactionStatus) Known() bool {
	switch s {
	case TransactionStatusACCC, TransactionStatusACCP, TransactionStatusACSC, TransactionStatusACSP,
		TransactionStatusACTC, TransactionStatusACWC, TransactionStatusACWP, TransactionStatusRCVD,
		TransactionStatusPDNG, TransactionStatusRJCT, TransactionStatusCANC, TransactionStatusACFC,
		TransactionStatusPATC, TransactionStatusPART:
		return true
	}
	return false
}

// SCAStatus is the status of an authorisation (scaStatus): of the PSU's SCA
// of a payment, a signing basket or a consent, as the Berlin Group
// guidelines define it. Codes the SDK does not know decode as they are;
// Known reports them.
type SCAStatus string

// The Berlin Group SCA status codes.
const (
	// SCAStatusReceived: the authorisation resource was created.
	SCAStatusReceived SCAStatus = "received"
	// SCAStatusPSUIdentified: the PSU of the authorisation is identified.
	SCAStatusPSUIdentified SCAStatus = "psuIdentified"
	// SCAStatusPSUAuthenticated: the PSU is identified and authenticated.
	SCAStatusPSUAuthenticated SCAStatus = "psuAuthenticated"
	// SCAStatusSCAMethodSelected: the SCA method has been chosen.
	SCAStatusSCAMethodSelected SCAStatus = "scaMethodSelected"
	// SCAStatusStarted: the PSU has yet to sign at the scaRedirect page.
	SCAStatusStarted SCAStatus = "started"
	// SCAStatusUnconfirmed: the PSU finished the SCA, but the
	// authorisation awaits a confirmation by the TPP.
	SCAStatusUnconfirmed SCAStatus = "unconfirmed"
	// SCAStatusFinalised: the SCA succeeded. Final.
	SCAStatusFinalised SCAStatus = "finalised"
	// SCAStatusFailed: the SCA failed or was cancelled. Final.
	SCAStatusFailed SCAStatus = "failed"
	// SCAStatusExempted: no SCA was needed; the authorisation succeeded.
	// Final.
	SCAStatusExempted SCAStatus = "exempted"
)

// Final reports whether the authorisation no longer changes: finalised,
// failed or exempted.
func (s SCAStatus) Final() bool {
	switch s {
	case SCAStatusFinalised, SCAStatusFailed, SCAStatusExempted:
		return true
	}
	return false
}

// Known reports whether s is one of the Berlin Group codes above.
func (s SCAStatus) Known() bool {
	switch s {
	case SCAStatusReceived, SCAStatusPSUIdentified, SCAStatusPSUAuthenticated, SCAStatusSCAMethodSelected,
		SCAStatusStarted, SCAStatusUnconfirmed, SCAStatusFinalised, SCAStatusFailed, SCAStatusExempted:
		return true
	}
	return false
}
