package xs2atest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/tppkit/xs2a/internal/testcert"
)

// PSD2 roles: a TPP certificate may carry a PSD2 QCStatement (ETSI TS 119
// 495) naming the TPP's roles. The bank refuses account information to a
// certificate without PSP_AI and payments to one without PSP_PI, with 401
// ROLE_INVALID (docs/interface.md AUTH2); a QCStatement that does not parse
// gets 401 CERTIFICATE_INVALID. A certificate without a QCStatement, as the
// tests' own, is let through: the fake bank checks no registry.

// roleFor is the PSD2 role a path below the base path needs, or "".
func roleFor(path string) string {
	for _, p := range []string{"/v1/accounts", "/v1/card-accounts", "/v1/consents", "/v1/bank-offered-consents"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return testcert.RolePSPAI
		}
	}
	for _, p := range []string{"/v1/payments", "/v1/periodic-payments", "/v1/bulk-payments", "/v1/signing-baskets"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return testcert.RolePSPPI
		}
	}
	return ""
}

// roleRefused answers a request whose (verified) certificate's PSD2
// QCStatement lacks the role its path needs, and reports whether it did.
func roleRefused(w http.ResponseWriter, r *http.Request) bool {
	need := roleFor(r.URL.Path)
	if need == "" {
		return false
	}
	cert, err := parseCertificateHeader(r.Header.Get("TPP-Signature-Certificate"))
	if err != nil {
		return false // verifyRequest has answered already
	}
	for _, ext := range cert.Extensions {
		if !ext.Id.Equal(testcert.OIDQCStatements) {
			continue
		}
		roles, ok, err := testcert.PSD2Roles(ext.Value)
		switch {
		case err != nil:
			writeError(w, http.StatusUnauthorized, "CERTIFICATE_INVALID", "TPP-Signature-Certificate", "the certificate's QCStatements do not parse")
			return true
		case ok && !slices.Contains(roles, need):
			writeError(w, http.StatusUnauthorized, "ROLE_INVALID", "TPP-Signature-Certificate",
				"the certificate's PSD2 roles do not include "+need+", which this service needs")
			return true
		}
	}
	return false
}
