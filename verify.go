package xs2a

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strings"
)

// signatureParams are the parts of a Signature header value.
type signatureParams struct {
	KeyID     string
	Algorithm string
	Headers   []string // lower-case, in signing order
	Signature []byte
}

// parseSignature parses a Signature header value (docs/interface.md SIG4,
// SIG7), a pure function over untrusted input; parts other than keyId,
// algorithm, headers and signature are ignored.
func parseSignature(v string) (signatureParams, error) {
	var p signatureParams
	s, err := decodeRFC2047(strings.TrimSpace(v))
	if err != nil {
		return p, err
	}
	parts := map[string]string{} // by name
	for len(s) > 0 {
		name, rest, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return p, errors.New("malformed Signature: expected name=\"value\"")
		}
		if rest, ok = strings.CutPrefix(rest, `"`); !ok {
			return p, errors.New("malformed Signature: value not quoted")
		}
		val, rest, ok := strings.Cut(rest, `"`)
		if !ok {
			return p, errors.New("malformed Signature: unterminated value")
		}
		if s = strings.TrimSpace(rest); s != "" {
			if s, ok = strings.CutPrefix(s, ","); !ok {
				return p, errors.New("malformed Signature: expected a comma between parts")
			}
			s = strings.TrimSpace(s)
		}
		name = strings.TrimSpace(name)
		if _, dup := parts[name]; dup {
			return p, errors.New("malformed Signature: part given twice")
		}
		parts[name] = val
	}
	p.KeyID, p.Algorithm = parts["keyId"], parts["algorithm"]
	if p.KeyID == "" || parts["signature"] == "" {
		return p, errors.New("malformed Signature: keyId and signature are required")
	}
	p.Headers = []string{"date"} // draft-cavage default
	if h, ok := parts["headers"]; ok {
		p.Headers = strings.Fields(strings.ToLower(h))
	}
	// The decoder skips CR and LF: a value of only those decodes to nothing.
	if p.Signature, err = base64.StdEncoding.DecodeString(parts["signature"]); err != nil || len(p.Signature) == 0 {
		return p, errors.New("malformed Signature: signature is not base64")
	}
	return p, nil
}

// verifySignature checks a parsed signature over the values of src with the
// certificate's public key.
func verifySignature(p signatureParams, src headerSource, cert *x509.Certificate) error {
	if sn, ok := strings.CutPrefix(p.KeyID, "SN="); ok {
		sn, _, _ = strings.Cut(sn, ",")
		if n, ok := new(big.Int).SetString(sn, 16); !ok || n.Cmp(cert.SerialNumber) != 0 {
			return errors.New("keyId does not name the bank's certificate")
		}
	}
	str, _, missing := appendSigningString(nil, nil, p.Headers, nil, src) // docs/interface.md SIG6
	if missing != "" {
		return errors.New("signed header " + bankText(missing, 40) + " is missing")
	}
	sum := sha256.Sum256(str)
	var want, keyType string // the algorithm the key signs, besides hs2019
	var valid bool
	switch pub := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		want, keyType, valid = "rsa-sha256", "an RSA", rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], p.Signature) == nil
	case *ecdsa.PublicKey:
		want, keyType, valid = "ecdsa-sha256", "an ECDSA", ecdsa.VerifyASN1(pub, sum[:], p.Signature)
	default:
		return errors.New("unsupported public key in the bank's certificate")
	}
	if p.Algorithm != "" && p.Algorithm != want && p.Algorithm != "hs2019" {
		return errors.New("algorithm " + bankText(p.Algorithm, 40) + " does not fit " + keyType + " key")
	}
	if !valid {
		return errors.New("signature does not verify")
	}
	return nil
}

// responseVerifier checks the bank's response signatures
// (WithResponseVerification).
type responseVerifier struct {
	cert    *x509.Certificate
	require bool
}

// verify checks resp's Signature and Digest against body (docs/interface.md
// SIG3). A response without a Signature fails only when require is set and the
// answer is a success (or carries an scaRedirect: the caller says so in success).
func (v *responseVerifier) verify(resp *http.Response, body pieces, requestID string, success bool) error {
	fail := func(reason string) error { return &SignatureError{Reason: reason, RequestID: requestID} }
	sigHeader := resp.Header.Get("Signature")
	if sigHeader == "" {
		if v.require && success {
			return fail("the response has no Signature")
		}
		return nil
	}
	p, err := parseSignature(sigHeader)
	if err != nil {
		return fail(err.Error())
	}
	if body.len() > 0 && !slices.Contains(p.Headers, "digest") {
		return fail("the signature does not cover the body (no digest)")
	}
	if err := verifySignature(p, headerSource{h: resp.Header}, v.cert); err != nil {
		return fail(err.Error())
	}
	if slices.Contains(p.Headers, "x-request-id") && !strings.EqualFold(strings.TrimSpace(resp.Header.Get("X-Request-ID")), requestID) {
		return fail("the signed answer is for another request (X-Request-ID)")
	}
	if d := resp.Header.Get("Digest"); d != "" && verifyDigest(d, body...) != nil {
		return fail("Digest does not match the body")
	}
	return nil
}
