package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestClientEmbedded: without -base-url every client subcommand runs
// against the embedded fake bank, SCA done for a sandbox customer, and says
// so on standard error.
func TestClientEmbedded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		stdout, stderr []string
	}{
		{[]string{"accounts"}, []string{"ID", "97", "Brukskonto"}, []string{"SCA completed for the sandbox customer Kari Nordmann"}},
		{[]string{"accounts", "-customer", xs2atest.PrivateCustomer2}, []string{"Brukskonto"}, []string{"Ola Nordmann"}},
		{[]string{"balances"}, []string{"closingBooked", "NOK"}, []string{"SCA completed"}},
		{[]string{"transactions", "-status", "booked"}, []string{"DATE", "booked"}, []string{"reading page 2 of transactions", "reading page 3"}},
		{[]string{"transactions", "-status", "pending"}, []string{"pending"}, nil},
		{[]string{"pay", "-amount", "12.50"}, []string{"PAYMENT", "ACSC"}, []string{"SCA completed", "batch ran"}},
		{[]string{"sandbox", "customers"}, []string{"13039319955", "CORPORATE"}, nil},
		{[]string{"sandbox", "init"}, []string{"sandbox initialized"}, nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, nil, tc.args...)
			require.Equal(t, 0, code, stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
		})
	}
}

// TestClientJSON: -json prints what a script can decode.
func TestClientJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd(t, nil, "accounts", "-json")
	require.Equal(t, 0, code, stderr)
	var list []struct{ ResourceID, BBAN string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &list))
	require.Len(t, list, 2)
	assert.Len(t, list[0].BBAN, 11)
}

// TestClientRealBank: with -base-url and a certificate the command listens
// on the redirect URI, shows the scaRedirect (and opens it with -open),
// and goes on once the bank redirects the customer back.
func TestClientRealBank(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	c := ecCerts(t)
	// browser plays the customer: SCA at the bank, then the redirect to
	// the command's callback listener.
	browser := func(e *env) {
		e.getenv = func(k string) string {
			if k == "XS2A_P12_PASSWORD" {
				return p12Password
			}
			return ""
		}
		e.open = playSCA(t, srv)
	}
	common := []string{"-base-url", srv.URL(), "-redirect-uri", "http://127.0.0.1:0/callback", "-open"}
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
	}{
		{"accounts, PEM", append([]string{"accounts", "-cert", c.cert, "-key", c.key}, common...), "Brukskonto"},
		{"balances, PKCS#12", append([]string{"balances", "-p12", c.p12}, common...), "closingBooked"},
		{"pay", append([]string{"pay", "-p12", c.p12, "-p12-password", p12Password, "-to", "97104416113"}, common...), "PAYMENT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, browser, tc.args...)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, srv.URL()+"/sca/", "the scaRedirect is shown")
			assert.Contains(t, stderr, "waiting for the bank's redirect to http://127.0.0.1:")
		})
	}
}

// closedURL is a base URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/api"
}

// TestClientErrors: mistakes on the command line exit 2, a certificate
// that cannot be used or a bank that does not answer exit 1, each with one
// line on standard error that says what is wrong.
func TestClientErrors(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	other := ecCerts(t)
	down := closedURL(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"accounts", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{"help", []string{"balances", "-h"}, 0, ""},
		{"base-url without certificate", []string{"accounts", "-base-url", down}, 2, "-base-url needs the TPP's certificate"},
		{"certificate without base-url", []string{"accounts", "-cert", c.cert, "-key", c.key}, 2, "need -base-url"},
		{"cert without key", []string{"accounts", "-base-url", down, "-cert", c.cert}, 2, "-cert and -key go together"},
		{"p12 and cert", []string{"accounts", "-base-url", down, "-p12", c.p12, "-cert", c.cert, "-key", c.key}, 2, "not both"},
		{"bad booking status", []string{"transactions", "-status", "all of them"}, 2, `-status "all of them"`},
		{"bad date", []string{"transactions", "-from", "2025-13-01"}, 2, "want YYYY-MM-DD"},
		{"unknown customer", []string{"accounts", "-customer", "01010112345"}, 2, "not a sandbox customer"},
		{"unreadable certificate", []string{"accounts", "-base-url", down, "-cert", c.cert + ".missing", "-key", c.key}, 1, "reading certificate"},
		{"wrong password", []string{"accounts", "-base-url", down, "-p12", c.p12, "-p12-password", "nope"}, 1, "wrong password"},
		{"key of another certificate", []string{"accounts", "-base-url", down, "-cert", c.cert, "-key", other.key}, 1, "does not match the certificate"},
		{"bank down", []string{"sandbox", "customers", "-base-url", down, "-cert", c.cert, "-key", c.key}, 1, "connection refused"},
		{"redirect-uri with braces", []string{"accounts", "-base-url", down, "-cert", c.cert, "-key", c.key, "-redirect-uri", "http://127.0.0.1:0/cb{x}"}, 1, "connection refused"},
		{"redirect-uri with a space", []string{"accounts", "-base-url", down, "-cert", c.cert, "-key", c.key, "-redirect-uri", "http://127.0.0.1:0/a%20b"}, 1, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCmd(t, nil, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.stderr)
			assert.LessOrEqual(t, strings.Count(stderr, "\n"), 1, "one line: %q", stderr)
			if tc.code != 0 {
				assert.True(t, strings.HasPrefix(stderr, "xs2a: "), stderr)
			}
		})
	}
}

// playSCA is an env.open that plays the customer's browser: it completes
// the SCA behind href as PrivateCustomer1 at srv and follows the redirect to
// the command's callback listener, in the background.
func playSCA(t *testing.T, srv *xs2atest.Server) func(href string) error {
	return func(href string) error {
		go func() {
			u, err := srv.CompleteSCA(context.Background(), href, xs2atest.PrivateCustomer1)
			if err != nil {
				t.Errorf("SCA: %v", err)
				return
			}
			resp, err := http.Get(u.String())
			if err != nil {
				t.Errorf("callback: %v", err)
				return
			}
			resp.Body.Close()
		}()
		return nil
	}
}
