package xs2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Extra holds the members of a JSON object from the bank that its model does
// not name, each value as the bank sent it (for instance accountName on an
// account); nil when there are none (docs/interface.md AIS8). The models with a
// field Extra write its members back after their named fields, sorted by name;
// a member whose name a field takes (in any letter case) is never collected:
// the named field wins. Page and reference types (TransactionReport,
// AccountReport, AccountReference, links, Amount) carry no Extra.
type Extra map[string]json.RawMessage

// Decode unmarshals the member name into v (as json.Unmarshal does) and
// reports whether the member is present. A member that is absent leaves v
// as it is and returns false, nil.
func (e Extra) Decode(name string, v any) (bool, error) {
	raw, ok := e[name]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("xs2a: decoding the member %q: %w", name, err)
	}
	return true, nil
}

// fieldNames is the set of member names a model's typed decoding takes,
// derived once from its json tags.
type fieldNames struct {
	byLen  [][]string          // names by length, for the scan's exact lookup
	lower  map[string]struct{} // ASCII lower-case names, for case-insensitive matches
	all    []string
	prefix string // every name with this prefix is taken too ("" for none)
}

// namesOf lists the json member names of struct type t as encoding/json
// reads them (tag name, else field name; "-" left out; fields of embedded
// structs promoted), plus every name starting with prefix.
func namesOf(t reflect.Type, prefix string) *fieldNames {
	f := &fieldNames{lower: map[string]struct{}{}, prefix: prefix}
	f.addFields(t)
	return f
}

func (f *fieldNames) addFields(t reflect.Type) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			f.addFields(ft)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.add(name)
	}
}

func (f *fieldNames) add(name string) {
	f.all = append(f.all, name)
	f.lower[strings.ToLower(name)] = struct{}{}
	for len(f.byLen) <= len(name) {
		f.byLen = append(f.byLen, nil)
	}
	f.byLen[len(name)] = append(f.byLen[len(name)], name)
}

// exact reports whether the raw (still quoted) key k is a name as written
// or starts with the prefix.
func (f *fieldNames) exact(k []byte) bool {
	if f.prefix != "" && len(k) >= len(f.prefix) && string(k[:len(f.prefix)]) == f.prefix {
		return true
	}
	if len(k) >= len(f.byLen) {
		return false
	}
	for _, n := range f.byLen[len(k)] {
		if string(k) == n {
			return true
		}
	}
	return false
}

// known reports whether the typed decoding takes the member k: a name, the
// prefix, or a name in another letter case.
func (f *fieldNames) known(k string) bool {
	if f.prefix != "" && strings.HasPrefix(k, f.prefix) {
		return true
	}
	if isASCII(k) {
		_, ok := f.lower[strings.ToLower(k)]
		return ok
	}
	return slices.ContainsFunc(f.all, func(n string) bool { return strings.EqualFold(n, k) })
}

// unmarshalWithExtra decodes data into v (a pointer to the model's plain
// type, without the custom methods) and the members it does not take into
// *extra. null leaves both as they are.
func unmarshalWithExtra(data []byte, v any, extra *Extra, names *fieldNames) error {
	if isNull(data) {
		return nil
	}
	if err := decodeNested(data, v); err != nil {
		return err
	}
	*extra = scanExtra(data, names)
	return nil
}

// nestedDecoder is a json.Decoder over a reader that is reset for each
// value, so that a model's UnmarshalJSON, called once per item of a large
// list, does not make a decoder of its own each time (json.Unmarshal
// does). Its buffer is kept with it.
type nestedDecoder struct {
	r   bytes.Reader
	dec *json.Decoder
}

var nestedDecoders = sync.Pool{New: func() any {
	d := new(nestedDecoder)
	d.dec = json.NewDecoder(&d.r)
	return d
}}

// decodeNested unmarshals the one JSON value data into v as json.Unmarshal
// does. A decoder that failed, or holds bytes after the value, is dropped.
func decodeNested(data []byte, v any) error {
	d := nestedDecoders.Get().(*nestedDecoder)
	d.r.Reset(data)
	err := d.dec.Decode(v)
	if err == nil && !d.dec.More() {
		if _, terr := d.dec.Token(); terr == io.EOF {
			if len(data) <= maxPooledBody {
				nestedDecoders.Put(d) // a decoder keeps its buffer: none of a huge value
			}
			return nil
		}
	}
	if err == nil {
		err = errors.New("xs2a: invalid JSON after the value")
	}
	return err
}

// marshalWithExtra encodes v (the model's plain type) and adds the members
// of extra.
func marshalWithExtra(v any, extra Extra, names *fieldNames) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	return appendExtra(b, extra, names)
}

// appendExtra adds the members of extra that names does not take to the
// JSON object b, sorted by name, values compacted.
func appendExtra(b []byte, extra Extra, names *fieldNames) ([]byte, error) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !names.known(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return b, nil
	}
	slices.Sort(keys)
	out := bytes.NewBuffer(bytes.TrimSuffix(bytes.TrimRight(b, " \t\r\n"), []byte("}")))
	for _, k := range keys {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		out.Write(kb)
		out.WriteByte(':')
		if err := json.Compact(out, extra[k]); err != nil {
			return nil, fmt.Errorf("xs2a: encoding the Extra member %q: not valid JSON", k)
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// extraSpan is an unknown member found by scanExtra: its name and where its
// value lies.
type extraSpan struct {
	name       string
	start, end int
}

// scanExtra returns the members of the JSON object data that names does not
// take, each value copied out of data (which may be a reused buffer); nil
// when there are none, without allocating. data must be valid JSON, as
// json.Unmarshal has checked; anything else gives nil. Like encoding/json,
// the last of duplicate members wins.
func scanExtra(data []byte, names *fieldNames) Extra {
	var stack [4]extraSpan
	found := stack[:0]
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; i = skipSpace(data, i) {
		kStart, kEnd := i, endOfString(data, i)
		if kEnd < 0 {
			return nil
		}
		key := data[kStart+1 : kEnd-1]
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		i = skipSpace(data, i+1)
		vEnd := endOfValue(data, i)
		if vEnd < 0 {
			return nil
		}
		if !names.exact(key) {
			if name, ok := memberName(data[kStart:kEnd], key); ok && !names.known(name) {
				found = append(found, extraSpan{name, i, vEnd})
			}
		}
		if i = skipSpace(data, vEnd); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return copyExtra(data, found)
}

// memberName is the name of a member from its quoted form (with escapes or
// bytes that are not UTF-8 decoded as encoding/json does) or its raw text.
func memberName(quoted, raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw), true
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err == nil
}

// copyExtra builds the Extra of found, copying the values into one buffer.
func copyExtra(data []byte, found []extraSpan) Extra {
	if len(found) == 0 {
		return nil
	}
	n := 0
	for _, f := range found {
		n += f.end - f.start
	}
	buf := make([]byte, 0, n)
	extra := make(Extra, len(found))
	for _, f := range found {
		at := len(buf)
		buf = append(buf, data[f.start:f.end]...)
		extra[f.name] = json.RawMessage(buf[at:len(buf):len(buf)])
	}
	return extra
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return i
}

// endOfString returns the index after the closing quote of the JSON string
// starting at data[i] ('"'), or -1.
func endOfString(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		escapes := 0
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return j + 1
		}
		j++
	}
}

// endOfValue returns the index after the JSON value starting at data[i],
// or -1.
func endOfValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return endOfString(data, i)
	case '{', '[':
		return endOfContainer(data, i)
	}
	j := i
	for j < len(data) && !endsLiteral(data[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// endsLiteral reports whether c ends a number, true, false or null.
func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// endOfContainer returns the index after the object or array starting at
// data[i], or -1.
func endOfContainer(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data); j++ {
		switch data[j] {
		case '"':
			e := endOfString(data, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}
