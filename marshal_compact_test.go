package xs2a

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzMarshalCompactMatchesEncodingJSON: a request body is encoded with
// json/v2 (marshalCompact) into the bytes encoding/json's Encoder gave
// without HTML escaping, which the bank has always been sent and signed:
// texts with HTML characters, U+2028 and U+2029 and control characters;
// absent and present optional members. One difference: invalid UTF-8 is
// written as U+FFFD itself, not as its \ufffd escape (the same JSON value).
func FuzzMarshalCompactMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "<a href='x'>&amp;</a>", "line\u2028sep\u2029", "\xff\xfe", "tab\t\x00\x1f", "Ærøskøbing"} {
		f.Add(s, s, 0)
	}
	f.Fuzz(func(t *testing.T, name, text string, n int) {
		p := &Payment{
			EndToEndIdentification: text, CreditorName: name,
			InstructedAmount:                  Amount{Currency: "NOK", Amount: "1.00"},
			CreditorAccount:                   AccountReference{BBAN: "12345678903"},
			RemittanceInformationUnstructured: text,
		}
		if n%2 == 1 {
			p.DebtorAccount = &AccountReference{IBAN: name}
			p.CreditorAddress = &Address{StreetName: text, TownName: name, Country: "NO"}
			p.RemittanceInformationStructuredArray = []StructuredRemittance{{Reference: text}}
		}
		bodies := []any{p, &SigningBasket{PaymentIDs: []string{name, text}}, contactInformation{Email: text},
			map[string]any{"x": text, "list": []string{name}, "none": nil}}
		for _, body := range bodies {
			got, err := marshalCompact(body)
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			wantErr := enc.Encode(body)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("%T: json/v2 error %v, encoding/json error %v", body, err, wantErr)
			}
			if err == nil && (!utf8.ValidString(name) || !utf8.ValidString(text)) {
				var g, w any
				if json.Unmarshal(got, &g) != nil || json.Unmarshal(want.Bytes(), &w) != nil || !reflect.DeepEqual(g, w) {
					t.Fatalf("%T: a different value:\njson/v2       %s\nencoding/json %s", body, got, want.Bytes())
				}
				continue
			}
			if err == nil && !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
				t.Fatalf("%T:\njson/v2       %s\nencoding/json %s", body, got, want.Bytes())
			}
		}
	})
}
