package xs2a

import (
	"encoding/json"
	"errors"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// jsonOptions are the semantics answers are decoded with: encoding/json's
// (v1): member names matched in any letter case under Unicode simple
// folding, the last of repeated members wins, invalid UTF-8 replaced,
// unknown members ignored (or collected into an Extra), on json/v2's one
// pass. The scaRedirect check decodes with the same options, so that it and
// the models read member names alike.
var jsonOptions = jsonv1.DefaultOptionsV1()

// decodeJSON decodes the JSON document data into into, with jsonOptions.
// A value of the wrong type is a *json.UnmarshalTypeError (encoding/json's)
// whose Field is the path of the member ("transactions.booked.transactionAmount.amount").
func decodeJSON(data []byte, into any) error {
	return legacyError(jsonv2.Unmarshal(data, into, jsonOptions))
}

// legacyError is err with json/v2's form of encoding/json's
// *UnmarshalTypeError turned into encoding/json's, which the SDK's errors
// have always wrapped.
func legacyError(err error) error {
	var te *jsonv1.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) {
		return err
	}
	return &json.UnmarshalTypeError{Value: te.Value, Type: te.Type, Offset: te.Offset, Struct: te.Struct, Field: te.Field}
}
