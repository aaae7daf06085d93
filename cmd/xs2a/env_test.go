package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest"
)

// vars is an environment for runCmd.
func vars(m map[string]string) func(*env) {
	return func(e *env) { e.getenv = func(k string) string { return m[k] } }
}

// TestEnvironmentCertificate: XS2A_P12 (with XS2A_P12_PASSWORD), or
// XS2A_CERT with XS2A_KEY, give the certificate; a certificate on the
// command line wins whole (never mixed with one from the environment); a
// mistake names the variables.
func TestEnvironmentCertificate(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	down := closedURL(t)
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"XS2A_P12 and its password", map[string]string{"XS2A_P12": c.p12, "XS2A_P12_PASSWORD": p12Password}, []string{"doctor"}, 0, "key matches the certificate", ""},
		{"-p12-password wins", map[string]string{"XS2A_P12": c.p12, "XS2A_P12_PASSWORD": "nope"}, []string{"doctor", "-p12-password", p12Password}, 0, "key matches", ""},
		{"XS2A_P12_PASSWORD wrong", map[string]string{"XS2A_P12": c.p12, "XS2A_P12_PASSWORD": "nope"}, []string{"doctor"}, 1, "", "wrong password"},
		{"XS2A_CERT and XS2A_KEY", map[string]string{"XS2A_CERT": c.cert, "XS2A_KEY": c.key}, []string{"doctor"}, 0, "key matches", ""},
		{"-cert and -key win over XS2A_P12", map[string]string{"XS2A_P12": c.p12}, []string{"doctor", "-cert", c.cert, "-key", c.key}, 0, "key matches", ""},
		{"-p12 wins over XS2A_CERT", map[string]string{"XS2A_CERT": c.cert, "XS2A_P12_PASSWORD": p12Password}, []string{"doctor", "-p12", c.p12}, 0, "key matches", ""},
		{"-cert alone is not completed by XS2A_KEY", map[string]string{"XS2A_KEY": c.key}, []string{"doctor", "-cert", c.cert}, 2, "", "doctor: -cert and -key go together"},
		{"both in the environment", map[string]string{"XS2A_P12": c.p12, "XS2A_CERT": c.cert, "XS2A_KEY": c.key}, []string{"doctor"}, 2, "", "doctor: give XS2A_P12, or XS2A_CERT and XS2A_KEY, not both"},
		{"XS2A_CERT without XS2A_KEY", map[string]string{"XS2A_CERT": c.cert}, []string{"doctor"}, 2, "", "doctor: XS2A_CERT and -key go together"},
		{"certificate without a bank", map[string]string{"XS2A_P12": c.p12}, []string{"accounts"}, 2, "", "accounts: XS2A_P12 need -base-url"},
		{"bank without a certificate", map[string]string{"XS2A_BASE_URL": down}, []string{"accounts"}, 2, "", "accounts: XS2A_BASE_URL needs the TPP's certificate"},
		{"-base-url empty wins: the embedded fake bank", map[string]string{"XS2A_BASE_URL": down}, []string{"accounts", "-base-url", ""}, 0, "Brukskonto", ""},
		{"XS2A_BASE_URL for doctor's clock", map[string]string{"XS2A_BASE_URL": down, "XS2A_CERT": c.cert, "XS2A_KEY": c.key}, []string{"doctor"}, 1, "the bank does not answer", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCmd(t, vars(tc.vars), tc.args...)
			require.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}

// TestEnvironmentSign: sign takes the certificate from the environment
// instead of making a test one.
func TestEnvironmentSign(t *testing.T) {
	t.Parallel()
	c := ecCerts(t)
	args := []string{"sign", "-url", "https://bank.example/api/v1/accounts"}
	code, _, stderr := runCmd(t, vars(map[string]string{"XS2A_CERT": c.cert, "XS2A_KEY": c.key}), args...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "new test certificate")
	code, _, stderr = runCmd(t, nil, args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "new test certificate")
}

// uuidPattern finds the psu-id the command prints.
var uuidPattern = regexp.MustCompile(`psu-id ([0-9a-f-]{36})[^:]*: reuse with -psu-id ([0-9a-f-]{36}) -session-id (\S+) \(within the SCA's hour\) or -psu-id ([0-9a-f-]{36}) -psu-ip ""`)

// TestEnvironmentBankAndPSUID: XS2A_BASE_URL, XS2A_CERT, XS2A_KEY and
// XS2A_REDIRECT_URI call a bank that lasts; the psu-id and session id the
// first run prints, given back as XS2A_PSU_ID and XS2A_SESSION_ID, read
// the accounts again without SCA; so does -psu-id with -psu-ip "".
func TestEnvironmentBankAndPSUID(t *testing.T) {
	t.Parallel()
	srv := xs2atest.NewServer(t)
	c := ecCerts(t)
	scas := 0
	bank := map[string]string{"XS2A_BASE_URL": srv.URL(), "XS2A_CERT": c.cert, "XS2A_KEY": c.key, "XS2A_REDIRECT_URI": "http://127.0.0.1:0/callback"}
	setup := func(m map[string]string) func(*env) {
		return func(e *env) {
			vars(m)(e)
			play := playSCA(t, srv)
			e.open = func(href string) error {
				scas++
				return play(href)
			}
		}
	}
	code, stdout, stderr := runCmd(t, setup(bank), "accounts", "-open", "-json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 1, scas)
	assert.Contains(t, stderr, "waiting for the bank's redirect to http://127.0.0.1:", "XS2A_REDIRECT_URI, not the default port 8642")
	assert.Equal(t, byte('['), stdout[0], "standard output is the JSON alone")
	m := uuidPattern.FindStringSubmatch(stderr)
	require.NotNil(t, m, "the psu-id is printed: %s", stderr)
	assert.Equal(t, m[1], m[2])
	assert.Equal(t, m[1], m[4])
	assert.NotContains(t, stderr, "forgets it", "a bank that lasts")

	again := map[string]string{"XS2A_PSU_ID": m[1], "XS2A_SESSION_ID": m[3]}
	for k, v := range bank {
		again[k] = v
	}
	code, stdout, stderr = runCmd(t, setup(again), "accounts", "-open")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Brukskonto")
	assert.Equal(t, 1, scas, "XS2A_PSU_ID: no second SCA")
	assert.NotContains(t, stderr, "psu-id", "no SCA, no new psu-id")

	code, stdout, stderr = runCmd(t, setup(bank), "balances", "-open", "-psu-id", m[1], "-psu-ip", "")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "closingBooked")
	assert.Equal(t, 1, scas, "-psu-id, customer absent: no second SCA")

	code, _, stderr = runCmd(t, setup(bank), "balances", "-open", "-psu-id", m[1])
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 2, scas, "-psu-id in a new session: the bank asks for SCA again")
}

// TestPSUIDEmbedded: against the embedded fake bank the psu-id is printed
// on standard error too, saying it does not outlive the run; -json output
// stays clean.
func TestPSUIDEmbedded(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"accounts", "-json"}, {"balances", "-json"}, {"transactions", "-json"}, {"pay", "-json"}} {
		code, stdout, stderr := runCmd(t, nil, args...)
		require.Equal(t, 0, code, stderr)
		assert.Regexp(t, uuidPattern, stderr, "%q", args)
		assert.Contains(t, stderr, "the embedded fake bank forgets it at exit")
		assert.NotContains(t, stdout, "psu-id")
		assert.Contains(t, "[{", stdout[:1], "%q: JSON alone on standard output", args)
	}
}
