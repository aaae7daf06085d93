package xs2atest

import (
	"crypto/x509/pkix"
	"sync"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/testcert"
)

// DefaultRedirectURI is the TPP-Redirect-URI Server.Client sets unless an
// option gives another. Nothing listens there: CompleteSCA returns the
// callback URL without following it.
const DefaultRedirectURI = "https://tpp.example/callback"

// NewTestSigner returns a signer with a new RSA 2048 key and a certificate
// issued by a throw-away CA; the subject and issuer say they are for tests
// only. The fake bank accepts it (it does not check certificates against a
// CA); a real bank never would. opts may be nil.
func NewTestSigner(opts *xs2a.SignerOptions) (*xs2a.Signer, error) {
	p, err := testcert.New(testcert.Options{
		Subject: pkix.Name{CommonName: "xs2atest TPP - TEST ONLY", Organization: []string{"xs2atest"}, Country: []string{"NO"}},
		Issuer:  pkix.Name{CommonName: "xs2atest CA - TEST ONLY", Organization: []string{"xs2atest"}, Country: []string{"NO"}},
	})
	if err != nil {
		return nil, err
	}
	return xs2a.NewSigner(p.Key, p.Cert, opts)
}

var (
	sharedSignerOnce sync.Once
	sharedSigner     *xs2a.Signer
	sharedSignerErr  error
)

// Client returns an SDK client for this bank: its base URL, an HTTP client
// that trusts the server (also under WithTLS), DefaultRedirectURI, the
// bank's clock (so the SDK's access budget and Date headers follow
// WithClock) and, under WithResponseSigning, verification of the bank's
// response signatures. opts come after these defaults and override them. A
// nil signer means a test signer shared by the whole test binary (one TPP
// identity, so psu-ids stay the same across clients).
func (s *Server) Client(signer *xs2a.Signer, opts ...xs2a.Option) (*xs2a.Client, error) {
	if signer == nil {
		sharedSignerOnce.Do(func() { sharedSigner, sharedSignerErr = NewTestSigner(nil) })
		if sharedSignerErr != nil {
			return nil, sharedSignerErr
		}
		signer = sharedSigner
	}
	defaults := []xs2a.Option{
		xs2a.WithRedirectURI(DefaultRedirectURI),
		xs2a.WithHTTPClient(s.srv.Client()),
		xs2a.WithClock(s.now),
	}
	if s.respCert != nil {
		defaults = append(defaults, xs2a.WithResponseVerification(s.respCert))
	}
	return xs2a.NewClient(s.URL(), signer, append(defaults, opts...)...)
}
