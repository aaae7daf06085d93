// Package schemacheck checks answers of the fake bank against the Berlin
// Group NextGenPSD2 1.3.12 OpenAPI file with kin-openapi, a validator that
// is not the project's own reading of the schemas. Tests only: the
// end-to-end suites hand every answer of xs2atest to a Checker
// (xs2atest.WithAnswerHook).
//
// An answer passes when its status is one the operation documents and its
// headers and body match that status's schemas, or when each mismatch is a
// deviation listed in docs/interface.md ("Deviations from the Berlin Group
// schema"): a row names the operation, the status, the JSON pointer in the
// answer (array indices written *) and the schema keyword it breaks. The
// platform's own endpoints, which the file does not hold, are not checked
// (PlatformRoutes).
//
// LoadDialect checks answers against docs/openapi.yaml, the project's own
// description of the platform's dialect, the same way but with no
// deviations and no skipped routes but the fake bank's own controls
// (FakeBankRoutes), and strictly: an answer member the document does not
// name is a problem too (additionalProperties, see strict).
package schemacheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// PlatformRoutes are the path patterns of the platform's own endpoints and
// pages, below the base path, that the Berlin Group file does not define;
// their answers are not checked. A pattern ending in "/" covers the paths
// below it.
var PlatformRoutes = []string{
	"/v1/users",                 // docs/interface.md EP1
	"/v1/user",                  // EP2
	"/v1/agreements",            // EP3
	"/v1/bank-offered-consents", // EP5, PRQ5
	"/v1/sandbox/",              // SB, PO2
	"/v1/tpps/",                 // PO1: TPP contact e-mail
	"/sca/",                     // the SCA web pages (HTML), not the API
}

// FakeBankRoutes are the path patterns, below the base path, of the fake
// bank's own controls, which no bank of the platform has: LoadDialect does
// not check their answers.
var FakeBankRoutes = []string{"/_control/"}

// Deviation is one row of the deviations table of docs/interface.md.
type Deviation struct {
	ID        string // the rule id, e.g. BG1
	Operation string // "GET /v1/accounts/{account-id}/transactions", as the file writes the path
	Status    string // "200"
	Pointer   string // "/transactions/_links", array indices as *; "header X-Request-ID" for a header
	Keyword   string // the schema keyword broken: required, enum, type, additionalProperties, ...
}

func (d Deviation) key() string {
	return d.Operation + " " + d.Status + " " + d.Pointer + " " + d.Keyword
}

// Checker checks answers against the file. It is safe for concurrent use.
type Checker struct {
	name       string   // the document, for messages
	skip       []string // route patterns not checked (PlatformRoutes, FakeBankRoutes)
	router     routers.Router
	headers    map[*openapi3.Operation]map[string]openapi3.Headers // by status; taken out of the document, checked one by one
	deviations map[string]Deviation
}

// Problem is one mismatch of an answer that no deviation lists.
type Problem struct {
	Operation, Status, Pointer, Keyword string
	Reason                              string
}

// Key is the problem as a deviation row would name it.
func (p Problem) Key() string {
	return p.Operation + " " + p.Status + " " + p.Pointer + " " + p.Keyword
}

func (p Problem) String() string { return p.Key() + ": " + p.Reason }

// Error is the error of Check: the problems of one answer.
type Error struct {
	Method, Path string
	Document     string // what the answer breaks: "the Berlin Group 1.3.12 schema where docs/interface.md lists no deviation"
	Problems     []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "schemacheck: %s %s breaks %s:", e.Method, e.Path, e.Document)
	for _, p := range e.Problems {
		b.WriteString("\n\t" + p.String())
	}
	return b.String()
}

var (
	cacheMu sync.Mutex
	cache   = map[[2]string]*checkerOnce{}
)

type checkerOnce struct {
	once sync.Once
	c    *Checker
	err  error
}

// Load reads the OpenAPI file at spec and the deviations table of the
// interface document at doc; the same pair is read once per process.
func Load(spec, doc string) (*Checker, error) {
	cacheMu.Lock()
	co := cache[[2]string{spec, doc}]
	if co == nil {
		co = &checkerOnce{}
		cache[[2]string{spec, doc}] = co
	}
	cacheMu.Unlock()
	co.once.Do(func() { co.c, co.err = load(spec, doc) })
	return co.c, co.err
}

func load(spec, doc string) (*Checker, error) {
	c, err := loadSpec(spec, false)
	if err != nil {
		return nil, err
	}
	c.name, c.skip = "the Berlin Group 1.3.12 schema where docs/interface.md lists no deviation", PlatformRoutes
	devs, err := ReadDeviations(doc)
	if err != nil {
		return nil, err
	}
	c.deviations = map[string]Deviation{}
	for _, d := range devs {
		c.deviations[d.key()] = d
	}
	return c, nil
}

// LoadDialect reads the project's OpenAPI description of the platform's
// dialect (docs/openapi.yaml) at spec, once per process. Its checker knows
// no deviations, checks every route but FakeBankRoutes, and is strict (see
// strict): the document must name every member an answer holds.
func LoadDialect(spec string) (*Checker, error) {
	cacheMu.Lock()
	co := cache[[2]string{spec, ""}]
	if co == nil {
		co = &checkerOnce{}
		cache[[2]string{spec, ""}] = co
	}
	cacheMu.Unlock()
	co.once.Do(func() { co.c, co.err = loadDialect(spec) })
	return co.c, co.err
}

func loadDialect(spec string) (*Checker, error) {
	c, err := loadSpec(spec, true)
	if err != nil {
		return nil, err
	}
	c.name, c.skip = spec, FakeBankRoutes
	c.deviations = map[string]Deviation{}
	return c, nil
}

// loadSpec loads an OpenAPI file for checking answers: servers dropped
// (answers are routed by their path below the base path), examples not
// validated, and the responses' header definitions taken out to be checked
// one by one (checkHeaders). With strictObjects, strict closes its object
// schemas.
func loadSpec(spec string, strictObjects bool) (*Checker, error) {
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromFile(spec)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: load %s: %w", spec, err)
	}
	t.Servers = nil // route by the path below the base path
	c := &Checker{headers: map[*openapi3.Operation]map[string]openapi3.Headers{}}
	var responses []*openapi3.Response
	for _, item := range t.Paths.Map() {
		for _, op := range item.Operations() {
			byStatus := map[string]openapi3.Headers{}
			for status, r := range op.Responses.Map() {
				if r.Value != nil {
					byStatus[status] = r.Value.Headers
					responses = append(responses, r.Value)
				}
			}
			c.headers[op] = byStatus
		}
	}
	for _, r := range responses { // after all are read: operations may share a response ($ref)
		r.Headers = nil
	}
	if strictObjects {
		strict(t)
	}
	if c.router, err = legacy.NewRouter(t, openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("schemacheck: route %s: %w", spec, err)
	}
	return c, nil
}

// strict closes every object schema of the document's responses that names
// its properties and says nothing of others (additionalProperties: false),
// so that a member the document does not name is a problem. A schema that
// states its additionalProperties keeps them.
func strict(t *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if len(s.Properties) > 0 && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			closed := false
			s.AdditionalProperties.Has = &closed
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, b := range list {
				walk(b)
			}
		}
	}
	for _, item := range t.Paths.Map() {
		for _, op := range item.Operations() {
			for _, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				for _, mt := range r.Value.Content {
					walk(mt.Schema)
				}
			}
		}
	}
}

// deviationRow is a row of the deviations table:
// | **BG1** | `GET /v1/...` | 200 | `/transactions/_links` | `required` | why |
var deviationRow = regexp.MustCompile("^\\| \\*\\*(BG[0-9]+)\\*\\* \\| `([A-Z]+ /[^`]*)` \\| ([0-9]{3}) \\| `([^`]+)` \\| `([A-Za-z]+)` \\|")

// ReadDeviations reads the rows of the deviations table of the interface
// document at path.
func ReadDeviations(path string) ([]Deviation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("schemacheck: %w", err)
	}
	defer f.Close()
	var out []Deviation
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := deviationRow.FindStringSubmatch(sc.Text()); m != nil {
			out = append(out, Deviation{ID: m[1], Operation: m[2], Status: m[3], Pointer: m[4], Keyword: m[5]})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("schemacheck: %s: %w", path, err)
	}
	return out, nil
}

// Deviations returns the deviations the checker accepts.
func (c *Checker) Deviations() []Deviation {
	out := make([]Deviation, 0, len(c.deviations))
	for _, d := range c.deviations {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Deviation) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Platform reports whether path (below the base path) is one of
// PlatformRoutes.
func Platform(path string) bool { return matchRoutes(PlatformRoutes, path) }

// matchRoutes reports whether path is one of routes; a route ending in "/"
// covers the paths below it.
func matchRoutes(routes []string, path string) bool {
	for _, p := range routes {
		if path == strings.TrimSuffix(p, "/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

// Result is what Check found: the problems no deviation lists (in err) and
// the deviations the answer showed.
type Result struct {
	Operation string      // "" when the answer was not checked
	Seen      []Deviation // listed deviations the answer showed
}

// Check checks one answer to method path?rawQuery (path below the base
// path, escaped as sent). Answers on the checker's skipped routes
// (PlatformRoutes for the Berlin Group file, FakeBankRoutes for the
// dialect), and 404 or 405 answers to a path the file does not route, are
// not checked. Any other answer to a path the file does not route is a
// problem.
func (c *Checker) Check(method, path, rawQuery string, status int, header http.Header, body []byte) (Result, error) {
	if matchRoutes(c.skip, path) {
		return Result{}, nil
	}
	req, err := http.NewRequest(method, "http://bank.invalid/?"+rawQuery, nil)
	if err != nil {
		return Result{}, fmt.Errorf("schemacheck: %s %s: %w", method, path, err)
	}
	req.URL.Path, req.URL.RawPath = routePath(path), ""
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return Result{}, nil // the bank has no such endpoint, and says so
		}
		return Result{}, &Error{Method: method, Path: path, Document: c.name, Problems: []Problem{{Operation: method + " " + path,
			Status: strconv.Itoa(status), Keyword: "route", Reason: "the file has no operation here: " + err.Error()}}}
	}
	op := method + " " + route.Path
	st := strconv.Itoa(status)
	var problems []Problem
	problems = append(problems, c.checkHeaders(route.Operation, op, status, header)...)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true,
			SchemaValidationOptions: formats()},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		problems = append(problems, flatten(op, st, err)...)
	}
	res := Result{Operation: op}
	var left []Problem
	for _, p := range problems {
		if d, ok := c.deviations[p.Key()]; ok {
			if !slices.Contains(res.Seen, d) {
				res.Seen = append(res.Seen, d)
			}
			continue
		}
		left = append(left, p)
	}
	if len(left) > 0 {
		return res, &Error{Method: method, Path: path, Document: c.name, Problems: left}
	}
	return res, nil
}

// routePath is the path as the bank's router sees it, segment by
// segment: each segment decoded ("%62alances" is "balances"), a "/" it
// holds (an id's %2F) kept escaped so that it stays in its segment.
func routePath(escaped string) string {
	segs := strings.Split(escaped, "/")
	for i, s := range segs {
		if d, err := url.PathUnescape(s); err == nil {
			segs[i] = strings.ReplaceAll(d, "/", "%2F")
		}
	}
	return strings.Join(segs, "/")
}

// formats turns on the checks of the string formats the file uses.
func formats() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{
		openapi3.EnableFormatValidation(),
		openapi3.WithStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)),
	}
}

// checkHeaders checks the answer's headers against the ones the operation
// defines for its status, each on its own so that every problem shows.
func (c *Checker) checkHeaders(op *openapi3.Operation, name string, status int, header http.Header) []Problem {
	byStatus := c.headers[op]
	hs, ok := byStatus[strconv.Itoa(status)]
	if !ok {
		hs = byStatus["default"]
	}
	names := make([]string, 0, len(hs))
	for n := range hs {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Problem
	for _, n := range names {
		h := hs[n].Value
		if h == nil || h.Schema == nil || h.Schema.Value == nil {
			continue
		}
		p := Problem{Operation: name, Status: strconv.Itoa(status), Pointer: "header " + n}
		vals := header.Values(n)
		if len(vals) == 0 {
			if h.Required {
				p.Keyword, p.Reason = "required", "the header is missing"
				out = append(out, p)
			}
			continue
		}
		var v any = vals[0]
		if h.Schema.Value.Type.Is("boolean") {
			b, err := strconv.ParseBool(vals[0])
			if err != nil {
				p.Keyword, p.Reason = "type", "not a boolean: "+err.Error()
				out = append(out, p)
				continue
			}
			v = b
		}
		if err := h.Schema.Value.VisitJSON(v, append(formats(), openapi3.MultiErrors())...); err != nil {
			for _, q := range flatten(name, p.Status, err) {
				q.Pointer = p.Pointer
				out = append(out, q)
			}
		}
	}
	return out
}

// flatten turns kin-openapi's error tree into problems, one per schema
// error, with array indices in the pointer written *. Where no branch of a
// oneOf or anyOf matched, the problems are those of the branch that came
// closest (fewest problems, the first of equals): the schema the answer
// meant to follow.
func flatten(op, status string, err error) []Problem {
	switch e := err.(type) {
	case *openapi3filter.ResponseError:
		switch e.Err.(type) {
		case *openapi3.SchemaError, openapi3.MultiError:
			return flatten(op, status, e.Err)
		}
		kw := "response"
		switch {
		case strings.Contains(e.Reason, "status is not supported"):
			kw = "status"
		case strings.Contains(e.Reason, "Content-Type"), strings.Contains(e.Reason, "content type"):
			kw = "content"
		}
		return []Problem{{Operation: op, Status: status, Pointer: "/", Keyword: kw, Reason: oneLine(e.Error())}}
	case openapi3.MultiError:
		var out []Problem
		for _, x := range e {
			out = append(out, flatten(op, status, x)...)
		}
		return out
	case *openapi3.SchemaError:
		if branches, ok := branchErrors(e); ok {
			if e.SchemaField == "allOf" {
				return flatten(op, status, branches)
			}
			var best []Problem
			for _, b := range branches {
				if ps := flatten(op, status, b); best == nil || len(ps) < len(best) {
					best = ps
				}
			}
			if len(best) > 0 {
				return best
			}
		}
		return []Problem{{Operation: op, Status: status, Pointer: pointer(e.JSONPointer()), Keyword: e.SchemaField, Reason: oneLine(e.Reason)}}
	}
	return []Problem{{Operation: op, Status: status, Pointer: "/", Keyword: "response", Reason: oneLine(err.Error())}}
}

// branchErrors returns the errors of the branches of a oneOf, anyOf or
// allOf that failed, which kin-openapi keeps two wraps down its Origin.
func branchErrors(e *openapi3.SchemaError) (openapi3.MultiError, bool) {
	switch e.SchemaField {
	case "oneOf", "anyOf", "allOf":
	default:
		return nil, false
	}
	if e.Origin == nil {
		return nil, false
	}
	var me openapi3.MultiError
	if errors.As(e.Origin, &me) && len(me) > 0 {
		return me, true
	}
	return nil, false
}

var index = regexp.MustCompile(`^[0-9]+$`)

func pointer(parts []string) string {
	if len(parts) == 0 {
		return "/"
	}
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteByte('/')
		if index.MatchString(p) {
			b.WriteByte('*')
		} else {
			b.WriteString(p)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
