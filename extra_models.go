package xs2a

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The models whose only wire form of their own is Extra: json/v2 decodes
// and encodes them field by field, Extra as the embedded fallback. The
// methods keep the form encoding/json (v1) gives them, which callers who
// store the models rely on: UnmarshalJSON and MarshalJSON go through the
// same json/v2 methods, with encoding/json's semantics.

// UnmarshalJSONFrom decodes an account; members it does not name go to Extra.
func (a *Account) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Account
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes an account with its Extra members.
func (a Account) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Account
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *Account) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a Account) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// UnmarshalJSONFrom decodes a card account; members it does not name go to Extra.
func (a *CardAccount) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain CardAccount
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes a card account with its Extra members.
func (a CardAccount) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain CardAccount
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *CardAccount) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a CardAccount) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// UnmarshalJSONFrom decodes a balances answer; members it does not name go to Extra.
func (b *Balances) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Balances
	return jsonv2.UnmarshalDecode(d, (*plain)(b))
}

// MarshalJSONTo encodes a balances answer with its Extra members.
func (b Balances) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Balances
	return marshalModel(e, (*plain)(&b), &b.Extra, b)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (b *Balances) UnmarshalJSON(data []byte) error { return decodeJSON(data, b) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (b Balances) MarshalJSON() ([]byte, error) { return encodeJSON(b) }

// UnmarshalJSONFrom decodes an agreement; members it does not name go to Extra.
func (a *Agreement) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Agreement
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes an agreement with its Extra members.
func (a Agreement) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Agreement
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *Agreement) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a Agreement) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// UnmarshalJSONFrom decodes an SCA-starting answer; unnamed members go to Extra.
func (l *SCALinks) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain SCALinks
	return jsonv2.UnmarshalDecode(d, (*plain)(l))
}

// MarshalJSONTo encodes an answer that starts an SCA with its Extra members.
func (l SCALinks) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain SCALinks
	return marshalModel(e, (*plain)(&l), &l.Extra, l)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (l *SCALinks) UnmarshalJSON(data []byte) error { return decodeJSON(data, l) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (l SCALinks) MarshalJSON() ([]byte, error) { return encodeJSON(l) }

// UnmarshalJSONFrom decodes an initiation answer; members it does not name go to Extra.
func (i *Initiation) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Initiation
	return jsonv2.UnmarshalDecode(d, (*plain)(i))
}

// MarshalJSONTo encodes an initiation answer with its Extra members.
func (i Initiation) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Initiation
	return marshalModel(e, (*plain)(&i), &i.Extra, i)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (i *Initiation) UnmarshalJSON(data []byte) error { return decodeJSON(data, i) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (i Initiation) MarshalJSON() ([]byte, error) { return encodeJSON(i) }

// UnmarshalJSONFrom decodes a payment status; members it does not name go to Extra.
func (s *PaymentStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain PaymentStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes a payment status with its Extra members.
func (s PaymentStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain PaymentStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *PaymentStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s PaymentStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// UnmarshalJSONFrom decodes an authorisation status; members it does not name go to Extra.
func (s *AuthorisationStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain AuthorisationStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes an authorisation status with its Extra members.
func (s AuthorisationStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain AuthorisationStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *AuthorisationStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s AuthorisationStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// UnmarshalJSONFrom decodes a signing basket; members it does not name go to Extra.
func (b *BasketDetails) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain BasketDetails
	return jsonv2.UnmarshalDecode(d, (*plain)(b))
}

// MarshalJSONTo encodes a signing basket with its Extra members.
func (b BasketDetails) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain BasketDetails
	return marshalModel(e, (*plain)(&b), &b.Extra, b)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (b *BasketDetails) UnmarshalJSON(data []byte) error { return decodeJSON(data, b) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (b BasketDetails) MarshalJSON() ([]byte, error) { return encodeJSON(b) }

// UnmarshalJSONFrom decodes a signing basket's status; members it does not name go to Extra.
func (s *BasketStatus) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain BasketStatus
	return jsonv2.UnmarshalDecode(d, (*plain)(s))
}

// MarshalJSONTo encodes a signing basket's status with its Extra members.
func (s BasketStatus) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain BasketStatus
	return marshalModel(e, (*plain)(&s), &s.Extra, s)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (s *BasketStatus) UnmarshalJSON(data []byte) error { return decodeJSON(data, s) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (s BasketStatus) MarshalJSON() ([]byte, error) { return encodeJSON(s) }

// marshalModel encodes p, a model's fields without its methods, and extra,
// its Extra, less the members a field of model takes.
func marshalModel[P any](e *jsontext.Encoder, p *P, extra *Extra, model any) (err error) {
	if *extra, err = extra.without(model); err != nil {
		return err
	}
	return jsonv2.MarshalEncode(e, p)
}
