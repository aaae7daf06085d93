package xs2atest

import (
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
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
	rec       *bank.PSU
	agreement *bank.Agreement // PSU-CORPORATE-ID resolved, or nil
	present   bool            // PSU-IP-Address set
}

// consentKey of the context the PSU acts in.
func (p *psuCtx) key() bank.ConsentKey {
	k := bank.ConsentKey{TPP: p.rec.TPP, Customer: p.rec.Customer}
	if p.agreement != nil {
		k.Agreement = p.agreement.ID
	}
	return k
}

// resolvePSU finds the PSU of a request. On failure it has answered:
// 401 with scaRedirect (kind) when PSU-ID is missing or unknown, 400
// CORPORATE_ID_INVALID for a corporate PSU without (or with a foreign)
// PSU-CORPORATE-ID.
func (s *Server) resolvePSU(w http.ResponseWriter, r *http.Request, kind scaKind) (*psuCtx, bool) {
	tpp := info(r).tpp
	id := psuIDOf(r)
	if id == "" {
		writeSCARequired(w, "PSU_CREDENTIALS_INVALID", "PSU-ID is missing: the PSU must authenticate first",
			s.newSCA(r, kind, nil))
		return nil, false
	}
	rec, known := s.bank.PSU(id)
	if !known || rec.TPP != tpp {
		writeSCARequired(w, "PSU_CREDENTIALS_INVALID", "PSU-ID is not known for this TPP: the PSU must authenticate",
			s.newSCA(r, kind, nil))
		return nil, false
	}
	p := &psuCtx{id: id, rec: &rec, present: r.Header.Get("PSU-IP-Address") != ""}
	ag, ok := s.corporateContext(w, r, &rec)
	if !ok {
		return nil, false
	}
	p.agreement = ag
	return p, true
}

// corporateContext reads the PSU-CORPORATE-ID of a request by a known
// PSU: the agreement it names, nil without one. On failure it has answered
// 400 CORPORATE_ID_INVALID: the id names no agreement of the PSU, or it is
// missing while the PSU acts in corporate context (docs/interface.md, Flow 2:
// "Requests for corporate users without PSU-CORPORATE-ID get 400").
func (s *Server) corporateContext(w http.ResponseWriter, r *http.Request, rec *bank.PSU) (*bank.Agreement, bool) {
	cid := corporateIDOf(r)
	if cid == "" {
		if rec.Corporate {
			writeError(w, http.StatusBadRequest, "CORPORATE_ID_INVALID", "PSU-CORPORATE-ID",
				"the PSU acts in corporate context: PSU-CORPORATE-ID is required (see GET /v1/agreements)")
			return nil, false
		}
		return nil, true
	}
	ag := s.agreementForCorporateID(rec.TPP, rec.Customer, cid)
	if ag == nil {
		writeError(w, http.StatusBadRequest, "CORPORATE_ID_INVALID", "PSU-CORPORATE-ID",
			"PSU-CORPORATE-ID does not name an agreement of this PSU")
		return nil, false
	}
	return ag, true
}

// psuHeadersValid checks the PSU headers of a call on a payment or
// signing basket that exists already. Such a call needs no PSU-ID (the
// resource belongs to the TPP: status polling without the PSU works), but
// the PSU-ID of a PSU known to this TPP is read as the account calls read
// it, so a corporate user without its PSU-CORPORATE-ID gets 400. On failure
// it has answered.
func (s *Server) psuHeadersValid(w http.ResponseWriter, r *http.Request) bool {
	rec, known := s.bank.PSU(psuIDOf(r))
	if !known || rec.TPP != info(r).tpp {
		return true
	}
	_, ok := s.corporateContext(w, r, &rec)
	return ok
}

// agreementForCorporateID is the agreement of the customer that cid names
// for the TPP, or nil.
func (s *Server) agreementForCorporateID(tpp, customerNumber, cid string) *bank.Agreement {
	for _, ag := range s.agreementsOf(customerNumber) {
		if corporateIDFor(tpp, ag.ID) == cid {
			return ag
		}
	}
	return nil
}

// agreementsOf lists the agreements the customer is a member of.
func (s *Server) agreementsOf(customerNumber string) []*bank.Agreement {
	var out []*bank.Agreement
	for _, ag := range s.bank.Agreements() {
		if contains(ag.Members, customerNumber) {
			out = append(out, &ag)
		}
	}
	return out
}

// sessionValid: a PSU-present request needs the TPP-Session-ID of the
// PSU's current SCA session, within its hour.
func (s *Server) sessionValid(r *http.Request, p *psuCtx) bool {
	return s.bank.SessionValid(bank.SessionKey{TPP: p.rec.TPP, Customer: p.rec.Customer}, r.Header.Get("TPP-Session-ID"))
}

// aisAccess checks an account-information request: PSU, corporate id,
// session (PSU present), consent. accountID "" checks the consent as a whole.
func (s *Server) aisAccess(w http.ResponseWriter, r *http.Request, accountID string) (*psuCtx, *bank.Consent, bool) {
	p, ok := s.resolvePSU(w, r, scaConsent)
	if !ok {
		return nil, nil, false
	}
	if p.present && !s.sessionValid(r, p) {
		writeSCARequired(w, "CONSENT_INVALID", "no valid SCA session for this TPP-Session-ID: the PSU must authenticate",
			s.newSCA(r, scaConsent, p.agreement))
		return nil, nil, false
	}
	c, given := s.bank.Consent(p.key())
	if given && c.Revoked {
		writeError(w, http.StatusForbidden, "CONSENT_UNKNOWN", "", "the PSU has revoked the consent at the bank")
		return nil, nil, false
	}
	if !given { // a consent without accounts is still a consent: its list is empty (docs/interface.md, Errors)
		writeSCARequired(w, "CONSENT_INVALID", "no consent: the PSU must give consent",
			s.newSCA(r, scaConsent, p.agreement))
		return nil, nil, false
	}
	if accountID != "" {
		if _, exists := s.bank.Account(accountID); !exists {
			writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "unknown account")
			return nil, nil, false
		}
		if _, ok := c.Accounts[accountID]; !ok {
			writeSCARequired(w, "CONSENT_INVALID", "no consent for this account: the PSU must give consent",
				s.newSCA(r, scaConsent, p.agreement))
			return nil, nil, false
		}
	}
	return p, &c, true
}

// countUsage enforces the PSU-not-present limit: at most 4 calls per
// rolling 24 hours per PSU, account and endpoint; the 5th gets 429.
func (s *Server) countUsage(w http.ResponseWriter, p *psuCtx, accountID, endpoint string) bool {
	if p.present {
		return true
	}
	if e := s.bank.CountUsage(bank.UsageKey{TPP: p.rec.TPP, Customer: p.rec.Customer, Account: accountID, Endpoint: endpoint}); e != nil {
		writeAPIError(w, e)
		return false
	}
	return true
}

// RevokeConsent revokes, at the bank, every consent the customer has given
// to any TPP (docs/interface.md: the PSU may revoke consent directly at the bank,
// without notice to the TPP). Later account requests get 403 CONSENT_UNKNOWN,
// as production banks answer, until the PSU gives consent again through SCA.
func (s *Server) RevokeConsent(customerNumber string) {
	s.bank.RevokeConsents(customerNumber)
}

// ExpireSessions ends every SCA session of the customer now, as if its hour
// had passed.
func (s *Server) ExpireSessions(customerNumber string) {
	s.bank.ExpireSessions(customerNumber)
}

// PSUID is the psu-id the bank gives the customer for the TPP whose
// signature keyId is tppKeyID (stable; as in the SCA callback).
func PSUID(tppKeyID, customerNumber string) string { return psuIDFor(tppKeyID, customerNumber) }

// CorporateID is the psu-corporate-id of an agreement (Agreement.ID) for the
// TPP whose signature keyId is tppKeyID.
func CorporateID(tppKeyID, agreementID string) string { return corporateIDFor(tppKeyID, agreementID) }
