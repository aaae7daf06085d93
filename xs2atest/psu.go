package xs2atest

import (
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// Identities, consent, SCA sessions and the PSU-not-present limits.

var idNamespace = uuid.MustParse("6f7e4b1c-5a2d-4c4e-9d61-0b8f0f8e2a11")

// psuIDFor is the psu-id of a customer for one TPP: stable (UUID v5).
func psuIDFor(tpp, customerNumber string) string {
	return uuid.NewSHA1(idNamespace, []byte("psu\x00"+tpp+"\x00"+customerNumber)).String()
}

// corporateIDFor is the psu-corporate-id of an agreement for one TPP.
func corporateIDFor(tpp, agreementID string) string {
	return uuid.NewSHA1(idNamespace, []byte("corporate\x00"+tpp+"\x00"+agreementID)).String()
}

// psuIDOf is the request's PSU-ID and corporateIDOf its PSU-Corporate-ID,
// lower-cased: the bank gives them as lower-case UUIDs and a UUID's hex
// digits compare case-insensitively. Every endpoint reads them through
// these, so an upper-case id works everywhere alike.
func psuIDOf(r *http.Request) string { return strings.ToLower(r.Header.Get("PSU-ID")) }

func corporateIDOf(r *http.Request) string { return strings.ToLower(r.Header.Get("PSU-Corporate-ID")) }

// psuCtx is the PSU a request acts for.
type psuCtx struct {
	id        string
	rec       *psuRecord
	agreement *agreement // PSU-CORPORATE-ID resolved, or nil
	present   bool       // PSU-IP-Address set
}

// consentKey of the context the PSU acts in.
func (p *psuCtx) key() consentKey {
	k := consentKey{TPP: p.rec.TPP, Customer: p.rec.Customer}
	if p.agreement != nil {
		k.Agreement = p.agreement.ID
	}
	return k
}

// resolvePSULocked finds the PSU of a request. On failure it has answered:
// 401 with scaRedirect (kind) when PSU-ID is missing or unknown, 400
// CORPORATE_ID_INVALID for a corporate PSU without (or with a foreign)
// PSU-CORPORATE-ID.
func (s *Server) resolvePSULocked(w http.ResponseWriter, r *http.Request, kind scaKind) (*psuCtx, bool) {
	tpp := info(r).tpp
	id := psuIDOf(r)
	if id == "" {
		writeSCARequired(w, "PSU_CREDENTIALS_INVALID", "PSU-ID is missing: the PSU must authenticate first",
			s.newSCALocked(r, kind, nil))
		return nil, false
	}
	rec := s.bank.PSUs[id]
	if rec == nil || rec.TPP != tpp {
		writeSCARequired(w, "PSU_CREDENTIALS_INVALID", "PSU-ID is not known for this TPP: the PSU must authenticate",
			s.newSCALocked(r, kind, nil))
		return nil, false
	}
	p := &psuCtx{id: id, rec: rec, present: r.Header.Get("PSU-IP-Address") != ""}
	ag, ok := s.corporateContextLocked(w, r, rec)
	if !ok {
		return nil, false
	}
	p.agreement = ag
	return p, true
}

// corporateContextLocked reads the PSU-CORPORATE-ID of a request by a known
// PSU: the agreement it names, nil without one. On failure it has answered
// 400 CORPORATE_ID_INVALID: the id names no agreement of the PSU, or it is
// missing while the PSU acts in corporate context (docs/interface.md, Flow 2:
// "Requests for corporate users without PSU-CORPORATE-ID get 400").
func (s *Server) corporateContextLocked(w http.ResponseWriter, r *http.Request, rec *psuRecord) (*agreement, bool) {
	cid := corporateIDOf(r)
	if cid == "" {
		if rec.Corporate {
			writeError(w, http.StatusBadRequest, "CORPORATE_ID_INVALID", "PSU-CORPORATE-ID",
				"the PSU acts in corporate context: PSU-CORPORATE-ID is required (see GET /v1/agreements)")
			return nil, false
		}
		return nil, true
	}
	ag := s.agreementForCorporateIDLocked(rec.TPP, rec.Customer, cid)
	if ag == nil {
		writeError(w, http.StatusBadRequest, "CORPORATE_ID_INVALID", "PSU-CORPORATE-ID",
			"PSU-CORPORATE-ID does not name an agreement of this PSU")
		return nil, false
	}
	return ag, true
}

// psuHeadersValidLocked checks the PSU headers of a call on a payment or
// signing basket that exists already. Such a call needs no PSU-ID (the
// resource belongs to the TPP: status polling without the PSU works), but
// the PSU-ID of a PSU known to this TPP is read as the account calls read
// it, so a corporate user without its PSU-CORPORATE-ID gets 400. On failure
// it has answered.
func (s *Server) psuHeadersValidLocked(w http.ResponseWriter, r *http.Request) bool {
	rec := s.bank.PSUs[psuIDOf(r)]
	if rec == nil || rec.TPP != info(r).tpp {
		return true
	}
	_, ok := s.corporateContextLocked(w, r, rec)
	return ok
}

func (s *Server) agreementForCorporateIDLocked(tpp, customerNumber, cid string) *agreement {
	for _, id := range s.bank.AgreementOrder {
		ag := s.bank.Agreements[id]
		if contains(ag.Members, customerNumber) && corporateIDFor(tpp, ag.ID) == cid {
			return ag
		}
	}
	return nil
}

func (s *Server) agreementsOfLocked(customerNumber string) []*agreement {
	var out []*agreement
	for _, id := range s.bank.AgreementOrder {
		if ag := s.bank.Agreements[id]; contains(ag.Members, customerNumber) {
			out = append(out, ag)
		}
	}
	return out
}

// sessionValidLocked: a PSU-present request needs the TPP-Session-ID of the
// PSU's current SCA session, within its hour.
func (s *Server) sessionValidLocked(r *http.Request, p *psuCtx) bool {
	return s.bank.SessionValid(sessionKey{TPP: p.rec.TPP, Customer: p.rec.Customer}, r.Header.Get("TPP-Session-ID"))
}

// aisAccessLocked checks an account-information request: PSU, corporate id,
// session (PSU present), consent. accountID "" checks the consent as a whole.
func (s *Server) aisAccessLocked(w http.ResponseWriter, r *http.Request, accountID string) (*psuCtx, *consent, bool) {
	p, ok := s.resolvePSULocked(w, r, scaConsent)
	if !ok {
		return nil, nil, false
	}
	if p.present && !s.sessionValidLocked(r, p) {
		writeSCARequired(w, "CONSENT_INVALID", "no valid SCA session for this TPP-Session-ID: the PSU must authenticate",
			s.newSCALocked(r, scaConsent, p.agreement))
		return nil, nil, false
	}
	c := s.bank.Consents[p.key()]
	if c != nil && c.Revoked {
		writeError(w, http.StatusForbidden, "CONSENT_INVALID", "", "the PSU has revoked the consent at the bank")
		return nil, nil, false
	}
	if c == nil { // a consent without accounts is still a consent: its list is empty (docs/interface.md, Errors)
		writeSCARequired(w, "CONSENT_INVALID", "no consent: the PSU must give consent",
			s.newSCALocked(r, scaConsent, p.agreement))
		return nil, nil, false
	}
	if accountID != "" {
		if _, exists := s.bank.Accounts[accountID]; !exists {
			writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "unknown account")
			return nil, nil, false
		}
		if _, ok := c.Accounts[accountID]; !ok {
			writeSCARequired(w, "CONSENT_INVALID", "no consent for this account: the PSU must give consent",
				s.newSCALocked(r, scaConsent, p.agreement))
			return nil, nil, false
		}
	}
	return p, c, true
}

// countUsageLocked enforces the PSU-not-present limit: at most 4 calls per
// rolling 24 hours per PSU, account and endpoint; the 5th gets 429.
func (s *Server) countUsageLocked(w http.ResponseWriter, p *psuCtx, accountID, endpoint string) bool {
	if p.present {
		return true
	}
	if e := s.bank.CountUsage(usageKey{TPP: p.rec.TPP, Customer: p.rec.Customer, Account: accountID, Endpoint: endpoint}); e != nil {
		writeAPIError(w, e)
		return false
	}
	return true
}

// RevokeConsent revokes, at the bank, every consent the customer has given
// to any TPP (docs/interface.md: the PSU may revoke consent directly at the bank,
// without notice to the TPP). Later account requests get 403 CONSENT_INVALID
// until the PSU gives consent again through SCA.
func (s *Server) RevokeConsent(customerNumber string) {
	s.bank.Lock()
	defer s.bank.Unlock()
	s.bank.RevokeConsents(customerNumber)
}

// ExpireSessions ends every SCA session of the customer now, as if its hour
// had passed.
func (s *Server) ExpireSessions(customerNumber string) {
	s.bank.Lock()
	defer s.bank.Unlock()
	s.bank.ExpireSessions(customerNumber)
}

// PSUID is the psu-id the bank gives the customer for the TPP whose
// signature keyId is tppKeyID (stable; as in the SCA callback).
func PSUID(tppKeyID, customerNumber string) string { return psuIDFor(tppKeyID, customerNumber) }

// CorporateID is the psu-corporate-id of an agreement (Agreement.ID) for the
// TPP whose signature keyId is tppKeyID.
func CorporateID(tppKeyID, agreementID string) string { return corporateIDFor(tppKeyID, agreementID) }
