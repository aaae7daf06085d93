package xs2atest

import (
	"net/http"
	"net/mail"
	"strings"
)

// TPP contact e-mail (release 1.18.0): PUT and GET
// /v1/tpps/{tppId}/contact-information with {"email"}.

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
	s.mu.Lock()
	s.contacts[r.PathValue("tppId")] = req.Email
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"email": req.Email})
}

func (s *Server) getContact(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	email, ok := s.contacts[r.PathValue("tppId")]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "tppId", "no contact e-mail registered")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"email": email})
}

func validEmail(v string) bool {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Name != "" || a.Address != v {
		return false
	}
	at := strings.LastIndex(v, "@")
	return at > 0 && strings.Contains(v[at+1:], ".") && !strings.HasSuffix(v, ".")
}
