package browsertest

import (
	"context"
	"sort"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

const psuIP = "192.0.2.44"

// bankAndClient starts a fake bank and an SDK client whose
// TPP-Redirect-URI is tp's callback.
func bankAndClient(t *testing.T, tp *tpp) (*xs2atest.Server, *xs2a.Client) {
	t.Helper()
	bank := xs2atest.NewServer(t)
	c, err := bank.Client(nil, xs2a.WithRedirectURI(tp.redirectURI()))
	require.NoError(t, err)
	return bank, c
}

// scaRedirect asks for the PSU's accounts, which the bank answers with an
// SCA, and returns the scaRedirect link.
func scaRedirect(t *testing.T, c *xs2a.Client, psu xs2a.PSU) string {
	t.Helper()
	_, _, err := c.Accounts.List(context.Background(), psu)
	var sca *xs2a.SCARequiredError
	require.ErrorAs(t, err, &sca)
	require.NotNil(t, sca.Redirect)
	return sca.Redirect.Href
}

func TestSCAInBrowser(t *testing.T) {
	browser := startBrowser(t)
	no := false
	first := func(i int) bool { return i == 0 }
	all := func(int) bool { return true }
	tests := []struct {
		name              string
		customer          string
		redirectPreferred *bool  // false: the app-biometrics variant
		wrongID           string // typed first: the page must say so and let the person retry
		enter             bool   // sign in with the Enter key instead of the button
		context           string // prefix of the context to click
		nth               int    // which of the contexts with that prefix
		pick              func(i int) bool
		wantContext       xs2a.PSUContext
	}{
		{name: "private, one account of three", customer: xs2atest.PrivateCustomer1,
			context: "PRIVATE", pick: first, wantContext: xs2a.ContextPrivate},
		{name: "unknown national id, then the right one, with Enter", customer: xs2atest.PrivateCustomer2,
			wrongID: "01010112345", enter: true,
			context: "PRIVATE", pick: all, wantContext: xs2a.ContextPrivate},
		{name: "corporate, the second agreement", customer: xs2atest.CorporateCustomer2,
			context: "CORPORATE:", nth: 1, pick: all, wantContext: xs2a.ContextCorporate},
		{name: "app biometrics", customer: xs2atest.PrivateCustomer1, redirectPreferred: &no,
			context: "PRIVATE", pick: all, wantContext: xs2a.ContextPrivate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTPP(t)
			_, c := bankAndClient(t, tp)
			psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP, RedirectPreferred: tc.redirectPreferred}
			href := scaRedirect(t, c, psu)

			tab := newTab(t, browser)
			steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(href)}
			signInStep := signIn
			if tc.enter {
				signInStep = signInWithEnter
			}
			if tc.wrongID != "" {
				steps = append(steps, signInStep(tc.wrongID), chromedp.WaitVisible(chromedp.ID("error")))
			}
			steps = append(steps, signInStep(tc.customer))
			if tc.redirectPreferred != nil && !*tc.redirectPreferred {
				steps = append(steps, confirmInApp())
			}
			var chosen string
			var ticked []string
			steps = append(steps, chooseContext(tc.context, tc.nth, &chosen), tickAccounts(tc.pick, &ticked))
			require.NoError(t, chromedp.Do(tab, steps...))
			q, err := tp.wait(tab)
			require.NoError(t, err)

			assert.Equal(t, "42", q.Get("order"), "the TPP's own parameter is kept")
			cb, err := xs2a.ParseCallback(q)
			require.NoError(t, err)
			assert.Equal(t, psu.SessionID, cb.TPPSessionID)
			assert.Equal(t, tc.wantContext, cb.Context)
			assert.Equal(t, tc.wantContext == xs2a.ContextCorporate, cb.PSUCorporateID != "")
			require.NotEmpty(t, ticked)
			checkConsent(t, c, cb.PSU(psuIP), chosen, ticked)
		})
	}
}

// checkConsent checks with the SDK that the consent holds what the person
// chose in the browser: the context (for a corporate one, the agreement of
// the psu-corporate-id) and exactly the ticked accounts.
func checkConsent(t *testing.T, c *xs2a.Client, psu xs2a.PSU, chosen string, ticked []string) {
	t.Helper()
	ctx := context.Background()
	if psu.CorporateID != "" {
		ags, _, err := c.Users.Agreements(ctx, xs2a.PSU{ID: psu.ID})
		require.NoError(t, err)
		var ids []string
		for _, ag := range ags {
			ids = append(ids, ag.ID)
		}
		require.Len(t, ids, 2, "the sandbox customer has two agreements")
		assert.Equal(t, ids[1], psu.CorporateID, "the callback names the agreement clicked (%s)", chosen)
	}
	accts, _, err := c.Accounts.List(ctx, psu)
	require.NoError(t, err)
	var got []string
	for _, a := range accts {
		got = append(got, a.ResourceID)
	}
	cards, _, err := c.CardAccounts.List(ctx, psu)
	require.NoError(t, err)
	for _, a := range cards {
		got = append(got, a.ResourceID)
	}
	sort.Strings(got)
	want := append([]string(nil), ticked...)
	sort.Strings(want)
	assert.Equal(t, want, got, "the SDK reads exactly the accounts ticked in the browser")
}

func TestSCACancelInBrowser(t *testing.T) {
	browser := startBrowser(t)
	tests := []struct {
		name  string
		steps func() []chromedp.Action[chromedp.Void]
	}{
		// half an id fails the field's pattern: Cancel must not be held back by it
		{name: "on the sign-in page, half an id typed", steps: func() []chromedp.Action[chromedp.Void] {
			return []chromedp.Action[chromedp.Void]{chromedp.SendKeys(nationalIDField, "130393"), cancelOn(nationalIDField)}
		}},
		{name: "on the accounts page", steps: func() []chromedp.Action[chromedp.Void] {
			var chosen string
			return []chromedp.Action[chromedp.Void]{signIn(xs2atest.PrivateCustomer1), chooseContext("PRIVATE", 0, &chosen),
				cancelOn(accountBoxes)}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTPP(t)
			_, c := bankAndClient(t, tp)
			psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP}
			href := scaRedirect(t, c, psu)

			tab := newTab(t, browser)
			steps := append([]chromedp.Action[chromedp.Void]{chromedp.Navigate(href)}, tc.steps()...)
			require.NoError(t, chromedp.Do(tab, steps...))
			q, err := tp.wait(tab)
			require.NoError(t, err)

			assert.Empty(t, q.Get("psu-id"))
			assert.Equal(t, "42", q.Get("order"))
			_, err = xs2a.ParseCallback(q)
			var failure *xs2a.SCAFailedError
			require.ErrorAs(t, err, &failure)
			assert.Equal(t, 401, failure.Status)
			assert.Equal(t, "SCA_INVALID", failure.Code)
			assert.Contains(t, failure.Message, "cancelled")

			// no consent came of it: the same call asks for SCA again
			scaRedirect(t, c, psu)
		})
	}
}
