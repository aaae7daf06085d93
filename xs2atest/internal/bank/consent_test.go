package bank

import (
	"testing"
	"time"
)

// TestCountUsage: without the PSU present, MaxNotPresent requests per
// rolling 24 hours and key; the next is refused with 429 and not counted,
// and the oldest frees a request 24 hours after it was made.
func TestCountUsage(t *testing.T) {
	t.Parallel()
	k := UsageKey{TPP: "tpp", Customer: PrivateCustomer1, Account: "enc!!a", Endpoint: "balances"}
	tests := []struct {
		name  string
		after time.Duration // since the first request
		key   UsageKey
		code  string // "" = counted
	}{
		{"1st", 0, k, ""},
		{"2nd", time.Hour, k, ""},
		{"3rd", 2 * time.Hour, k, ""},
		{"4th", 3 * time.Hour, k, ""},
		{"5th within 24 hours", 23 * time.Hour, k, "ACCESS_EXCEEDED"},
		{"another endpoint counts alone", 23 * time.Hour, UsageKey{TPP: "tpp", Customer: PrivateCustomer1, Account: "enc!!a", Endpoint: "transactions"}, ""},
		{"24 hours after the 1st", 24 * time.Hour, k, ""},
		{"the 2nd is not 24 hours old yet", 24*time.Hour + 59*time.Minute, k, "ACCESS_EXCEEDED"},
	}
	f := newFixture(t)
	start := f.now
	for _, tt := range tests { // in order: each step builds on the ones before
		t.Run(tt.name, func(t *testing.T) {
			f.now = start.Add(tt.after)
			e := f.b.countUsage(tt.key)
			switch {
			case tt.code == "" && e != nil:
				t.Fatalf("refused: %v", e)
			case tt.code != "" && (e == nil || e.Code != tt.code || e.Status != 429):
				t.Fatalf("got %v, want 429 %s", e, tt.code)
			}
		})
	}
}

func TestSessionValid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	k := SessionKey{TPP: "tpp", Customer: PrivateCustomer1}
	f.b.sessions[k] = &Session{ID: "s1", Expires: f.now.Add(SessionValidity)}
	tests := []struct {
		name   string
		after  time.Duration
		id     string
		expire bool
		want   bool
	}{
		{"its session id within the hour", 59 * time.Minute, "s1", false, true},
		{"another session id", 0, "s2", false, false},
		{"after its hour", SessionValidity, "s1", false, false},
		{"expired at the bank", 0, "s1", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(1, func() time.Time { return f.now.Add(tt.after) })
			b.sessions[k] = f.b.sessions[k]
			if tt.expire {
				b.expireSessions(PrivateCustomer1)
			}
			if got := b.sessionValid(k, tt.id); got != tt.want {
				t.Fatalf("SessionValid = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRevokeConsents: the customer's consents to every TPP are revoked and
// grant nothing; another customer's stay.
func TestRevokeConsents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	grant := func() *Consent { return &Consent{Accounts: map[string]time.Time{"enc!!a": f.now}} }
	mine1, mine2, other := grant(), grant(), grant()
	f.b.consents[ConsentKey{TPP: "t1", Customer: PrivateCustomer1}] = mine1
	f.b.consents[ConsentKey{TPP: "t2", Customer: PrivateCustomer1}] = mine2
	f.b.consents[ConsentKey{TPP: "t1", Customer: PrivateCustomer2}] = other
	f.b.revokeConsents(PrivateCustomer1)
	for name, c := range map[string]*Consent{"first TPP": mine1, "second TPP": mine2} {
		if !c.Revoked || c.Granted() != nil {
			t.Errorf("%s: revoked %v, granted %v", name, c.Revoked, c.Granted())
		}
	}
	if other.Revoked || len(other.Granted()) != 1 {
		t.Errorf("another customer's consent changed: %+v", other)
	}
}
