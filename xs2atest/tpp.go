package xs2atest

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"net/http"
	"net/mail"
	"strings"
)

// TPP contact e-mail (release 1.18.0): PUT and GET
// /v1/tpps/{tppId}/contact-information with {"email"}. A tppId belongs to
// the TPP whose certificate signs the request (see tppOwners); any other
// TPP gets 403.

func (s *Server) putContact(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email string `json:"email"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if !validEmail(req.Email) {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "email", "email must be a plain address like ops@tpp.example")
		return
	}
	tppID := r.PathValue("tppId")
	s.mu.Lock()
	ok := s.tppOwners.claim(signingCertificate(r), tppID, true)
	if ok {
		s.contacts[tppID] = req.Email
	}
	s.mu.Unlock()
	if !ok {
		writeNotYourTPP(w, tppID)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"email": req.Email})
}

func (s *Server) getContact(w http.ResponseWriter, r *http.Request) {
	tppID := r.PathValue("tppId")
	s.mu.Lock()
	mine := s.tppOwners.claim(signingCertificate(r), tppID, false)
	email, ok := s.contacts[tppID]
	s.mu.Unlock()
	if !mine {
		writeNotYourTPP(w, tppID)
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "tppId", "no contact e-mail registered")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"email": email})
}

// writeNotYourTPP answers 403 for a tppId that belongs to another TPP. The
// text names neither the owner nor whether an e-mail is registered.
func writeNotYourTPP(w http.ResponseWriter, tppID string) {
	writeError(w, http.StatusForbidden, "CERTIFICATE_INVALID", "tppId",
		"the signing certificate does not belong to TPP "+tppID)
}

// signingCertificate is the certificate of TPP-Signature-Certificate; the
// pipeline verified the request's signature with it. nil if it cannot be
// read.
func signingCertificate(r *http.Request) *x509.Certificate {
	cert, err := parseCertificateHeader(r.Header.Get("TPP-Signature-Certificate"))
	if err != nil {
		return nil
	}
	return cert
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier attribute
// (2.5.4.97) that holds a PSD2 certificate's authorisation number.
var oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}

// certTPPID is the tppId a certificate names: its subject's
// organizationIdentifier without the "PSD" prefix ("PSDNO-FSA-987654321"
// names "NO-FSA-987654321"); "" when it has none in that form.
func certTPPID(cert *x509.Certificate) string {
	for _, atv := range cert.Subject.Names {
		if !atv.Type.Equal(oidOrganizationIdentifier) {
			continue
		}
		if v, ok := atv.Value.(string); ok {
			if id, ok := strings.CutPrefix(v, "PSD"); ok && id != "" {
				return id
			}
		}
	}
	return ""
}

// tppOwners binds tppIds to TPP certificates. A certificate whose subject
// has a PSD2 organizationIdentifier acts for that tppId only, and always may
// (the tppId is then bound to that identifier). A certificate without one
// is bound by its public key to the first tppId it writes to: from then on
// that key acts for that tppId only, and no other key may. Reading an
// unbound tppId binds nothing. It is guarded by Server.mu.
type tppOwners struct {
	byTPP map[string]string // tppId -> "psd:" or the key's fingerprint
	byKey map[string]string // key fingerprint -> tppId
}

func newTPPOwners() tppOwners {
	return tppOwners{byTPP: map[string]string{}, byKey: map[string]string{}}
}

// ownerByOrgID marks a tppId bound to the organizationIdentifier of PSD2
// certificates.
const ownerByOrgID = "psd:"

// claim reports whether cert may act for tppID; write binds an unbound
// tppID (and an unbound key) to cert.
func (o tppOwners) claim(cert *x509.Certificate, tppID string, write bool) bool {
	if cert == nil {
		return false
	}
	if id := certTPPID(cert); id != "" {
		if id != tppID {
			return false
		}
		if write {
			o.byTPP[tppID] = ownerByOrgID
		}
		return true
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	key := string(sum[:])
	owner, bound := o.byTPP[tppID]
	mine, keyBound := o.byKey[key]
	switch {
	case bound:
		return owner == key
	case keyBound:
		return mine == tppID
	}
	if write {
		o.byTPP[tppID], o.byKey[key] = key, tppID
	}
	return true
}

func validEmail(v string) bool {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Name != "" || a.Address != v {
		return false
	}
	at := strings.LastIndex(v, "@")
	return at > 0 && strings.Contains(v[at+1:], ".") && !strings.HasSuffix(v, ".")
}
