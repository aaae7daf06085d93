package xs2a

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// TransactionStatus is a payment's status code (transactionStatus), one of
// the ISO 20022 codes of the Berlin Group guidelines (docs/interface.md PS1,
// PS2). Unknown codes decode as they are; Known reports them.
type TransactionStatus string

// The Berlin Group transaction status codes (docs/interface.md PS2 to PS5).
const (
	TransactionStatusRCVD TransactionStatus = "RCVD" // Received: a new payment's first status
	TransactionStatusPDNG TransactionStatus = "PDNG" // Pending: signed, until the bank executes it (PS9)
	TransactionStatusACTC TransactionStatus = "ACTC" // AcceptedTechnicalValidation
	TransactionStatusACFC TransactionStatus = "ACFC" // AcceptedFundsChecked
	TransactionStatusACCP TransactionStatus = "ACCP" // AcceptedCustomerProfile; see PaymentStatus.InsufficientFunds
	TransactionStatusACWC TransactionStatus = "ACWC" // AcceptedWithChange, such as the date
	TransactionStatusACWP TransactionStatus = "ACWP" // AcceptedWithoutPosting
	TransactionStatusACSP TransactionStatus = "ACSP" // AcceptedSettlementInProcess
	TransactionStatusACSC TransactionStatus = "ACSC" // AcceptedSettlementCompleted: the debtor's account is debited: final
	TransactionStatusACCC TransactionStatus = "ACCC" // AcceptedCreditSettlementCompleted: the creditor's account is credited: final
	TransactionStatusRJCT TransactionStatus = "RJCT" // Rejected: final
	TransactionStatusCANC TransactionStatus = "CANC" // Cancelled before execution: final
	TransactionStatusPATC TransactionStatus = "PATC" // PartiallyAcceptedTechnicalCorrect: signers missing (PS4)
	TransactionStatusPART TransactionStatus = "PART" // PartiallyAccepted: final for a bulk payment (PollOptions.Bulk)
)

// Final reports ACSC, ACCC, RJCT or CANC; not PART (see PollOptions.Bulk).
func (s TransactionStatus) Final() bool {
	return s == TransactionStatusACSC || s == TransactionStatusACCC ||
		s == TransactionStatusRJCT || s == TransactionStatusCANC
}

// Accepted reports whether s says the PSU has signed and the bank accepted
// the payment: PDNG, ACTC, ACCP, ACSP, ACWC, ACWP, ACCC or ACSC
// (docs/interface.md PS9; but see PaymentStatus.InsufficientFunds).
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
	return s.Accepted() || s.Final() || s == TransactionStatusRCVD || s == TransactionStatusACFC ||
		s == TransactionStatusPATC || s == TransactionStatusPART
}

// PaymentOutcome is what a payment's status means to the person who made
// it, for a frontend to show (PaymentStatus.Outcome).
type PaymentOutcome string

// The outcomes of PaymentStatus.Outcome.
const (
	OutcomeWaitingForSignature PaymentOutcome = "waiting_for_signature" // RCVD; PATC: signers missing
	OutcomeAccepted            PaymentOutcome = "accepted"              // signed and accepted, not yet settled
	OutcomeSettled             PaymentOutcome = "settled"               // ACSC, ACCC: final
	OutcomeRejected            PaymentOutcome = "rejected"              // RJCT: final
	OutcomeOnHoldForFunds      PaymentOutcome = "on_hold_for_funds"     // fundsAvailable false (PS5): cancel it before paying again
	OutcomeCancelled           PaymentOutcome = "cancelled"             // CANC: final
	OutcomeUnknown             PaymentOutcome = "unknown"               // any other code (ACFC, PART, one not of the Berlin Group)
)

// Outcome is the status's PaymentOutcome (docs/interface.md PS10); a nil
// status is OutcomeUnknown.
func (s *PaymentStatus) Outcome() PaymentOutcome {
	switch {
	case s == nil:
		return OutcomeUnknown
	case s.InsufficientFunds():
		return OutcomeOnHoldForFunds
	}
	switch s.TransactionStatus {
	case TransactionStatusRCVD, TransactionStatusPATC:
		return OutcomeWaitingForSignature
	case TransactionStatusACSC, TransactionStatusACCC:
		return OutcomeSettled
	case TransactionStatusRJCT:
		return OutcomeRejected
	case TransactionStatusCANC:
		return OutcomeCancelled
	}
	if s.TransactionStatus.Accepted() {
		return OutcomeAccepted
	}
	return OutcomeUnknown
}

// SCAStatus is the Berlin Group status of an authorisation (scaStatus) of a
// payment, a signing basket or a consent (docs/interface.md PS8). Unknown
// codes decode as they are; Known reports them.
type SCAStatus string

// The Berlin Group SCA status codes.
const (
	SCAStatusReceived          SCAStatus = "received"          // the authorisation was created
	SCAStatusPSUIdentified     SCAStatus = "psuIdentified"     // the PSU is identified
	SCAStatusPSUAuthenticated  SCAStatus = "psuAuthenticated"  // the PSU is identified and authenticated
	SCAStatusSCAMethodSelected SCAStatus = "scaMethodSelected" // the SCA method has been chosen
	SCAStatusStarted           SCAStatus = "started"           // the PSU has yet to sign at the scaRedirect page
	SCAStatusUnconfirmed       SCAStatus = "unconfirmed"       // done by the PSU, awaiting the TPP's confirmation
	SCAStatusFinalised         SCAStatus = "finalised"         // the SCA succeeded: final
	SCAStatusFailed            SCAStatus = "failed"            // the SCA failed or was cancelled: final
	SCAStatusExempted          SCAStatus = "exempted"          // no SCA was needed; succeeded: final
)

// Final reports whether the authorisation no longer changes: finalised,
// failed or exempted.
func (s SCAStatus) Final() bool {
	return s == SCAStatusFinalised || s == SCAStatusFailed || s == SCAStatusExempted
}

// Known reports whether s is one of the Berlin Group codes above.
func (s SCAStatus) Known() bool {
	return s.Final() || s == SCAStatusReceived || s == SCAStatusPSUIdentified || s == SCAStatusPSUAuthenticated ||
		s == SCAStatusSCAMethodSelected || s == SCAStatusStarted || s == SCAStatusUnconfirmed
}
