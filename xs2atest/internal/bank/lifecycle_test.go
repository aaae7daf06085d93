package bank

import (
	"testing"
	"time"
)

// wed10 is a Wednesday, 10:00 in Oslo: a banking day, after the 09:00 batch.
var wed10 = time.Date(2025, 3, 12, 10, 0, 0, 0, Oslo)

// fixture is a freshly seeded bank on a clock the test moves, with a
// private customer's current account as debtor.
type fixture struct {
	t     *testing.T
	b     *Bank
	now   time.Time
	payer *Account
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, now: wed10}
	f.b = New(1, func() time.Time { return f.now })
	f.payer = f.b.accounts[f.b.customers[PrivateCustomer1].Accounts[0]]
	return f
}

// pay initiates a payment of amount NOK (minor units) from the debtor to
// creditorBBAN, bound to the debtor's owner.
func (f *fixture) pay(svc, product string, debtor *Account, amount int64, exec time.Time, entries int) *Payment {
	f.t.Helper()
	in := Initiation{Service: svc, Product: product, TPP: "tpp", Customer: debtor.Owner,
		DebtorRef: &AccountRef{BBAN: debtor.BBAN}}
	for range entries {
		in.Entries = append(in.Entries, &Entry{Amount: amount, Currency: "NOK", Creditor: "97100000009", ExecDate: exec})
	}
	p, e := f.b.initiate(in)
	if e != nil {
		f.t.Fatalf("Initiate: %v", e)
	}
	return p
}

func TestSignPaymentStatus(t *testing.T) {
	t.Parallel()
	today := DateOf(wed10)
	tests := []struct {
		name       string
		product    string
		signers    int
		signs      []string
		exec       time.Time
		wantStatus string
		wantDate   time.Time // zero: unchanged
	}{
		{"one signer approves: pending until executed", ProductDomestic, 1, []string{"a"}, today, "PDNG", time.Time{}},
		{"first of two signers", ProductDomestic, 2, []string{"a"}, today, "PATC", time.Time{}},
		{"the same signer twice counts once", ProductDomestic, 2, []string{"a", "a"}, today, "PATC", time.Time{}},
		{"second of two signers", ProductDomestic, 2, []string{"a", "b"}, today, "PDNG", time.Time{}},
		{"a past date moves to the next banking day", ProductDomestic, 1, []string{"a"}, today.AddDate(0, 0, -1), "ACWC", today},
		{"a Saturday moves to Monday", ProductDomestic, 1, []string{"a"}, today.AddDate(0, 0, 3), "ACWC", today.AddDate(0, 0, 5)},
		{"an instant payment of today is booked at once", ProductInstant, 1, []string{"a"}, today, "ACSC", time.Time{}},
		{"an instant payment keeps a Saturday", ProductInstant, 1, []string{"a"}, today.AddDate(0, 0, 3), "PDNG", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			p := f.pay("payments", tt.product, f.payer, 10000, tt.exec, 1)
			p.SignersRequired = tt.signers
			for _, c := range tt.signs {
				f.b.signPayment(p, c)
			}
			if p.Status != tt.wantStatus {
				t.Errorf("status %s, want %s", p.Status, tt.wantStatus)
			}
			if !tt.wantDate.IsZero() && (!p.ExecDate.Equal(tt.wantDate) || !p.DateMoved) {
				t.Errorf("execution date %s (moved %v), want %s", FormatDate(p.ExecDate), p.DateMoved, FormatDate(tt.wantDate))
			}
			if tt.wantDate.IsZero() && p.DateMoved {
				t.Errorf("execution date moved to %s", FormatDate(p.ExecDate))
			}
		})
	}
}

func TestRunBatch(t *testing.T) {
	t.Parallel()
	today := DateOf(wed10)
	tests := []struct {
		name      string
		svc       string
		amount    int64 // per entry; the debtor holds 25345.12 NOK
		entries   int
		exec      time.Time
		wantSt    string
		wantFunds string // "", "true", "false"
		wantDebit int64
	}{
		{"due and funded: booked", "payments", 10000, 1, today, "ACSC", "true", 10000},
		{"due, no funds: waits as ACCP", "payments", 3000000, 1, today, "ACCP", "false", 0},
		{"not due yet: untouched", "payments", 10000, 1, today.AddDate(0, 0, 1), "PDNG", "", 0},
		{"bulk, funded as a whole: every entry booked", "bulk-payments", 1000000, 2, today, "ACSC", "true", 2000000},
		{"bulk, one entry too many: nothing booked", "bulk-payments", 1000000, 3, today, "ACCP", "false", 0},
		{"periodic payments are not processed", "periodic-payments", 10000, 1, today, "PDNG", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			p := f.pay(tt.svc, ProductDomestic, f.payer, tt.amount, tt.exec, tt.entries)
			f.b.signPayment(p, f.payer.Owner)
			before := f.payer.Balance
			f.b.runBatch(f.now)
			if p.Status != tt.wantSt {
				t.Errorf("status %s, want %s", p.Status, tt.wantSt)
			}
			funds := ""
			if p.Funds != nil {
				funds = map[bool]string{true: "true", false: "false"}[*p.Funds]
			}
			if funds != tt.wantFunds {
				t.Errorf("fundsAvailable %q, want %q", funds, tt.wantFunds)
			}
			if got := before - f.payer.Balance; got != tt.wantDebit {
				t.Errorf("debited %d, want %d", got, tt.wantDebit)
			}
		})
	}
}

// TestCatchUp: the batch runs at 06, 09, 12, 15 and 18 Oslo time happen
// when the clock has passed them, once each.
func TestCatchUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.pay("payments", ProductDomestic, f.payer, 10000, DateOf(wed10), 1)
	f.b.signPayment(p, f.payer.Owner)
	f.now = wed10.Add(time.Hour + 59*time.Minute) // 11:59: no run since 10:00
	f.b.catchUp()
	if p.Status != "PDNG" {
		t.Fatalf("booked before the 12:00 run: %s", p.Status)
	}
	f.now = wed10.Add(2 * time.Hour) // 12:00
	f.b.catchUp()
	if p.Status != "ACSC" {
		t.Fatalf("not booked by the 12:00 run: %s", p.Status)
	}
}

func TestPaymentRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status string
		act    func(*Payment) *Error
		code   string // "" = allowed
	}{
		{"cancel a received payment", "RCVD", (*Payment).cancel, ""},
		{"cancel an approved payment", "PDNG", (*Payment).cancel, ""},
		{"cancel a booked payment", "ACSC", (*Payment).cancel, "CANCELLATION_INVALID"},
		{"cancel a rejected payment", "RJCT", (*Payment).cancel, "CANCELLATION_INVALID"},
		{"authorise a partly signed payment", "PATC", startAuth, ""},
		{"authorise an approved payment", "PDNG", startAuth, "STATUS_INVALID"},
		{"details of a received domestic-norway payment", "RCVD", hiddenNorway, "RESOURCE_UNKNOWN"},
		{"details of an approved domestic-norway payment", "PDNG", hiddenNorway, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &Payment{Status: tt.status, Auths: map[string]*Authorisation{}}
			e := tt.act(p)
			switch {
			case tt.code == "" && e != nil:
				t.Fatalf("refused: %v", e)
			case tt.code != "" && (e == nil || e.Code != tt.code || e.Status != 400):
				t.Fatalf("got %v, want 400 %s", e, tt.code)
			}
		})
	}
}

func startAuth(p *Payment) *Error {
	_, e := p.startAuthorisation(func() string { return "enc!!a" })
	return e
}

func hiddenNorway(p *Payment) *Error {
	p.Product = ProductDomesticNorway
	return p.Hidden()
}

// TestLogicalDuplicate: a second payment of the same invoice is refused
// while the first is live, allowed with AllowDuplicate, and allowed again
// once the first is cancelled.
func TestLogicalDuplicate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	entry := func() []*Entry {
		return []*Entry{{Amount: 100, Currency: "NOK", Creditor: "97100000009", KID: "1234567890128", Invoice: "INV-1"}}
	}
	in := Initiation{Service: "payments", Product: ProductDomestic, TPP: "tpp", Entries: entry()}
	first, e := f.b.initiate(in)
	if e != nil {
		t.Fatal(e)
	}
	in.Entries = entry()
	if _, e := f.b.initiate(in); e == nil || e.Code != "PAYMENT_FAILED" || e.Path != "remittanceInformationStructuredArray" {
		t.Fatalf("duplicate: got %v, want PAYMENT_FAILED", e)
	}
	in.AllowDuplicate = true
	if _, e := f.b.initiate(in); e != nil {
		t.Fatalf("allowed duplicate refused: %v", e)
	}
	in.AllowDuplicate = false
	if e := first.cancel(); e != nil {
		t.Fatal(e)
	}
	if _, e := f.b.initiate(in); e == nil {
		t.Fatal("the allowed duplicate is live: a third payment must be refused")
	}
}

// TestInstantFunds: an instant payment the debtor cannot pay (amount and
// fee) is refused at initiation; one it can pay is created.
func TestInstantFunds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		amount int64
		code   string
	}{
		{"covered with the fee", 2534512 - instantFee, ""},
		{"the fee is not covered", 2534512 - instantFee + 1, "FUNDS_NOT_AVAILABLE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			in := Initiation{Service: "payments", Product: ProductInstant, TPP: "tpp", Customer: f.payer.Owner,
				DebtorRef: &AccountRef{BBAN: f.payer.BBAN},
				Entries:   []*Entry{{Amount: tt.amount, Currency: "NOK", Creditor: "97100000009", ExecDate: DateOf(wed10)}}}
			_, e := f.b.initiate(in)
			if (tt.code == "" && e != nil) || (tt.code != "" && (e == nil || e.Code != tt.code)) {
				t.Fatalf("got %v, want %q", e, tt.code)
			}
		})
	}
}

func TestNewBasket(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	today := DateOf(wed10)
	single := f.pay("payments", ProductDomestic, f.payer, 100, today, 1)
	bulk := f.pay("bulk-payments", ProductDomestic, f.payer, 100, today, 1)
	signed := f.pay("payments", ProductDomestic, f.payer, 100, today, 1)
	f.b.signPayment(signed, f.payer.Owner)
	tests := []struct {
		name string
		tpp  string
		ids  []string
		code string
	}{
		{"received single payments", "tpp", []string{single.ID}, ""},
		{"another TPP's payment", "other", []string{single.ID}, "RESOURCE_UNKNOWN"},
		{"an unknown payment", "tpp", []string{"enc!!nope"}, "RESOURCE_UNKNOWN"},
		{"a bulk payment", "tpp", []string{single.ID, bulk.ID}, "REFERENCE_MIX_INVALID"},
		{"an approved payment", "tpp", []string{signed.ID}, "REFERENCE_STATUS_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bk, e := f.b.newBasket(tt.tpp, tt.ids)
			if tt.code != "" {
				if e == nil || e.Code != tt.code {
					t.Fatalf("got %v, want %s", e, tt.code)
				}
				return
			}
			if e != nil {
				t.Fatal(e)
			}
			if e := bk.startAuthorisation(func() string { return "enc!!a" }); e != nil {
				t.Fatal(e)
			}
			bk.Status = "ACTC"
			if e := bk.delete(); e == nil || e.Code != "CANCELLATION_INVALID" {
				t.Fatalf("delete of an authorised basket: %v", e)
			}
		})
	}
}

// TestDeletedBasketIsUnknown: the bank itself refuses a deleted basket, so a
// DELETE racing another DELETE, or an authorisation start racing a DELETE,
// cannot both get through on copies the face checked.
func TestDeletedBasketIsUnknown(t *testing.T) {
	f := newFixture(t)
	p := f.pay("payments", ProductDomestic, f.payer, 100, DateOf(wed10), 1)
	bk, e := f.b.NewBasket("tpp", []string{p.ID})
	if e != nil {
		t.Fatal(e)
	}
	if e := f.b.DeleteBasket(bk.ID); e != nil {
		t.Fatal(e)
	}
	if e := f.b.DeleteBasket(bk.ID); e == nil || e.Status != 404 {
		t.Errorf("second DeleteBasket: %v, want 404 RESOURCE_UNKNOWN", e)
	}
	if _, e := f.b.StartBasketAuthorisation(bk.ID); e == nil || e.Status != 404 {
		t.Errorf("StartBasketAuthorisation of a deleted basket: %v, want 404 RESOURCE_UNKNOWN", e)
	}
}

// TestSCAOfAPaymentGoneIsRefused: an SCA whose payment the bank no longer
// has (the sandbox was initialised since) is refused, not a nil payment.
func TestSCAOfAPaymentGoneIsRefused(t *testing.T) {
	f := newFixture(t)
	s := SCA{TPP: "tpp", Customer: PrivateCustomer1}
	if e := f.b.MaySign([]string{"gone"}, PrivateCustomer1); e == nil || e.Status != 404 {
		t.Errorf("MaySign: %v, want 404", e)
	}
	if _, e := f.b.Bind(s, "gone", "a"); e == nil || e.Status != 404 {
		t.Errorf("Bind: %v, want 404", e)
	}
	if e := f.b.CompletePayment(s, "gone", "a", false, ""); e == nil || e.Status != 404 {
		t.Errorf("CompletePayment: %v, want 404", e)
	}
	f.b.CompleteBasket(s, "gone") // nothing to complete, no panic
}
