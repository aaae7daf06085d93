package xs2atest

import (
	"fmt"
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

// activeFault is a fault with the count of requests it has applied to.
type activeFault struct {
	Fault
	used int
}

// AddFault adds faults at runtime, after those already in force (the first
// matching fault applies): the Go form of POST /_control/faults. Their
// Times count from now.
func (s *Server) AddFault(faults ...Fault) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	for _, f := range faults {
		s.faults = append(s.faults, &activeFault{Fault: f})
	}
}

// ClearFaults removes every fault, those of WithFaults too: from now on
// requests are answered normally (DELETE /_control/faults). A request
// already delayed by a fault finishes its delay.
func (s *Server) ClearFaults() {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.faults = nil
}

// Faults lists the faults in force, in the order they are tried.
func (s *Server) Faults() []Fault {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	out := make([]Fault, 0, len(s.faults))
	for _, f := range s.faults {
		out = append(out, f.Fault)
	}
	return out
}

// resetFaults puts back the faults of WithFaults, their counts at zero.
func (s *Server) resetFaults() {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.faults = nil
	for _, f := range s.cfg.faults {
		s.faults = append(s.faults, &activeFault{Fault: f})
	}
}

// matchFault picks the fault for this request, counting its use.
func (s *Server) matchFault(r *http.Request) (Fault, bool) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	for _, f := range s.faults {
		if !f.matches(r) || (f.Times > 0 && f.used >= f.Times) {
			continue
		}
		if f.Rate > 0 && s.faultRNG.Float64() >= f.Rate {
			continue
		}
		f.used++
		return f.Fault, true
	}
	return Fault{}, false
}

// FaultKeys are the keys of a fault spec (ParseFault, POST /_control/faults,
// the -fault flag of xs2a fakebank), each a field of Fault.
const FaultKeys = "path, method, status, retry-after, system, delay, drop, times, rate"

// ParseFault reads a fault spec, "path=/v1/payments,method=POST,status=503,times=1":
// comma-separated key=value pairs of FaultKeys ("drop" needs no value;
// durations as "2s"). A status must be an error status, 400 to 599.
func ParseFault(spec string) (Fault, error) {
	var f Fault
	for _, part := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		if err := setFaultKey(&f, k, v); err != nil {
			return f, err
		}
	}
	return f, checkFault(f)
}

// setFaultKey sets the field of key k from its text v.
func setFaultKey(f *Fault, k, v string) error {
	var err error
	switch k {
	case "path":
		f.Path = v
	case "method":
		f.Method = strings.ToUpper(v)
	case "system":
		f.System = v
	case "drop":
		f.Drop = v == "" || v == "true"
		if v != "" && v != "true" && v != "false" {
			err = strconv.ErrSyntax
		}
	case "status":
		f.Status, err = strconv.Atoi(v)
	case "times":
		f.Times, err = strconv.Atoi(v)
	case "rate":
		f.Rate, err = strconv.ParseFloat(v, 64)
	case "delay":
		f.Delay, err = time.ParseDuration(v)
	case "retry-after":
		f.RetryAfter, err = time.ParseDuration(v)
	default:
		return fmt.Errorf("unknown key %q (%s)", k, FaultKeys)
	}
	if err != nil {
		return fmt.Errorf("%s: %q is not a valid value", k, v)
	}
	return nil
}

// checkFault refuses values no fault can have.
func checkFault(f Fault) error {
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status %d: want an error status, 400 to 599", f.Status)
	case f.Times < 0 || f.Delay < 0 || f.RetryAfter < 0:
		return fmt.Errorf("times, delay and retry-after cannot be negative")
	case f.Rate < 0 || f.Rate > 1:
		return fmt.Errorf("rate %v: want a probability, 0 to 1", f.Rate)
	}
	return nil
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
