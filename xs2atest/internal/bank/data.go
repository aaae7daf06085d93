package bank

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"
)

// newID is an opaque resource id shaped as the platform's:
// enc!!<standard base64 of 17 random bytes>, so it ends in "=" and may hold
// "+" and "/" (which a path escapes as %2F).
func (b *Bank) newID() string {
	return "enc!!" + base64.StdEncoding.EncodeToString(b.randomBytes(17))
}

// newToken is an SCA token: base64url of 18 random bytes, safe in a path.
func (b *Bank) newToken() string {
	return base64.RawURLEncoding.EncodeToString(b.randomBytes(18))
}

func (b *Bank) randomBytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(b.rng.Uint32())
	}
	return out
}

func (b *Bank) newBBAN() string {
	for {
		d := fmt.Sprintf("%s%02d%04d", Code, 10+b.rng.IntN(90), b.rng.IntN(10000))
		c := Mod11Control(d)
		if c < 0 {
			continue
		}
		bban := d + strconv.Itoa(c)
		if _, taken := b.byBBAN[bban]; !taken {
			return bban
		}
	}
}

// addCustomer creates a customer; corporate customers get a default
// agreement that holds all their accounts.
func (b *Bank) addCustomer(number, kind, name string) *Customer {
	c := &Customer{Number: number, Kind: kind, Name: name}
	b.customers[number] = c
	b.customerOrder = append(b.customerOrder, number)
	if kind == CustomerCorporate {
		b.addAgreement(number, name, nil, 1, []string{number})
	}
	return c
}

func (b *Bank) addAgreement(owner, name string, accounts []string, signers int, members []string) *Agreement {
	ag := &Agreement{
		ID: b.newID(), Name: name, OrgNumber: b.orgNumber(), Owner: owner,
		Accounts: accounts, SignersRequired: signers, Members: members,
	}
	b.agreements[ag.ID] = ag
	b.agreementOrder = append(b.agreementOrder, ag.ID)
	return ag
}

// orgNumber is a 9-digit organisation number with a MOD11 control digit.
func (b *Bank) orgNumber() string {
	w := []int{3, 2, 7, 6, 5, 4, 3, 2}
	for {
		d := fmt.Sprintf("9%07d", b.rng.IntN(10000000))
		sum := 0
		for i := range 8 {
			sum += int(d[i]-'0') * w[i]
		}
		r := sum % 11
		if r == 1 {
			continue
		}
		c := 0
		if r != 0 {
			c = 11 - r
		}
		return d + strconv.Itoa(c)
	}
}

func (b *Bank) addAccount(c *Customer, a *Account) *Account {
	a.ID = b.newID()
	a.Owner = c.Number
	if !a.Card {
		if a.BBAN == "" {
			a.BBAN = b.newBBAN()
		}
		a.IBAN = IBANOf(a.BBAN)
		b.byBBAN[a.BBAN] = a
	}
	b.accounts[a.ID] = a
	b.accountOrder = append(b.accountOrder, a.ID)
	c.Accounts = append(c.Accounts, a.ID)
	if c.Kind == CustomerCorporate && !a.Card {
		// the customer's default agreement (the first it owns) holds every account
		for _, id := range b.agreementOrder {
			if ag := b.agreements[id]; ag.Owner == c.Number {
				ag.Accounts = append(ag.Accounts, a.ID)
				break
			}
		}
	}
	return a
}

// seed fills the sandbox as POST /v1/sandbox/initialize does.
func (b *Bank) seed() {
	today := DateOf(b.now())
	p1 := b.addCustomer(PrivateCustomer1, CustomerPrivate, "Kari Nordmann")
	a := b.addAccount(p1, &Account{Currency: "NOK", Name: "Brukskonto", Product: "Brukskonto", Kind: "current", Balance: 2534512})
	b.genTransactions(a, today, 1100, 1)
	a = b.addAccount(p1, &Account{Currency: "NOK", Name: "Sparekonto for felles husholdning og ferie", Product: "Sparekonto", Kind: "savings", Balance: 15075000})
	b.genTransactions(a, today, 40, 2)
	a = b.addAccount(p1, &Account{Currency: "NOK", Name: "Mastercard Gull", Product: "Kredittkort", Card: true, MaskedPan: "541275******1234", CreditLimit: 5000000, Balance: -423050})
	b.genCardTransactions(a, today, 60, 3)

	p2 := b.addCustomer(PrivateCustomer2, CustomerPrivate, "Ola Nordmann")
	a = b.addAccount(p2, &Account{Currency: "NOK", Name: "Brukskonto", Product: "Brukskonto", Kind: "current", Balance: 1002600})
	b.genTransactions(a, today, 80, 4)
	a = b.addAccount(p2, &Account{Currency: "NOK", Name: "Høyrentekonto med bundet rente og ekstra lang produktbetegnelse for test", Product: "Høyrentekonto", Kind: "savings", Balance: 50000})
	b.genTransactions(a, today, 30, 5)
	a = b.addAccount(p2, &Account{Currency: "NOK", Name: "Visa Classic", Product: "Kredittkort", Card: true, MaskedPan: "492500******5678", CreditLimit: 2000000, Balance: -12990})
	b.genCardTransactions(a, today, 25, 6)

	c1 := b.addCustomer(CorporateCustomer1, CustomerCorporate, "Nordlys Bygg AS")
	a = b.addAccount(c1, &Account{Currency: "NOK", Name: "Driftskonto", Product: "Bedriftskonto", Kind: "current", Balance: 48250000})
	b.genTransactions(a, today, 120, 7)
	a = b.addAccount(c1, &Account{Currency: "NOK", Name: "Skattetrekkskonto", Product: "Skattetrekkskonto", Kind: "savings", Balance: 8800000})
	b.genTransactions(a, today, 20, 8)

	c2 := b.addCustomer(CorporateCustomer2, CustomerCorporate, "Fjellvind Shipping AS")
	a = b.addAccount(c2, &Account{Currency: "NOK", Name: "Driftskonto", Product: "Bedriftskonto", Kind: "current", Balance: 125000000})
	b.genTransactions(a, today, 100, 9)
	dual := b.addAccount(c2, &Account{Currency: "NOK", Name: "Investeringskonto", Product: "Bedriftskonto", Kind: "current", Balance: 90000000})
	b.genTransactions(dual, today, 30, 10)
	// the second account needs two signers: take it out of the default
	// agreement and grant it to both corporate customers, two signatures required
	for _, id := range b.agreementOrder {
		if ag := b.agreements[id]; ag.Owner == c2.Number {
			ag.Accounts = []string{ag.Accounts[0]}
			break
		}
	}
	b.addAgreement(c2.Number, "Fjellvind Shipping AS - investeringer", []string{dual.ID}, 2, []string{c2.Number, c1.Number})
}

var counterparties = []struct {
	name, code, text string
	min, max         int64 // NOK, negative: debit
}{
	{"REMA 1000 Grünerløkka", "VARER", "Varekjøp", -900, -40},
	{"Kiwi Majorstuen", "VARER", "Varekjøp", -700, -30},
	{"Vy", "VARER", "Reise", -1200, -50},
	{"Ruter AS", "VARER", "Månedskort", -900, -40},
	{"Telenor Norge AS", "AVTALEGIRO", "Mobil faktura", -600, -300},
	{"Fjordkraft AS", "EFAKTURA", "Strøm", -2500, -400},
	{"Vinmonopolet", "VARER", "Varekjøp", -800, -150},
	{"Kafé Sjøsiden", "VARER", "Kafé", -300, -40},
	{"Lånekassen", "GIRO", "Tilbakebetaling", -2000, -1500},
	{"Arbeidsgiver AS", "LØNN", "Lønn", 38000, 42000},
	{"Skatteetaten", "OVERFØRSEL", "Tilbakebetalt skatt", 500, 6000},
}

// genTransactions gives a account n booked transactions spread over the last
// 120 days and two pending ones, deterministically from seed.
func (b *Bank) genTransactions(a *Account, today time.Time, n int, seed uint64) {
	r := rand.New(rand.NewPCG(b.seedValue, seed))
	for range n {
		cp := counterparties[r.IntN(len(counterparties))]
		amt := (cp.min + r.Int64N(cp.max-cp.min+1)) * 100
		amt += r.Int64N(100) * sign(amt)
		bd := today.AddDate(0, 0, -1-r.IntN(120))
		vd := bd
		if r.IntN(4) == 0 && bd.Before(today.AddDate(0, 0, -1)) {
			vd = bd.AddDate(0, 0, 1)
		}
		ref := strconv.Itoa(100000 + r.IntN(900000))
		t := &Transaction{
			ID: b.newID(), BookingDate: bd, ValueDate: vd, Amount: amt, Currency: a.Currency,
			Remittance: cp.text, Code: cp.code, Info: "Arkivref " + ref, Proprietary: proprietaryRefs(cp.code, ref),
		}
		b.fillParties(a, t, cp.name)
		a.Booked = append(a.Booked, t)
	}
	SortBooked(a)
	for i := range 2 {
		cp := counterparties[i]
		t := &Transaction{ID: b.newID(), BookingDate: today, Amount: -(int64(120+i*55) * 100), Currency: a.Currency,
			Remittance: cp.text, Code: cp.code}
		b.fillParties(a, t, cp.name)
		a.Pending = append(a.Pending, t)
	}
}

// proprietaryRefs are the references the backend keeps beyond the archive
// reference for a transaction of this code: the agreement of an AvtaleGiro
// or eFaktura debit; none for the others.
func proprietaryRefs(code, ref string) []string {
	switch code {
	case "AVTALEGIRO":
		return []string{"AvtaleGiro-avtale " + ref}
	case "EFAKTURA":
		return []string{"eFaktura-avtale " + ref, "Fakturanr " + ref + "-1"}
	}
	return nil
}

func (b *Bank) fillParties(a *Account, t *Transaction, other string) {
	if t.Amount < 0 {
		t.DebtorName, t.DebtorBBAN = b.ownerName(a), a.BBAN
		t.CreditorName = other
	} else {
		t.CreditorName, t.CreditorBBAN = b.ownerName(a), a.BBAN
		t.DebtorName = other
	}
}

func (b *Bank) ownerName(a *Account) string {
	if c := b.customers[a.Owner]; c != nil {
		return c.Name
	}
	return ""
}

func (b *Bank) genCardTransactions(a *Account, today time.Time, n int, seed uint64) {
	r := rand.New(rand.NewPCG(b.seedValue, seed))
	shops := []struct{ name, cur string }{
		{"SAS Bergen", ""}, {"Zalando SE Berlin", "EUR"}, {"Amazon.com", "USD"}, {"Circle K Oslo", ""},
		{"Hotel Adlon Berlin", "EUR"}, {"Elkjøp Oslo City", ""},
	}
	rates := map[string]int64{"EUR": 1150, "USD": 1060} // NOK per 100 units
	for i := range n + 2 {
		sh := shops[r.IntN(len(shops))]
		nok := -(int64(50+r.IntN(3000))*100 + int64(r.IntN(100)))
		td := today.AddDate(0, 0, -r.IntN(120))
		t := &Transaction{ID: b.newID(), TransactionDate: td, BookingDate: td.AddDate(0, 0, 1), Amount: nok,
			Currency: a.Currency, Details: sh.name, OrigAmount: nok, OrigCurrency: a.Currency}
		if t.BookingDate.After(today) {
			t.BookingDate = today
		}
		if sh.cur != "" {
			t.OrigCurrency = sh.cur
			t.OrigAmount = nok * 100 / rates[sh.cur]
			t.Exchange = Exchange{Source: sh.cur, Target: a.Currency, Rate: strconv.FormatFloat(float64(rates[sh.cur])/100, 'f', 2, 64),
				Contract: contractOf(t.ID), Quoted: td}
		}
		if i >= n {
			t.TransactionDate, t.BookingDate = today, today
			a.Pending = append(a.Pending, t)
			continue
		}
		a.Booked = append(a.Booked, t)
	}
	SortBooked(a)
}

func sign(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

// SortBooked orders booked transactions newest first (stable on insertion).
func SortBooked(a *Account) {
	sort.SliceStable(a.Booked, func(i, j int) bool { return a.Booked[i].BookingDate.After(a.Booked[j].BookingDate) })
}

// IBANOf is NO + mod-97 check digits + BBAN.
func IBANOf(bban string) string {
	n, _ := new(big.Int).SetString(bban+"232400", 10) // N=23, O=24, check digits 00
	r := new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("NO%02d%s", 98-r, bban)
}

// Mod11Control is the Norwegian account number control digit of 10 digits
// (weights 5,4,3,2,7,6,5,4,3,2), or -1 when none exists.
func Mod11Control(digits string) int {
	w := []int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	sum := 0
	for i := 0; i < 10; i++ {
		sum += int(digits[i]-'0') * w[i]
	}
	switch r := sum % 11; r {
	case 0:
		return 0
	case 1:
		return -1
	default:
		return 11 - r
	}
}

// addTransaction adds t to account a: pending, or booked (the balance
// moves by its amount).
func (b *Bank) addTransaction(a *Account, t *Transaction, pending bool) {
	if pending {
		a.Pending = append(a.Pending, t)
		return
	}
	a.Booked = append(a.Booked, t)
	a.Balance += t.Amount
	SortBooked(a)
}
