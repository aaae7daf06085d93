package xs2atest

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browser is a raw HTTP walk through the SCA pages, as a real browser posts
// the forms (no CompleteSCA).
// browser is a PSU's browser on the SCA pages: it keeps the pages' cookies
// and posts a page's forms with the page's token (opening the page first
// when it has not yet), as a browser showing the page does.
type browser struct {
	t      *testing.T
	hc     *http.Client
	jarred *http.Client
	tokens map[string]string // URL path -> the page's token, from the last GET
}

func (b *browser) client() *http.Client {
	if b.jarred == nil {
		hc := *b.hc
		hc.Jar, _ = cookiejar.New(nil)
		b.jarred, b.tokens = &hc, map[string]string{}
	}
	return b.jarred
}

func (b *browser) get(u string) (int, string, string) {
	b.t.Helper()
	resp, err := b.client().Get(u)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := tokenRE.FindStringSubmatch(string(body)); m != nil {
		b.tokens[resp.Request.URL.Path] = html.UnescapeString(m[1])
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func (b *browser) post(u string, form url.Values) (int, string, string) {
	b.t.Helper()
	pu, err := url.Parse(u)
	require.NoError(b.t, err)
	if b.client() != nil && b.tokens[pu.Path] == "" {
		b.get(u)
	}
	if _, set := form[pageTokenField]; !set {
		form.Set(pageTokenField, b.tokens[pu.Path])
	}
	resp, err := b.client().PostForm(u, form)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

func TestSCAPageByHand(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	r := c.do("GET", "/v1/accounts", nil, "TPP-Session-ID", "sess-42")
	href := r.link(t, "scaRedirect")
	b := &browser{t: t, hc: s.browser}

	status, _, page := b.get(href)
	require.Equal(t, 200, status)
	assert.Contains(t, page, `name="nationalId"`)
	assert.Contains(t, page, "<!DOCTYPE html>")

	status, _, page = b.post(href, url.Values{"step": {"login"}, "nationalId": {"1234"}})
	assert.Equal(t, 400, status)
	assert.Contains(t, page, `class="error"`)
	status, _, page = b.post(href, url.Values{"step": {"login"}, "nationalId": {"01010199999"}})
	assert.Equal(t, 400, status)
	assert.Contains(t, page, "No customer has this national identity number")

	status, loc, _ := b.post(href, url.Values{"step": {"login"}, "nationalId": {PrivateCustomer1}})
	require.Equal(t, http.StatusSeeOther, status)
	hu, err := url.Parse(href)
	require.NoError(t, err)
	assert.Equal(t, hu.Path, loc, "back to the same page, under the base path")
	assert.True(t, strings.HasPrefix(loc, "/api/sca/"), loc)
	_, _, page = b.get(href)
	assert.Contains(t, page, `value="context"`)
	assert.Contains(t, page, `name="choice" value="PRIVATE" checked`)

	// posting a stale step does not skip ahead
	status, _, _ = b.post(href, url.Values{"step": {"accounts"}, "account": {"x"}})
	assert.Equal(t, http.StatusConflict, status)

	status, _, _ = b.post(href, url.Values{"step": {"context"}, "context": {"PRIVATE"}})
	require.Equal(t, http.StatusSeeOther, status)
	_, _, page = b.get(href)
	boxes := regexp.MustCompile(`name="account" value="([^"]+)"`).FindAllStringSubmatch(page, -1)
	require.Len(t, boxes, 3, "two accounts and the card account")
	assert.NotContains(t, page, " checked>", "nothing consented yet")

	status, _, _ = b.post(href, url.Values{"step": {"accounts"}, "account": {"enc!!forged"}})
	assert.Equal(t, 400, status)

	status, loc, _ = b.post(href, url.Values{"step": {"accounts"}, "account": {html.UnescapeString(boxes[0][1]), html.UnescapeString(boxes[2][1])}, "action": {"confirm"}})
	require.Equal(t, http.StatusSeeOther, status)
	cb, err := url.Parse(loc)
	require.NoError(t, err)
	assert.Equal(t, "tpp.example", cb.Host)
	q := cb.Query()
	assert.Equal(t, "sess-42", q.Get("tpp-session-id"))
	assert.Equal(t, "PRIVATE", q.Get("context"))
	psu := q.Get("psu-id")
	assert.Len(t, c.accounts(psu), 1)

	// the link is single-use
	status, _, _ = b.get(href)
	assert.Equal(t, http.StatusGone, status)
	status, _, _ = b.get(s.URL() + "/sca/unknown")
	assert.Equal(t, http.StatusNotFound, status)

	// a second consent SCA pre-ticks what is consented
	r = c.do("POST", "/v1/consents", nil, "PSU-ID", psu)
	href = r.link(t, "scaRedirect")
	b.post(href, url.Values{"step": {"login"}, "nationalId": {PrivateCustomer1}})
	b.post(href, url.Values{"step": {"context"}, "choice": {"PRIVATE"}})
	_, _, page = b.get(href)
	assert.Equal(t, 2, strings.Count(page, " checked>"))
}

func TestSCACancelAndRedirectQuery(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	c.tpp = newTPP(t, "ecdsa", "xs2atest EC CA (TEST ONLY)")
	c.tpp.redirect = "https://tpp.example/cb?flow=7"
	r := c.do("GET", "/v1/accounts", nil)
	cb, err := s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), PrivateCustomer1, Cancel())
	require.NoError(t, err)
	q := cb.Query()
	assert.Equal(t, "7", q.Get("flow"), "the TPP's own query is kept")
	assert.Equal(t, "401", q.Get("status"))
	assert.Equal(t, "SCA_INVALID", q.Get("code"))
	assert.Equal(t, "The PSU cancelled the authentication.", q.Get("message"))
	assert.False(t, q.Has("system"), "system comes on server errors only (docs/interface.md), a cancel is none")

	r = c.do("GET", "/v1/accounts", nil)
	cb, err = s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), PrivateCustomer1)
	require.NoError(t, err)
	assert.Equal(t, "7", cb.Query().Get("flow"))
	assert.NotEmpty(t, cb.Query().Get("psu-id"))

	_, err = s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), PrivateCustomer1)
	assert.Error(t, err, "used link")
	r = c.do("GET", "/v1/accounts", nil)
	_, err = s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), "99999999999")
	assert.ErrorContains(t, err, "No customer")
	r = c.do("GET", "/v1/accounts", nil)
	_, err = s.CompleteSCA(t.Context(), r.link(t, "scaRedirect"), PrivateCustomer1, Accounts("enc!!nope"))
	assert.Error(t, err)
}

func TestSCAOverTLS(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithTLS())
	require.True(t, strings.HasPrefix(s.URL(), "https://"))
	c := newTestClient(t, s)
	psu := c.privatePSU(PrivateCustomer2)
	assert.Len(t, c.accounts(psu), 2)
}

// TPP-Redirect-Preferred: False (app biometrics): after sign-in the PSU
// confirms in the bank's app, on a page of its own; the outcome is the
// same as the plain redirect's, by browser and by CompleteSCA.
func TestSCAAppBiometricsVariant(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := newTestClient(t, s)
	b := &browser{t: t, hc: s.browser}
	start := func(preferred string) string {
		hdr := []string{"TPP-Session-ID", "sess-app"}
		if preferred != "" {
			hdr = append(hdr, "TPP-Redirect-Preferred", preferred)
		}
		return c.do("GET", "/v1/accounts", nil, hdr...).link(t, "scaRedirect")
	}
	tests := []struct {
		preferred string
		app       bool
	}{{"False", true}, {"false", true}, {"True", false}, {"", false}}
	for _, tt := range tests {
		t.Run("preferred="+tt.preferred, func(t *testing.T) {
			href := start(tt.preferred)
			_, _, page := b.get(href)
			assert.Equal(t, tt.app, strings.Contains(page, "bank's app"), "the sign-in page says what comes")
			status, _, _ := b.post(href, url.Values{"step": {"login"}, "nationalId": {PrivateCustomer1}})
			require.Equal(t, http.StatusSeeOther, status)
			_, _, page = b.get(href)
			if !tt.app {
				assert.Contains(t, page, `value="context"`, "straight on to the context")
				return
			}
			assert.Contains(t, page, `value="app"`)
			assert.Contains(t, page, `id="app"`)
			assert.Contains(t, page, "fingerprint or face")
			status, _, _ = b.post(href, url.Values{"step": {"context"}, "choice": {"PRIVATE"}})
			assert.Equal(t, http.StatusConflict, status, "no skipping the app")
			status, _, _ = b.post(href, url.Values{"step": {"app"}, "action": {"confirm"}})
			require.Equal(t, http.StatusSeeOther, status)
			_, _, page = b.get(href)
			assert.Contains(t, page, `value="context"`)
			b.post(href, url.Values{"step": {"context"}, "choice": {"PRIVATE"}})
			status, loc, _ := b.post(href, url.Values{"step": {"accounts"}, "account": {customerOf(t, s, PrivateCustomer1).Accounts[0].ResourceID}})
			require.Equal(t, http.StatusSeeOther, status)
			cb, err := url.Parse(loc)
			require.NoError(t, err)
			assert.Equal(t, psuIDFor(c.tpp.keyID, PrivateCustomer1), cb.Query().Get("psu-id"), "the psu-id carried over")
		})
	}

	t.Run("CompleteSCA", func(t *testing.T) {
		q := c.scaFlow(start("False"), PrivateCustomer2)
		assert.Equal(t, psuIDFor(c.tpp.keyID, PrivateCustomer2), q.Get("psu-id"))
		assert.Equal(t, "sess-app", q.Get("tpp-session-id"))
		assert.Len(t, c.accounts(q.Get("psu-id")), 2, "both accounts consented (the card account is listed apart)")
	})
}
