package xs2atest

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// origin is the server's scheme://host:port, without the base path.
func origin(s *Server) string { return s.srv.URL }

// TestBasePath: by default the interface is under /api, as at a real bank:
// URL includes it, the SCA pages and absolute URLs are under it, _links
// hrefs stay relative to it ("/v1/..."), and a request outside it is 404.
func TestBasePath(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithFaults(Fault{Method: "GET", Path: "/v1/sandbox/customers", Status: 503, Times: 1}))
	c := newTestClient(t, s)
	require.Equal(t, origin(s)+"/api", s.URL())

	// a fault's Path is below the base path
	r := c.do("GET", "/v1/sandbox/customers", nil)
	assert.Equal(t, 503, r.status)

	r = c.do("GET", "/v1/accounts", nil)
	require.Equal(t, 401, r.status, "body: %s", r.body)
	href := r.link(t, "scaRedirect")
	assert.True(t, strings.HasPrefix(href, s.URL()+"/sca/"), href)

	psu := c.privatePSU(PrivateCustomer1)
	accts := c.accounts(psu)
	links := accts[0]["_links"].(map[string]any)
	bal := links["balances"].(map[string]any)["href"].(string)
	assert.True(t, strings.HasPrefix(bal, "/v1/accounts/"), "relative to the base address: %s", bal)
	r = c.do("GET", bal, nil, "PSU-ID", psu)
	assert.Equal(t, 200, r.status, "body: %s", r.body)

	debtor := customerOf(t, s, PrivateCustomer1).Accounts[0].BBAN
	r = c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("10.00", withDebtor(debtor)),
		"PSU-ID", psu, "PSU-IP-Address", "192.0.2.1")
	require.Equal(t, 201, r.status, "body: %s", r.body)
	self := r.link(t, "self")
	assert.True(t, strings.HasPrefix(self, "/v1/payments/"), self)
	assert.Equal(t, s.URL()+self, r.header.Get("Location"), "Location is absolute, under the base path")

	for _, u := range []string{origin(s) + "/v1/accounts", origin(s) + "/apix/v1/accounts", origin(s) + "/"} {
		r = c.do("GET", u, nil, "PSU-ID", psu)
		assert.Equal(t, 404, r.status, u)
		assert.Equal(t, "RESOURCE_UNKNOWN", r.code(), u)
	}
	b := &browser{t: t, hc: s.browser}
	status, _, _ := b.get(origin(s) + "/sca/" + strings.TrimPrefix(href, s.URL()+"/sca/"))
	assert.Equal(t, 404, status, "the SCA pages are under the base path too")

	log := s.Requests()
	assert.Equal(t, "/v1/sandbox/customers", log[0].Path)
	assert.Equal(t, "/api/v1/sandbox/customers", log[0].FullPath)
	last := log[len(log)-1]
	assert.Equal(t, "", last.Path, "outside the base path")
	assert.True(t, strings.HasSuffix(last.FullPath, "/sca/"+strings.TrimPrefix(href, s.URL()+"/sca/")))
	assert.Equal(t, 4, s.RequestCount("GET", "/v1/accounts"), "three lists and the balances; the 404s outside the base path are not counted")
}

// TestBasePathOption: WithBasePath("") serves at the root, another path
// moves everything there; the SDK-independent test client and CompleteSCA
// follow.
func TestBasePathOption(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ opt, want string }{{"", ""}, {"/", ""}, {"psd2/v2/", "/psd2/v2"}, {"/api", "/api"}} {
		t.Run(tt.opt, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, WithBasePath(tt.opt))
			require.Equal(t, origin(s)+tt.want, s.URL())
			c := newTestClient(t, s)
			r := c.do("GET", "/v1/accounts", nil)
			require.Equal(t, 401, r.status, "body: %s", r.body)
			href := r.link(t, "scaRedirect")
			require.True(t, strings.HasPrefix(href, s.URL()+"/sca/"), href)
			// CompleteSCA takes the href absolute or relative to the base address
			rel := strings.TrimPrefix(href, s.URL())
			cb, err := s.CompleteSCA(context.Background(), rel, PrivateCustomer1)
			require.NoError(t, err)
			assert.Len(t, c.accounts(cb.Query().Get("psu-id")), 2)
			if tt.want != "" {
				r = c.do("GET", origin(s)+"/v1/accounts", nil)
				assert.Equal(t, 404, r.status)
			}
		})
	}
}

// TestRequestTargetUnderBasePath: a signature over (request-target) covers
// the path as sent, base path included.
func TestRequestTargetUnderBasePath(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	tpp := sharedTPP(t)
	send := func(target string) int {
		req, err := http.NewRequest("GET", s.URL()+"/v1/sandbox/customers?x=1", nil)
		require.NoError(t, err)
		tpp.stamp(req, nil)
		lines := []string{"(request-target): " + target}
		names := []string{"(request-target)"}
		for _, n := range signOrder {
			if v := req.Header.Get(n); v != "" {
				names = append(names, n)
				lines = append(lines, n+": "+v)
			}
		}
		sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		sig, err := rsa.SignPKCS1v15(rand.Reader, tpp.key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
		require.NoError(t, err)
		req.Header.Set("Signature", `keyId="`+tpp.keyID+`",algorithm="rsa-sha256",headers="`+strings.Join(names, " ")+
			`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
		resp, err := s.HTTPClient().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, send("get /api/v1/sandbox/customers?x=1"))
	assert.Equal(t, 400, send("get /v1/sandbox/customers?x=1"), "the base path is part of the target")
}

func TestResolveHref(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	for in, want := range map[string]string{
		"/sca/x":                     s.URL() + "/sca/x",
		"sca/x":                      s.URL() + "/sca/x",
		"/api/sca/x":                 s.URL() + "/sca/x",
		"https://other.example/sca/": "https://other.example/sca/",
	} {
		u, err := s.resolveHref(in)
		require.NoError(t, err)
		assert.Equal(t, want, u.String(), in)
	}
	_, err := s.resolveHref("http://[::1")
	var ue *url.Error
	assert.ErrorAs(t, err, &ue)
}
