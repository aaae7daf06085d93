package xs2atest

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Oslo on machines without a zoneinfo database

	"github.com/google/uuid"

	"github.com/tppkit/xs2a/internal/inert"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// maxBody caps request bodies (larger ones get 413).
const maxBody = 1 << 20

// Server is the fake bank: an in-process HTTP server that runs the interface
// of docs/interface.md (sandbox data, request-signature verification, SCA by
// redirect, consent, sessions, limits, payments with batch runs). All state is
// in memory: the bank core's behind its own lock, the face's (SCA pages,
// TPP contacts, request log) behind mu. Concurrent requests are safe: every
// change is one step of the bank (its checks included), and a request's
// reads may see another request's changes between them, as at a real bank.
type Server struct {
	cfg     config
	srv     *httptest.Server
	mux     *http.ServeMux
	browser *http.Client

	respKey  *rsa.PrivateKey
	respCert *x509.Certificate

	faultMu  sync.Mutex
	faultRNG *rand.Rand
	faults   []*activeFault // in force: WithFaults, then AddFault; under faultMu

	bank *bank.Bank // the core: it locks itself

	mu        sync.Mutex            // guards the face's state below; taken before the bank's lock, never inside it
	scas      map[string]*scaRecord // the SCAs under way, by token; Initialize clears them
	contacts  map[string]string
	tppOwners tppOwners
	reqLog    []Request
	logBytes  int // the size of reqLog, as requestSize counts it

	// clockShift is what the control API moved the bank's clock by
	// (nanoseconds): the bank's clock is cfg.now() plus it.
	clockShift atomic.Int64

	paymentSCA PaymentSCA // SetPaymentSCA, under mu
}

// Request is one entry of the request log: what arrived, never bodies or
// PSU headers.
type Request struct {
	Method string
	// Path is the URL path below the base path, no query: "/v1/accounts",
	// as docs/interface.md and _links write it; "" for a request outside the base
	// path (answered 404).
	Path      string
	FullPath  string // the URL path as received, base path included
	Status    int    // 0 when the connection was dropped
	RequestID string // X-Request-ID of the request
	Dropped   bool   // a Fault with Drop closed the connection after processing
}

// NewServer starts a fake bank for a test and closes it with t.Cleanup.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("xs2atest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake bank, initialized as after POST /v1/sandbox/initialize.
// Call Close when done.
func Start(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if _, under := cutBasePath(cfg.basePath, ControlPrefix); cfg.control && under {
		return nil, errors.New("xs2atest: the base path " + cfg.basePath + " is the control API's " + ControlPrefix + " or below it")
	}
	s := &Server{cfg: cfg, contacts: map[string]string{}, tppOwners: newTPPOwners()}
	s.faultRNG = rand.New(rand.NewPCG(cfg.seed, 0xfa17))
	s.resetFaults()
	if cfg.signResponses {
		key, cert, err := newTestCertificate("xs2atest fake bank response signing (TEST ONLY)")
		if err != nil {
			return nil, err
		}
		s.respKey, s.respCert = key, cert
	}
	s.mux = http.NewServeMux()
	s.routes()
	s.bank = bank.New(cfg.seed, s.now)
	s.scas = map[string]*scaRecord{}

	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Config.ReadHeaderTimeout = cfg.readHeaderTimeout
	s.srv.Config.IdleTimeout = cfg.idleTimeout
	s.srv.Config.MaxHeaderBytes = maxHeaderBytes
	if cfg.addr != "" {
		ln, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			s.srv.Listener.Close()
			return nil, err
		}
		s.srv.Listener.Close()
		s.srv.Listener = ln
	}
	if cfg.tls {
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	hc := *s.srv.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.browser = &hc
	return s, nil
}

// URL is the base address, e.g. http://127.0.0.1:PORT/api (the base path
// is DefaultBasePath unless WithBasePath says otherwise), without a trailing
// slash; the interface's paths (/v1/...) and the SCA pages (/sca/...) are
// below it.
func (s *Server) URL() string { return s.srv.URL + s.cfg.basePath }

// HTTPClient returns a plain *http.Client that trusts the server (its TLS
// certificate under WithTLS). It does not sign requests.
func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

// Close shuts the server down and waits for running requests.
func (s *Server) Close() { s.srv.Close() }

// Certificate is the bank's response-signing certificate (WithResponseSigning),
// or nil.
func (s *Server) Certificate() *x509.Certificate { return s.respCert }

// now is the bank's clock: WithClock's (time.Now by default), moved by the
// control API's clock.
func (s *Server) now() time.Time { return s.cfg.now().Add(time.Duration(s.clockShift.Load())) }

// Requests returns a copy of the request log, oldest first. The log keeps
// the latest requests within WithRequestLogLimits (by default
// DefaultRequestLogEntries and DefaultRequestLogBytes); older ones are
// dropped, and RequestCount counts what is kept.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqLog...)
}

// RequestCount counts logged requests with this method ("" = any) whose path
// below the base path (Request.Path, e.g. "/v1/payments") starts with
// pathPrefix ("" = any, also requests outside the base path), so tests can
// assert that nothing was sent.
func (s *Server) RequestCount(method, pathPrefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqLog {
		if (method == "" || strings.EqualFold(method, r.Method)) && strings.HasPrefix(r.Path, pathPrefix) {
			n++
		}
	}
	return n
}

type ctxKey struct{}

// reqInfo is what the pipeline learnt about a verified API request.
type reqInfo struct {
	tpp  string // keyId of the signature: identifies the TPP
	body []byte
}

func info(r *http.Request) *reqInfo { return r.Context().Value(ctxKey{}).(*reqInfo) }

// ServeHTTP runs the pipeline: batch catch-up, faults, signature and
// header checks, the endpoint, response signing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.isControl(r) {
		s.serveControl(w, r)
		return
	}
	lp := logPath{full: r.URL.Path, escaped: r.URL.EscapedPath()}
	r, inside := s.belowBase(r)
	if !inside {
		bw := newBufWriter()
		writeError(bw, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "no such endpoint: the interface is under "+s.cfg.basePath)
		s.finish(w, r, lp, bw)
		return
	}
	lp.path = r.URL.Path
	s.catchUpBatches()
	f, faulty := s.matchFault(r)
	if faulty && f.Delay > 0 {
		// Read the body first: net/http notices a client that hangs up
		// (and ends r.Context()) only once the body has been read.
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err == nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			s.logRequest(r, lp, 0, false, refusal{})
			return
		}
	}
	if faulty && f.Status != 0 {
		bw := newBufWriter()
		bw.fault = true
		s.writeFault(bw, r, f)
		s.finish(w, r, lp, bw)
		return
	}
	bw := newBufWriter()
	s.handle(bw, r)
	if faulty && f.Drop {
		_, _ = io.Copy(io.Discard, r.Body)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				s.logRequest(r, lp, 0, true, refusal{}) // before the client can see the drop and read the log
				_ = conn.Close()
				return
			}
		}
	}
	s.finish(w, r, lp, bw)
}

// logPath is a request's path for the log: below the base path ("" when
// outside it) and as received, decoded and escaped (the log line templates
// the escaped one, where an id's "/" is still %2F).
type logPath struct{ path, full, escaped string }

// belowBase returns r with the base path cut off its URL (as
// http.StripPrefix does), so routes, faults and the SCA pages see
// "/v1/..." and "/sca/..."; false for a request outside the base path.
// r.RequestURI keeps the path as sent, for the (request-target) of a
// signature.
func (s *Server) belowBase(r *http.Request) (*http.Request, bool) {
	base := s.cfg.basePath
	if base == "" {
		return r, true
	}
	p, ok := cutBasePath(r.URL.Path, base)
	if !ok {
		return r, false
	}
	rp := ""
	if r.URL.RawPath != "" {
		if rp, ok = cutBasePath(r.URL.RawPath, base); !ok {
			return r, false
		}
	}
	r2 := r.WithContext(r.Context()) // a shallow copy
	u := *r.URL
	u.Path, u.RawPath = p, rp
	r2.URL = &u
	return r2, true
}

// cutBasePath cuts base off p at a segment boundary: "/api/v1/x" -> "/v1/x",
// "/api" -> "/"; "/apix" is outside.
func cutBasePath(p, base string) (string, bool) {
	rest, ok := strings.CutPrefix(p, base)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", false
	}
	if rest == "" {
		rest = "/"
	}
	return rest, true
}

func (s *Server) handle(w *bufWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/sca/") {
		s.serveSCA(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "request body could not be read")
		return
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "FORMAT_ERROR", "", "request body too large")
		return
	}
	tpp, code, text := verifyRequest(r, body, s.cfg.keyIDVariants)
	if code != "" {
		writeError(w, http.StatusBadRequest, code, "Signature", text)
		return
	}
	if ok, text := checkRedirectURI(r.Header.Get("TPP-Redirect-URI")); !ok {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "TPP-Redirect-URI", text)
		return
	}
	if path, ok := processableRequest(r.Header, body); !ok {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", path, "the request contains characters the bank cannot process")
		return
	}
	for _, h := range []string{"PSU-ID", "PSU-Corporate-ID"} {
		if v := r.Header.Get(h); v != "" && !uuidRE.MatchString(v) {
			writeError(w, http.StatusBadRequest, "FORMAT_ERROR", h, h+" has the wrong format: want an RFC 4122 UUID")
			return
		}
	}
	if h, text := checkHeaderFormats(r.Header); h != "" {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", h, text)
		return
	}
	if text := s.checkDateSkew(r.Header); text != "" {
		writeError(w, http.StatusBadRequest, "SIGNATURE_INVALID", "Date", text)
		return
	}
	if roleRefused(w, r) || s.cardAccountsOff(w, r) {
		return
	}
	ctx := context.WithValue(r.Context(), ctxKey{}, &reqInfo{tpp: tpp, body: body})
	s.mux.ServeHTTP(w, r.WithContext(ctx))
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkHeaderFormats checks the headers of docs/interface.md "Request headers"
// whose values have a fixed form: X-Request-ID is required and a UUID; Date,
// when present, the RFC 7231 IMF-fixdate (docs/interface.md, conventions 4);
// PSU-IP-Address, when present, an IPv4 or IPv6 address; and
// TPP-Redirect-Preferred, when present, True or False, and PSU-Context,
// when present, PRIVATE or CORPORATE (both in any case). It returns the offending header and a text, or "".
func checkHeaderFormats(h http.Header) (string, string) {
	switch ids := h.Values("X-Request-ID"); {
	case len(ids) == 0:
		return "X-Request-ID", "X-Request-ID is required: a UUID identifying the request"
	case len(ids) > 1 || !uuidRE.MatchString(ids[0]):
		return "X-Request-ID", "X-Request-ID has the wrong format: want a UUID"
	}
	for _, v := range h.Values("Date") {
		if _, err := time.Parse(http.TimeFormat, v); err != nil {
			return "Date", "Date has the wrong format: want the RFC 7231 form, as in Mon, 02 Jan 2006 15:04:05 GMT"
		}
	}
	for _, v := range h.Values("PSU-IP-Address") {
		if net.ParseIP(v) == nil {
			return "PSU-IP-Address", "PSU-IP-Address has the wrong format: want the IP address of the PSU's device"
		}
	}
	for _, v := range h.Values("TPP-Redirect-Preferred") {
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return "TPP-Redirect-Preferred", "TPP-Redirect-Preferred must be True or False"
		}
	}
	for _, v := range h.Values("PSU-Context") {
		if !strings.EqualFold(v, "PRIVATE") && !strings.EqualFold(v, "CORPORATE") {
			return "PSU-Context", "PSU-Context must be PRIVATE or CORPORATE"
		}
	}
	return "", ""
}

func checkRedirectURI(v string) (bool, string) {
	if v == "" {
		return false, "TPP-Redirect-URI is required on every request"
	}
	u, err := parseAbsURL(v)
	if err != nil || u == nil {
		return false, "TPP-Redirect-URI must be an absolute http or https URL"
	}
	return true, ""
}

// processableRequest reports whether PSU-* and TPP-* headers and every JSON
// string of the body hold only printable Latin-1 text (docs/interface.md: a UTF-8
// character the backend cannot process, such as an emoji, gives 400).
func processableRequest(h http.Header, body []byte) (string, bool) {
	for name, vals := range h {
		ln := strings.ToLower(name)
		if !strings.HasPrefix(ln, "psu-") && !strings.HasPrefix(ln, "tpp-") {
			continue
		}
		for _, v := range vals {
			if !printableLatin1(v) {
				return name, false
			}
		}
	}
	if len(body) == 0 {
		return "", true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", true // not JSON: the endpoint answers for its own body
	}
	return "", walkStrings(v)
}

func walkStrings(v any) bool {
	switch x := v.(type) {
	case string:
		return printableLatin1(x)
	case []any:
		for _, e := range x {
			if !walkStrings(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if !printableLatin1(k) || !walkStrings(e) {
				return false
			}
		}
	}
	return true
}

func printableLatin1(s string) bool {
	for i, r := range s {
		if r == 0xFFFD && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false // invalid UTF-8
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) || r > 0xff {
			return false
		}
	}
	return true
}

// finish writes the buffered answer, echoing X-Request-ID and signing it
// when WithResponseSigning is on.
func (s *Server) finish(w http.ResponseWriter, r *http.Request, lp logPath, bw *bufWriter) {
	h := w.Header()
	for k, v := range bw.header {
		h[k] = v
	}
	rid := r.Header.Get("X-Request-ID")
	if !uuidRE.MatchString(rid) {
		rid = uuid.NewString() // the Berlin Group requires one on every answer
	}
	h.Set("X-Request-ID", rid)
	if s.respKey != nil && !strings.HasPrefix(lp.path, "/sca/") {
		s.signResponse(h, bw.body.Bytes(), rid)
	}
	s.hookAnswer(r, lp, h, bw)
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.body.Bytes())
	s.logRequest(r, lp, bw.status, false, bw.refusal())
}

// refusal is the code and reason of an answer of 400 or more, for the log.
type refusal struct{ code, reason string }

// logRequest adds the request to the request log, within its bounds, and
// logs its line: method, path template, status, X-Request-ID and, for a
// refusal, its code and reason (never bodies or PSU headers).
func (s *Server) logRequest(r *http.Request, lp logPath, status int, dropped bool, why refusal) {
	rec := Request{Method: r.Method, Path: lp.path, FullPath: lp.full, Status: status,
		RequestID: r.Header.Get("X-Request-ID"), Dropped: dropped}
	s.mu.Lock()
	s.appendLogLocked(rec)
	s.mu.Unlock()
	attrs := []any{"method", inert.Text(rec.Method, 16), "path", pathTemplate(lp.escaped),
		"status", status, "dropped", dropped, "x-request-id", inert.Text(rec.RequestID, 64)}
	if why.code != "" || why.reason != "" {
		attrs = append(attrs, "code", inert.Text(why.code, 64), "reason", logText(why.reason))
	}
	s.cfg.logger.Info("xs2atest request", attrs...)
}

// appendLogLocked adds rec to the request log and drops the oldest entries
// beyond its bounds (WithRequestLogLimits). s.mu is held.
func (s *Server) appendLogLocked(rec Request) {
	s.reqLog = append(s.reqLog, rec)
	s.logBytes += requestSize(&rec)
	drop := 0
	for len(s.reqLog)-drop > s.cfg.logEntries || (s.logBytes > s.cfg.logBytes && len(s.reqLog)-drop > 0) {
		s.logBytes -= requestSize(&s.reqLog[drop])
		drop++
	}
	if drop > 0 {
		clear(s.reqLog[:drop]) // let the dropped strings go
		s.reqLog = s.reqLog[drop:]
	}
}

// requestSize is what an entry of the request log counts against its byte
// bound: its text and a fixed overhead.
func requestSize(r *Request) int {
	return 64 + len(r.Method) + len(r.Path) + len(r.FullPath) + len(r.RequestID)
}

// logText is a refusal's reason as a log line holds it: inert, resource ids
// and SCA tokens hidden, at most 300 characters.
func logText(s string) string { return inert.Text(pathTemplate(s), 300) }

// idInPath matches an id as a path holds it: "enc!!" and the characters a
// path segment may hold, escapes included.
var idInPath = regexp.MustCompile(`enc!![A-Za-z0-9\-._~!$&'()*+,;=:@%]+|/sca/[^/]+`)

// pathTemplate hides resource ids and SCA tokens in log lines.
func pathTemplate(p string) string {
	return idInPath.ReplaceAllStringFunc(p, func(m string) string {
		if strings.HasPrefix(m, "/sca/") {
			return "/sca/{token}"
		}
		return "{id}"
	})
}

// bufWriter buffers a response so it can be signed, or dropped by a Fault.
type bufWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	fault  bool   // a Fault wrote it
	reason string // why an SCA page refused, for the log
}

// refusal reads the code and text of an answer of 400 or more: the first
// tppMessage of a JSON error body, or the reason an SCA page gave.
func (b *bufWriter) refusal() refusal {
	if b.status < 400 {
		return refusal{}
	}
	if b.reason != "" {
		return refusal{code: "SCA_PAGE", reason: b.reason}
	}
	if b.fault && b.header.Get("Content-Type") != "application/json" {
		return refusal{code: http.StatusText(b.status), reason: "injected fault (Fault.Body)"}
	}
	var eb errorBody
	if json.Unmarshal(b.body.Bytes(), &eb) == nil && len(eb.TPPMessages) > 0 {
		return refusal{code: eb.TPPMessages[0].Code, reason: eb.TPPMessages[0].Text}
	}
	return refusal{code: http.StatusText(b.status), reason: "the answer carries no tppMessages"}
}

func newBufWriter() *bufWriter { return &bufWriter{header: http.Header{}, status: http.StatusOK} }

func (b *bufWriter) Header() http.Header  { return b.header }
func (b *bufWriter) WriteHeader(code int) { b.status = code }
func (b *bufWriter) Write(p []byte) (int, error) {
	return b.body.Write(p)
}

type tppMessage struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

type link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitempty"`
}

type errorBody struct {
	TPPMessages []tppMessage    `json:"tppMessages"`
	Links       map[string]link `json:"_links,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"tppMessages":[{"category":"ERROR","code":"INTERNAL_SERVER_ERROR"}]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers {"tppMessages":[{"category":"ERROR","code","path","text"}]}.
func writeError(w http.ResponseWriter, status int, code, path, text string) {
	writeJSON(w, status, errorBody{TPPMessages: []tppMessage{{Category: "ERROR", Code: code, Path: path, Text: text}}})
}

// writeSCARequired answers 401 with a scaRedirect link in the body.
func writeSCARequired(w http.ResponseWriter, code, text, href string) {
	writeJSON(w, http.StatusUnauthorized, errorBody{
		TPPMessages: []tppMessage{{Category: "ERROR", Code: code, Text: text}},
		Links:       map[string]link{"scaRedirect": {Href: href, Verbs: []string{"GET"}}},
	})
}

// decodeBody decodes the request body strictly into v; on failure it answers
// 400 FORMAT_ERROR and returns false.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	body := info(r).body
	if len(bytes.TrimSpace(body)) == 0 {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "a JSON body is required")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		path := ""
		if errors.As(err, &ute) {
			path = ute.Field
		}
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", path, "the body is not valid: "+jsonReason(err))
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "FORMAT_ERROR", "", "the body holds more than one JSON value")
		return false
	}
	return true
}

func jsonReason(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return "field " + ute.Field + " must be " + ute.Type.String()
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field") {
		return strings.TrimPrefix(msg, "json: ")
	}
	return "malformed JSON"
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "no such endpoint: "+r.Method+" "+pathTemplate(r.URL.EscapedPath()))
	})
	s.sandboxRoutes(m)
	s.aisRoutes(m)
	s.pisRoutes(m)
	m.HandleFunc("PUT /v1/tpps/{tppId}/contact-information", s.putContact)
	m.HandleFunc("GET /v1/tpps/{tppId}/contact-information", s.getContact)
}
