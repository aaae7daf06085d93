package xs2a

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a/internal/inert"
)

// The attacker here is a bank (or whoever answers in its place: a proxy, a
// man in the middle of a misconfigured deployment) that echoes what it was
// sent and what it knows: the call's PSU ids and path, account and card
// numbers, hidden text. None of it may reach an error string, any fmt verb
// of an error the SDK returns, or a log line.

// leakPSU carries the PSU ids the hostile bank echoes. The session id has
// no shape the patterns know: only the call's ids can redact it.
var leakPSU = PSU{
	ID:          "5d0c8f3e-2b7a-4e19-9c6d-8a1f0e2b3c4d",
	CorporateID: "a7e3c1d9-4b2f-4a8e-b6c5-0d9e8f7a6b5c",
	SessionID:   "sess-Kq7Zr2-tpp",
	IPAddress:   "192.0.2.7",
}

// The resource ids of the calls' paths, each with no shape the patterns
// know.
const (
	leakAccount   = "enc!!QWNjb3VudC1ob2xkZXI="
	leakCard      = "card-Fjord-Lynx"
	leakPayment   = "pay-Oslo-Kvitt"
	leakBodyOnly  = "BODY-ONLY-marker" // only in the body, never in a message
	leakStatusRaw = "sess-Kq7Zr2-tpp NO9386011117947"
)

// leakPaymentLink is a payment's status link, the payment id in its path.
var leakPaymentLink = Link{Href: "/v1/payments/" + NorwegianDomesticCreditTransfers + "/" + leakPayment + "/status"}

// leakNumbers are account and card numbers in the forms a bank writes them.
var leakNumbers = []string{
	"NO9386011117947", "NO93 8601 1117 947", "no9386011117947", "DE89370400440532013000",
	"GB82 WEST 1234 5698 7654 32", "FR1420041010050500013M02606",
	"86011117947", "8601.11.17947", "8601 11 17947",
	"4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "3782 822463 10005", "5500000000000004",
	"123456******1234", "************9876", "XXXX XXXX XXXX 4321", "**** **** **** 5678", "4111 11XX XXXX 1111",
}

// leakHidden is text that would forge a log line, reorder or hide what a
// terminal shows.
const leakHidden = "\u202eevil\u2066\u200b\x1b[31m\r\nlevel=ERROR msg=forged\u2028\u0085\x00\ufeff"

// leakEcho is the hostile bank's text for request r: the ids it was sent
// (in another case), its path, the numbers, and hidden characters.
func leakEcho(r *http.Request) string {
	parts := []string{
		"psu " + strings.ToUpper(r.Header.Get("PSU-ID")),
		"corp " + strings.ToUpper(r.Header.Get("PSU-Corporate-ID")),
		"session " + strings.ToLower(r.Header.Get("TPP-Session-ID")),
		"path " + r.URL.EscapedPath(),
		"uri " + r.RequestURI,
		strings.Join(leakNumbers, " / "),
		leakHidden,
	}
	return strings.Join(parts, "; ")
}

// leakSecrets are the texts no output may hold (compared in lower case).
func leakSecrets() []string {
	s := []string{leakPSU.ID, leakPSU.CorporateID, leakPSU.SessionID, leakAccount, leakCard, leakPayment,
		leakBodyOnly, "QWNjb3VudC1ob2xkZXI", "<html"}
	return append(s, leakNumbers...)
}

// leakCompact are the numbers without separators, looked for in outputs
// with spaces, dots and dashes removed.
var leakCompact = []string{"no9386011117947", "86011117947", "4111111111111111", "378282246310005",
	"gb82west12345698765432", "de89370400440532013000", "123456******1234", "************9876",
	"xxxxxxxxxxxx4321", "****************5678", "411111xxxxxx1111"}

// checkNoLeak fails when out holds a secret, an Unsafe character or
// invalid UTF-8.
func checkNoLeak(t *testing.T, where, out string) {
	t.Helper()
	low := strings.ToLower(out)
	for _, s := range leakSecrets() {
		if strings.Contains(low, strings.ToLower(s)) {
			t.Errorf("%s holds %q: %s", where, s, out)
		}
	}
	squeezed := strings.NewReplacer(" ", "", ".", "", "-", "", "\u00a0", "").Replace(low)
	for _, s := range leakCompact {
		if strings.Contains(squeezed, s) {
			t.Errorf("%s holds %q (separators removed): %s", where, s, out)
		}
	}
	if !utf8.ValidString(out) || strings.ContainsFunc(out, inert.Unsafe) {
		t.Errorf("%s holds a character that is not inert: %q", where, out)
	}
}

// verbs are the fmt forms of err checked: every verb a caller may log.
func verbs(err error) map[string]string {
	out := map[string]string{}
	for _, v := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%10.400s"} {
		out[v] = fmt.Sprintf(v, err)
	}
	out["Error()"] = err.Error()
	return out
}

// captureHandler keeps every attribute of every record, at every level.
type captureHandler struct {
	mu      *sync.Mutex
	records *[]string
	levels  *[]slog.Level
	attrs   []slog.Attr
}

func newCaptureHandler() *captureHandler {
	return &captureHandler{mu: &sync.Mutex{}, records: &[]string{}, levels: &[]slog.Level{}}
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " | %s=%s", a.Key, a.Value.Resolve().String())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, b.String())
	*h.levels = append(*h.levels, r.Level)
	return nil
}

func (h *captureHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return &c
}

func (h *captureHandler) WithGroup(string) slog.Handler { return h }

// logged returns the records, each attribute after a " | ".
func (h *captureHandler) logged() ([]string, []slog.Level) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string{}, *h.records...), append([]slog.Level{}, *h.levels...)
}

// rawTCP serves each connection by reading the request's head and writing
// what answer makes of it, then closing: a bank that writes any bytes. With
// a nil answer it writes early at once, before reading anything.
func rawTCP(t *testing.T, answer func(head string) string, early string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if answer == nil {
					_, _ = conn.Write([]byte(early))
					return
				}
				br := bufio.NewReader(conn)
				var head strings.Builder
				for {
					line, err := br.ReadString('\n')
					head.WriteString(line)
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = conn.Write([]byte(answer(head.String())))
			}()
		}
	}()
	return ln.Addr().String()
}

// requestLine is the first line of a request's head, without CRLF.
func requestLine(head string) string { l, _, _ := strings.Cut(head, "\r\n"); return l }

// headerLines are the header lines of a request's head joined by sep.
func headerLines(head, sep string) string {
	_, rest, _ := strings.Cut(head, "\r\n")
	return strings.ReplaceAll(strings.TrimSpace(rest), "\r\n", sep)
}

// leakClient is a client of the SDK for base with the capturing logger.
func leakClient(t *testing.T, base string, h *captureHandler, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithRedirectURI("https://tpp.example/cb"), WithLogger(slog.New(h)),
		WithRetry(RetryPolicy{MaxAttempts: 2, MinDelay: 1, MaxDelay: 2, MaxRetryAfter: 1, Methods: []string{http.MethodGet}})}, opts...)
	c, err := NewClient(base, testSigner(t), opts...)
	require.NoError(t, err)
	fakeSleep(c)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bankCert is a certificate the hostile bank's signatures are checked
// against (they never verify: the reasons are what is tested).
func bankCert(t *testing.T) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "certs", "tpp-rsa.cert.pem"))
	require.NoError(t, err)
	block, _ := pem.Decode(b)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return cert
}

// leakCase is one way an error reaches the caller: run makes the call
// against its hostile peer and returns the error; want is a pointer to the
// error type the call must return.
type leakCase struct {
	name string
	run  func(t *testing.T, h *captureHandler) error
	want any
}

// jsonText is s as a JSON string.
func jsonText(s string) string { b, _ := json.Marshal(s); return string(b) }

// leakBank is an in-process bank under a base path answering with fn.
func leakBank(t *testing.T, h *captureHandler, fn func(w http.ResponseWriter, r *http.Request), opts ...Option) *Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(testBasePath+"/", http.StripPrefix(testBasePath, http.HandlerFunc(fn)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return leakClient(t, srv.URL+testBasePath, h, opts...)
}

// hijacked writes raw bytes as the whole answer.
func hijacked(w http.ResponseWriter, raw string) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	_, _ = buf.WriteString(raw)
	_ = buf.Flush()
}

// noControls is s without C0 controls and DEL, for a header value a client
// reads.
func noControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// oneLine is s without CR and LF, for a status line or a header.
func oneLine(s string) string { return strings.NewReplacer("\r", "", "\n", "").Replace(s) }

func leakCases() []leakCase {
	ctx := context.Background()
	balances := func(c *Client) error { _, _, err := c.Accounts.Balances(ctx, leakPSU, leakAccount); return err }
	card := func(c *Client) error { _, _, err := c.CardAccounts.Get(ctx, leakPSU, leakCard); return err }
	status := func(c *Client) error { _, _, err := c.Payments.Status(ctx, leakPSU, leakPaymentLink); return err }
	pay := func(c *Client) error {
		_, _, err := c.Payments.Initiate(ctx, leakPSU, NorwegianDomesticCreditTransfers, payment(func(*Payment) {}), nil)
		return err
	}
	tppMessages := func(r *http.Request) string {
		e := jsonText(leakEcho(r))
		return `{"tppMessages":[{"category":"ERROR","code":` + e + `,"path":` + e + `,"text":` + e + `},` +
			`{"text":"` + leakBodyOnly + `"}],"x":"` + leakBodyOnly + `"}`
	}
	inBank := func(call func(*Client) error, fn func(w http.ResponseWriter, r *http.Request), opts ...Option) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, h *captureHandler) error { return call(leakBank(t, h, fn, opts...)) }
	}
	overTCP := func(call func(*Client) error, answer func(head string) string) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, h *captureHandler) error {
			return call(leakClient(t, "http://"+rawTCP(t, answer, "")+testBasePath, h))
		}
	}
	withProxy := func(base string, call func(*Client) error, answer func(head string) string) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, h *captureHandler) error {
			proxy := &url.URL{Scheme: "http", Host: rawTCP(t, answer, "")}
			hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
			return call(leakClient(t, base+testBasePath, h, WithHTTPClient(hc)))
		}
	}
	signed := func(sig func(r *http.Request) string) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, h *captureHandler) error {
			return balances(leakBank(t, h, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Signature", sig(r))
				w.Header().Set("Digest", "SHA-256=x")
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"balances":[]}`))
			}, WithResponseVerification(bankCert(t))))
		}
	}
	poll := func(statusText string, funds string, strict bool) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, h *captureHandler) error {
			c := leakBank(t, h, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"transactionStatus":` + jsonText(statusText) + funds + `}`))
			})
			_, _, err := c.Payments.PollStatus(ctx, leakPSU, leakPaymentLink, &PollOptions{MinDelay: 1, MaxDelay: 2, MaxAttempts: 2, Strict: strict})
			return err
		}
	}
	callback := func(q url.Values) func(*testing.T, *captureHandler) error {
		return func(t *testing.T, _ *captureHandler) error {
			var got error
			CallbackHandler(func(http.ResponseWriter, *http.Request, *Callback) {},
				func(_ http.ResponseWriter, _ *http.Request, err error) { got = err }).
				ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/cb?"+q.Encode(), nil))
			_, err := ParseCallback(q)
			require.Equal(t, err.Error(), got.Error(), "CallbackHandler passes ParseCallback's error")
			return got
		}
	}
	echoNoCRLF := func(head string) string {
		return oneLine(requestLine(head) + " " + headerLines(head, " ") + " " + strings.Join(leakNumbers, " ") + leakHidden)
	}
	return []leakCase{
		{"tppMessages 400 with a hostile Retry-After", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", noControls(leakEcho(r)))
			reply(http.StatusBadRequest, tppMessages(r))(w, r, 1)
		}), new(*Error)},
		{"problem+json 403", inBank(card, func(w http.ResponseWriter, r *http.Request) {
			answer(http.StatusForbidden, "application/problem+json", `{"title":"denied","detail":`+jsonText(leakEcho(r))+`,"code":`+jsonText(leakEcho(r))+`}`)(w, r, 1)
		}), new(*Error)},
		{"html 503 to a payment", inBank(pay, func(w http.ResponseWriter, r *http.Request) {
			answer(http.StatusServiceUnavailable, "text/html", "<html>"+leakEcho(r)+leakBodyOnly+"</html>")(w, r, 1)
		}), new(*Error)},
		{"429 retried, then refused", inBank(status, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			reply(http.StatusTooManyRequests, tppMessages(r))(w, r, 1)
		}), new(*Error)},
		{"401 scaRedirect", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			reply(http.StatusUnauthorized, `{"tppMessages":[{"code":`+jsonText(leakEcho(r))+`}],"_links":{"scaRedirect":{"href":`+
				jsonText("https://sca.bank.example/"+leakAccount+"?iban=NO9386011117947&psu="+leakPSU.ID)+`}}}`)(w, r, 1)
		}), new(*SCARequiredError)},
		{"hostile scaRedirect", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			reply(http.StatusUnauthorized, `{"_links":{"scaRedirect":{"href":`+jsonText("javascript:"+leakEcho(r))+`}}}`)(w, r, 1)
		}), new(*SCARedirectError)},
		{"undecodable 200 to a read", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			reply(http.StatusOK, `{"balances":[{"balanceType":"closingBooked","referenceDate":`+jsonText(leakEcho(r))+`}]}`)(w, r, 1)
		}), new(*redactedError)},
		{"undecodable 201 to a payment", inBank(pay, func(w http.ResponseWriter, r *http.Request) {
			reply(http.StatusCreated, `{"paymentId":1,"transactionStatus":`+jsonText(leakEcho(r))+`,"_links":[`+jsonText(leakEcho(r))+`]}`)(w, r, 1)
		}), new(*TransportError)},
		{"302 with the echo as reason phrase", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			hijacked(w, "HTTP/1.1 302 "+oneLine(leakEcho(r))+"\r\nContent-Length: 0\r\n\r\n")
		}), new(*TransportError)},
		{"redirect to another origin", inBank(balances, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://evil.example"+r.RequestURI+"?iban=NO9386011117947&psu="+leakPSU.ID)
			w.WriteHeader(http.StatusTemporaryRedirect)
		}), new(*TransportError)},
		{"signed header named by the echo", signed(func(r *http.Request) string {
			return `keyId="x",algorithm="rsa-sha256",headers="digest ` + leakPSU.ID + ` no9386011117947",signature="AAAA"`
		}), new(*SignatureError)},
		{"signature algorithm named by the echo", signed(func(r *http.Request) string {
			return `keyId="x",algorithm="` + leakPSU.ID + ` NO9386011117947",headers="digest",signature="AAAA"`
		}), new(*SignatureError)},
		{"malformed status code", overTCP(balances, func(head string) string {
			return "HTTP/1.1 " + strings.ReplaceAll(echoNoCRLF(head), " ", "_") + " x\r\n\r\n"
		}), new(*TransportError)},
		{"malformed status line", overTCP(balances, func(head string) string {
			return "HTTP/1.1\t" + echoNoCRLF(head) + "\r\n\r\n"
		}), new(*TransportError)},
		{"malformed response echoing the request", overTCP(balances, func(head string) string {
			return "XS2A " + echoNoCRLF(head) + "\r\n\r\n"
		}), new(*TransportError)},
		{"malformed MIME header line echoing the request", overTCP(balances, func(head string) string {
			return "HTTP/1.1 200 OK\r\n" + requestLine(head) + "\r\n" + headerLines(head, "\r\n") + "\r\n\r\n"
		}), new(*TransportError)},
		{"malformed header after a good one", overTCP(pay, func(head string) string {
			return "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n " + echoNoCRLF(head) + "\r\n\r\n"
		}), new(*TransportError)},
		{"connection closed after the echo", overTCP(pay, func(head string) string {
			echo := echoNoCRLF(head)
			return fmt.Sprintf("HTTP/1.1 201 Created\r\nContent-Length: %d\r\n\r\n%s", len(echo)+100, echo)
		}), new(*TransportError)},
		{"connection refused", func(t *testing.T, h *captureHandler) error {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := ln.Addr().String()
			require.NoError(t, ln.Close())
			return balances(leakClient(t, "http://"+addr+testBasePath, h))
		}, new(*TransportError)},
		{"HTTP answer to an HTTPS client", func(t *testing.T, h *captureHandler) error {
			addr := rawTCP(t, nil, "HTTP/1.1 400 Bad Request NO9386011117947\r\nContent-Length: 0\r\n\r\n")
			return balances(leakClient(t, "https://"+addr+testBasePath, h))
		}, new(*TransportError)},
		{"TLS certificate not trusted", func(t *testing.T, h *captureHandler) error {
			srv := httptest.NewTLSServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			return status(leakClient(t, srv.URL+testBasePath, h))
		}, new(*TransportError)},
		{"deadline exceeded", func(t *testing.T, h *captureHandler) error {
			srv := httptest.NewServer(http.NotFoundHandler())
			t.Cleanup(srv.Close)
			c := leakClient(t, srv.URL+testBasePath, h)
			dctx, cancel := context.WithDeadline(ctx, fixedNow()) // long past
			defer cancel()
			_, _, err := c.Accounts.Balances(dctx, leakPSU, leakAccount)
			return err
		}, new(*TransportError)},
		{"cancelled while the bank holds the answer", func(t *testing.T, h *captureHandler) error {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			c := leakBank(t, h, func(w http.ResponseWriter, r *http.Request) {
				cancel()
				<-r.Context().Done()
			})
			_, _, err := c.Accounts.Balances(cctx, leakPSU, leakAccount)
			return err
		}, new(*TransportError)},
		{"proxy refuses CONNECT with the echo", withProxy("https://bank.invalid", balances, func(head string) string {
			return "HTTP/1.1 403 " + echoNoCRLF(head) + "\r\n\r\n"
		}), new(*TransportError)},
		{"proxy answers garbage echoing the request", withProxy("http://127.0.0.1:9", pay, func(head string) string {
			return "XS2A " + echoNoCRLF(head) + "\r\n\r\n"
		}), new(*TransportError)},
		{"poll: unknown status, strict", poll(leakStatusRaw, "", true), nil},
		{"poll: reads used up on an unknown status", poll(leakStatusRaw, "", false), nil},
		{"SCA failure callback", callback(url.Values{"status": {"400"}, "code": {"PAYMENT_FAILED"}, "tpp-session-id": {leakPSU.SessionID},
			"message": {"psu " + leakPSU.ID + " session " + strings.ToUpper(leakPSU.SessionID) + " " + strings.Join(leakNumbers, " ") + leakHidden}}),
			new(*SCAFailedError)},
		{"SCA failure code of numbers", callback(url.Values{"code": {"NO9386011117947 4111111111111111 " + leakPSU.ID}}), new(*SCAFailedError)},
		{"malformed callback", callback(url.Values{"psu-id": {"NO9386011117947" + leakHidden}, "context": {"PRIVATE"}}), new(*CallbackError)},
		{"invalid PSU", func(t *testing.T, h *captureHandler) error {
			c := leakBank(t, h, func(http.ResponseWriter, *http.Request) { t.Error("nothing may be sent") })
			_, _, err := c.Accounts.Balances(ctx, PSU{ID: "NO9386011117947" + leakHidden}, leakAccount)
			return err
		}, new(*ValidationError)},
		{"access budget used up", func(t *testing.T, h *captureHandler) error {
			c := leakBank(t, h, func(w http.ResponseWriter, r *http.Request) { reply(http.StatusOK, `{"balances":[]}`)(w, r, 1) })
			absent := leakPSU
			absent.IPAddress = ""
			for range AccessLimit {
				_, _, err := c.Accounts.Balances(ctx, absent, leakAccount)
				require.NoError(t, err)
			}
			_, _, err := c.Accounts.Balances(ctx, absent, leakAccount)
			return err
		}, new(*AccessExceededError)},
	}
}

// TestNoIdentifierInAnyVerb: whatever a hostile bank, proxy or callback
// echoes (the call's PSU-ID, PSU-CORPORATE-ID and TPP-Session-ID, its path
// and resource ids, IBANs, BBANs, card numbers and masked PANs, bidi and
// ANSI escapes, CRLF log forging), no error the SDK returns holds any of it
// in Error() or any fmt verb (%v, %+v, %#v, %s, %q, %d), wrapped with %w or
// not, nor in any layer of its chain the SDK made; no log record at any
// level does either, and no transport error quotes the request's URL.
func TestNoIdentifierInAnyVerb(t *testing.T) {
	t.Parallel()
	for _, tc := range leakCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newCaptureHandler()
			err := tc.run(t, h)
			require.Error(t, err)
			if tc.want != nil {
				require.ErrorAs(t, err, tc.want)
			}
			t.Logf("%v", err)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
			assert.NotContains(t, err.Error(), "://", "a URL in the message")
			for _, e := range []error{err, fmt.Errorf("caller: %w", err)} {
				for v, out := range verbs(e) {
					checkNoLeak(t, v, out)
				}
			}
			// Every layer of the chain that the SDK made, alone.
			for e := err; e != nil; e = errors.Unwrap(e) {
				typ := reflect.TypeOf(e)
				if typ.Kind() == reflect.Pointer {
					typ = typ.Elem()
				}
				if typ.PkgPath() != reflect.TypeOf(Error{}).PkgPath() {
					continue
				}
				for v, out := range verbs(e) {
					checkNoLeak(t, fmt.Sprintf("%T %s", e, v), out)
				}
			}
			records, levels := h.logged()
			for i, rec := range records {
				checkNoLeak(t, fmt.Sprintf("log record %d at %v", i, levels[i]), rec)
			}
		})
	}
}

// TestEveryErrorTypeFormatsItsMessage: every type of the package with an
// Error method has GoString and Format, so that no fmt verb prints its
// fields (the bank's raw text); the package's source is the list.
func TestEveryErrorTypeFormatsItsMessage(t *testing.T) {
	t.Parallel()
	types := errorTypesOfPackage(t)
	require.GreaterOrEqual(t, len(types), 11)
	samples := map[string]error{
		"Error": &Error{}, "SCARequiredError": &SCARequiredError{}, "TransportError": &TransportError{Err: errors.New("x")},
		"SignatureError": &SignatureError{}, "AccessExceededError": &AccessExceededError{},
		"SCAFailedError": &SCAFailedError{}, "CallbackError": &CallbackError{}, "SCARedirectError": &SCARedirectError{},
		"ValidationError": &ValidationError{}, "redactedError": &redactedError{},
		"dotSegmentError": errDotSegment("link").(*dotSegmentError), "redirectRefusal": &redirectRefusal{method: "POST", status: 307},
		"connRefusedError": &connRefusedError{why: refusedNoTLS, err: errors.New("x")},
	}
	for _, name := range types {
		e, ok := samples[name]
		if !assert.True(t, ok, "error type %s has no sample here: add one", name) {
			continue
		}
		_, gs := e.(fmt.GoStringer)
		_, f := e.(fmt.Formatter)
		assert.True(t, gs && f, "%s needs GoString and Format", name)
	}
}

// FuzzErrorBodyText: whatever error body the bank sends (as it is, and a
// Berlin Group body holding the fuzzed code and text), the *Error's message
// and every fmt verb of it start with "xs2a: ", are inert, hold none of the
// call's ids and nothing shaped like an identifier.
func FuzzErrorBodyText(f *testing.F) {
	f.Add("application/json", `{"tppMessages":[{"code":"FORMAT_ERROR","text":"NO93 8601 1117 947 \u202e"}]}`, "FORMAT_ERROR", "NO93 8601 1117 947 \u202e")
	f.Add("application/problem+json", `{"detail":"card 4111-1111-1111-1111 of `+leakPSU.ID+`","code":"X"}`, leakPSU.ID, "4111 1111 1111 1111")
	f.Add("application/json", `{"tppMessage":{"code":"`+strings.ToUpper(leakPSU.SessionID)+`","text":"XXXX XXXX XXXX 1234\r\nforged"}}`,
		strings.ToUpper(leakPSU.SessionID), "XXXX XXXX XXXX 1234\r\nforged")
	f.Add("text/html", "<html>8601.11.17947</html>", "", "8601.11.17947 \x1b[2J")
	f.Add("application/json", `{"additionalErrors":[{"text":"123456******1234 `+leakAccount+`"}]}`, "x\u2028y", "123456******1234 "+leakAccount)
	f.Fuzz(func(t *testing.T, contentType, raw, code, text string) {
		built, _ := json.Marshal(map[string][]TPPMessage{"tppMessages": {{Code: code, Text: text}}})
		for _, body := range []string{raw, string(built)} {
			checkErrorBody(t, contentType, body)
		}
	})
}

// checkErrorBody is FuzzErrorBodyText's check of one body.
func checkErrorBody(t *testing.T, contentType, body string) {
	t.Helper()
	r := &request{op: "accounts.balances", method: http.MethodGet, psu: &leakPSU, accountID: leakAccount,
		href: accountPath(leakAccount) + "/balances"}
	resp := &http.Response{StatusCode: http.StatusBadRequest, Header: http.Header{"Content-Type": {contentType}}}
	e := newError(resp, []byte(body), "", fixedNow())
	e.Method, e.Op, e.ids = r.method, r.op, r.ids()
	for v, out := range verbs(e) {
		if !strings.Contains(out, "xs2a: ") {
			t.Fatalf("%s: %q", v, out)
		}
		if !utf8.ValidString(out) || strings.ContainsFunc(out, inert.Unsafe) {
			t.Fatalf("%s is not inert: %q", v, out)
		}
	}
	msg := e.Error()
	if !strings.HasPrefix(msg, "xs2a: ") {
		t.Fatalf("%q", msg)
	}
	low := strings.ToLower(msg)
	for _, id := range []string{leakPSU.ID, leakPSU.CorporateID, leakPSU.SessionID, leakAccount} {
		if strings.Contains(low, strings.ToLower(id)) {
			t.Fatalf("%q holds %q", msg, id)
		}
	}
	if again := redactShapes(msg); again != msg {
		t.Fatalf("%q still holds text shaped like an identifier: %q", msg, again)
	}
	if inert.Text(msg, 0) != msg {
		t.Fatalf("%q is not inert", msg)
	}
}

// errorTypesOfPackage lists the types of the package (its non-test files)
// that have a method Error() string.
func errorTypesOfPackage(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Error" || len(fn.Type.Params.List) != 0 ||
				fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
		}
	}
	return names
}
