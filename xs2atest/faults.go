package xs2atest

import (
	"net/http"
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
	// The body is a tppMessages error, or Body when set.
	Status     int
	Body       string        // raw body for Status (e.g. an HTML gateway page)
	RetryAfter time.Duration // Retry-After header (whole seconds) for Status

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

func (s *Server) writeFault(w *bufWriter, f Fault) {
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((f.RetryAfter+time.Second-1)/time.Second)))
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(f.Status)
		w.body.WriteString(f.Body)
		return
	}
	code := map[int]string{
		http.StatusTooManyRequests: "ACCESS_EXCEEDED", http.StatusServiceUnavailable: "SERVICE_UNAVAILABLE",
		http.StatusUnauthorized: "CERTIFICATE_INVALID", http.StatusForbidden: "SERVICE_BLOCKED",
	}[f.Status]
	if code == "" {
		code = "INTERNAL_SERVER_ERROR"
		if f.Status < 500 {
			code = "FORMAT_ERROR"
		}
	}
	writeError(w, f.Status, code, "", "injected fault")
}
