package xs2a

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/tppkit/xs2a/internal/inert"
)

// The decode stage (docs/architecture.md): what an attempt's answer means.

// interpret makes the call's result of attempt a: the *TransportError of a
// request that got no answer; for an answer, the *Response and the error of
// a refusal (status >= 400), of a redirect that was not followed, or of a
// 2xx body that cannot be read, trusted or decoded into into. It reads and
// closes the answer's body, leaving an empty one.
func (c *Client) interpret(cl *call, a attempt, into any) outcome {
	r, n := cl.r, cl.attempts(a.n)
	if a.err != nil {
		// Its text leaves out the URL (it holds resource ids).
		err := r.transportError(cl.requestID, a.sent, a.err)
		err.Attempts = n
		return outcome{err: err, warn: true, attempts: n}
	}
	resp := a.resp
	defer func() {
		resp.Body.Close()
		resp.Body = http.NoBody
	}()
	o := outcome{resp: &Response{Response: resp, RequestID: cl.requestID, Attempts: n, AcceptFixes: cl.fixes}, status: resp.StatusCode, attempts: n}
	switch {
	case resp.StatusCode >= 400:
		p, _ := readUpTo(nil, resp.Body, maxErrorBody, resp.ContentLength, false)
		o.body = p.join()
		o.err, o.warn = c.answerError(r, resp, o.body, cl.requestID), true
	case resp.StatusCode >= 300:
		// A redirect that was not followed (no Location): no answer
		// to decode, and for a POST no telling what the bank did.
		o.err = r.transportError(cl.requestID, true, fmt.Errorf("unexpected answer %s, a redirect that is not followed", resp.Status))
		o.warn = true
	default:
		o.err = c.decode(r, resp, cl.requestID, into)
	}
	if te, ok := o.err.(*TransportError); ok {
		te.Attempts = n
	}
	return o
}

// answerError turns a >= 400 answer into *SCARequiredError or *Error.
//
// A 401 is decoded once, and that one decoding decides both whether it
// carries an scaRedirect and so must be signed when signatures are
// required (as a success must: it decides where the PSU logs in), and the
// redirect handed out. Another error answer need not be signed: the SDK only
// reports it as a refusal, which whoever can forge it could bring about by
// dropping the connection as well.
func (c *Client) answerError(r *request, resp *http.Response, body []byte, requestID string) error {
	var link Link
	var msgs []TPPMessage
	sca := false
	if resp.StatusCode == http.StatusUnauthorized {
		link, msgs, sca = scaRedirectOf(pieces{body})
	}
	if c.verifier != nil {
		if err := c.verifier.verify(resp, pieces{body}, requestID, sca); err != nil {
			return err
		}
	}
	if sca {
		return c.scaRequired(r, resp, requestID, link, msgs)
	}
	e := newError(resp, body, requestID, c.cfg.now())
	e.Method, e.Op, e.ids = r.method, r.op, r.ids()
	return e
}

// decode reads a 2xx body, verifies it if asked, turns an unexpected
// scaRedirect into *SCARequiredError, unmarshals into into and checks the
// scaRedirect a result holds, resolving a relative one in place. The bytes
// verified are the bytes decoded, both for the scaRedirect and for into.
func (c *Client) decode(r *request, resp *http.Response, requestID string, into any) error {
	buf := r.readBuf
	if buf == nil {
		buf = bodyBuffers.Get().(*[]byte)
	}
	body, err := readUpTo(*buf, resp.Body, maxBody, resp.ContentLength, true)
	head := *buf // the buffer the body was read into: buf's own when nothing was read
	if len(body) > 0 {
		head = body[0]
	}
	if r.readBuf == nil {
		defer recycleBody(buf, head)
	} else {
		*buf = head[:0]
	}
	if err != nil {
		return r.transportError(requestID, true, fmt.Errorf("reading the response: %w", err))
	}
	if c.verifier != nil {
		if err := c.verifier.verify(resp, body, requestID, true); err != nil {
			return outcomeUnknown(r, requestID, err)
		}
	}
	if !r.scaResult && mayNameSCARedirect(body) {
		if link, msgs, ok := scaRedirectOf(body); ok {
			return c.scaRequired(r, resp, requestID, link, msgs)
		}
	}
	if into == nil {
		return nil
	}
	if !slices.ContainsFunc(body, func(b []byte) bool { return len(bytes.TrimSpace(b)) > 0 }) {
		if idempotent(r.method) {
			return nil // an empty list or nothing to say
		}
		// A POST whose answer should say what was created, but is empty.
		return outcomeUnknown(r, requestID, errors.New("the answer has no body"))
	}
	if err := unmarshal(body, into); err != nil {
		if !idempotent(r.method) {
			return outcomeUnknown(r, requestID, fmt.Errorf("decoding the answer: %w", err))
		}
		return &redactedError{err: err, ids: r.ids(), requestID: requestID,
			msg: fmt.Sprintf("xs2a: %s: decoding the response (X-Request-ID %s)", r.op, requestID)}
	}
	if h, ok := into.(scaRedirectHolder); ok && !h.scaRedirectLink().IsZero() {
		link, err := c.checkSCARedirect(r, resp.StatusCode, requestID, *h.scaRedirectLink())
		if err != nil {
			return outcomeUnknown(r, requestID, err)
		}
		*h.scaRedirectLink() = link
	}
	return nil
}

// outcomeUnknown is err of an accepted request that created something (a
// payment) whose answer cannot be trusted or read: its outcome is unknown
// to the caller. It is err itself for an idempotent request.
func outcomeUnknown(r *request, requestID string, err error) error {
	if idempotent(r.method) {
		return err
	}
	return r.transportError(requestID, true, err)
}

// scaRequired is the *SCARequiredError of an answer carrying link, or a
// *SCARedirectError when link is no address to send the PSU to.
func (c *Client) scaRequired(r *request, resp *http.Response, requestID string, link Link, msgs []TPPMessage) error {
	link, err := c.checkSCARedirect(r, resp.StatusCode, requestID, link)
	if err != nil {
		return err
	}
	return &SCARequiredError{Redirect: link, StatusCode: resp.StatusCode, RequestID: requestID, Messages: msgs}
}

// scaRedirectOf finds _links.scaRedirect in a body as the decoding of the
// results (unmarshal, with jsonOptions) reads it: member names in any
// letter case (Unicode folding: "SCAREDIRECT", "_linkſ"), escapes read
// ("sca\u0052edirect"). It is the one decision on an answer's redirect:
// whether a 401 carries one and must be signed, and what a 2xx or 401 hands
// out.
func scaRedirectOf(body pieces) (Link, []TPPMessage, bool) {
	var doc struct {
		Links struct {
			SCARedirect Link `json:"scaRedirect"`
		} `json:"_links"`
		TPPMessages []TPPMessage `json:"tppMessages"`
	}
	if unmarshal(body, &doc) != nil || doc.Links.SCARedirect.Href == "" {
		return Link{}, nil, false
	}
	return doc.Links.SCARedirect, doc.TPPMessages, true
}

// checkSCARedirect returns link with its href checked, and resolved under
// the base address when relative, or a *SCARedirectError for the answer of
// status to r.
func (c *Client) checkSCARedirect(r *request, status int, requestID string, link Link) (Link, error) {
	href, reason := c.scaRedirectHref(link.Href)
	if reason != "" {
		return Link{}, &SCARedirectError{Op: r.op, StatusCode: status, RequestID: requestID, Reason: reason}
	}
	link.Href = href
	return link, nil
}

// scaRedirectHref returns the address an scaRedirect href sends the PSU's
// browser to, or the reason it is refused. Browsers drop or reinterpret
// white space, control characters and backslashes ("java\tscript:",
// "/\evil.example" as "//evil.example"), and bidi and format characters
// make a link read otherwise than it leads, so a link holding any Unicode
// space (inert.Space), any character inert.Unsafe reports (C0 and C1
// controls, bidi and other format characters, line and paragraph
// separators, invalid UTF-8) or a backslash is refused before it is parsed,
// and the parsed address is the one judged.
func (c *Client) scaRedirectHref(href string) (string, string) {
	if strings.ContainsFunc(href, refusedInLink) {
		return "", "holds spaces, control, bidi or format characters, or backslashes"
	}
	u, err := url.Parse(href)
	switch {
	case err != nil:
		return "", "is not a URL"
	case u.Scheme == "" && u.Host == "" && !strings.HasPrefix(href, "//"):
		resolved, err := c.resolve(href)
		if err != nil {
			return "", "is relative and does not resolve under the base address"
		}
		u, href = resolved, resolved.String()
	}
	if reason := webAddressReason(u); reason != "" {
		return "", reason
	}
	return href, ""
}

// refusedInLink reports a character an scaRedirect may not hold.
func refusedInLink(r rune) bool { return r == '\\' || inert.Unsafe(r) || inert.Space(r) }

// webAddressReason says why u is not an address to send a browser to, or
// returns "": it must be https with a host and no user info, or plain http
// on a loopback host.
func webAddressReason(u *url.URL) string {
	switch {
	case u.Scheme == "":
		return "has no scheme"
	case u.Scheme != "https" && u.Scheme != "http":
		return "is not an https address"
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "has no host"
	case u.User != nil:
		return "holds user info"
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return "uses plain http on a host that is not loopback"
	}
	return ""
}

// scaRedirectHolder is a result whose _links may hold an scaRedirect
// (SCALinks, Initiation, BasketInitiation).
type scaRedirectHolder interface{ scaRedirectLink() *Link }

func (s *SCALinks) scaRedirectLink() *Link         { return &s.Links.SCARedirect }
func (i *Initiation) scaRedirectLink() *Link       { return &i.Links.SCARedirect }
func (b *BasketInitiation) scaRedirectLink() *Link { return &b.Links.SCARedirect }

// maxPrealloc bounds the buffer made ahead for a body from its
// Content-Length, so that a false length cannot make the client allocate
// much before the bytes arrive; once they have filled it, one buffer of the
// announced length takes them all.
const maxPrealloc = 4 << 20

// maxChunk is the largest piece a body of unknown length is read in.
const maxChunk = 1 << 20

// readUpTo reads at most limit bytes of r, into buf when it has room: in
// one piece when it fit the first buffer, else in the pieces it was read
// in. size is the length announced (Content-Length, -1 when unknown); the
// bytes returned do not depend on it. What it allocates is bounded by the
// body, never by a buffer grown by copies: for an announced length, one
// buffer of it (at most maxPrealloc ahead of the bytes); otherwise pieces
// of at most maxChunk, never past limit. With refuse, a body longer than
// limit is errBodyTooLarge: refused by its announced length before
// anything is read, or as soon as more than limit bytes arrived (never cut
// and decoded).
func readUpTo(buf []byte, r io.Reader, limit, size int64, refuse bool) (pieces, error) {
	if refuse {
		if size > limit {
			return nil, errBodyTooLarge
		}
		limit++ // one byte more: to tell a body over the cap
	}
	lr := &io.LimitedReader{R: r, N: limit}
	b := buf[:0]
	if size > 0 {
		if n := min(size, limit, maxPrealloc) + 1; int64(cap(b)) < n { // + 1: room to read the end
			b = make([]byte, 0, n)
		}
	}
	if cap(b) == 0 {
		b = make([]byte, 0, 512)
	}
	var p pieces
	next := 0 // the room of the piece after b
	var err error
	for err == nil && lr.N > 0 {
		switch {
		case len(b) < cap(b):
		case p == nil && size > int64(len(b)): // the first buffer is full: one of the announced length
			b = append(make([]byte, 0, min(size, limit)+1), b...)
		default: // the next piece, twice as large, up to maxChunk
			if p = append(p, b); len(p) == 1 {
				next = max(2*cap(b), 4<<10)
			} else {
				next = min(2*next, maxChunk)
			}
			b = make([]byte, 0, min(int64(next), lr.N))
		}
		var n int
		n, err = lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
	}
	if refuse && lr.N == 0 {
		return nil, errBodyTooLarge
	}
	if err == io.EOF {
		err = nil
	}
	return append(p, b), err
}

// pieces is a body as read: its bytes in order, in one slice or more.
type pieces [][]byte

// len is the length of the body.
func (p pieces) len() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// join returns the body in one slice: the piece itself when there is one,
// else a new slice of the exact length (plus one byte of room, as a buffer
// read at once has).
func (p pieces) join() []byte {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return p[0]
	}
	out := make([]byte, 0, p.len()+1)
	for _, b := range p {
		out = append(out, b...)
	}
	return out
}

// reader reads the pieces in turn.
func (p pieces) reader() io.Reader { return &piecesReader{p: p} }

// piecesReader is pieces.reader: at byte at of piece i. The pieces are
// never written to.
type piecesReader struct {
	p     pieces
	i, at int
}

func (r *piecesReader) Read(b []byte) (int, error) {
	for r.i < len(r.p) && r.at == len(r.p[r.i]) {
		r.i, r.at = r.i+1, 0
	}
	if r.i == len(r.p) {
		return 0, io.EOF
	}
	n := copy(b, r.p[r.i][r.at:])
	r.at += n
	return n, nil
}

// bodyBuffers recycles the buffers that successful answers are read into
// (as *[]byte). Such a body is garbage once decoded: the decoding copies
// what it keeps (and a model's UnmarshalJSONFrom must copy too), and nothing else in
// decode keeps it (BenchmarkDecodeTransactions measures what the reuse
// saves). Error bodies, which *Error keeps, are read by interpret into
// buffers of their own.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// walkBuffer is the read buffer of a walk over pages (request.readBuf),
// taken from bodyBuffers; the walk hands it back with recycleBody when it
// ends.
func walkBuffer() *[]byte {
	buf := bodyBuffers.Get().(*[]byte)
	if *buf == nil {
		*buf = []byte{} // not nil: recycleBody takes nil for "nothing read"
	}
	return buf
}

// maxPooledBody is the largest buffer kept for reuse; larger ones are left
// to the garbage collector.
const maxPooledBody = 1 << 20

// recycleBody returns body's buffer to bodyBuffers in buf.
func recycleBody(buf *[]byte, body []byte) {
	if body == nil { // nothing was read: buf holds what it held
		bodyBuffers.Put(buf)
		return
	}
	if cap(body) <= maxPooledBody {
		*buf = body[:0]
		bodyBuffers.Put(buf)
	}
}

// mayNameSCARedirect reports whether body may hold a member that
// scaRedirectOf reads as scaRedirect; when false it cannot, and the
// document need not be decoded for it (a transaction page is decoded
// once). The decoding (jsonOptions, encoding/json's semantics) matches a
// member name to "scaRedirect" exactly or under Unicode simple case
// folding, after reading its escapes. Without an escape the name lies in
// the body as it is, and its "rect" is r, e, c and t in either case: no
// other rune folds to those four letters (as "ſ" folds to s and the Kelvin
// sign to k; TestSCARedirectFoldsOnlyASCII checks all of Unicode). An
// escape that makes a letter is a \u escape (\n, \t and the others make no
// letter). So a name read as scaRedirect leaves "rect" in some letter
// case, or a "\u", in the body: it reports exactly those, wherever the
// pieces are cut.
func mayNameSCARedirect(body pieces) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	const lower = 0x2020202020202020 // a letter's bit of lower case
	var carry [3]byte                // the last bytes of the body so far
	nc := 0
	for _, piece := range body {
		// Across the seam: the last 3 bytes before it and the first 3
		// after it hold any "rect" or "\u" that crosses it.
		var seam [6]byte
		n := copy(seam[:], carry[:nc])
		n += copy(seam[n:], piece[:min(len(piece), 3)])
		for _, b := range [2][]byte{seam[:n], piece} {
			if bytes.Contains(b, []byte(`\u`)) {
				return true
			}
			// Eight places at a time: byte k of wN is b[i+N+k] with its
			// 0x20 bit set, which makes r of R and r only (e, c and t
			// alike), so a "rect" at i+k leaves byte k of x zero. The
			// c, the rarest of the four in answers, is looked at first.
			// (x-ones)&^x&high is not 0 exactly when a byte of x is 0.
			i := 0
			for ; i+11 <= len(b); i += 8 {
				x := (binary.LittleEndian.Uint64(b[i+2:]) | lower) ^ ones*'c'
				if (x-ones)&^x&high == 0 {
					continue
				}
				x |= (binary.LittleEndian.Uint64(b[i:]) | lower) ^ ones*'r'
				x |= (binary.LittleEndian.Uint64(b[i+1:]) | lower) ^ ones*'e'
				x |= (binary.LittleEndian.Uint64(b[i+3:]) | lower) ^ ones*'t'
				if (x-ones)&^x&high != 0 {
					return true
				}
			}
			for ; i+4 <= len(b); i++ {
				if b[i]|0x20 == 'r' && b[i+1]|0x20 == 'e' && b[i+2]|0x20 == 'c' && b[i+3]|0x20 == 't' {
					return true
				}
			}
		}
		if len(piece) >= 3 {
			nc = copy(carry[:], piece[len(piece)-3:])
		} else {
			nc = copy(carry[:], seam[max(0, n-3):n])
		}
	}
	return false
}

// jsonOptions are the semantics answers are decoded with, encoding/json's
// (v1) on json/v2's one pass: member names in any letter case, the last
// repeated member wins, invalid UTF-8 replaced, unknown members ignored or
// collected into an Extra; but decoding stops at the first value of the
// wrong type.
var jsonOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// decodeJSON decodes the JSON document data into into, with jsonOptions.
// A value of the wrong type is a *json.UnmarshalTypeError (encoding/json's)
// whose Field is the path of the member ("transactions.booked.transactionAmount.amount").
func decodeJSON(data []byte, into any) error {
	err := jsonv2.Unmarshal(data, into, jsonOptions)
	if err == nil {
		return nil
	}
	if _, semantic := errors.AsType[*jsonv2.SemanticError](err); semantic {
		// As encoding/json, which checks the whole document first, a
		// syntax error anywhere wins over a value of the wrong type.
		if !jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			var v jsontext.Value // only to name the syntax error
			if serr := jsonv2.Unmarshal(data, &v, jsonOptions); serr != nil {
				return serr
			}
		}
	}
	return legacyError(err)
}

// unmarshal decodes a 2xx body into into with jsonOptions: a body in one
// piece as it is, a body in pieces (of unknown length) read in turn, never
// joined. The long lists of a page or account list are made ahead
// (makeLists), and trimmed after.
func unmarshal(body pieces, into any) error {
	trim := func() {}
	switch v := into.(type) {
	case *TransactionReport:
		t := &v.Transactions
		trim = makeLists(body, []string{"/transactions/booked", "/transactions/pending", "/transactions/information"},
			&t.Booked, &t.Pending, &t.Information)
	case *cardTransactionReport:
		t := &v.CardTransactions
		trim = makeLists(body, []string{"/cardTransactions/booked", "/cardTransactions/pending"}, &t.Booked, &t.Pending)
	case *listBody[Account]:
		trim = makeLists(body, []string{"/" + v.key, ""}, &v.items)
	case *listBody[CardAccount]:
		trim = makeLists(body, []string{"/" + v.key, ""}, &v.items)
	}
	defer trim()
	if len(body) == 1 {
		return decodeJSON(body[0], into)
	}
	return legacyError(jsonv2.UnmarshalRead(body.reader(), into, jsonOptions))
}

// legacyError is err as encoding/json reports it: a value of the wrong type
// (or a model's own *json.UnmarshalTypeError) is a *json.UnmarshalTypeError
// naming the path of the member, array indexes left out
// ("transactions.booked.transactionAmount.amount"). Syntax errors stay json/v2's.
func legacyError(err error) error {
	if err == nil {
		return nil
	}
	var se *jsonv2.SemanticError
	if !errors.As(err, &se) {
		return err
	}
	at := fieldPath(se.JSONPointer)
	var numErr *strconv.NumError
	if se.Err != nil && !errors.Is(se.Err, strconv.ErrRange) && !errors.Is(se.Err, strconv.ErrSyntax) && !errors.As(se.Err, &numErr) {
		var te *json.UnmarshalTypeError
		if errors.As(se.Err, &te) && at != "" {
			te.Field = strings.TrimSuffix(at+"."+te.Field, ".")
		}
		return se.Err
	}
	return &json.UnmarshalTypeError{Value: kindName(se.JSONKind), Type: se.GoType, Offset: se.ByteOffset, Field: at}
}

// fieldPath is a JSON pointer as encoding/json names a field: member
// names joined by dots, array indexes left out.
func fieldPath(p jsontext.Pointer) string {
	var parts []string
	for tok := range p.Tokens() {
		if !allDigits(tok) {
			parts = append(parts, tok)
		}
	}
	return strings.Join(parts, ".")
}

// kindNames name JSON kinds as encoding/json's errors do.
var kindNames = map[jsontext.Kind]string{'n': "null", 't': "bool", 'f': "bool", '"': "string", '0': "number", '{': "object", '[': "array"}

// kindName names a JSON kind as encoding/json's errors do ("value" for another).
func kindName(k jsontext.Kind) string {
	if name, ok := kindNames[k]; ok {
		return name
	}
	return "value"
}

// fieldBelow takes the member key out of the front of the path an error of
// json/v2 names: a list answer names the fields of its items from the item
// ("balances.balanceAmount.amount"), as it always has.
func fieldBelow(key string, err error) error {
	var se *jsonv2.SemanticError
	if errors.As(err, &se) {
		se.JSONPointer = jsontext.Pointer(strings.TrimPrefix(string(se.JSONPointer), "/"+key))
	}
	return err
}

// Lists made once at their length, not grown by copies: before decoding a
// page or account list, each list is made at the length the last list at
// its place had, or for a long body at the length its tokens count
// (TestLargeAnswerAllocationIsBoundedByItsSize). A wrong length costs room
// or copies, never a wrong value.

// minPresized is the smallest body read for the length of its lists: below
// it the copies cost less than the reading (BenchmarkPageVsPlain, 220 kB).
const minPresized = 1 << 20

// lastLengths are the lengths of the last lists decoded at these JSON
// pointers (up to maxHinted).
var lastLengths = map[string]*atomic.Int32{
	"/transactions/booked": new(atomic.Int32), "/transactions/pending": new(atomic.Int32),
	"/transactions/information": new(atomic.Int32), "/cardTransactions/booked": new(atomic.Int32),
	"/cardTransactions/pending": new(atomic.Int32), "/accounts": new(atomic.Int32), "/cardAccounts": new(atomic.Int32),
}

// maxHinted is the most elements a list is made with from lastLengths.
const maxHinted = 1024

// makeLists makes each of lists (the array at the JSON pointer of its index
// in paths; a single list at any) empty with room, but never more than 8
// bytes of T for a byte of the body (a Transaction of 800 B is at least
// 100 B of JSON): a list of elements the decoding then refuses makes no
// large list first. The function it returns makes a list left so (absent)
// nil again, and one less than half full a copy.
func makeLists[T any](body pieces, paths []string, lists ...*[]T) (trim func()) {
	size := body.len()
	var counts []int
	if size >= minPresized {
		counts = countLists(body, paths...)
	}
	var zero T
	most := 8*size/max(int(unsafe.Sizeof(zero)), 1) + 1
	for i, list := range lists {
		n := 0
		if last := lastLengths[paths[i]]; last != nil { // nil: a list key lastLengths does not name
			n = int(last.Load())
		}
		if counts != nil {
			n = counts[i]
			if len(lists) == 1 {
				n = slices.Max(counts)
			}
		}
		*list = nil
		if n > 0 {
			*list = make([]T, 0, min(n, most))
		}
	}
	return func() {
		for i, list := range lists {
			switch l := *list; {
			case len(l) == 0 && cap(l) > 0:
				*list = nil
			case cap(l) > 2*len(l)+8:
				*list = slices.Clone(l)
			}
			if last := lastLengths[paths[i]]; last != nil {
				last.Store(int32(min(len(*list), maxHinted)))
			}
		}
	}
}

// countLists returns the number of elements of the arrays at the JSON
// pointers paths of the body ("" the body itself; member names as they lie
// in the body, without escapes), -1 for one that is absent or holds an
// element that is neither an object nor null (which the decoding refuses).
// When a path repeats, the last array counts.
func countLists(body pieces, paths ...string) []int {
	counts := make([]int, len(paths))
	for i := range counts {
		counts[i] = -1
	}
	var r io.Reader = bytes.NewBuffer(body[0]) // read in place
	if len(body) > 1 {
		r = body.reader()
	}
	countIn(jsontext.NewDecoder(r, jsonOptions), "", paths, counts)
	return counts
}

// countIn reads the value next in d, at the JSON pointer at, and counts
// the elements of the arrays of paths in it; it stops at the first error or
// refused element.
func countIn(d *jsontext.Decoder, at string, paths []string, counts []int) error {
	switch d.PeekKind() {
	case '[':
		i := slices.Index(paths, at)
		if i < 0 {
			return d.SkipValue()
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		n := 0
		for ; d.PeekKind() != ']'; n++ {
			if k := d.PeekKind(); k != '{' && k != 'n' {
				return errors.New("an element the decoding refuses")
			}
			if err := d.SkipValue(); err != nil {
				return err
			}
		}
		counts[i] = n
		_, err := d.ReadToken()
		return err
	case '{':
		if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, at+"/") }) {
			return d.SkipValue()
		}
		if _, err := d.ReadToken(); err != nil {
			return err
		}
		for d.PeekKind() != '}' {
			name, err := d.ReadValue()
			if err != nil {
				return err
			}
			if err := countIn(d, at+"/"+string(name[1:len(name)-1]), paths, counts); err != nil {
				return err
			}
		}
		_, err := d.ReadToken()
		return err
	}
	return d.SkipValue()
}
