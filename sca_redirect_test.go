package xs2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileSCARedirects are scaRedirect hrefs no PSU's browser may be sent to.
var hostileSCARedirects = []string{
	"javascript:alert(1)",
	"JAVASCRIPT:alert(1)",
	"JavaScript://bank.example/%0Aalert(1)",
	"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
	"file:///etc/passwd",
	"ftp://bank.example/sca",
	"vbscript:msgbox(1)",
	"blob:https://bank.example/0b8c4f6e",
	"http://bank.example/sca",
	"http://192.0.2.1/sca",
	"http://localhost.evil.example/sca",
	"//evil.example/sca",
	"///evil.example/sca",
	"/\\evil.example/sca",
	"https:\\\\evil.example/sca",
	"https:evil.example/sca",
	"https:///sca",
	"https://:443/sca",
	"https://user:pw@bank.example/sca",
	" javascript:alert(1)",
	"javascript:alert(1) ",
	"java\tscript:alert(1)",
	"java\nscript:alert(1)",
	"\x00https://bank.example/sca",
	"https://bank.example/sca\r\nX-Forged: 1",
	"\u00a0javascript:alert(1)",
	"https://bank.example/sca/\u202egpj.exe",
	"https://bank.example/sca\u2066x\u2069",
	"https://bank.example/\u200e",
	"https://bank.example/\u200bsca",
	"https://bank.example/\ufeffsca",
	"https://bank.example/sca\u2028x",
	"https://bank.example/sca\u2029x",
	"https://bank.example/sca\u0085x",
	"https://bank.example/sca\u009bx",
	"https://bank.example/sca\u00a0x",
	"https://bank.example/sca\u3000x",
	"https://bank.example/sca\u2009x",
	"https://bank.example/sca\ufffdx",
	"https://bank.example/sca\xffx",
	"/../../admin",
	"%zz",
}

// scaRedirectPath is one call whose answer may carry an scaRedirect.
type scaRedirectPath struct {
	name   string
	status int
	body   func(link string) string // link: the scaRedirect as a JSON value
	call   func(c *Client) (Link, error)
	post   bool // a refusal also answers ErrOutcomeUnknown
}

// scaRedirectPaths are every way a scaRedirect reaches the caller.
func scaRedirectPaths() []scaRedirectPath {
	ctx := context.Background()
	psu := PSU{ID: testPSUID, IPAddress: "192.0.2.7"}
	links := func(extra string) func(string) string {
		return func(l string) string { return `{` + extra + `"_links":{"scaRedirect":` + l + `}}` }
	}
	required := func(err error) (Link, error) {
		var sca *SCARequiredError
		if errors.As(err, &sca) {
			return sca.Redirect, nil
		}
		return Link{}, err
	}
	result := func(l *Link, err error) (Link, error) {
		if err != nil {
			return Link{}, err
		}
		return *l, nil
	}
	initiation := `"paymentId":"p1","transactionStatus":"RCVD",`
	return []scaRedirectPath{
		{name: "401", status: http.StatusUnauthorized, body: links(`"tppMessages":[{"code":"PSU_CREDENTIALS_INVALID"}],`),
			call: func(c *Client) (Link, error) { _, _, err := c.Accounts.List(ctx, psu); return required(err) }},
		{name: "data call answered 200", status: http.StatusOK, body: links(""),
			call: func(c *Client) (Link, error) { _, _, err := c.Accounts.List(ctx, psu); return required(err) }},
		{name: "cancel", status: http.StatusAccepted, body: links(`"transactionStatus":"ACTC",`),
			call: func(c *Client) (Link, error) {
				_, err := c.Payments.Cancel(ctx, presentPSU, Link{Href: "/v1/payments/x/p1"})
				return required(err)
			}},
		{name: "consents.create", status: http.StatusCreated, body: links(`"consentStatus":"received",`), post: true,
			call: func(c *Client) (Link, error) {
				l, _, err := c.Consents.Create(ctx, psu)
				return result(scaLinkOf(l), err)
			}},
		{name: "users.register", status: http.StatusOK, body: links(""),
			call: func(c *Client) (Link, error) {
				l, _, err := c.Users.Register(ctx, psu)
				return result(scaLinkOf(l), err)
			}},
		{name: "users.choose_context", status: http.StatusOK, body: links(""),
			call: func(c *Client) (Link, error) {
				l, _, err := c.Users.ChooseContext(ctx, psu)
				return result(scaLinkOf(l), err)
			}},
		{name: "payments.start_authorisation", status: http.StatusCreated, body: links(`"scaStatus":"started",`), post: true,
			call: func(c *Client) (Link, error) {
				l, _, err := c.Payments.StartAuthorisation(ctx, presentPSU, Link{Href: "/v1/payments/x/p1/authorisations"})
				return result(scaLinkOf(l), err)
			}},
		{name: "payments.initiate", status: http.StatusCreated, body: links(initiation), post: true,
			call: func(c *Client) (Link, error) {
				ini, _, err := c.Payments.Initiate(ctx, presentPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
				return result(initiationLinkOf(ini), err)
			}},
		{name: "payments.initiate_einvoice", status: http.StatusCreated, body: links(initiation), post: true,
			call: func(c *Client) (Link, error) {
				p := payment(func(p *Payment) { p.RemittanceInformationUnstructured = "" })
				ini, _, err := c.Payments.InitiateEInvoice(ctx, presentPSU, NorwegianDomesticCreditTransfers, p,
					EInvoice{KID: "12345678903", InvoiceNumber: "F-1"}, nil)
				return result(initiationLinkOf(ini), err)
			}},
		{name: "signing_baskets.create", status: http.StatusCreated, body: links(`"basketId":"b1","transactionStatus":"RCVD",`), post: true,
			call: func(c *Client) (Link, error) {
				b, _, err := c.SigningBaskets.Create(ctx, presentPSU, &SigningBasket{PaymentIDs: []string{"p1"}})
				if err != nil {
					return Link{}, err
				}
				return b.Links.SCARedirect, nil
			}},
	}
}

func scaLinkOf(l *SCALinks) *Link {
	if l == nil {
		return nil
	}
	return &l.Links.SCARedirect
}

func initiationLinkOf(i *Initiation) *Link {
	if i == nil {
		return nil
	}
	return &i.Links.SCARedirect
}

// TestSCARedirectMustBeAWebAddress sends every hostile scaRedirect down
// every path that hands one out: each is refused with a *SCARedirectError
// that names no part of the link. An https link on another host, plain http
// on loopback and a relative link (resolved under the base address) pass.
func TestSCARedirectMustBeAWebAddress(t *testing.T) {
	t.Parallel()
	for _, p := range scaRedirectPaths() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var link string
			_, c := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				mu.Lock()
				defer mu.Unlock()
				reply(p.status, p.body(link))(w, r, n)
			})
			use := func(l string) {
				mu.Lock()
				defer mu.Unlock()
				link = l
			}
			for _, href := range hostileSCARedirects {
				t.Run("refused/"+href, func(t *testing.T) {
					enc, _ := json.Marshal(map[string]string{"href": href})
					use(string(enc))
					got, err := p.call(c)
					require.ErrorIs(t, err, ErrSCARedirectInvalid, "handed out %q", got.Href)
					var re *SCARedirectError
					require.ErrorAs(t, err, &re)
					assert.Equal(t, p.status, re.StatusCode)
					assert.NotErrorIs(t, err, ErrSCARequired)
					assert.Equal(t, p.post, errors.Is(err, ErrOutcomeUnknown))
					msg := err.Error()
					assert.True(t, strings.HasPrefix(msg, "xs2a: "), msg)
					for _, part := range []string{"alert", "evil", "etc/passwd", "bank.example", "admin", "user:pw", "script"} {
						assert.NotContains(t, strings.ToLower(msg), part)
					}
				})
			}
			for _, tc := range []struct{ json, want string }{
				{`{"href":"https://sca.other-bank.example/login?id=1","verbs":["GET"]}`, "https://sca.other-bank.example/login?id=1"},
				{`"HTTPS://SCA.OTHER-BANK.EXAMPLE/x"`, "HTTPS://SCA.OTHER-BANK.EXAMPLE/x"},
				{`{"href":"http://127.0.0.1:8080/sca/t1"}`, "http://127.0.0.1:8080/sca/t1"},
				{`{"href":"http://localhost/sca/t1"}`, "http://localhost/sca/t1"},
				{`{"href":"http://[::1]:9/sca/t1"}`, "http://[::1]:9/sca/t1"},
				{`{"href":"/sca/t1?x=1"}`, c.BaseURL() + "/sca/t1?x=1"},
				{`{"href":"/api/sca/t1"}`, c.BaseURL() + "/sca/t1"},
			} {
				t.Run("accepted/"+tc.want, func(t *testing.T) {
					use(tc.json)
					got, err := p.call(c)
					require.NoError(t, err)
					assert.Equal(t, tc.want, got.Href)
				})
			}
		})
	}
}
