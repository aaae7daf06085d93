package xs2atest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tppWithSubject is a TPP whose certificate has this subject, issued by a
// CA with a plain ASCII name (so keyId needs no RFC 2047).
func tppWithSubject(t *testing.T, subject pkix.Name) *testTPP {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "xs2atest page CA (TEST ONLY)"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(4711), Subject: subject, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testTPP{key: key, cert: cert, certB64: base64.StdEncoding.EncodeToString(der), alg: "ecdsa-sha256",
		keyID: keyIDOf(cert), redirect: "https://tpp.example/callback"}
}

// TestSCAPageNamesTheTPPAndItsRequest: the SCA page names the TPP from the
// certificate that started the SCA (organisation, else common name), inert
// and HTML-escaped, and what it asks for: account access (and the context
// asked for) or the payment's amount and creditor; it has a viewport for
// phones.
func TestSCAPageNamesTheTPPAndItsRequest(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	page := func(c *testClient, href string) string {
		b := &browser{t: t, hc: s.browser}
		status, _, p := b.get(href)
		require.Equal(t, 200, status, "%s", p)
		return p
	}

	t.Run("organisation, account access in a context", func(t *testing.T) {
		c := newTestClient(t, s)
		c.tpp = tppWithSubject(t, pkix.Name{CommonName: "cn.tpp.example", Organization: []string{"Fjord Regnskap AS"}})
		r := c.do("POST", "/v1/bank-offered-consents", nil, "PSU-Context", "CORPORATE")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		p := page(c, r.link(t, "scaRedirect"))
		assert.Contains(t, p, `<strong class="tpp" id="tpp">Fjord Regnskap AS</strong> asks for access to your account information, in a corporate context.`)
		assert.NotContains(t, p, "cn.tpp.example")
		assert.Contains(t, p, `<meta name="viewport" content="width=device-width, initial-scale=1">`)
	})
	t.Run("common name, a payment", func(t *testing.T) {
		c := newTestClient(t, s)
		c.tpp = tppWithSubject(t, pkix.Name{CommonName: "Betal Enkelt"})
		r := c.do("POST", "/v1/payments/"+ProductDomestic, singlePayment("1234.50"), "PSU-IP-Address", "192.0.2.7")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		a := c.do("POST", r.link(t, "startAuthorisation"), nil, "PSU-IP-Address", "192.0.2.7")
		p := page(c, a.link(t, "scaRedirect"))
		assert.Contains(t, p, `>Betal Enkelt</strong> asks you to authorise a payment of 1234.50 NOK to Fjordkraft AS.`)
	})
	t.Run("a hostile name is inert and escaped", func(t *testing.T) {
		c := newTestClient(t, s)
		c.tpp = tppWithSubject(t, pkix.Name{Organization: []string{"Bank\u202eNAV <script>alert(1)</script>\u0085"}})
		r := c.do("GET", "/v1/accounts", nil)
		p := page(c, r.link(t, "scaRedirect"))
		assert.Contains(t, p, `>Bank\u202eNAV &lt;script&gt;alert(1)&lt;/script&gt;</strong>`)
		assert.NotContains(t, p, "\u202e")
		assert.NotContains(t, p, "<script>")
	})
	t.Run("no name", func(t *testing.T) {
		c := newTestClient(t, s)
		c.tpp = tppWithSubject(t, pkix.Name{Country: []string{"NO"}})
		r := c.do("GET", "/v1/users", nil)
		p := page(c, r.link(t, "scaRedirect"))
		assert.Contains(t, p, `>A third-party provider</strong> asks to identify you.`)
	})
}

// TestSCAPageTiedToItsBrowser: the first GET of an SCA page sets a cookie
// scoped to it (HttpOnly, SameSite=Strict, Secure under TLS) and puts a
// per-page token in its forms; a POST needs both, so a form posted from
// another origin (no cookie), another browser, or with another page's
// token is refused with 403 and a page saying why, and the SCA goes on in
// the browser that opened it.
func TestSCAPageTiedToItsBrowser(t *testing.T) {
	t.Parallel()
	for _, tlsOn := range []bool{false, true} {
		var opts []Option
		if tlsOn {
			opts = append(opts, WithTLS())
		}
		s := NewServer(t, opts...)
		c := newTestClient(t, s)
		href := func() string { return c.do("GET", "/v1/accounts", nil).link(t, "scaRedirect") }

		// the cookie
		h := href()
		resp, err := s.browser.Get(h)
		require.NoError(t, err)
		resp.Body.Close()
		cookies := resp.Cookies()
		require.Len(t, cookies, 1)
		ck := cookies[0]
		u, _ := url.Parse(h)
		assert.Equal(t, scaCookie, ck.Name)
		assert.Equal(t, u.Path, ck.Path, "scoped to the page")
		assert.True(t, ck.HttpOnly)
		assert.Equal(t, http.SameSiteStrictMode, ck.SameSite)
		assert.Equal(t, tlsOn, ck.Secure)
		assert.GreaterOrEqual(t, len(ck.Value), 26, "a random secret")

		login := url.Values{"step": {"login"}, "nationalId": {PrivateCustomer1}, "action": {"next"}}
		withToken := func(v url.Values, token string) url.Values {
			out := url.Values{pageTokenField: {token}}
			for k, vs := range v {
				out[k] = vs
			}
			return out
		}
		post := func(hc *http.Client, target string, form url.Values) (int, string) {
			resp, err := hc.PostForm(target, form)
			require.NoError(t, err)
			defer resp.Body.Close()
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			return resp.StatusCode, string(b[:n])
		}

		// the PSU's browser opens two pages
		psu := &browser{t: t, hc: s.browser}
		page1, page2 := href(), href()
		psu.get(page1)
		psu.get(page2)
		u1, _ := url.Parse(page1)
		u2, _ := url.Parse(page2)
		token1, token2 := psu.tokens[u1.Path], psu.tokens[u2.Path]
		require.NotEmpty(t, token1)
		require.NotEqual(t, token1, token2)

		cross := s.HTTPClient() // another origin's form: the browser sends no SameSite=Strict cookie
		cross.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		for _, tc := range []struct {
			name   string
			hc     *http.Client
			target string
			form   url.Values
			want   string
		}{
			{"cross-origin post, the right token", cross, page1, withToken(login, token1), "its cookie is missing"},
			{"another page's token", psu.client(), page1, withToken(login, token2), "does not belong to this authentication page"},
			{"no token", psu.client(), page1, login, "does not belong to this authentication page"},
			{"a page never opened", psu.client(), href(), withToken(login, token1), "Open the authentication page before you answer it."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, body := post(tc.hc, tc.target, tc.form)
				assert.Equal(t, http.StatusForbidden, status)
				assert.Contains(t, body, tc.want)
			})
		}

		// another browser cannot open a page once opened
		status, _, body := (&browser{t: t, hc: s.browser}).get(page1)
		assert.Equal(t, http.StatusForbidden, status)
		assert.Contains(t, body, "opened in another browser")

		// the browser that opened it goes on
		status, loc, _ := psu.post(page1, login)
		require.Equal(t, http.StatusSeeOther, status)
		assert.Equal(t, u1.Path, loc)
		_, _, body = psu.get(page1)
		assert.Contains(t, body, `value="context"`)
		assert.True(t, strings.Contains(body, `name="pageToken" value="`+token1+`"`), "the page keeps its token")
	}
}
