package xs2atest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// TestSCAPageOfAPaymentGone: a sandbox reset between an authorisation and
// the PSU's sign-in (the SCA link kept from before it) ends in an answer,
// not a handler panic. startAuthorisation registers the SCA under the lock
// Initialize takes, so this interleaving is built here by hand.
func TestSCAPageOfAPaymentGone(t *testing.T) {
	s := NewServer(t)
	c, _ := s.bank.Customer(PrivateCustomer1)
	a, _ := s.bank.Account(c.Accounts[0])
	p, e := s.bank.Initiate(bank.Initiation{Service: "payments", Product: ProductDomestic, TPP: "tpp",
		Customer: PrivateCustomer1, DebtorRef: &bank.AccountRef{BBAN: a.BBAN},
		Entries: []*bank.Entry{{Amount: 100, Currency: "NOK", Creditor: "97100000009", CreditorName: "X"}}})
	require.Nil(t, e)
	auth, e := s.bank.StartAuthorisation(p.ID)
	require.Nil(t, e)
	s.Initialize()
	s.mu.Lock()
	s.scas["tok"] = &scaRecord{token: "tok", kind: scaPayment, paymentID: p.ID, authID: auth.ID, tpp: "tpp",
		redirectURI: "https://tpp.example/cb", stage: stageLogin, created: s.now()}
	s.mu.Unlock()

	form := url.Values{"step": {stageLogin}, "nationalId": {PrivateCustomer1}, "action": {"next"}}
	hc := s.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Post(s.URL()+"/sca/tok", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.NoError(t, err, "the SCA page must answer")
	resp.Body.Close()
	assert.Less(t, resp.StatusCode, http.StatusInternalServerError)
}
