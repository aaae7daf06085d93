package xs2atest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// The control API: JSON over HTTP under ControlPrefix, outside the base
// path, so that a test in any language can do what a Go test does with
// CompleteSCA, RunBatch, WithClock, AddFault and Initialize. It is not
// signed: it is a test control, served only WithControl.

// ControlPrefix is the path of the control API, at the server's root
// whatever the base path ("" included: the interface's paths start with
// /v1/ and /sca/, never with it).
const ControlPrefix = "/_control"

// WithControl serves the control API under ControlPrefix (off by default;
// `xs2a fakebank` turns it on unless -control=false):
//
//	GET    /_control          what it offers, the base path and the bank's clock
//	POST   /_control/sca      {"scaRedirect", "customer": "<national id>" or index,
//	                          "context": "private"|"corporate", "agreement", "accounts": [ids],
//	                          "debtor", "outcome": "confirm"|"cancel"} -> {"callback"}
//	POST   /_control/batch    run a payment batch now -> {"now"}
//	GET    /_control/clock    -> {"now"}
//	POST   /_control/clock    {"set": RFC 3339} or {"advance": "36h"} -> {"now"}
//	GET    /_control/faults   -> {"faults": [...]}
//	POST   /_control/faults   {"path", "method", "status", ...} (the keys of ParseFault) -> {"faults"}
//	DELETE /_control/faults   -> {"faults": []}
//	POST   /_control/reset    the bank as started -> {"now"}
//
// A refusal is 400, 404, 405 or 409 with {"tppMessages":[{"category":"ERROR",
// "code","path","text"}]}, as the interface's. Start fails when the base
// path is ControlPrefix or below it.
func WithControl() Option { return func(c *config) { c.control = true } }

// ControlURL is the control API's address, the server's origin followed by
// ControlPrefix ("http://127.0.0.1:PORT/_control"); "" when it is off.
func (s *Server) ControlURL() string {
	if !s.cfg.control {
		return ""
	}
	return s.srv.URL + ControlPrefix
}

// isControl reports whether r is for the control API, and it is on.
func (s *Server) isControl(r *http.Request) bool {
	p := r.URL.Path
	return s.cfg.control && (p == ControlPrefix || strings.HasPrefix(p, ControlPrefix+"/"))
}

// serveControl answers a control request and logs it (the logger only: the
// request log holds the interface's requests).
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	bw := newBufWriter()
	s.control(bw, r)
	for k, v := range bw.header {
		w.Header()[k] = v
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.body.Bytes())
	attrs := []any{"method", r.Method, "path", pathTemplate(r.URL.EscapedPath()), "status", bw.status}
	if why := bw.refusal(); why.code != "" {
		attrs = append(attrs, "code", why.code, "reason", logText(why.reason))
	}
	s.cfg.logger.Info("xs2atest control", attrs...)
}

// controlRoute is one endpoint of the control API.
type controlRoute struct {
	path, method, doc string
	serve             func(s *Server, w *bufWriter, r *http.Request, body []byte)
}

// controlRoutes is the control API; set in init, as GET /_control lists it.
var controlRoutes []controlRoute

func init() {
	controlRoutes = []controlRoute{
		{"", http.MethodGet, "what the control API offers", (*Server).controlDescribe},
		{"/sca", http.MethodPost, `complete or cancel the SCA behind a scaRedirect: {"scaRedirect", "customer", "context", "agreement", "accounts", "debtor", "outcome"}`, (*Server).controlSCA},
		{"/batch", http.MethodPost, "run a payment batch now", (*Server).controlBatch},
		{"/clock", http.MethodGet, "the bank's clock", (*Server).controlClockNow},
		{"/clock", http.MethodPost, `set or advance the bank's clock: {"set": RFC 3339} or {"advance": "36h"}; it only moves forward`, (*Server).controlClock},
		{"/faults", http.MethodGet, "the faults in force", (*Server).controlFaultList},
		{"/faults", http.MethodPost, "add a fault: {" + `"path", "method", "status", "retry-after", "system", "delay", "drop", "times", "rate"}`, (*Server).controlAddFault},
		{"/faults", http.MethodDelete, "remove every fault", (*Server).controlClearFaults},
		{"/reset", http.MethodPost, "the bank as started: sandbox data, SCAs, faults, clock, request log", (*Server).controlReset},
	}
}

// maxControlBody caps a control request's body.
const maxControlBody = 64 << 10

func (s *Server) control(w *bufWriter, r *http.Request) {
	sub := strings.TrimPrefix(r.URL.Path, ControlPrefix)
	var allow []string
	for _, rt := range controlRoutes {
		if rt.path != sub {
			continue
		}
		if rt.method != r.Method {
			allow = append(allow, rt.method)
			continue
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxControlBody+1))
		if err != nil || len(body) > maxControlBody {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "the body could not be read, or is over 64 KiB")
			return
		}
		rt.serve(s, w, r, body)
		return
	}
	if allow != nil {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "SERVICE_INVALID", "", r.Method+" is not offered here: "+strings.Join(allow, ", "))
		return
	}
	writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "no such control endpoint; GET "+ControlPrefix+" lists them")
}

// decodeControl decodes a control body strictly into v; on failure it
// answers 400 FORMAT_ERROR and returns false. An empty body is {}.
func decodeControl(w *bufWriter, body []byte, v any) bool {
	if len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		var ute *json.UnmarshalTypeError
		path := ""
		if errors.As(err, &ute) {
			path = ute.Field
		}
		reason := "more than one JSON value"
		if err != nil {
			reason = jsonReason(err)
		}
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", path, "the body is not valid: "+reason)
		return false
	}
	return true
}

func (s *Server) controlDescribe(w *bufWriter, _ *http.Request, _ []byte) {
	type endpoint struct{ Method, Path, Doc string }
	var eps []endpoint
	for _, rt := range controlRoutes {
		eps = append(eps, endpoint{rt.method, ControlPrefix + rt.path, rt.doc})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"basePath": s.cfg.basePath, "now": s.now().Format(time.RFC3339Nano), "endpoints": eps,
		"customers": s.bank.CustomerNumbers(),
	})
}

// scaControl is the body of POST /_control/sca.
type scaControl struct {
	SCARedirect string          `json:"scaRedirect"`
	Customer    json.RawMessage `json:"customer"`    // "13039319955" or an index into GET /v1/sandbox/customers
	Context     string          `json:"context"`     // private, corporate (any case); "": as the page preselects
	Agreement   string          `json:"agreement"`   // Agreement.ID or the psu-corporate-id the TPP holds
	CorporateID string          `json:"corporateId"` // the same as agreement
	Accounts    *[]string       `json:"accounts"`    // the accounts to tick; absent: every one offered
	Debtor      string          `json:"debtor"`      // the account to pay from, where the payment names none
	Outcome     string          `json:"outcome"`     // confirm (default) or cancel
}

// options turns the body into CompleteSCA's options, or names the field
// in error.
func (c *scaControl) options() ([]SCAOption, string, string) {
	var opts []SCAOption
	ag := c.Agreement
	if c.CorporateID != "" {
		if ag != "" && ag != c.CorporateID {
			return nil, "corporateId", "give agreement or corporateId, not both"
		}
		ag = c.CorporateID
	}
	switch strings.ToLower(c.Context) {
	case "":
		if ag != "" {
			opts = append(opts, Corporate(ag))
		}
	case "private":
		if ag != "" {
			return nil, "agreement", "an agreement belongs to the corporate context"
		}
		opts = append(opts, Private())
	case "corporate":
		opts = append(opts, Corporate(ag))
	default:
		return nil, "context", "context must be private or corporate"
	}
	switch {
	case c.Accounts != nil && c.Debtor != "":
		return nil, "debtor", "give accounts (a consent) or debtor (a payment), not both"
	case c.Accounts != nil:
		opts = append(opts, Accounts(*c.Accounts...))
	case c.Debtor != "":
		opts = append(opts, Accounts(c.Debtor))
	}
	switch strings.ToLower(c.Outcome) {
	case "", "confirm":
	case "cancel":
		opts = append(opts, Cancel())
	default:
		return nil, "outcome", "outcome must be confirm or cancel"
	}
	return opts, "", ""
}

// customerNumber reads "customer": a national id, or an index into the
// sandbox customers in the order of GET /v1/sandbox/customers.
func (s *Server) customerNumber(raw json.RawMessage) (string, string) {
	var id string
	if json.Unmarshal(raw, &id) == nil && id != "" {
		return id, ""
	}
	var i int
	if json.Unmarshal(raw, &i) == nil {
		numbers := s.bank.CustomerNumbers()
		if i >= 0 && i < len(numbers) {
			return numbers[i], ""
		}
		return "", "customer index " + strconv.Itoa(i) + " is out of range: there are " + strconv.Itoa(len(numbers)) + " customers"
	}
	return "", "customer is required: a national id (\"13039319955\") or an index into GET /v1/sandbox/customers"
}

// controlSCA walks the SCA pages behind scaRedirect as CompleteSCA does,
// through an in-process browser (its own cookies, no network), and answers
// the callback the PSU's browser would have been sent to.
func (s *Server) controlSCA(w *bufWriter, r *http.Request, body []byte) {
	var c scaControl
	if !decodeControl(w, body, &c) {
		return
	}
	if c.SCARedirect == "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "scaRedirect", "scaRedirect is required: the href of _links.scaRedirect")
		return
	}
	customer, text := s.customerNumber(c.Customer)
	if text != "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "customer", text)
		return
	}
	opts, field, text := c.options()
	if text != "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", field, text)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	cb, err := s.walkSCA(ctx, s.inProcessBrowser(), c.SCARedirect, customer, opts...)
	if err != nil {
		writeError(w, http.StatusConflict, "SCA_INVALID", "scaRedirect", strings.TrimPrefix(err.Error(), "xs2atest: "))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"callback": cb.String()})
}

func (s *Server) controlBatch(w *bufWriter, _ *http.Request, _ []byte) {
	s.RunBatch()
	s.controlClockNow(w, nil, nil)
}

func (s *Server) controlClockNow(w *bufWriter, _ *http.Request, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]string{"now": s.now().Format(time.RFC3339Nano)})
}

// clockControl is the body of POST /_control/clock.
type clockControl struct {
	Set     string `json:"set"`     // RFC 3339
	Advance string `json:"advance"` // a Go duration: "36h", "90m"
}

// controlClock moves the bank's clock forward (the batch runs that fall
// due run at once); it refuses to move it back, as a bank's clock does not.
func (s *Server) controlClock(w *bufWriter, _ *http.Request, body []byte) {
	var c clockControl
	if !decodeControl(w, body, &c) {
		return
	}
	var d time.Duration
	switch {
	case (c.Set == "") == (c.Advance == ""):
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", `give one of set (RFC 3339) or advance ("36h")`)
		return
	case c.Set != "":
		t, err := time.Parse(time.RFC3339, c.Set)
		if err != nil {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "set", "set must be an RFC 3339 time, as 2025-03-12T10:00:00Z")
			return
		}
		d = t.Sub(s.now())
	default:
		var err error
		if d, err = time.ParseDuration(c.Advance); err != nil {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "advance", `advance must be a duration, as "36h" or "90m"`)
			return
		}
	}
	if d < 0 {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "the bank's clock only moves forward (POST "+ControlPrefix+"/reset puts it back)")
		return
	}
	s.advanceClock(d)
	s.controlClockNow(w, nil, nil)
}

// advanceClock moves the bank's clock forward by d and runs the batches
// that fell due.
func (s *Server) advanceClock(d time.Duration) {
	s.clockShift.Add(int64(d))
	s.catchUpBatches()
}

// faultView is a Fault as the control API lists it, with the keys of
// ParseFault.
type faultView struct {
	Path       string  `json:"path,omitempty"`
	Method     string  `json:"method,omitempty"`
	Status     int     `json:"status,omitempty"`
	RetryAfter string  `json:"retry-after,omitempty"`
	System     string  `json:"system,omitempty"`
	Delay      string  `json:"delay,omitempty"`
	Drop       bool    `json:"drop,omitempty"`
	Times      int     `json:"times,omitempty"`
	Rate       float64 `json:"rate,omitempty"`
}

func viewOfFault(f Fault) faultView {
	v := faultView{Path: f.Path, Method: f.Method, Status: f.Status, System: f.System, Drop: f.Drop, Times: f.Times, Rate: f.Rate}
	if f.RetryAfter > 0 {
		v.RetryAfter = f.RetryAfter.String()
	}
	if f.Delay > 0 {
		v.Delay = f.Delay.String()
	}
	return v
}

func (s *Server) controlFaultList(w *bufWriter, _ *http.Request, _ []byte) {
	views := []faultView{}
	for _, f := range s.Faults() {
		views = append(views, viewOfFault(f))
	}
	writeJSON(w, http.StatusOK, map[string]any{"faults": views})
}

// controlAddFault reads a fault with the keys of ParseFault (values as
// JSON strings, numbers or booleans) and adds it.
func (s *Server) controlAddFault(w *bufWriter, r *http.Request, body []byte) {
	var m map[string]any
	if !decodeControl(w, body, &m) {
		return
	}
	var f Fault
	for k, v := range m {
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case float64:
			text = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			text = strconv.FormatBool(x)
		default:
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", k, k+" must be a string, number or boolean")
			return
		}
		if err := setFaultKey(&f, k, text); err != nil {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", k, err.Error())
			return
		}
	}
	if err := checkFault(f); err != nil {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", err.Error())
		return
	}
	if f.Status == 0 && f.Delay == 0 && !f.Drop {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "a fault needs a status, a delay or drop")
		return
	}
	s.AddFault(f)
	s.controlFaultList(w, r, nil)
}

func (s *Server) controlClearFaults(w *bufWriter, r *http.Request, _ []byte) {
	s.ClearFaults()
	s.controlFaultList(w, r, nil)
}

// controlReset puts the bank back as it started: sandbox data (as POST
// /v1/sandbox/initialize), no SCA under way, the faults of WithFaults with
// their counts at zero, the clock unmoved, an empty request log, payments
// initiated with PaymentSCAStart.
func (s *Server) controlReset(w *bufWriter, _ *http.Request, _ []byte) {
	s.clockShift.Store(0)
	s.resetFaults()
	s.mu.Lock()
	s.reqLog, s.logBytes = nil, 0
	s.paymentSCA = PaymentSCAStart
	s.mu.Unlock()
	s.Initialize()
	s.controlClockNow(w, nil, nil)
}

// inProcessBrowser is a browser for the SCA pages that reaches them by
// calling ServeHTTP, with a cookie jar of its own; it follows no redirect.
func (s *Server) inProcessBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Transport: inProcess{s}, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// inProcess is a RoundTripper that serves a request with the server's own
// ServeHTTP, as a request that arrived over the network.
type inProcess struct{ s *Server }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI, r.Host, r.RemoteAddr = req.URL.RequestURI(), req.URL.Host, "127.0.0.1:0"
	if req.URL.Scheme == "https" {
		r.TLS = &tls.ConnectionState{}
	}
	rec := httptest.NewRecorder()
	t.s.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
