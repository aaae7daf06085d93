package xs2a

import (
	"bytes"
	"context"
	"crypto"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateKey is a key whose first signature waits until release is closed,
// after closing entered: a request held in the middle of being signed.
type gateKey struct {
	crypto.Signer
	once             sync.Once
	entered, release chan struct{}
}

func (k *gateKey) Sign(r io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	k.once.Do(func() {
		close(k.entered)
		<-k.release
	})
	return k.Signer.Sign(r, digest, opts)
}

// signedArrival is a request as the bank received it, for verifyRequest.
type signedArrival struct {
	req  *http.Request
	body []byte
}

// TestSetSignerInFlight: a request held while its signature is made with
// the old key finishes with the old Signer (its Signature and its
// TPP-Signature-Certificate both the old one's), while a request started
// after SetSigner is signed with the new one; SetSigner(nil) is refused
// and changes nothing.
func TestSetSignerInFlight(t *testing.T) {
	t.Parallel()
	rsaS, newS := testSigner(t), testECSigner(t)
	gate := &gateKey{Signer: rsaS.key, entered: make(chan struct{}), release: make(chan struct{})}
	oldS, err := NewSigner(gate, rsaS.cert, nil)
	require.NoError(t, err)

	var mu sync.Mutex
	seen := map[string]signedArrival{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.URL.Path] = signedArrival{r.Clone(context.Background()), body}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL+"/api", oldS, WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	call := func(path string) error {
		_, err := c.do(t.Context(), &request{op: "test", method: http.MethodGet, href: path}, nil)
		return err
	}

	first := make(chan error, 1)
	go func() { first <- call("/v1/first") }()
	<-gate.entered // the first request is being signed with the old key
	require.NoError(t, c.SetSigner(newS))
	require.NoError(t, call("/v1/second"))
	close(gate.release)
	require.NoError(t, <-first)

	var verr *ValidationError
	require.ErrorAs(t, c.SetSigner(nil), &verr)
	assert.Equal(t, "signer", verr.Field)
	require.NoError(t, call("/v1/third"))

	mu.Lock()
	defer mu.Unlock()
	for path, want := range map[string]*Signer{"/api/v1/first": oldS, "/api/v1/second": newS, "/api/v1/third": newS} {
		s, ok := seen[path]
		require.True(t, ok, path)
		p, cert := verifyRequest(t, s.req, s.body) // the Signature verifies against the certificate sent
		assert.True(t, bytes.Equal(want.cert.Raw, cert.Raw), "%s: the certificate of the Signer it started with", path)
		assert.Equal(t, want.KeyID(), p["keyId"], path)
		assert.Equal(t, want.Algorithm(), p["algorithm"], path)
	}
}

// TestTransportSignerField: a Transport on its own signs with its exported
// Signer field, read per request; one made by NewClient signs with the
// Client's Signer, not that field.
func TestTransportSignerField(t *testing.T) {
	t.Parallel()
	capt := &captureRT{}
	tr := &Transport{Base: capt, Signer: testECSigner(t), RedirectURI: testRedirectURI, Now: fixedNow}
	resp, err := tr.RoundTrip(newGet(t, testBankURL+"/v1/accounts"))
	require.NoError(t, err)
	resp.Body.Close()
	_, cert := verifyRequest(t, capt.last(t), nil)
	assert.Equal(t, testECSigner(t).cert.Raw, cert.Raw)

	tr.Signer = nil
	_, err = tr.RoundTrip(newGet(t, testBankURL+"/v1/accounts"))
	require.ErrorIs(t, err, errNoSigner)
}
