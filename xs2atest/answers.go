package xs2atest

import "net/http"

// Exchange is one answer of the fake bank as WithAnswerHook hands it over:
// the request's method, path and query, and the answer as it goes out
// (response signing headers included). Header and Body are copies.
type Exchange struct {
	Method   string
	Path     string // below the base path as sent (escaped: an id's "/" stays %2F), no query
	RawQuery string
	Status   int
	Header   http.Header
	Body     []byte
	Fault    bool // a Fault of WithFaults wrote the answer, not the bank's rules
}

// WithAnswerHook calls fn with every answer to a request under the base
// path, the SCA pages included, just before it is written; the client
// waits for fn to return. Answers to requests outside the base path and
// connections a Fault drops are not handed over. It lets a test check every
// answer in one place (the end-to-end suite checks them against the Berlin
// Group OpenAPI file). fn may run on several goroutines at once.
func WithAnswerHook(fn func(Exchange)) Option { return func(c *config) { c.answerHook = fn } }

// hookAnswer hands the answer in bw to the answer hook, if any.
func (s *Server) hookAnswer(r *http.Request, lp logPath, h http.Header, bw *bufWriter) {
	if s.cfg.answerHook == nil || lp.path == "" {
		return
	}
	s.cfg.answerHook(Exchange{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Status: bw.status,
		Header: h.Clone(), Body: append([]byte(nil), bw.body.Bytes()...), Fault: bw.fault})
}
