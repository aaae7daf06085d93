package xs2atest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Fault makes matching requests fail the way networks and gateways fail, so
// retry, timeout and "outcome unknown" handling can be tested. The first
// fault (in WithFaults order) that matches a request applies to it.
type Fault struct {
	Method string // HTTP method to match; "" matches any
	Path   string // prefix of the path below the base path, e.g. "/v1/payments"; "" matches any

	// Status answers this status (e.g. 503) without processing the request.
	// The body is a tppMessages error, or Body when set. On an SCA page
	// (Path "/sca/") without Body, the SCA fails instead: the PSU is
	// redirected to the TPP with the failure parameters status (Status),
	// code and message, and system on a server error (Status >= 500), as
	// docs/interface.md's failed-SCA redirect has them.
	Status     int
	Body       string        // raw body for Status (e.g. an HTML gateway page)
	RetryAfter time.Duration // Retry-After header (whole seconds) for Status

	// System is the system parameter of an SCA page's failure redirect on a
	// server error (docs/interface.md: "Name of the internal system that produced
	// the error, on server errors"); "" means "SCA".
	System string

	// Delay waits before processing (or before the Status answer); it ends
	// early when the client gives up.
	Delay time.Duration

	// Drop reads the whole request and processes it (a POST creates the
	// payment), then closes the connection without answering: the client
	// cannot know the outcome.
	Drop bool

	Times int     // how many requests it applies to; 0 = all
	Rate  float64 // probability per matching request (seeded, deterministic); 0 = every time
}

func (f *Fault) matches(r *http.Request) bool {
	return (f.Method == "" || strings.EqualFold(f.Method, r.Method)) && strings.HasPrefix(r.URL.Path, f.Path)
}

// matchFault picks the fault for this request, counting its use.
func (s *Server) matchFault(r *http.Request) (Fault, bool) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	for i := range s.cfg.faults {
		f := &s.cfg.faults[i]
		if !f.matches(r) || (f.Times > 0 && s.faultUsed[i] >= f.Times) {
			continue
		}
		if f.Rate > 0 && s.faultRNG.Float64() >= f.Rate {
			continue
		}
		s.faultUsed[i]++
		return *f, true
	}
	return Fault{}, false
}

func (s *Server) writeFault(w *bufWriter, r *http.Request, f Fault) {
	if f.Body == "" && strings.HasPrefix(r.URL.Path, "/sca/") && s.failSCA(w, r, f) {
		return
	}
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((f.RetryAfter+time.Second-1)/time.Second)))
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(f.Status)
		w.body.WriteString(f.Body)
		return
	}
	writeError(w, f.Status, faultCode(f.Status), "", "injected fault")
}

// faultCode is the error code of a fault's status.
func faultCode(status int) string {
	code := map[int]string{
		http.StatusTooManyRequests: "ACCESS_EXCEEDED", http.StatusServiceUnavailable: "SERVICE_UNAVAILABLE",
		http.StatusUnauthorized: "CERTIFICATE_INVALID", http.StatusForbidden: "SERVICE_BLOCKED",
	}[status]
	if code == "" {
		code = "INTERNAL_SERVER_ERROR"
		if status < 500 {
			code = "FORMAT_ERROR"
		}
	}
	return code
}

// defaultFaultSystem is the system of an SCA failure redirect for a server
// error when the Fault names none.
const defaultFaultSystem = "SCA"

// failSCA ends the SCA behind an SCA page hit by fault f as a failed SCA
// (an aborted one for the session rules: the old TPP-Session-ID stays
// valid): a redirect to the TPP with status, code and message, and system
// only on a server error (docs/interface.md, failed-SCA query parameters). It
// returns false when the page has no SCA in progress, which then gets the
// plain fault answer.
func (s *Server) failSCA(w *bufWriter, r *http.Request, f Fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.scas[strings.TrimPrefix(r.URL.Path, "/sca/")]
	if rec == nil || rec.stage == stageDone {
		return false
	}
	s.cancelSCALocked(rec)
	q := url.Values{}
	if f.Status >= 500 {
		sys := f.System
		if sys == "" {
			sys = defaultFaultSystem
		}
		q.Set("system", sys)
	}
	q.Set("status", strconv.Itoa(f.Status))
	q.Set("code", faultCode(f.Status))
	q.Set("message", "The bank could not complete the authentication.")
	s.redirectTPP(w, rec, q)
	return true
}
