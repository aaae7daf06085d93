package xs2a_test

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/internal/testcert"
	"github.com/tppkit/xs2a/xs2atest"
)

// renewedPair makes the TPP's certificate and its renewal: new keys, the
// same subject, issuer and serial. The fake bank knows a TPP by its keyId
// (serial and issuer), so the PSU's consent stays the TPP's across the
// switch. TEST ONLY.
func renewedPair(t *testing.T) (old, renewed *xs2a.Signer) {
	t.Helper()
	o := testcert.Options{EC: true, Serial: big.NewInt(0x2026),
		Subject: pkix.Name{CommonName: "Renewing TPP - TEST ONLY", Organization: []string{"Test TPP AS"}, Country: []string{"NO"}},
		Issuer:  pkix.Name{CommonName: "xs2a Test CA - TEST ONLY", Organization: []string{"tppkit"}, Country: []string{"NO"}}}
	var s [2]*xs2a.Signer
	for i := range s {
		p, err := testcert.New(o)
		require.NoError(t, err)
		s[i], err = xs2a.NewSigner(p.Key, p.Cert, nil)
		require.NoError(t, err)
	}
	require.Equal(t, s[0].KeyID(), s[1].KeyID())
	return s[0], s[1]
}

var (
	sigHeaders = regexp.MustCompile(`headers="([^"]*)"`)
	sigValue64 = regexp.MustCompile(`signature="([^"]*)"`)
)

// verifiesWith reports whether the Signature of a request as it left the
// SDK (h) verifies against cert's key over the signing string rebuilt
// from h (docs/interface.md SIG6).
func verifiesWith(t *testing.T, h http.Header, cert *x509.Certificate) bool {
	t.Helper()
	v := h.Get("Signature")
	names, sig := sigHeaders.FindStringSubmatch(v), sigValue64.FindStringSubmatch(v)
	require.Len(t, names, 2, v)
	require.Len(t, sig, 2, v)
	var lines []string
	for _, n := range strings.Fields(names[1]) {
		require.NotEqual(t, '(', n[0], "a pseudo-header this check does not rebuild")
		vals := h.Values(n)
		for i := range vals {
			vals[i] = strings.TrimSpace(vals[i])
		}
		lines = append(lines, n+": "+strings.Join(vals, ", "))
	}
	raw, err := base64.StdEncoding.DecodeString(sig[1])
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return ecdsa.VerifyASN1(cert.PublicKey.(*ecdsa.PublicKey), sum[:], raw)
}

// TestSetSignerUnderLoad: while goroutines call the bank, another switches
// the client between the certificate and its renewal as fast as it can.
// Every call succeeds (the bank checks every signature against the
// certificate sent), and every request that left the SDK carries one of
// the two certificates and a Signature that verifies against that one and
// not the other: no request is signed by one key and sent with the other's
// certificate. The callers go on until each certificate has signed
// requests, so both are seen whatever the scheduling. Run under -race.
func TestSetSignerUnderLoad(t *testing.T) {
	t.Parallel()
	old, renewed := renewedPair(t)
	b := newBank(t)
	c, err := b.Client(old, xs2a.WithHTTPClient(&http.Client{Transport: b.rec}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
	_, _, err = c.Accounts.List(t.Context(), psu)
	psu = b.sca(t, requireSCA(t, err).Redirect.Href, xs2atest.PrivateCustomer1).PSU(psuIP)
	accounts, _, err := c.Accounts.List(t.Context(), psu)
	require.NoError(t, err)
	require.NotEmpty(t, accounts)
	from := b.rec.len()

	certOf := map[string]*x509.Certificate{}
	for _, s := range []*xs2a.Signer{old, renewed} {
		certOf[base64.StdEncoding.EncodeToString(s.Certificate().Raw)] = s.Certificate()
	}
	// seen counts the requests leaving the SDK with each certificate.
	var seen [2]atomic.Int64
	oldHeader := base64.StdEncoding.EncodeToString(old.Certificate().Raw)
	b.rec.setTamper(func(r *http.Request) {
		if r.Header.Get("TPP-Signature-Certificate") == oldHeader {
			seen[0].Add(1)
		} else {
			seen[1].Add(1)
		}
	}, nil)

	// The swapper switches as fast as it can while the callers sign.
	done := make(chan struct{})
	var swaps atomic.Int64
	swapper := make(chan struct{})
	go func() {
		defer close(swapper)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			assert.NoError(t, c.SetSigner([]*xs2a.Signer{renewed, old}[i%2]))
			swaps.Add(1)
			runtime.Gosched()
		}
	}()

	const callers, minCalls, maxCalls = 8, 12, 500
	var calls atomic.Int64
	var wg sync.WaitGroup
	for g := range callers {
		wg.Go(func() {
			for i := 0; i < minCalls || seen[0].Load() < callers || seen[1].Load() < callers; i++ {
				if i == maxCalls {
					t.Errorf("caller %d: one certificate never signed: %d and %d requests", g, seen[0].Load(), seen[1].Load())
					return
				}
				var err error
				if i%2 == 0 {
					_, _, err = c.Accounts.List(t.Context(), psu)
				} else {
					_, _, err = c.Accounts.Balances(t.Context(), psu, accounts[0].ResourceID)
				}
				if !assert.NoError(t, err) {
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	close(done)
	<-swapper

	b.rec.mu.Lock()
	out := append([]sent(nil), b.rec.reqs[from:]...)
	b.rec.mu.Unlock()
	require.Equal(t, int(calls.Load()), len(out), "one request per call, none retried")
	for _, s := range out {
		cert, ok := certOf[s.Header.Get("TPP-Signature-Certificate")]
		require.True(t, ok, "a certificate that is neither")
		other := renewed.Certificate()
		if cert == other {
			other = old.Certificate()
		}
		assert.True(t, verifiesWith(t, s.Header, cert), "%s %s: the Signature verifies against the certificate sent", s.Method, s.Path)
		assert.False(t, verifiesWith(t, s.Header, other), "%s %s: and not against the other", s.Method, s.Path)
	}
	for _, r := range b.Requests()[len(b.Requests())-len(out):] {
		assert.Equal(t, http.StatusOK, r.Status, "%s %s", r.Method, r.Path)
	}
	t.Logf("%d calls, %d swaps; %d requests with the old certificate, %d with the renewed one", calls.Load(), swaps.Load(), seen[0].Load(), seen[1].Load())
}
