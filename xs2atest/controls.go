package xs2atest

import (
	"net/http"
	"strings"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// What a bank does outside the interface, for tests to trigger: payment
// rights withdrawn, payments changed or cancelled in the bank's own
// channels, SCA exemptions, card accounts left out of the PSD2 channel.

// WithoutCardAccounts runs the bank as one whose card accounts have left
// the PSD2 channel (release 1.19.0): every /v1/card-accounts path answers
// 404 RESOURCE_UNKNOWN, as production banks do (docs/interface.md E13).
func WithoutCardAccounts() Option { return func(c *config) { c.noCardAccounts = true } }

// cardAccountsOff answers a card account request of a bank run
// WithoutCardAccounts, and reports whether it did.
func (s *Server) cardAccountsOff(w http.ResponseWriter, r *http.Request) bool {
	if !s.cfg.noCardAccounts || (r.URL.Path != "/v1/card-accounts" && !strings.HasPrefix(r.URL.Path, "/v1/card-accounts/")) {
		return false
	}
	writeError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", "", "card accounts are not offered in the PSD2 channel")
	return true
}

// WithdrawPaymentRights withdraws the right to pay from the account or card
// account resourceID, as a bank may while the account stays listed and
// readable for account information (docs/interface.md SCA6): a payment
// naming it as debtorAccount, or an SCA that picks it, gets 403
// SERVICE_BLOCKED. RestorePaymentRights undoes it. False for no such
// account.
func (s *Server) WithdrawPaymentRights(resourceID string) bool {
	return s.bank.WithdrawPaymentRights(resourceID, true)
}

// RestorePaymentRights gives back the right WithdrawPaymentRights took.
func (s *Server) RestorePaymentRights(resourceID string) bool {
	return s.bank.WithdrawPaymentRights(resourceID, false)
}

// CancelPaymentElsewhere cancels a payment as the PSU would in the bank's
// own channels (online bank, app): its status becomes CANC under the same
// paymentId, which the TPP learns only by reading it (release 1.18.0:
// payment ids survive changes in other channels). False when there is no
// such payment or its status is final.
func (s *Server) CancelPaymentElsewhere(paymentID string) bool {
	return s.bank.CancelElsewhere(paymentID) == nil
}

// ChangePaymentElsewhere changes the instructed amount of a single or
// periodic payment (amount as "100.26") as the PSU would in the bank's own
// channels: the same paymentId and status, and GET of the payment shows the
// new amount. False when there is no such payment, it is a bulk payment, its
// status is final or the amount is not one.
func (s *Server) ChangePaymentElsewhere(paymentID, amount string) bool {
	v, ok := parseAmount(amount, false)
	if !ok || v <= 0 {
		return false
	}
	return s.bank.ChangeElsewhere(paymentID, v, formatAmount(v)) == nil
}

// PaymentSCA is what the bank asks of a payment at its initiation
// (Server.SetPaymentSCA; docs/interface.md PS1, SCA1).
type PaymentSCA int

const (
	// PaymentSCAStart: the initiation answer has a startAuthorisation link
	// (the default, as production answers).
	PaymentSCAStart PaymentSCA = iota
	// PaymentSCAExempt: the bank exempts the payment from SCA. The answer
	// has no startAuthorisation and the payment is already accepted (ACTC).
	// Only a payment with a PSU-ID and a debtorAccount, for one signer, can
	// be exempted; any other gets the default answer.
	PaymentSCAExempt
	// PaymentSCARedirect: SCA is due at once. The answer carries a
	// scaRedirect (and scaStatus) link of an authorisation the bank started
	// itself, and no startAuthorisation.
	PaymentSCARedirect
)

// SetPaymentSCA makes the bank answer the payment initiations that follow
// with mode, until it is set again.
func (s *Server) SetPaymentSCA(mode PaymentSCA) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paymentSCA = mode
}

// initiationLinks are the _links of an initiation answer under the mode of
// SetPaymentSCA; an exemption signs p (which is updated).
func (s *Server) initiationLinks(r *http.Request, p *bank.Payment) map[string]link {
	s.mu.Lock()
	mode := s.paymentSCA
	s.mu.Unlock()
	links := paymentLinks(p)
	switch mode {
	case PaymentSCAExempt:
		if s.bank.Exempt(p.ID) {
			if q, ok := s.bank.Payment(p.ID); ok {
				*p = q
			}
			delete(links, "startAuthorisation")
			links["self"] = link{Href: paymentPath(p), Verbs: []string{"GET"}}
		}
	case PaymentSCARedirect:
		var a bank.Authorisation
		href, e := s.startSCAOf(r, func() (*scaRecord, *bank.Error) {
			var e *bank.Error
			a, e = s.bank.StartAuthorisation(p.ID)
			return &scaRecord{kind: scaPayment, paymentID: p.ID, authID: a.ID}, e
		})
		if e == nil {
			delete(links, "startAuthorisation")
			links["scaRedirect"] = link{Href: href, Verbs: []string{"GET"}}
			links["scaStatus"] = link{Href: paymentPath(p) + "/authorisations/" + pathSeg(a.ID), Verbs: []string{"GET"}}
		}
	}
	return links
}
