package testcert

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
)

// The PSD2 roles of ETSI TS 119 495 (roleOfPspName) and their OIDs
// (id-psd2-role, 0.4.0.19495.1.1-4).
const (
	RolePSPAS = "PSP_AS" // account servicing
	RolePSPPI = "PSP_PI" // payment initiation
	RolePSPAI = "PSP_AI" // account information
	RolePSPIC = "PSP_IC" // issuing of card-based payment instruments
)

var (
	// OIDQCStatements is the qcStatements certificate extension (RFC 3739).
	OIDQCStatements = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}
	// OIDPSD2QCStatement is id-etsi-psd2-qcStatement (ETSI TS 119 495).
	OIDPSD2QCStatement = asn1.ObjectIdentifier{0, 4, 0, 19495, 2}

	roleOIDs = map[string]asn1.ObjectIdentifier{
		RolePSPAS: {0, 4, 0, 19495, 1, 1},
		RolePSPPI: {0, 4, 0, 19495, 1, 2},
		RolePSPAI: {0, 4, 0, 19495, 1, 3},
		RolePSPIC: {0, 4, 0, 19495, 1, 4},
	}
)

// QCStatement is one QCStatement of RFC 3739: an id and its info.
type QCStatement struct {
	ID   asn1.ObjectIdentifier
	Info asn1.RawValue `asn1:"optional"`
}

// PSD2QCType is the statementInfo of the PSD2 QCStatement.
type PSD2QCType struct {
	Roles   []RoleOfPSP
	NCAName string `asn1:"utf8"`
	NCAID   string `asn1:"utf8"`
}

// RoleOfPSP is one role: its OID and its name.
type RoleOfPSP struct {
	OID  asn1.ObjectIdentifier
	Name string `asn1:"utf8"`
}

// PSD2QCStatements is a qcStatements extension holding a PSD2 QCStatement
// with roles, from a made-up authority (TEST ONLY).
func PSD2QCStatements(roles ...string) (pkix.Extension, error) {
	info := PSD2QCType{NCAName: "Test authority - TEST ONLY", NCAID: "NO-FSA"}
	for _, r := range roles {
		oid, ok := roleOIDs[r]
		if !ok {
			return pkix.Extension{}, fmt.Errorf("testcert: unknown PSD2 role %q", r)
		}
		info.Roles = append(info.Roles, RoleOfPSP{OID: oid, Name: r})
	}
	der, err := asn1.Marshal(info)
	if err != nil {
		return pkix.Extension{}, err
	}
	val, err := asn1.Marshal([]QCStatement{{ID: OIDPSD2QCStatement, Info: asn1.RawValue{FullBytes: der}}})
	if err != nil {
		return pkix.Extension{}, err
	}
	return pkix.Extension{Id: OIDQCStatements, Value: val}, nil
}

// PSD2Roles reads the roles of the PSD2 QCStatement from a qcStatements
// extension value (a role's OID decides over its name); ok is false when it
// holds no PSD2 QCStatement. An extension that does not parse is an error.
func PSD2Roles(value []byte) (roles []string, ok bool, err error) {
	var stmts []QCStatement
	if rest, err := asn1.Unmarshal(value, &stmts); err != nil || len(rest) > 0 {
		return nil, false, fmt.Errorf("testcert: qcStatements do not parse")
	}
	for _, s := range stmts {
		if !s.ID.Equal(OIDPSD2QCStatement) {
			continue
		}
		var info PSD2QCType
		if rest, err := asn1.Unmarshal(s.Info.FullBytes, &info); err != nil || len(rest) > 0 {
			return nil, false, fmt.Errorf("testcert: the PSD2 QCStatement does not parse")
		}
		for _, r := range info.Roles {
			name := r.Name
			for k, oid := range roleOIDs {
				if oid.Equal(r.OID) {
					name = k // the OID decides
				}
			}
			roles = append(roles, name)
		}
		return roles, true, nil
	}
	return nil, false, nil
}
