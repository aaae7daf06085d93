package bank

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// unbound initiates a payment of amount NOK from the fixture's debtor
// without a PSU (debtorAccount ref, nil for none) and starts its
// authorisation.
func (f *fixture) unbound(product string, ref *AccountRef, amount int64) (*Payment, *Authorisation) {
	f.t.Helper()
	p, e := f.b.initiate(Initiation{Service: "payments", Product: product, TPP: "tpp", DebtorRef: ref,
		Entries: []*Entry{{Amount: amount, Currency: "NOK", Creditor: "97100000009", ExecDate: DateOf(f.now)}}})
	if e != nil {
		f.t.Fatalf("initiate: %v", e)
	}
	a, e := p.startAuthorisation(f.b.newID)
	if e != nil {
		f.t.Fatalf("startAuthorisation: %v", e)
	}
	return p, a
}

// scaBy is the sign-in of customer at an SCA of the fixture's TPP.
func scaBy(customer, agreement string) SCA {
	return SCA{TPP: "tpp", PSUID: "psu-" + customer, Customer: customer, SessionID: "sess", Agreement: agreement}
}

// wantRefusal fails unless e is the refusal code ("" = none).
func wantRefusal(t *testing.T, e *Error, code string) {
	t.Helper()
	switch {
	case code == "" && e != nil:
		t.Fatalf("refused: %v", e)
	case code != "" && (e == nil || e.Code != code):
		t.Fatalf("got %v, want %s", e, code)
	}
}

// TestBind: a payment initiated without PSU-ID is checked for the PSU who
// signed in as Initiate checks one with a PSU-ID; a refusal rejects it and
// fails the authorisation, one bound since or left RCVD only fails the
// authorisation.
func TestBind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		product    string
		noRef      bool
		amount     int64
		customer   string
		prepare    func(*Payment)
		code       string
		wantDebtor bool   // the debtor is the fixture's account
		status     string // of the payment afterwards
		auth       string // of the authorisation afterwards
	}{
		{"the PSU's own account", ProductDomestic, false, 100, PrivateCustomer1, nil, "", true, "RCVD", "started"},
		{"no debtorAccount: the PSU picks one", ProductDomestic, true, 100, PrivateCustomer1, nil, "", false, "RCVD", "started"},
		{"another customer's account", ProductDomestic, false, 100, PrivateCustomer2, nil, "FORMAT_ERROR", false, "RJCT", "failed"},
		{"an instant payment the account cannot pay", ProductInstant, false, 1 << 50, PrivateCustomer1, nil, "FUNDS_NOT_AVAILABLE", false, "RJCT", "failed"},
		{"bound by another PSU since", ProductDomestic, false, 100, PrivateCustomer1,
			func(p *Payment) { p.Customer = PrivateCustomer2 }, "SCA_INVALID", false, "RCVD", "failed"},
		{"cancelled since", ProductDomestic, false, 100, PrivateCustomer1,
			func(p *Payment) { p.Status = "CANC" }, "SCA_INVALID", false, "CANC", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ref := &AccountRef{BBAN: f.payer.BBAN}
			if tt.noRef {
				ref = nil
			}
			p, a := f.unbound(tt.product, ref, tt.amount)
			if tt.prepare != nil {
				tt.prepare(p)
			}
			debtor, e := f.b.Bind(scaBy(tt.customer, ""), p.ID, a.ID)
			wantRefusal(t, e, tt.code)
			if got := debtor == f.payer.ID; got != tt.wantDebtor || (!tt.wantDebtor && debtor != "") {
				t.Errorf("debtor %q, want the payer's: %v", debtor, tt.wantDebtor)
			}
			if p.Status != tt.status || a.Status != tt.auth {
				t.Errorf("payment %s, authorisation %s; want %s, %s", p.Status, a.Status, tt.status, tt.auth)
			}
			if tt.code == "FUNDS_NOT_AVAILABLE" && (p.Funds == nil || *p.Funds) {
				t.Errorf("fundsAvailable %v, want false", p.Funds)
			}
		})
	}
}

// TestMaySign: a payment waiting for a signer may be signed by its PSU, or
// by a member of its agreement; an unbound one by anyone (Bind checks it).
func TestMaySign(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		prepare  func(f *fixture, p *Payment)
		customer string
		code     string
	}{
		{"its own PSU", nil, PrivateCustomer1, ""},
		{"another customer", nil, PrivateCustomer2, "PSU_CREDENTIALS_INVALID"},
		{"signed by one of two", func(_ *fixture, p *Payment) { p.Status = "PATC" }, PrivateCustomer1, ""},
		{"booked already", func(_ *fixture, p *Payment) { p.Status = "ACSC" }, PrivateCustomer1, "STATUS_INVALID"},
		{"not bound yet", func(_ *fixture, p *Payment) { p.Customer = "" }, PrivateCustomer2, ""},
		{"a member of its agreement", corporate, PrivateCustomer2, ""},
		{"not a member of its agreement", corporate, CorporateCustomer2, "PSU_CREDENTIALS_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			p := f.pay("payments", ProductDomestic, f.payer, 100, DateOf(f.now), 1)
			if tt.prepare != nil {
				tt.prepare(f, p)
			}
			wantRefusal(t, f.b.MaySign([]string{p.ID}, tt.customer), tt.code)
		})
	}
}

// corporate puts p under a new agreement of two signers, PrivateCustomer1
// and PrivateCustomer2.
func corporate(f *fixture, p *Payment) {
	ag := f.twoSigners()
	p.Agreement, p.SignersRequired = ag.ID, ag.SignersRequired
}

func (f *fixture) twoSigners() *Agreement {
	return f.b.addAgreement(PrivateCustomer1, "Two signers", []string{f.payer.ID}, 2,
		[]string{PrivateCustomer1, PrivateCustomer2})
}

// TestCompleteConsent: the consent holds exactly the ticked accounts, all
// offered in the context; the PSU is registered with a session. One not
// offered changes nothing.
func TestCompleteConsent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ticked func(f *fixture) []string
		code   string
	}{
		{"none ticked: a consent without accounts", func(*fixture) []string { return nil }, ""},
		{"the offered accounts", func(f *fixture) []string {
			return f.b.contextAccounts(PrivateCustomer1, nil)[:2]
		}, ""},
		{"another customer's account", func(f *fixture) []string {
			return f.b.contextAccounts(PrivateCustomer2, nil)[:1]
		}, "FORMAT_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ticked := tt.ticked(f)
			sca := scaBy(PrivateCustomer1, "")
			wantRefusal(t, f.b.CompleteConsent(sca, ticked), tt.code)
			c := f.b.consents[ConsentKey{TPP: "tpp", Customer: PrivateCustomer1}]
			registered := f.b.psus[sca.PSUID] != nil && f.b.sessionValid(SessionKey{TPP: "tpp", Customer: PrivateCustomer1}, "sess")
			if tt.code != "" {
				if c != nil || registered {
					t.Fatalf("refused consent changed the bank: consent %v, registered %v", c, registered)
				}
				return
			}
			if c == nil || !registered {
				t.Fatalf("consent %v, registered %v", c, registered)
			}
			got := slices.Sorted(maps.Keys(c.Accounts))
			if want := slices.Sorted(slices.Values(ticked)); !slices.Equal(got, want) {
				t.Errorf("consent accounts %v, want %v", got, want)
			}
		})
	}
}

// TestCompletePayment: the authorisation is finalised and the payment
// signed by the PSU; a bind gives an unbound payment its PSU, context and
// debtor; one bound since is refused and only its authorisation fails.
func TestCompletePayment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		corporate bool
		boundBy   string // bound by this PSU since the sign-in
		code      string
		status    string
		auth      string
	}{
		{"bind and sign", false, "", "", "PDNG", "finalised"},
		{"bind in a context of two signers", true, "", "", "PATC", "finalised"},
		{"bound by another PSU since", false, PrivateCustomer2, "SCA_INVALID", "RCVD", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			p, a := f.unbound(ProductDomestic, nil, 100)
			sca := scaBy(PrivateCustomer1, "")
			if tt.corporate {
				sca.Agreement = f.twoSigners().ID
			}
			p.Customer = tt.boundBy
			wantRefusal(t, f.b.CompletePayment(sca, p.ID, a.ID, true, f.payer.ID), tt.code)
			if p.Status != tt.status || a.Status != tt.auth {
				t.Errorf("payment %s, authorisation %s; want %s, %s", p.Status, a.Status, tt.status, tt.auth)
			}
			if tt.code != "" {
				if f.b.psus[sca.PSUID] != nil || p.Debtor != "" {
					t.Errorf("refused SCA changed the bank: PSU %v, debtor %q", f.b.psus[sca.PSUID], p.Debtor)
				}
				return
			}
			if p.Customer != PrivateCustomer1 || p.Agreement != sca.Agreement || p.Debtor != f.payer.ID {
				t.Errorf("bound to %q/%q from %q", p.Customer, p.Agreement, p.Debtor)
			}
		})
	}
}

// TestCompleteBasket: every payment of the basket is signed, the basket
// authorised.
func TestCompleteBasket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p1 := f.pay("payments", ProductDomestic, f.payer, 100, DateOf(f.now), 1)
	p2 := f.pay("payments", ProductDomestic, f.payer, 200, DateOf(f.now), 1)
	bk, e := f.b.newBasket("tpp", []string{p1.ID, p2.ID})
	if e != nil {
		t.Fatal(e)
	}
	if e := bk.startAuthorisation(f.b.newID); e != nil {
		t.Fatal(e)
	}
	f.b.CompleteBasket(scaBy(PrivateCustomer1, ""), bk.ID)
	if p1.Status != "PDNG" || p2.Status != "PDNG" || bk.Status != "ACTC" || bk.SCAStatus != "finalised" {
		t.Errorf("payments %s %s, basket %s %s", p1.Status, p2.Status, bk.Status, bk.SCAStatus)
	}
}

// TestRegisterSession: a completed SCA opens the session of its
// TPP-Session-ID and ends an older one; an SCA without a TPP-Session-ID (a
// payment's, say) leaves a valid session of another id as it is, and opens
// its own only when none is valid.
func TestRegisterSession(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		before    string        // TPP-Session-ID of a session opened first; "-" none
		age       time.Duration // of that session when the second SCA completes
		second    string        // TPP-Session-ID of the second SCA
		valid     []string      // session ids valid afterwards
		notValid  []string
		sameHours bool // the session keeps the expiry of the first SCA
	}{
		{"a new id ends the old one", "A", time.Minute, "B", []string{"B"}, []string{"A", ""}, false},
		{"no id keeps a valid session", "A", time.Minute, "", []string{"A"}, []string{""}, true},
		{"no id after the hour opens its own", "A", time.Hour, "", []string{""}, []string{"A"}, false},
		{"no id and no session opens its own", "-", 0, "", []string{""}, []string{"A"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			k := SessionKey{TPP: "tpp", Customer: PrivateCustomer1}
			if tt.before != "-" {
				s := scaBy(PrivateCustomer1, "")
				s.SessionID = tt.before
				f.b.CompleteUser(s)
			}
			f.now = f.now.Add(tt.age)
			s := scaBy(PrivateCustomer1, "")
			s.SessionID = tt.second
			f.b.CompleteUser(s)
			for _, id := range tt.valid {
				if !f.b.SessionValid(k, id) {
					t.Errorf("session %q not valid", id)
				}
			}
			for _, id := range tt.notValid {
				if f.b.SessionValid(k, id) {
					t.Errorf("session %q valid", id)
				}
			}
			if tt.sameHours && !f.b.sessions[k].Expires.Equal(wed10.Add(SessionValidity)) {
				t.Errorf("the kept session expires at %s", f.b.sessions[k].Expires)
			}
		})
	}
}
