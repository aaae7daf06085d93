package xs2a

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Extra holds the members of a JSON object from the bank that its model does
// not name, each as the bank sent it; nil when there are none
// (docs/interface.md AIS8). It is collected in the pass that decodes the
// named fields and written back after them, sorted by name. A member whose
// name a field takes (in any letter case) is never collected, and left out
// when written. Page and reference types carry no Extra.
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

// without returns e without the members a field of the struct type of
// model takes, in any letter case: the named field wins when written. A
// member whose value is not JSON is an error naming it.
func (e Extra) without(model any) (Extra, error) {
	names := fieldNamesOf(reflect.TypeOf(model))
	out := e
	for k, v := range e {
		if !jsontext.Value(v).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			return nil, fmt.Errorf("xs2a: encoding the Extra member %q: not valid JSON", k)
		}
		if names.known(k) {
			out = maps.Clone(out) // a copy: e is the caller's
			delete(out, k)
		}
	}
	return out, nil
}

// fieldNames is the set of member names of a model's fields, from its json
// tags (tag name, else field name; "-" and embedded fallbacks left out).
type fieldNames struct {
	all    []string
	prefix string // every name with this prefix is taken too ("" for none)
}

var modelNames sync.Map // reflect.Type -> *fieldNames

// fieldNamesOf returns the fieldNames of struct type t.
func fieldNamesOf(t reflect.Type) *fieldNames {
	if f, ok := modelNames.Load(t); ok {
		return f.(*fieldNames)
	}
	f := &fieldNames{}
	if t == reflect.TypeFor[Transaction]() {
		f.prefix = additionalProprietaryPrefix
	}
	for sf := range t.Fields() {
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag != "-" && sf.IsExported() && opts != "embed" {
			f.all = append(f.all, cmp.Or(name, sf.Name))
		}
	}
	modelNames.Store(t, f)
	return f
}

// known reports whether a field takes the member k: a name in any letter
// case (Unicode simple folding, as decoding matches them), or the prefix.
func (f *fieldNames) known(k string) bool {
	return f.prefix != "" && strings.HasPrefix(k, f.prefix) ||
		slices.ContainsFunc(f.all, func(n string) bool { return strings.EqualFold(n, k) })
}

// encodeJSON encodes v as encoding/json (v1) does, through its
// MarshalJSONTo: the form every model has kept for callers who store it.
func encodeJSON(v any) ([]byte, error) {
	return jsonv2.Marshal(v, jsonOptions)
}

// unmarshalJSONFromNull reports, consuming it, a null next in d: it leaves
// a model as it is, as encoding/json leaves a struct.
func unmarshalJSONFromNull(d *jsontext.Decoder) (bool, error) {
	if d.PeekKind() != 'n' {
		return false, nil
	}
	_, err := d.ReadToken()
	return true, err
}

// marshalModel encodes p, a model's fields without its methods, and extra,
// its Extra, less the members a field of model takes. A model's
// MarshalJSONTo calls it; its MarshalJSON and UnmarshalJSON go through the
// json/v2 methods, so encoding/json (v1) gives the same form.
func marshalModel[P any](e *jsontext.Encoder, p *P, extra *Extra, model any) (err error) {
	if *extra, err = extra.without(model); err != nil {
		return err
	}
	return jsonv2.MarshalEncode(e, p)
}
