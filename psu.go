package xs2a

import (
	"net/http"
	"net/netip"
)

// PSU is the payment service user a call acts for. It is passed by value to
// every call and turned into headers by one set of rules (docs/interface.md, Request
// headers and Limits):
//
//   - ID goes into PSU-ID: the psu-id of the SCA callback, persisted by the
//     TPP. Empty before the first SCA (the bank then answers with SCA).
//   - CorporateID goes into PSU-CORPORATE-ID, in corporate context only.
//   - IPAddress goes into PSU-IP-Address and must be set only when the PSU is
//     present in real time. A call without it is a PSU-not-present call:
//     balances and transactions are then limited to 4 calls per 24 hours and
//     transactions to the last 90 days (see WithBudgetStore). Payment
//     initiation always needs it.
//   - SessionID goes into TPP-Session-ID (see SessionManager, NewSessionID).
//   - RedirectPreferred, when set, goes into TPP-Redirect-Preferred as True or
//     False; false asks for biometric authentication in the bank's app where
//     available.
//   - Context, when set, goes into PSU-Context (PRIVATE or CORPORATE) on the
//     calls that start a consent or registration SCA:
//     ConsentsService.CreateBankOffered, ConsentsService.Create,
//     UsersService.Register and UsersService.User. The bank's SCA page may
//     preselect that context; the PSU still chooses, and the callback says
//     what it chose. Other calls act in the context PSU.CorporateID names and
//     do not send it.
//
// Values are checked before anything is sent: ids must be RFC 4122 UUIDs,
// IPAddress an IPv4 or IPv6 address, and no value may hold control
// characters (no header injection).
type PSU struct {
	ID                string     // psu-id from the SCA callback; "" before the first SCA
	CorporateID       string     // psu-corporate-id, corporate context only
	IPAddress         string     // set only when the PSU is present in real time
	SessionID         string     // TPP-Session-ID
	RedirectPreferred *bool      // TPP-Redirect-Preferred (false: app biometrics)
	Context           PSUContext // PSU-Context on consent and registration calls; "" not sent
}

// Present reports whether the PSU takes part in real time (IPAddress set).
func (p PSU) Present() bool { return p.IPAddress != "" }

// validate checks every field before a request is built.
func (p PSU) validate() error {
	if p.ID != "" && !isUUID(p.ID) {
		return invalid("PSU.ID", "must be the RFC 4122 UUID from the SCA callback (psu-id)")
	}
	if p.CorporateID != "" {
		if !isUUID(p.CorporateID) {
			return invalid("PSU.CorporateID", "must be the RFC 4122 UUID from the SCA callback or Agreements")
		}
		if p.ID == "" {
			return invalid("PSU.CorporateID", "needs PSU.ID as well")
		}
	}
	if p.IPAddress != "" {
		// netip accepts an IPv6 zone ("fe80::1%eth0") of any bytes, CR and
		// LF included; a zone means nothing off the PSU's own host.
		if a, err := netip.ParseAddr(p.IPAddress); err != nil || a.Zone() != "" {
			return invalid("PSU.IPAddress", "must be an IPv4 or IPv6 address of the PSU's device, without a zone")
		}
	}
	if p.SessionID != "" && !headerSafe(p.SessionID, 200) {
		return invalid("PSU.SessionID", "must be 1 to 200 printable ASCII characters")
	}
	if p.Context != "" && !p.Context.Valid() {
		return invalid("PSU.Context", "must be PRIVATE or CORPORATE (ContextPrivate, ContextCorporate)")
	}
	return nil
}

// setHeaders writes the PSU headers but PSU-Context (setContextHeader); the
// PSU must have passed validate.
func (p PSU) setHeaders(h http.Header) {
	if p.ID != "" {
		h.Set("PSU-ID", p.ID)
	}
	if p.CorporateID != "" {
		h.Set("PSU-CORPORATE-ID", p.CorporateID)
	}
	if p.IPAddress != "" {
		h.Set("PSU-IP-Address", p.IPAddress)
	}
	if p.SessionID != "" {
		h.Set("TPP-Session-ID", p.SessionID)
	}
	if p.RedirectPreferred != nil {
		// docs/interface.md writes the value as False (and so True).
		v := "False"
		if *p.RedirectPreferred {
			v = "True"
		}
		h.Set("TPP-Redirect-Preferred", v)
	}
}

// setContextHeader writes PSU-Context, for the calls that take it (see PSU).
func (p PSU) setContextHeader(h http.Header) {
	if p.Context != "" {
		h.Set("PSU-Context", string(p.Context))
	}
}

// isUUID reports whether s is an RFC 4122 UUID in the canonical 8-4-4-4-12
// hex form (either case).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// headerSafe reports whether s is 1..max printable ASCII characters.
func headerSafe(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
