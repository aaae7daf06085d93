package xs2a

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// wrappedRT is a caller's RoundTripper around another, as a middleware
// (logging, metrics) is: the SDK cannot see or raise what it holds.
type wrappedRT struct{ http.RoundTripper }

// tls11Bank is a bank whose TLS stops at 1.1, counting the requests it
// reads, and a transport of the caller's that allows TLS 1.0 and 1.1 and
// trusts the bank.
func tls11Bank(t *testing.T) (srv *httptest.Server, weak *http.Transport, reads *atomic.Int64) {
	t.Helper()
	reads = new(atomic.Int64)
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"paymentId":"p1","transactionStatus":"RCVD"}`)
	}))
	srv.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the closed connections are expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	weak = srv.Client().Transport.(*http.Transport).Clone()
	weak.TLSClientConfig.MinVersion, weak.TLSClientConfig.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
	t.Cleanup(weak.CloseIdleConnections)
	// The caller's transport does reach the bank over TLS 1.1 by itself.
	resp, err := (&http.Client{Transport: weak}).Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, uint16(tls.VersionTLS11), resp.TLS.Version)
	reads.Store(0)
	return srv, weak, reads
}

// TestTLSFloorWhateverTheCallerHandsIn: a request with a PSU-ID and a body
// is never written over TLS below 1.2, whatever RoundTripper the caller
// hands in: one NewClient cannot raise (a wrapper around an *http.Transport
// allowing TLS 1.0, an oauth2.Transport over one, an *http.Transport with a
// TLS dialer of its own), under a Client or a caller's http.Client, with a
// trace of the caller's in the context. The bank reads nothing; the error
// says why, and that the request was not sent.
func TestTLSFloorWhateverTheCallerHandsIn(t *testing.T) {
	t.Parallel()
	bases := map[string]func(weak *http.Transport) http.RoundTripper{
		"wrapped *http.Transport": func(weak *http.Transport) http.RoundTripper { return wrappedRT{weak} },
		"oauth2.Transport": func(weak *http.Transport) http.RoundTripper {
			return &oauth2.Transport{Base: weak, Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "t"})}
		},
		"*http.Transport with its own DialTLSContext": func(weak *http.Transport) http.RoundTripper {
			cfg := weak.TLSClientConfig
			return &http.Transport{DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return (&tls.Dialer{Config: cfg}).DialContext(ctx, network, addr)
			}}
		},
	}
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.1"}
	for name, base := range bases {
		t.Run(name+", Client", func(t *testing.T) {
			t.Parallel()
			srv, weak, reads := tls11Bank(t)
			c, err := NewClient(srv.URL+testBasePath, testSigner(t), WithRedirectURI(testRedirectURI),
				WithHTTPClient(&http.Client{Transport: base(weak)}))
			require.NoError(t, err)
			fakeSleep(c)
			p := simplePayment()
			_, _, err = c.Payments.Initiate(context.Background(), psu, NorwegianDomesticCreditTransfers, &p, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "xs2a: refused to send over TLS 1.1")
			assert.NotErrorIs(t, err, ErrOutcomeUnknown, "nothing was written: the payment was not sent")
			var te *TransportError
			require.ErrorAs(t, err, &te)
			assert.False(t, te.Sent)
			_, _, err = c.Accounts.List(context.Background(), psu)
			assert.Error(t, err)
			assert.Zero(t, reads.Load(), "the bank read a request over TLS 1.1")
		})
		t.Run(name+", caller's http.Client and trace", func(t *testing.T) {
			t.Parallel()
			srv, weak, reads := tls11Bank(t)
			hc := &http.Client{Transport: &Transport{Base: base(weak), Signer: testSigner(t), RedirectURI: testRedirectURI}}
			var callerSaw atomic.Int64
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(httptrace.GotConnInfo) { callerSaw.Add(1) },
			})
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/v1/payments/x", strings.NewReader(testPaymentBody))
			require.NoError(t, err)
			req.Header.Set("PSU-ID", testPSUID)
			_, err = hc.Do(req)
			require.Error(t, err)
			var refused *connRefusedError
			require.True(t, errors.As(err, &refused), "%v", err)
			assert.Contains(t, err.Error(), "xs2a: refused to send over TLS 1.1")
			assert.Zero(t, reads.Load(), "the bank read a request over TLS 1.1")
			assert.Positive(t, callerSaw.Load(), "the caller's own trace is kept")
		})
	}
}

// TestTLSFloorLetsTLS12Through: the same RoundTrippers reach a bank on TLS
// 1.2 and 1.3, the check in between.
func TestTLSFloorLetsTLS12Through(t *testing.T) {
	t.Parallel()
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"accounts":[]}`)
		}))
		srv.TLS = &tls.Config{MinVersion: v, MaxVersion: v}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		weak := srv.Client().Transport.(*http.Transport).Clone()
		weak.TLSClientConfig.MinVersion = tls.VersionTLS10
		t.Cleanup(weak.CloseIdleConnections)
		c, err := NewClient(srv.URL+testBasePath, testSigner(t), WithRedirectURI(testRedirectURI),
			WithHTTPClient(&http.Client{Transport: wrappedRT{weak}}))
		require.NoError(t, err)
		_, _, err = c.Accounts.List(context.Background(), PSU{ID: testPSUID, IPAddress: "192.0.2.1"})
		assert.NoError(t, err, tls.VersionName(v))
	}
}

// TestTransportChecksOnlyWhatItCannotTrust: connections are checked per
// request unless Base is an *http.Transport that cannot make unfit ones;
// NewClient decides that once, for its base address.
func TestTransportChecksOnlyWhatItCannotTrust(t *testing.T) {
	t.Parallel()
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		return u
	}
	https, local, remote := parse("https://bank.example/api"), parse("http://LOCALHOST:8080/api"), parse("http://bank.example/api")
	weak := &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS10}}
	for _, tt := range []struct {
		name   string
		tr     *Transport
		u      []*url.URL
		checks bool
	}{
		{"nil Base (http.DefaultTransport), https", &Transport{}, []*url.URL{https}, false},
		{"nil Base, plain http (the environment's proxy)", &Transport{}, []*url.URL{local, remote}, true},
		{"*http.Transport without proxy, loopback", &Transport{Base: &http.Transport{}}, []*url.URL{https, local}, false},
		{"*http.Transport, plain http elsewhere", &Transport{Base: &http.Transport{}}, []*url.URL{remote}, true},
		{"*http.Transport allowing TLS 1.0", &Transport{Base: weak}, []*url.URL{https}, true},
		{"a wrapper", &Transport{Base: wrappedRT{&http.Transport{}}}, []*url.URL{https, local}, true},
	} {
		for _, u := range tt.u {
			assert.Equal(t, tt.checks, checksConns(cmp.Or(tt.tr.Base, http.DefaultTransport), u), "%s: %s", tt.name, u)
		}
	}
	// NewClient decides once, for its base address.
	dialTLS := &http.Transport{DialTLSContext: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("no") }}
	for _, tt := range []struct {
		name, base string
		rt         http.RoundTripper
		checks     bool
	}{
		{"its own transport", https.String(), nil, false},
		{"an *http.Transport allowing TLS 1.0, raised", https.String(), weak, false},
		{"an *http.Transport with its own DialTLSContext", https.String(), dialTLS, true},
		{"the same, plain http to loopback", local.String(), dialTLS, false},
		{"a wrapper", https.String(), wrappedRT{&http.Transport{}}, true},
		{"a wrapper, plain http to loopback", local.String(), wrappedRT{&http.Transport{}}, true},
	} {
		c, err := NewClient(tt.base, testSigner(t), WithRedirectURI(testRedirectURI), WithHTTPClient(&http.Client{Transport: tt.rt}))
		require.NoError(t, err)
		assert.Equal(t, tt.checks, !c.transport.direct, tt.name)
	}
}
