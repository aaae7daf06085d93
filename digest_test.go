package xs2a

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cavageBody is the body of draft-cavage-http-signatures-10, Appendix C.
const cavageBody = `{"hello": "world"}`

// sha512Empty is the SHA-512 of the empty byte string.
const sha512Empty = "SHA-512=z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="

func TestDigest(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=", Digest([]byte(cavageBody)), "draft-cavage Appendix C")
	assert.Equal(t, emptyDigest, Digest(nil))
	assert.Equal(t, emptyDigest, Digest([]byte{}))
	sum := sha256.Sum256([]byte(testPaymentBody))
	assert.Equal(t, "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]), Digest([]byte(testPaymentBody)))
}

func sha512Digest(body string) string {
	sum := sha512.Sum512([]byte(body))
	return "SHA-512=" + base64.StdEncoding.EncodeToString(sum[:])
}

func TestVerifyDigest(t *testing.T) {
	t.Parallel()
	d256 := Digest([]byte(cavageBody))
	d512 := sha512Digest(cavageBody)
	other256 := Digest([]byte("other"))
	tests := []struct {
		name    string
		header  string
		body    string
		wantErr bool
	}{
		{"SHA-256", d256, cavageBody, false},
		{"SHA-256 of the empty body", emptyDigest, "", false},
		{"SHA-512", d512, cavageBody, false},
		{"SHA-512 of the empty body", sha512Empty, "", false},
		{"algorithm name in lower case", "sha-256=" + strings.TrimPrefix(d256, "SHA-256="), cavageBody, false},
		{"SHA-256 and SHA-512", d256 + "," + d512, cavageBody, false},
		{"spaces around values", " " + d512 + " , " + d256 + " ", cavageBody, false},
		{"other algorithms are ignored", "MD5=Sd/dVLAcvNLSq16eXua5uQ==," + d256 + ",UNIXsum=30637", cavageBody, false},
		{"SHA-256 mismatch", other256, cavageBody, true},
		{"SHA-512 mismatch after a matching SHA-256", d256 + "," + sha512Digest("other"), cavageBody, true},
		{"SHA-256 mismatch after a matching SHA-512", d512 + "," + other256, cavageBody, true},
		{"digest of a truncated body", Digest([]byte(cavageBody[:10])), cavageBody, true},
		{"wrong length", "SHA-256=" + base64.StdEncoding.EncodeToString([]byte("short")), cavageBody, true},
		{"malformed: no equals sign", "SHA-256", cavageBody, true},
		{"malformed: not base64", "SHA-256=***", cavageBody, true},
		{"malformed: empty entry", d256 + ",", cavageBody, true},
		{"empty header", "", cavageBody, true},
		{"no supported algorithm", "MD5=Sd/dVLAcvNLSq16eXua5uQ==", cavageBody, true},
		{"SHA-1 only", "SHA=" + base64.StdEncoding.EncodeToString(make([]byte, 20)), cavageBody, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := VerifyDigest(tt.header, []byte(tt.body))
			if !tt.wantErr {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrSignatureInvalid)
			var serr *SignatureError
			require.ErrorAs(t, err, &serr)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			assert.NotContains(t, err.Error(), "hello", "the body never appears in the message")
		})
	}
}

// FuzzVerifyDigest: VerifyDigest reads a header of the bank's response. It
// never panics, fails only with ErrSignatureInvalid, and accepts Digest's
// own value.
func FuzzVerifyDigest(f *testing.F) {
	f.Add(Digest([]byte(cavageBody)), []byte(cavageBody))
	f.Add(sha512Digest(cavageBody)+","+Digest([]byte(cavageBody)), []byte(cavageBody))
	f.Add("SHA-256=", []byte{})
	f.Add("MD5=x,SHA-512=***", []byte("x"))
	f.Add(",,=", []byte(nil))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		if err := VerifyDigest(header, body); err != nil && !errors.Is(err, ErrSignatureInvalid) {
			t.Fatalf("error %v is not ErrSignatureInvalid", err)
		}
		if err := VerifyDigest(Digest(body), body); err != nil {
			t.Fatalf("Digest's own value refused: %v", err)
		}
		if VerifyDigest(header, body) == nil {
			// Accepted: some SHA-256 or SHA-512 entry matched, and it
			// cannot match another body.
			if VerifyDigest(header, append(body[:len(body):len(body)], 'x')) == nil {
				t.Fatalf("%q accepted for two bodies", header)
			}
		}
	})
}
