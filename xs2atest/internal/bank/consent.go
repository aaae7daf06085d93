package bank

import "time"

// Consents, SCA sessions and the PSU-not-present limits.

// PSU is a PSU that completed SCA for a TPP.
type PSU struct {
	TPP, Customer string
	Corporate     bool // the last SCA was in corporate context
}

type ConsentKey struct{ TPP, Customer, Agreement string }

type Consent struct {
	Accounts map[string]time.Time // resource id -> time of the SCA that granted or confirmed it
	Online   map[string]time.Time // resource id -> last PSU-present request for it under a valid SCA session
	Revoked  bool
}

// accessedOnline records a request for the account made with the PSU
// present (PSU-IP-Address) under a valid SCA session (TPP-Session-ID).
func (c *Consent) accessedOnline(accountID string, at time.Time) {
	if c.Online == nil {
		c.Online = map[string]time.Time{}
	}
	c.Online[accountID] = at
}

// LastSCAAccess is the latest time the PSU accessed the account with SCA:
// the consent SCA that granted it, or a later online access under a valid
// SCA session (docs/interface.md, Limits: "accounts the PSU accessed online with
// SCA within the last 90 days"). Zero when neither happened.
func (c *Consent) LastSCAAccess(accountID string) time.Time {
	t := c.Accounts[accountID]
	if o := c.Online[accountID]; o.After(t) {
		t = o
	}
	return t
}

type SessionKey struct{ TPP, Customer string }

type Session struct {
	ID      string // TPP-Session-ID under which the SCA ran ("" allowed)
	Expires time.Time
}

const SessionValidity = time.Hour

type UsageKey struct{ TPP, Customer, Account, Endpoint string }

// Granted is the consent's accounts (resource id -> time of the SCA that
// granted it); nil for no consent or a revoked one.
func (c *Consent) Granted() map[string]time.Time {
	if c == nil || c.Revoked {
		return nil
	}
	return c.Accounts
}

// sessionValid reports whether the PSU's SCA session for the TPP is the one
// of TPP-Session-ID sessionID and still within its hour.
func (b *Bank) sessionValid(k SessionKey, sessionID string) bool {
	ss := b.sessions[k]
	return ss != nil && ss.ID == sessionID && b.now().Before(ss.Expires)
}

// MaxNotPresent is how many requests a TPP may make without the PSU present
// per rolling 24 hours, PSU, account and endpoint.
const MaxNotPresent = 4

// countUsage counts a request made without the PSU present: 429
// ACCESS_EXCEEDED, not counted, once MaxNotPresent were made in the last 24
// hours.
func (b *Bank) countUsage(k UsageKey) *Error {
	now := b.now()
	kept := b.usage[k][:0]
	for _, t := range b.usage[k] {
		if now.Sub(t) < 24*time.Hour {
			kept = append(kept, t)
		}
	}
	if len(kept) >= MaxNotPresent {
		b.usage[k] = kept
		return &Error{Status: 429, Code: "ACCESS_EXCEEDED",
			Text: "at most 4 requests per 24 hours without the PSU present (no PSU-IP-Address)"}
	}
	b.usage[k] = append(kept, now)
	return nil
}

// revokeConsents revokes every consent the customer gave to any TPP, as a
// PSU may at the bank without notice to the TPP.
func (b *Bank) revokeConsents(customerNumber string) {
	for k, c := range b.consents {
		if k.Customer == customerNumber {
			c.Revoked = true
			c.Accounts = map[string]time.Time{}
			c.Online = nil
		}
	}
}

// expireSessions ends every SCA session of the customer now.
func (b *Bank) expireSessions(customerNumber string) {
	for k := range b.sessions {
		if k.Customer == customerNumber {
			delete(b.sessions, k)
		}
	}
}
