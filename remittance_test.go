package xs2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEInvoiceReferences(t *testing.T) {
	t.Parallel()
	got, err := EInvoiceReferences("2440997", "INV-2024-0042")
	require.NoError(t, err)
	want := []StructuredRemittance{
		{Reference: "2440997", ReferenceType: ReferenceTypeSCOR},
		{Reference: "INV-2024-0042", ReferenceType: ReferenceTypeCINV, ReferenceIssuer: "BITS-EFAKTURA"},
	}
	require.Equal(t, want, got)

	b, err := json.Marshal(got)
	require.NoError(t, err)
	const wantJSON = `[{"reference":"2440997","referenceType":"SCOR"},` +
		`{"reference":"INV-2024-0042","referenceType":"CINV","referenceIssuer":"BITS-EFAKTURA"}]`
	require.JSONEq(t, wantJSON, string(b))
	require.Equal(t, wantJSON, string(b), "field order and omitted issuer on SCOR")

	var back []StructuredRemittance
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, got, back)
}

func TestEInvoiceReferencesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kid, invoice, issuer string
		wantField                  string
	}{
		{name: "ok", kid: "0365327", invoice: "1", issuer: "BITS-EFAKTURA"},
		{name: "ok other issuer", kid: "79927398713", invoice: "Faktura 17/ÆØÅ", issuer: "OTHER"},
		{name: "ok 35 chars", kid: "602243", invoice: strings.Repeat("9", 35), issuer: strings.Repeat("I", 35)},
		{name: "kid control", kid: "0365328", invoice: "1", issuer: "X", wantField: "kid"},
		{name: "kid empty", kid: "", invoice: "1", issuer: "X", wantField: "kid"},
		{name: "kid spaces", kid: "036 5327", invoice: "1", issuer: "X", wantField: "kid"},
		{name: "kid too long", kid: "1234567890123456789012345678", invoice: "1", issuer: "X", wantField: "kid"},
		{name: "invoice empty", kid: "0365327", invoice: "", issuer: "X", wantField: "invoiceNumber"},
		{name: "invoice 36 chars", kid: "0365327", invoice: strings.Repeat("9", 36), issuer: "X", wantField: "invoiceNumber"},
		{name: "invoice 35 runes of 2 bytes", kid: "0365327", invoice: strings.Repeat("ø", 35), issuer: "X"},
		{name: "invoice emoji", kid: "0365327", invoice: "INV😀", issuer: "X", wantField: "invoiceNumber"},
		{name: "invoice newline", kid: "0365327", invoice: "INV\n1", issuer: "X", wantField: "invoiceNumber"},
		{name: "issuer empty", kid: "0365327", invoice: "1", issuer: "", wantField: "issuer"},
		{name: "issuer too long", kid: "0365327", invoice: "1", issuer: strings.Repeat("I", 36), wantField: "issuer"},
		{name: "issuer control char", kid: "0365327", invoice: "1", issuer: "A\tB", wantField: "issuer"},
		{name: "kid checked first", kid: "x", invoice: "", issuer: "", wantField: "kid"},
		{name: "an RF reference is not a KID", kid: "RF18539007547034", invoice: "1", issuer: "X", wantField: "kid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			refs, err := EInvoiceReferencesWithIssuer(tc.kid, tc.invoice, tc.issuer)
			if tc.wantField == "" {
				require.NoError(t, err)
				require.Len(t, refs, 2)
				require.Equal(t, StructuredRemittance{Reference: tc.kid, ReferenceType: "SCOR"}, refs[0])
				require.Equal(t, StructuredRemittance{Reference: tc.invoice, ReferenceType: "CINV", ReferenceIssuer: tc.issuer}, refs[1])
				return
			}
			require.Nil(t, refs)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "error %v is not a *ValidationError", err)
			require.Equal(t, tc.wantField, ve.Field)
			for _, secret := range []string{tc.kid, tc.invoice, tc.issuer} {
				if len(secret) > 2 && strings.Contains(err.Error(), secret) {
					t.Errorf("error %q repeats input %q", err, secret)
				}
			}
		})
	}
	// The default-issuer form checks the same way.
	_, err := EInvoiceReferences("0365327", "")
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	require.Equal(t, "invoiceNumber", ve.Field)
}
