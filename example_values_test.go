package xs2a_test

import (
	"encoding/json"
	"fmt"

	"github.com/tppkit/xs2a"
)

// An electronic invoice payment carries the KID (SCOR) and the invoice number
// (CINV, issued by the invoice scheme) in remittanceInformationStructuredArray.
func ExampleEInvoiceReferences() {
	refs, err := xs2a.EInvoiceReferences("2440997", "INV-2024-0042")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(refs)
	fmt.Println(string(b))

	// Errors name the field, never the value.
	_, err = xs2a.EInvoiceReferences("2440996", "INV-2024-0042")
	fmt.Println(err)
	// Output:
	// [{"reference":"2440997","referenceType":"SCOR"},{"reference":"INV-2024-0042","referenceType":"CINV","referenceIssuer":"BITS-EFAKTURA"}]
	// xs2a: invalid kid: must be a KID of 2 to 25 digits with a MOD10 or MOD11 control digit last
}

// A KID is accepted when its last character fits either MOD10 (Luhn) or
// MOD11; a MOD11 control can be '-'.
func ExampleValidKID() {
	for _, kid := range []string{"79927398713", "0365327", "2440997-", "0365328", "036 5327"} {
		fmt.Println(kid, xs2a.ValidKID(kid))
	}
	// Output:
	// 79927398713 true
	// 0365327 true
	// 2440997- true
	// 0365328 false
	// 036 5327 false
}
