package testcert

import (
	"encoding/asn1"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPSD2QCStatements: the roles written come back from the certificate;
// a role's OID decides over its name; no PSD2 statement is not ok; bytes
// that do not parse are an error.
func TestPSD2QCStatements(t *testing.T) {
	t.Parallel()
	p, err := New(Options{PSD2Roles: []string{RolePSPAI, RolePSPPI}})
	require.NoError(t, err)
	var found bool
	for _, ext := range p.Cert.Extensions {
		if ext.Id.Equal(OIDQCStatements) {
			roles, ok, err := PSD2Roles(ext.Value)
			require.NoError(t, err)
			assert.True(t, ok)
			assert.Equal(t, []string{RolePSPAI, RolePSPPI}, roles)
			found = true
		}
	}
	assert.True(t, found)

	misnamed, err := asn1.Marshal(PSD2QCType{Roles: []RoleOfPSP{{OID: roleOIDs[RolePSPPI], Name: RolePSPAI}}})
	require.NoError(t, err)
	val, err := asn1.Marshal([]QCStatement{{ID: OIDPSD2QCStatement, Info: asn1.RawValue{FullBytes: misnamed}}})
	require.NoError(t, err)
	roles, ok, err := PSD2Roles(val)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []string{RolePSPPI}, roles, "the OID decides")

	other, err := asn1.Marshal([]QCStatement{{ID: asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 1}}})
	require.NoError(t, err)
	_, ok, err = PSD2Roles(other)
	require.NoError(t, err)
	assert.False(t, ok, "a QC compliance statement only")

	_, _, err = PSD2Roles([]byte{0x30, 0x03, 0x01})
	assert.Error(t, err)
	_, err = PSD2QCStatements("PSP_XX")
	assert.Error(t, err)
}
