package xs2a

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The decode stage (docs/architecture.md): what an attempt's answer means.

// interpret makes the call's result of attempt a: the *TransportError of a
// request that got no answer; for an answer, the *Response and the error of
// a refusal (status >= 400), of a redirect that was not followed, or of a
// 2xx body that cannot be read, trusted or decoded into into. It reads and
// closes the answer's body.
func (c *Client) interpret(cl *call, a attempt, into any) outcome {
	r, n := cl.r, cl.attempts(a.n)
	if a.err != nil {
		// Its text leaves out the URL (it holds resource ids).
		err := r.transportError(cl.requestID, a.sent, a.err)
		err.Attempts = n
		return outcome{err: err, warn: true, attempts: n}
	}
	resp := a.resp
	o := outcome{resp: &Response{Response: resp, RequestID: cl.requestID, Attempts: n, AcceptFixes: cl.fixes}, status: resp.StatusCode, attempts: n}
	switch {
	case resp.StatusCode >= 400:
		o.body, _ = readCapped(resp.Body, maxErrorBody, resp.ContentLength)
		closeAnswer(resp)
		o.err, o.warn = c.answerError(r, resp, o.body, cl.requestID), true
	case resp.StatusCode >= 300:
		// A redirect that was not followed (no Location): no answer
		// to decode, and for a POST no telling what the bank did.
		closeAnswer(resp)
		te := r.transportError(cl.requestID, true, fmt.Errorf("unexpected answer %s, a redirect that is not followed", resp.Status))
		te.Attempts = n
		o.err, o.warn = te, true
	default:
		o.err = c.decode(r, resp, cl.requestID, into)
		if te, ok := o.err.(*TransportError); ok {
			te.Attempts = n
		}
	}
	return o
}

// closeAnswer closes an answer's body, read or not, leaving an empty one.
func closeAnswer(resp *http.Response) {
	resp.Body.Close()
	resp.Body = http.NoBody
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
// scaRedirect into *SCARequiredError and unmarshals into into. The bytes
// verified are the bytes decoded, both for the scaRedirect and for into.
func (c *Client) decode(r *request, resp *http.Response, requestID string, into any) error {
	buf := r.readBuf
	if buf == nil {
		buf = bodyBuffers.Get().(*[]byte)
	}
	body, err := readAnswer(*buf, resp.Body, resp.ContentLength)
	if r.readBuf == nil {
		defer recycleBody(buf, body.head())
	} else if body != nil {
		*buf = body.head()[:0]
	}
	closeAnswer(resp)
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
	return c.decodeInto(r, resp, requestID, body, into)
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

// decodeInto unmarshals a 2xx body into into and checks the redirect a
// result holds.
func (c *Client) decodeInto(r *request, resp *http.Response, requestID string, body pieces, into any) error {
	if body.blank() {
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
		return &redactedError{err: err, ids: r.ids(),
			msg: fmt.Sprintf("xs2a: %s: decoding the response (X-Request-ID %s)", r.op, requestID)}
	}
	if err := c.checkResultRedirect(r, resp, requestID, into); err != nil {
		return outcomeUnknown(r, requestID, err)
	}
	return nil
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

// mayNameSCARedirect reports whether body may hold a member that
// scaRedirectOf reads as scaRedirect; when false it cannot, and the
// document need not be decoded for it (a transaction page is decoded
// once). The decoding (jsonOptions, encoding/json's semantics) matches a member name to "scaRedirect"
// exactly or under Unicode simple case folding, after reading its escapes.
// Without an escape the name lies in the body as it is, and its "rect" is
// r, e, c and t in either case: no other rune folds to those four letters
// (as "ſ" folds to s and the Kelvin sign to k;
// TestSCARedirectFoldsOnlyASCII checks all of Unicode). An escape that
// makes a letter is a \u escape (\n, \t and the others make no letter).
// So a name read as scaRedirect leaves "rect" in some letter case, or a
// "\u", in the body.
func mayNameSCARedirect(body pieces) bool {
	var carry [3]byte // the last bytes of the body so far
	nc := 0
	for _, b := range body {
		if bytes.Contains(b, []byte(`\u`)) || containsRect(b) {
			return true
		}
		// Across the seam: the last 3 bytes before it and the first 3
		// after it hold any "rect" or "\u" that crosses it.
		var seam [6]byte
		n := copy(seam[:], carry[:nc])
		n += copy(seam[n:], b[:min(len(b), 3)])
		if bytes.Contains(seam[:n], []byte(`\u`)) || containsRect(seam[:n]) {
			return true
		}
		if len(b) >= 3 {
			nc = copy(carry[:], b[len(b)-3:])
		} else {
			nc = copy(carry[:], seam[max(0, n-3):n])
		}
	}
	return false
}

// containsRect reports "rect" in b, each letter in either case. It reads
// eight bytes at a time: a page of transactions is read through in about
// the time a bytes.Contains of one pattern takes.
func containsRect(b []byte) bool {
	const ones = 0x0101010101010101
	const lower = 0x2020202020202020 // a letter's bit of lower case
	i := 0
	for ; i+11 <= len(b); i += 8 {
		// Byte k of wN is b[i+N+k] with its 0x20 bit set, which makes
		// r of R and r only (e, c and t alike): a "rect" at i+k has r,
		// e, c, t at byte k of w0, w1, w2, w3. The c, the rarest of the
		// four in answers, is looked at first.
		w2 := binary.LittleEndian.Uint64(b[i+2:]) | lower
		m := zeroBytes(w2 ^ ones*'c')
		if m == 0 {
			continue
		}
		w3 := binary.LittleEndian.Uint64(b[i+3:]) | lower
		if m &= zeroBytes(w3 ^ ones*'t'); m == 0 {
			continue
		}
		w0 := binary.LittleEndian.Uint64(b[i:]) | lower
		w1 := binary.LittleEndian.Uint64(b[i+1:]) | lower
		if m&zeroBytes(w0^ones*'r')&zeroBytes(w1^ones*'e') != 0 {
			return true
		}
	}
	for ; i+4 <= len(b); i++ {
		if b[i]|0x20 == 'r' && b[i+1]|0x20 == 'e' && b[i+2]|0x20 == 'c' && b[i+3]|0x20 == 't' {
			return true
		}
	}
	return false
}

// zeroBytes has the high bit of each zero byte of x set, and no other bit.
func zeroBytes(x uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&low7 + low7) | x | low7)
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
// joined.
func unmarshal(body pieces, into any) error {
	defer presize(into, body)()
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

// presize makes the long lists of into ahead of decoding body; the function
// it returns, called after, trims them.
func presize(into any, body pieces) (trim func()) {
	switch v := into.(type) {
	case *TransactionReport:
		t := &v.Transactions
		return makeLists(body, []string{"/transactions/booked", "/transactions/pending", "/transactions/information"},
			&t.Booked, &t.Pending, &t.Information)
	case *cardTransactionReport:
		t := &v.CardTransactions
		return makeLists(body, []string{"/cardTransactions/booked", "/cardTransactions/pending"}, &t.Booked, &t.Pending)
	case *listBody[Account]:
		return makeLists(body, []string{"/" + v.key, ""}, &v.items)
	case *listBody[CardAccount]:
		return makeLists(body, []string{"/" + v.key, ""}, &v.items)
	}
	return func() {}
}

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
// in paths; a single list at any) empty with room; the function it returns
// makes a list left so (absent) nil again, and one less than half full a copy.
func makeLists[T any](body pieces, paths []string, lists ...*[]T) (trim func()) {
	var counts []int
	if body.len() >= minPresized {
		counts = countLists(body, paths...)
	}
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
		*list = makeList[T](n, body)
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

// makeList is an empty list with room for n elements (nil for none), but
// never more than 8 bytes of T for a byte of the body (a Transaction of
// 800 B is at least 100 B of JSON): a list of elements the decoding then
// refuses makes no large list first.
func makeList[T any](n int, body pieces) []T {
	if n <= 0 {
		return nil
	}
	var zero T
	size := max(int(unsafe.Sizeof(zero)), 1)
	return make([]T, 0, min(n, 8*body.len()/size+1))
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
