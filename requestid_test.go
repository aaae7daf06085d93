package xs2a_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestRequestIDOf: every error of a call that made its request names the
// X-Request-ID the bank received, however it failed and however the
// service wrapped it; an error raised before a request was made, or not the
// SDK's, names none.
func TestRequestIDOf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t, xs2atest.WithFaults(xs2atest.Fault{Method: "GET", Path: "/v1/card-accounts", Drop: true, Times: 10}))
	psu := b.signIn(t, xs2atest.PrivateCustomer1)
	account := b.account(t, xs2atest.PrivateCustomer1, 0).ResourceID
	noRetry := b.client(t, xs2a.WithRetry(xs2a.RetryPolicy{MaxAttempts: 1}))
	tamper := func(body string) func(*http.Response) {
		return func(r *http.Response) {
			if r.Request.Method == http.MethodGet && bytes.Contains([]byte(r.Request.URL.Path), []byte("/balances")) {
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader([]byte(body))), int64(len(body))
				r.Header.Del("Content-Length")
			}
		}
	}
	for _, c := range []struct {
		name   string
		call   func() error
		target any // the error type expected
		setup  func()
	}{
		{name: "a refusal of the bank", target: new(*xs2a.Error), call: func() error {
			_, _, err := noRetry.Accounts.Balances(ctx, psu, "no-such-account")
			return err
		}},
		{name: "SCA required", target: new(*xs2a.SCARequiredError), call: func() error {
			_, _, err := noRetry.Accounts.List(ctx, xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: psuIP})
			return err
		}},
		{name: "no answer", target: new(*xs2a.TransportError), call: func() error {
			_, _, err := noRetry.CardAccounts.List(ctx, psu)
			return err
		}},
		{name: "an answer that does not decode", setup: func() { b.rec.setTamper(nil, tamper(`{"balances": 5}`)) }, call: func() error {
			_, _, err := noRetry.Accounts.Balances(ctx, psu, account)
			return err
		}},
		{name: "an scaRedirect that is no web address", target: new(*xs2a.SCARedirectError),
			setup: func() { b.rec.setTamper(nil, tamper(`{"_links":{"scaRedirect":{"href":"javascript:alert(1)"}}}`)) },
			call: func() error {
				_, _, err := noRetry.Accounts.Balances(ctx, psu, account)
				return err
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b.rec.setTamper(nil, nil)
			if c.setup != nil {
				c.setup()
			}
			mark := b.rec.len()
			err := c.call()
			b.rec.setTamper(nil, nil)
			require.Error(t, err)
			if c.target != nil {
				require.ErrorAs(t, err, c.target)
			}
			sent := b.rec.since(mark, http.MethodGet, "")
			require.NotEmpty(t, sent)
			id := sent[len(sent)-1].Header.Get("X-Request-ID")
			require.NotEmpty(t, id)
			assert.Equal(t, id, xs2a.RequestIDOf(err))
			assert.Equal(t, id, xs2a.RequestIDOf(errors.Join(errors.New("the caller's wrapping"), err)))
		})
	}

	psu.IPAddress = ""
	for range xs2a.AccessLimit {
		_, _, err := noRetry.Accounts.Balances(ctx, psu, account)
		require.NoError(t, err)
	}
	_, _, err := noRetry.Accounts.Balances(ctx, psu, account)
	require.ErrorAs(t, err, new(*xs2a.AccessExceededError))
	assert.Empty(t, xs2a.RequestIDOf(err), "refused before a request was made")
	_, _, err = noRetry.Accounts.Balances(ctx, psu, "a/../b")
	assert.Empty(t, xs2a.RequestIDOf(err), "refused before a request was made")
	assert.Empty(t, xs2a.RequestIDOf(io.EOF))
	assert.Empty(t, xs2a.RequestIDOf(nil))
}

// TestSCARequiredConsentCodes: an SCA the bank asks for because the consent
// expired, is invalid or unknown means re-consent (ErrConsentInvalid), as a
// revoked consent does; one without such a code is SCA required alone.
func TestSCARequiredConsentCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		code string
		want bool
	}{
		{xs2a.CodeConsentExpired, true}, {xs2a.CodeConsentInvalid, true}, {xs2a.CodeConsentUnknown, true},
		{"", false}, {xs2a.CodeTokenExpired, false}, {"consent_expired", false},
	} {
		err := error(&xs2a.SCARequiredError{Messages: []xs2a.TPPMessage{{Code: c.code}}})
		assert.ErrorIs(t, err, xs2a.ErrSCARequired, c.code)
		assert.Equal(t, c.want, errors.Is(err, xs2a.ErrConsentInvalid), c.code)
	}
}
