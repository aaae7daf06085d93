package xs2a

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"hash"
	"strings"
)

// Digest returns the value of the Digest header for body: "SHA-256=<base64 of
// the SHA-256 of the exact body bytes>"; an empty body gives the digest of the
// empty byte string.
func Digest(body []byte) string {
	var b [digestLen]byte
	return string(appendDigest(b[:0], body))
}

// digestLen is the length of a Digest value.
const digestLen = len("SHA-256=") + 44

// appendDigest appends the Digest value for body to dst.
func appendDigest(dst, body []byte) []byte {
	sum := sha256.Sum256(body)
	dst = append(dst, "SHA-256="...)
	return base64.StdEncoding.AppendEncode(dst, sum[:])
}

// VerifyDigest checks a Digest header ("SHA-256=...,SHA-512=...") against
// body: every SHA-256 and SHA-512 entry must match, one at least, and others
// are ignored. A mismatch is a *SignatureError (ErrSignatureInvalid).
func VerifyDigest(header string, body []byte) error {
	return verifyDigest(header, body)
}

// verifyDigest is VerifyDigest for a body in pieces.
func verifyDigest(header string, body ...[]byte) error {
	checked := false
	for entry := range strings.SplitSeq(header, ",") {
		alg, val, ok := strings.Cut(strings.TrimSpace(entry), "=")
		if !ok {
			return &SignatureError{Reason: "malformed Digest header"}
		}
		var h hash.Hash
		switch strings.ToUpper(alg) {
		case "SHA-256":
			h = sha256.New()
		case "SHA-512":
			h = sha512.New()
		default:
			continue
		}
		want, err := base64.StdEncoding.DecodeString(val)
		if err != nil {
			return &SignatureError{Reason: "malformed Digest value"}
		}
		for _, b := range body {
			h.Write(b)
		}
		if subtle.ConstantTimeCompare(h.Sum(nil), want) != 1 {
			return &SignatureError{Reason: "Digest does not match the body"}
		}
		checked = true
	}
	if !checked {
		return &SignatureError{Reason: "Digest has no SHA-256 or SHA-512 value"}
	}
	return nil
}
