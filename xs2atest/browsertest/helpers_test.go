package browsertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Bounds: one Chromium per test function, one tab per run, each run under
// its own deadline. Nothing sleeps: every step waits on the page.
const (
	browserDeadline = 4 * time.Minute
	runDeadline     = 60 * time.Second
)

// startBrowser starts a headless Chromium with a new, empty profile and
// returns its context; it ends with the test. A missing chromium fails the
// test: the SCA pages must be shown to work in a real browser.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the browser tests need Chromium (on Debian: apt-get install -y chromium): %v", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // as root in CI containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// no traffic to anything but the loopback servers of the test
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserDeadline)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	return browser
}

// newTab opens a tab of browser for one run, closed when the (sub)test ends.
func newTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(browser)
	tab, cancel := context.WithTimeout(tab, runDeadline)
	t.Cleanup(func() {
		cancel()
		cancelTab()
	})
	return tab
}

// tpp is the TPP's side of the redirect: a loopback server whose callback
// page records the query the browser arrives with.
type tpp struct {
	srv *httptest.Server
	got chan url.Values
}

const callbackPage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>TPP</title></head>
<body><p id="tpp-callback">Back at the TPP.</p></body></html>`

func newTPP(t *testing.T) *tpp {
	t.Helper()
	tp := &tpp{got: make(chan url.Values, 1)}
	tp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" { // favicon.ico and the like
			http.NotFound(w, r)
			return
		}
		select {
		case tp.got <- r.URL.Query():
		default: // a second arrival: wait reports only the first
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, callbackPage)
	}))
	t.Cleanup(tp.srv.Close)
	return tp
}

// redirectURI is the TPP-Redirect-URI, with a parameter of the TPP's own
// that the bank must keep.
func (tp *tpp) redirectURI() string { return tp.srv.URL + "/callback?order=42" }

// wait waits until the browser shows the callback page and returns the
// query the TPP received.
func (tp *tpp) wait(tab context.Context) (url.Values, error) {
	if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.ID("tpp-callback"))); err != nil {
		return nil, fmt.Errorf("waiting for the TPP's callback page: %w", err)
	}
	loc, err := chromedp.Run(tab, chromedp.Location())
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(loc, tp.srv.URL+"/callback?") {
		return nil, fmt.Errorf("the browser is at %s, not at the TPP's callback", loc)
	}
	select {
	case q := <-tp.got:
		return q, nil
	case <-tab.Done():
		return nil, tab.Err()
	}
}

// The steps a person takes on the SCA pages. Each waits for an element of
// its own page, so it runs once the page before it has been left.

const (
	nationalIDField = chromedp.CSS(`input[name="nationalId"]`)
	contextRadios   = chromedp.CSSAll(`input[name="choice"]`)
	accountBoxes    = chromedp.CSSAll(`input[name="account"]`)
	debtorRadios    = chromedp.CSSAll(`input[name="debtor"]`)
	nextButton      = chromedp.CSS(`button[name="action"][value="next"]`)
	confirmButton   = chromedp.CSS(`button[name="action"][value="confirm"]`)
	cancelButton    = chromedp.CSS(`button[name="action"][value="cancel"]`)
)

// signIn types the national id and presses Sign in.
func signIn(nationalID string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(nationalIDField),
		chromedp.SendKeys(nationalIDField, nationalID),
		chromedp.Click(nextButton),
	)
}

// signInWithEnter types the national id and presses Enter in the field: the
// form's first button (Sign in, not Cancel) must submit it.
func signInWithEnter(nationalID string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(nationalIDField),
		chromedp.SendKeys(nationalIDField, nationalID+kb.Enter),
	)
}

// confirmInApp answers the app-biometrics page: the person has confirmed on
// the phone and continues.
func confirmInApp() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.ID("app")),
		chromedp.Click(confirmButton),
	)
}

// chooseContext clicks the nth offered context whose value starts with
// prefix (PRIVATE, CORPORATE:) and continues; chosen gets its value.
func chooseContext(prefix string, nth int, chosen *string) chromedp.Action[chromedp.Void] {
	return chooseRadio(contextRadios, prefix, nth, chosen)
}

// chooseDebtor clicks the nth account offered to pay from and continues;
// chosen gets its value (the account's resource id).
func chooseDebtor(nth int, chosen *string) chromedp.Action[chromedp.Void] {
	return chooseRadio(debtorRadios, "", nth, chosen)
}

// chooseRadio clicks the nth of the radios whose value starts with prefix
// and presses the page's Continue.
func chooseRadio(radios chromedp.CSSAll, prefix string, nth int, chosen *string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		nodes, err := chromedp.Nodes(radios)(ctx, t)
		if err != nil {
			return err
		}
		var match []*chromedp.Node
		for _, n := range nodes {
			if strings.HasPrefix(n.AttributeValue("value"), prefix) {
				match = append(match, n)
			}
		}
		if nth >= len(match) {
			return fmt.Errorf("the page offers %d choices %q..., want number %d", len(match), prefix, nth+1)
		}
		*chosen = match[nth].AttributeValue("value")
		_, err = chromedp.Steps(chromedp.MouseClickNode(match[nth]), chromedp.Click(nextButton))(ctx, t)
		return err
	})
}

// signPayment presses Sign on the page that shows the payment.
func signPayment() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(chromedp.CSS("table.payment")),
		chromedp.Click(confirmButton),
	)
}

// tickAccounts ticks the offered accounts whose position pick accepts and
// confirms; ticked gets their values (the accounts' resource ids).
func tickAccounts(pick func(i int) bool, ticked *[]string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		nodes, err := chromedp.Nodes(accountBoxes)(ctx, t)
		if err != nil {
			return err
		}
		for i, n := range nodes {
			if !pick(i) {
				continue
			}
			if _, err := chromedp.MouseClickNode(n)(ctx, t); err != nil {
				return err
			}
			*ticked = append(*ticked, n.AttributeValue("value"))
		}
		_, err = chromedp.Click(confirmButton)(ctx, t)
		return err
	})
}

// cancelOn waits for an element of the current page and presses Cancel.
func cancelOn[S chromedp.Selectable](wait S) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.WaitVisible(wait), chromedp.Click(cancelButton))
}
