package redisstore_test

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tppkit/xs2a"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// sessionOf is the session id of Begin's SCAStart.
func sessionOf(s xs2a.SCAStart, err error) (string, error) { return s.SessionID, err }
