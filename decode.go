package xs2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// jsonOptions are the semantics answers are decoded with: encoding/json's
// (v1): member names matched in any letter case under Unicode simple
// folding, the last of repeated members wins, invalid UTF-8 replaced,
// unknown members ignored (or collected into an Extra), on json/v2's one
// pass. One difference: decoding stops at the first value of the wrong
// type (encoding/json goes on to the end, and [0,0,...] for a list of
// objects cost an error per element). The scaRedirect check decodes with
// the same options, so that it and the models read member names alike.
var jsonOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// decodeJSON decodes the JSON document data into into, with jsonOptions.
// A value of the wrong type is a *json.UnmarshalTypeError (encoding/json's)
// whose Field is the path of the member ("transactions.booked.transactionAmount.amount").
func decodeJSON(data []byte, into any) error {
	err := jsonv2.Unmarshal(data, into, jsonOptions)
	var se *jsonv2.SemanticError
	if errors.As(err, &se) {
		// As encoding/json, which checks the whole document first, a
		// syntax error anywhere wins over a value of the wrong type.
		var v jsontext.Value
		if serr := jsonv2.Unmarshal(data, &v, jsonOptions); serr != nil {
			return serr
		}
	}
	return legacyError(err)
}

// unmarshal decodes a 2xx body into into with jsonOptions: a body in one
// piece as it is, a body in pieces (of unknown length) through a
// jsontext.Decoder reading them in turn, never joined.
func unmarshal(body pieces, into any) error {
	presize(into, body)
	if len(body) == 1 {
		return decodeJSON(body[0], into)
	}
	return legacyError(jsonv2.UnmarshalRead(body.reader(), into, jsonOptions))
}

// legacyError is err as encoding/json reports it, which the SDK's errors
// have always wrapped: a value of the wrong type is a
// *json.UnmarshalTypeError naming the path of the member, array indexes
// left out ("transactions.booked.transactionAmount.amount"); the error of a
// model's own method is that error, a *json.UnmarshalTypeError of its with
// the path of its value in front. Syntax errors stay json/v2's.
func legacyError(err error) error {
	var se *jsonv2.SemanticError
	if err == nil || !errors.As(err, &se) {
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

// kindName names a JSON kind as encoding/json's errors do.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "bool"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
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

// Lists made once at their length. A large list decoded element by element
// grows by copies that cost several times the list (a slice grows by a
// quarter at a time); so before decoding the answers that hold long lists
// (transaction pages, card transaction pages, account lists), one scan of
// the body counts their elements, and each list is made at its length
// (TestLargeAnswerAllocationIsBoundedByItsSize). The count only sizes the
// lists: on anything but valid JSON it may be wrong, which costs room or
// copies, never a wrong value (the decoding checks).

// minPresized is the smallest body scanned for its lists: below it the
// copies cost less than the scan (BenchmarkPageVsPlain, 220 kB).
const minPresized = 1 << 20

// presize makes the long lists of into at the length the body gives them.
func presize(into any, body pieces) {
	if body.len() < minPresized {
		return
	}
	switch v := into.(type) {
	case *TransactionReport:
		c := countLists(body, "/transactions/booked", "/transactions/pending", "/transactions/information")
		v.Transactions.Booked = makeList[Transaction](c[0], body)
		v.Transactions.Pending = makeList[Transaction](c[1], body)
		v.Transactions.Information = makeList[Transaction](c[2], body)
	case *cardTransactionReport:
		c := countLists(body, "/cardTransactions/booked", "/cardTransactions/pending")
		v.CardTransactions.Booked = makeList[CardTransaction](c[0], body)
		v.CardTransactions.Pending = makeList[CardTransaction](c[1], body)
	case *listBody[Account]:
		c := countLists(body, "", "/"+v.key)
		v.items = makeList[Account](max(c[0], c[1]), body)
	case *listBody[CardAccount]:
		c := countLists(body, "", "/"+v.key)
		v.items = makeList[CardAccount](max(c[0], c[1]), body)
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
	s := listCounter{paths: paths, counts: make([]int, len(paths))}
	for i := range s.counts {
		s.counts[i] = -1
	}
	s.stack = append(s.stack, listFrame{path: "", top: true, list: -1})
	for _, b := range body {
		s.scan(b)
	}
	return s.counts
}

// listCounter is the state of countLists between pieces.
type listCounter struct {
	paths  []string
	counts []int
	stack  []listFrame
	inStr  bool   // in a string
	esc    bool   // in a string, after a backslash
	isKey  bool   // the string is a member name
	key    []byte // the last member name (up to 64 bytes)
}

// listFrame is an open container (or the top level).
type listFrame struct {
	path      string // its JSON pointer, while short (3 names at most)
	obj, top  bool
	list      int  // the index in paths of the array counted, -1 for none
	n         int  // elements begun
	next      bool // an element begins at the next value
	expectKey bool // an object: a member name comes next
	bad       bool // an element neither an object nor null
}

func (s *listCounter) scan(b []byte) {
	for i := 0; i < len(b); i++ {
		if s.inStr {
			if s.esc { // the byte a backslash ending the last piece escapes
				s.esc = false
				continue
			}
			k := bytes.IndexByte(b[i:], '"')
			for k >= 0 && oddBackslashes(b[i:i+k]) {
				k2 := bytes.IndexByte(b[i+k+1:], '"')
				if k2 < 0 {
					k = -1
					break
				}
				k += 1 + k2
			}
			if k < 0 {
				s.appendKey(b[i:])
				s.esc = oddBackslashes(b[i:])
				return
			}
			s.appendKey(b[i : i+k])
			s.inStr = false
			i += k
			continue
		}
		c := b[i]
		if c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			continue
		}
		top := &s.stack[len(s.stack)-1]
		if top.next && c != ']' {
			top.next = false
			top.n++
			top.bad = top.bad || c != '{' && c != 'n'
		}
		switch c {
		case '"':
			s.inStr, s.isKey = true, top.obj && top.expectKey
			if s.isKey {
				s.key = s.key[:0]
			}
		case ':':
			top.expectKey = false
		case ',':
			top.expectKey, top.next = top.obj, !top.obj
		case '{', '[':
			path := ""
			if top.top {
				path = ""
			} else if top.obj && len(s.stack) <= 3 {
				path = top.path + "/" + string(s.key)
			} else {
				path = "\x00" // below an array, or deep: counted by no path
			}
			f := listFrame{path: path, obj: c == '{', expectKey: c == '{', list: -1, next: c == '['}
			if c == '[' {
				for k, p := range s.paths {
					if p == path {
						f.list = k
					}
				}
			}
			s.stack = append(s.stack, f)
		case '}', ']':
			if len(s.stack) == 1 {
				continue
			}
			if top.list >= 0 {
				s.counts[top.list] = top.n
				if top.bad {
					s.counts[top.list] = -1
				}
			}
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
}

// oddBackslashes reports whether b ends in an odd number of backslashes:
// whether the byte after it is escaped.
func oddBackslashes(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// appendKey adds the bytes of a member name being read.
func (s *listCounter) appendKey(b []byte) {
	if s.isKey && len(s.key)+len(b) <= 64 {
		s.key = append(s.key, b...)
	}
}

// readObject reads the object next in d, calling member with each member's
// name (unquoted) and d at its value, which member reads. The methods of
// the small types read in bulk (Amount, TransactionCode) use it, to decode
// without a value of their own on the heap.
func readObject(d *jsontext.Decoder, member func(name []byte) error) error {
	if _, err := d.ReadToken(); err != nil { // '{'
		return err
	}
	for d.PeekKind() != '}' {
		raw, err := d.ReadValue()
		if err != nil {
			return err
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
			name, _ = jsontext.AppendUnquote(nil, raw) // invalid UTF-8 replaced, as encoding/json does
		}
		if err := member(name); err != nil {
			return err
		}
	}
	_, err := d.ReadToken() // '}'
	return err
}

// isName reports whether a member name matches a field's name as
// encoding/json matches them: in any letter case (Unicode simple folding).
func isName(name []byte, field string) bool {
	return string(name) == field || strings.EqualFold(string(name), field)
}

// readText reads a JSON string into *s as encoding/json does: null leaves
// *s as it is, another kind of value is a *json.UnmarshalTypeError naming
// field. The currency codes most answers repeat cost nothing.
func readText(d *jsontext.Decoder, s *string, field string) error {
	switch d.PeekKind() {
	case 'n':
		_, err := d.ReadToken()
		return err
	case '"':
	default:
		kind := d.PeekKind()
		if err := d.SkipValue(); err != nil {
			return err
		}
		return &json.UnmarshalTypeError{Value: kindName(kind), Type: reflect.TypeFor[string](), Field: field}
	}
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	switch text := raw[1 : len(raw)-1]; {
	case string(text) == "NOK":
		*s = "NOK"
	case string(text) == "EUR":
		*s = "EUR"
	case bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text):
		*s = string(text)
	default:
		b, _ := jsontext.AppendUnquote(nil, raw) // invalid UTF-8 replaced, as encoding/json does
		*s = string(b)
	}
	return nil
}
