package xs2a

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
)

// paramState is the query parameter the SDK adds to the TPP-Redirect-URI of
// a call whose PSU carries an SCAState (docs/interface.md CB7). The bank
// sends the TPP-Redirect-URI back as given, with its own parameters after it.
const paramState = "xs2a-state"

// stateLen is the length of a state: 32 random bytes in unpadded base64url.
const stateLen = 43

// maxPurpose bounds the purpose a TPP gives Begin and CallPresent.
const maxPurpose = 64

const reasonNotState = "not a state the SDK hands out"

// newState returns a fresh state: 256 random bits, nothing else, so it
// names no PSU and no user.
func newState() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// validState reports whether s has the form newState gives: exactly
// stateLen characters of the base64url alphabet.
func validState(s string) bool {
	if len(s) != stateLen {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// stateHash is what a store keeps of a state: its SHA-256 in hex. The state
// itself is never stored, so a copy of the store cannot answer a callback.
func stateHash(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// The SessionStore index keys of a state and a session id: SHA-256 hashes,
// apart from each other and from stateHash and sealKey.
func stateKey(state string) string       { return indexKey("state", state) }
func sessionKey(sessionID string) string { return indexKey("session", sessionID) }
func indexKey(kind, secret string) string {
	sum := sha256.Sum256([]byte("xs2a index " + kind + "\x00" + secret))
	return kind + ":" + hex.EncodeToString(sum[:])
}

// seal encrypts user with a key only secret (a state or a session id)
// gives, so that a store's index holds no user key in clear and names a
// user only to whoever holds the secret: AES-256-GCM, a random nonce,
// base64url.
func seal(secret, user string) string {
	aead := sealAEAD(secret)
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(user)+aead.Overhead())
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(user), nil))
}

// unseal opens what seal wrote with the same secret; ok is false for
// anything else (a value sealed with another secret, or tampered with).
func unseal(secret, sealed string) (user string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	aead := sealAEAD(secret)
	if err != nil || len(b) < aead.NonceSize() {
		return "", false
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], nil)
	if err != nil || len(plain) == 0 {
		return "", false
	}
	return string(plain), true
}

func sealAEAD(secret string) cipher.AEAD {
	key := sha256.Sum256([]byte("xs2a seal\x00" + secret))
	block, _ := aes.NewCipher(key[:]) // a 32-byte key: never fails
	aead, _ := cipher.NewGCM(block)
	return aead
}

// sameSecret compares two secrets (a state's hash, a session id) in
// constant time.
func sameSecret(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// validPurpose reports a purpose of 1 to maxPurpose printable ASCII characters.
func validPurpose(p string) bool { return headerSafe(p, maxPurpose) }

// redirectWithState returns uri with xs2a-state=state added to its query,
// before any fragment; uri is the client's TPP-Redirect-URI, which
// WithRedirectURI checked and which holds no xs2a-state of its own.
func redirectWithState(uri, state string) string {
	base, frag, hasFrag := strings.Cut(uri, "#")
	sep := "?"
	switch {
	case strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&"):
		sep = ""
	case strings.Contains(base, "?"):
		sep = "&"
	}
	out := base + sep + paramState + "=" + state
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// callbackState reads the one xs2a-state of a callback's query: missing,
// repeated or not of the form newState gives is a *CallbackError, checked
// before anything is looked up (an oversized value is never hashed).
func callbackState(q url.Values) (string, error) {
	switch v := q[paramState]; {
	case len(v) == 0 || v[0] == "":
		return "", &CallbackError{Param: paramState, Reason: reasonMissing}
	case len(v) > 1:
		return "", &CallbackError{Param: paramState, Reason: reasonRepeated}
	case !validState(v[0]):
		return "", &CallbackError{Param: paramState, Reason: reasonNotState}
	default:
		return v[0], nil
	}
}
