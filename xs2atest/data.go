package xs2atest

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Sandbox customer numbers after POST /v1/sandbox/initialize.
const (
	PrivateCustomer1   = "13039319955"
	PrivateCustomer2   = "12085592767"
	CorporateCustomer1 = "18129215603"
	CorporateCustomer2 = "20079518612"
)

const (
	customerPrivate   = "PRIVATE"
	customerCorporate = "CORPORATE"
	bankBIC           = "FAKENOKK"
	bankCode          = "9710"
)

type customer struct {
	number, kind, name string
	accounts           []string // resource ids, in creation order
}

type account struct {
	id, owner, bban, iban, currency, name, product, kind string
	balance                                              int64 // booked, minor units
	closed                                               bool
	card                                                 bool
	maskedPan                                            string
	creditLimit                                          int64
	booked                                               []*transaction // newest first
	pending                                              []*transaction
}

// is reports whether ref names this account: it names at least one of its
// identifiers (bban, iban, maskedPan) and none that differs.
func (a *account) is(ref *accountRefJSON) bool {
	named := false
	for _, id := range [][2]string{{ref.BBAN, a.bban}, {ref.IBAN, a.iban}, {ref.MaskedPan, a.maskedPan}} {
		if id[0] == "" {
			continue
		}
		if !strings.EqualFold(strings.ReplaceAll(id[0], " ", ""), strings.ReplaceAll(id[1], " ", "")) {
			return false
		}
		named = true
	}
	return named
}

type transaction struct {
	id                                      string
	bookingDate, valueDate, transactionDate time.Time
	amount                                  int64
	currency                                string
	creditorName, debtorName                string
	creditorBBAN, debtorBBAN                string
	creditorIBAN                            string // a creditor abroad (cross-border payment)
	remittance, code, info                  string // code: proprietaryBankTransactionCode, its value
	codeID                                  string // its code, given with the value in the sandbox; "" = the value alone
	origAmount                              int64
	origCurrency                            string
	details                                 string
}

type agreement struct {
	id, name, orgNumber, owner string
	accounts                   []string
	signersRequired            int
	members                    []string
}

// Customer is a sandbox customer as listed by GET /v1/sandbox/customers. Its
// CustomerNumber is the 11-digit national id typed on the SCA page.
type Customer struct {
	CustomerNumber string      `json:"customerNumber"`
	CustomerType   string      `json:"customerType"` // PRIVATE or CORPORATE
	Name           string      `json:"name"`
	Accounts       []Account   `json:"accounts,omitempty"`
	Agreements     []Agreement `json:"agreements,omitempty"`
}

// Account is a sandbox account or card account of a Customer.
type Account struct {
	ResourceID  string `json:"resourceId"`
	BBAN        string `json:"bban,omitempty"`
	IBAN        string `json:"iban,omitempty"`
	MaskedPan   string `json:"maskedPan,omitempty"`
	Currency    string `json:"currency"`
	Name        string `json:"name"`
	Product     string `json:"product"`
	Card        bool   `json:"card,omitempty"`
	Balance     string `json:"balance"`
	Closed      bool   `json:"closed,omitempty"`
	Booked      int    `json:"bookedTransactions"`
	Pending     int    `json:"pendingTransactions"`
	CreditLimit string `json:"creditLimit,omitempty"`
}

// Agreement is a corporate agreement: the accounts a company grants to its
// representatives (Members), and how many of them must sign a payment.
type Agreement struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	OrganisationNumber string   `json:"organisationNumber"`
	Owner              string   `json:"customerNumber"`
	Accounts           []string `json:"accounts"`
	SignersRequired    int      `json:"signersRequired"`
	Members            []string `json:"members"`
}

// dateOf is the calendar date of t in Europe/Oslo, as midnight UTC.
func dateOf(t time.Time) time.Time {
	y, m, d := t.In(oslo).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func fmtDate(t time.Time) string { return t.Format(time.DateOnly) }

func parseDate(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

var amountRE = regexp.MustCompile(`^(-?)(0|[1-9][0-9]{0,13})(?:\.([0-9]{1,2}))?$`)

// parseAmount reads "123.45" into minor units.
func parseAmount(s string, signed bool) (int64, bool) {
	m := amountRE.FindStringSubmatch(s)
	if m == nil || (m[1] == "-" && !signed) {
		return 0, false
	}
	whole, _ := strconv.ParseInt(m[2], 10, 64)
	frac := m[3]
	for len(frac) < 2 {
		frac += "0"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := whole*100 + f
	if m[1] == "-" {
		v = -v
	}
	return v, true
}

func formatAmount(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// mod11Control is the Norwegian account number control digit of 10 digits
// (weights 5,4,3,2,7,6,5,4,3,2), or -1 when none exists.
func mod11Control(digits string) int {
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

func validBBAN(s string) bool {
	if len(s) != 11 || !allDigits(s) {
		return false
	}
	c := mod11Control(s[:10])
	return c >= 0 && int(s[10]-'0') == c
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ibanOf is NO + mod-97 check digits + BBAN.
func ibanOf(bban string) string {
	n, _ := new(big.Int).SetString(bban+"232400", 10) // N=23, O=24, check digits 00
	r := new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("NO%02d%s", 98-r, bban)
}

// newID is an opaque resource id shaped as the platform's:
// enc!!<standard base64 of 17 random bytes>, so it ends in "=" and may hold
// "+" and "/" (which a path escapes as %2F).
func (s *Server) newID() string {
	return "enc!!" + base64.StdEncoding.EncodeToString(s.randomBytes(17))
}

// newToken is an SCA token: base64url of 18 random bytes, safe in a path.
func (s *Server) newToken() string {
	return base64.RawURLEncoding.EncodeToString(s.randomBytes(18))
}

func (s *Server) randomBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(s.rng.Uint32())
	}
	return b
}

func (s *Server) newBBAN() string {
	for {
		d := fmt.Sprintf("%s%02d%04d", bankCode, 10+s.rng.IntN(90), s.rng.IntN(10000))
		c := mod11Control(d)
		if c < 0 {
			continue
		}
		b := d + strconv.Itoa(c)
		if _, taken := s.byBBAN[b]; !taken {
			return b
		}
	}
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// addCustomerLocked creates a customer; corporate customers get a default
// agreement that holds all their accounts.
func (s *Server) addCustomerLocked(number, kind, name string) *customer {
	c := &customer{number: number, kind: kind, name: name}
	s.customers[number] = c
	s.customerOrder = append(s.customerOrder, number)
	if kind == customerCorporate {
		s.addAgreementLocked(number, name, nil, 1, []string{number})
	}
	return c
}

func (s *Server) addAgreementLocked(owner, name string, accounts []string, signers int, members []string) *agreement {
	ag := &agreement{
		id: s.newID(), name: name, orgNumber: s.orgNumber(), owner: owner,
		accounts: accounts, signersRequired: signers, members: members,
	}
	s.agreements[ag.id] = ag
	s.agreementOrder = append(s.agreementOrder, ag.id)
	return ag
}

// orgNumber is a 9-digit organisation number with a MOD11 control digit.
func (s *Server) orgNumber() string {
	w := []int{3, 2, 7, 6, 5, 4, 3, 2}
	for {
		d := fmt.Sprintf("9%07d", s.rng.IntN(10000000))
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

func (s *Server) addAccountLocked(c *customer, a *account) *account {
	a.id = s.newID()
	a.owner = c.number
	if !a.card {
		if a.bban == "" {
			a.bban = s.newBBAN()
		}
		a.iban = ibanOf(a.bban)
		s.byBBAN[a.bban] = a
	}
	s.accounts[a.id] = a
	s.accountOrder = append(s.accountOrder, a.id)
	c.accounts = append(c.accounts, a.id)
	if c.kind == customerCorporate && !a.card {
		// the customer's default agreement (the first it owns) holds every account
		for _, id := range s.agreementOrder {
			if ag := s.agreements[id]; ag.owner == c.number {
				ag.accounts = append(ag.accounts, a.id)
				break
			}
		}
	}
	return a
}

// seedLocked fills the sandbox as POST /v1/sandbox/initialize does.
func (s *Server) seedLocked() {
	today := dateOf(s.now())
	p1 := s.addCustomerLocked(PrivateCustomer1, customerPrivate, "Kari Nordmann")
	a := s.addAccountLocked(p1, &account{currency: "NOK", name: "Brukskonto", product: "Brukskonto", kind: "current", balance: 2534512})
	s.genTransactions(a, today, 1100, 1)
	a = s.addAccountLocked(p1, &account{currency: "NOK", name: "Sparekonto for felles husholdning og ferie", product: "Sparekonto", kind: "savings", balance: 15075000})
	s.genTransactions(a, today, 40, 2)
	a = s.addAccountLocked(p1, &account{currency: "NOK", name: "Mastercard Gull", product: "Kredittkort", card: true, maskedPan: "541275******1234", creditLimit: 5000000, balance: -423050})
	s.genCardTransactions(a, today, 60, 3)

	p2 := s.addCustomerLocked(PrivateCustomer2, customerPrivate, "Ola Nordmann")
	a = s.addAccountLocked(p2, &account{currency: "NOK", name: "Brukskonto", product: "Brukskonto", kind: "current", balance: 1002600})
	s.genTransactions(a, today, 80, 4)
	a = s.addAccountLocked(p2, &account{currency: "NOK", name: "Høyrentekonto med bundet rente og ekstra lang produktbetegnelse for test", product: "Høyrentekonto", kind: "savings", balance: 50000})
	s.genTransactions(a, today, 30, 5)
	a = s.addAccountLocked(p2, &account{currency: "NOK", name: "Visa Classic", product: "Kredittkort", card: true, maskedPan: "492500******5678", creditLimit: 2000000, balance: -12990})
	s.genCardTransactions(a, today, 25, 6)

	c1 := s.addCustomerLocked(CorporateCustomer1, customerCorporate, "Nordlys Bygg AS")
	a = s.addAccountLocked(c1, &account{currency: "NOK", name: "Driftskonto", product: "Bedriftskonto", kind: "current", balance: 48250000})
	s.genTransactions(a, today, 120, 7)
	a = s.addAccountLocked(c1, &account{currency: "NOK", name: "Skattetrekkskonto", product: "Skattetrekkskonto", kind: "savings", balance: 8800000})
	s.genTransactions(a, today, 20, 8)

	c2 := s.addCustomerLocked(CorporateCustomer2, customerCorporate, "Fjellvind Shipping AS")
	a = s.addAccountLocked(c2, &account{currency: "NOK", name: "Driftskonto", product: "Bedriftskonto", kind: "current", balance: 125000000})
	s.genTransactions(a, today, 100, 9)
	dual := s.addAccountLocked(c2, &account{currency: "NOK", name: "Investeringskonto", product: "Bedriftskonto", kind: "current", balance: 90000000})
	s.genTransactions(dual, today, 30, 10)
	// the second account needs two signers: take it out of the default
	// agreement and grant it to both corporate customers, two signatures required
	for _, id := range s.agreementOrder {
		if ag := s.agreements[id]; ag.owner == c2.number {
			ag.accounts = []string{ag.accounts[0]}
			break
		}
	}
	s.addAgreementLocked(c2.number, "Fjellvind Shipping AS - investeringer", []string{dual.id}, 2, []string{c2.number, c1.number})
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
func (s *Server) genTransactions(a *account, today time.Time, n int, seed uint64) {
	r := rand.New(rand.NewPCG(s.cfg.seed, seed))
	for range n {
		cp := counterparties[r.IntN(len(counterparties))]
		amt := (cp.min + r.Int64N(cp.max-cp.min+1)) * 100
		amt += r.Int64N(100) * sign(amt)
		bd := today.AddDate(0, 0, -1-r.IntN(120))
		vd := bd
		if r.IntN(4) == 0 && bd.Before(today.AddDate(0, 0, -1)) {
			vd = bd.AddDate(0, 0, 1)
		}
		t := &transaction{
			id: s.newID(), bookingDate: bd, valueDate: vd, amount: amt, currency: a.currency,
			remittance: cp.text, code: cp.code, info: "Arkivref " + strconv.Itoa(100000+r.IntN(900000)),
		}
		s.fillParties(a, t, cp.name)
		a.booked = append(a.booked, t)
	}
	sortBooked(a)
	for i := range 2 {
		cp := counterparties[i]
		t := &transaction{id: s.newID(), bookingDate: today, amount: -(int64(120+i*55) * 100), currency: a.currency,
			remittance: cp.text, code: cp.code}
		s.fillParties(a, t, cp.name)
		a.pending = append(a.pending, t)
	}
}

func (s *Server) fillParties(a *account, t *transaction, other string) {
	if t.amount < 0 {
		t.debtorName, t.debtorBBAN = s.ownerName(a), a.bban
		t.creditorName = other
	} else {
		t.creditorName, t.creditorBBAN = s.ownerName(a), a.bban
		t.debtorName = other
	}
}

func (s *Server) ownerName(a *account) string {
	if c := s.customers[a.owner]; c != nil {
		return c.name
	}
	return ""
}

func (s *Server) genCardTransactions(a *account, today time.Time, n int, seed uint64) {
	r := rand.New(rand.NewPCG(s.cfg.seed, seed))
	shops := []struct{ name, cur string }{
		{"SAS Bergen", ""}, {"Zalando SE Berlin", "EUR"}, {"Amazon.com", "USD"}, {"Circle K Oslo", ""},
		{"Hotel Adlon Berlin", "EUR"}, {"Elkjøp Oslo City", ""},
	}
	rates := map[string]int64{"EUR": 1150, "USD": 1060} // NOK per 100 units
	for i := range n + 2 {
		sh := shops[r.IntN(len(shops))]
		nok := -(int64(50+r.IntN(3000))*100 + int64(r.IntN(100)))
		td := today.AddDate(0, 0, -r.IntN(120))
		t := &transaction{id: s.newID(), transactionDate: td, bookingDate: td.AddDate(0, 0, 1), amount: nok,
			currency: a.currency, details: sh.name, origAmount: nok, origCurrency: a.currency}
		if t.bookingDate.After(today) {
			t.bookingDate = today
		}
		if sh.cur != "" {
			t.origCurrency = sh.cur
			t.origAmount = nok * 100 / rates[sh.cur]
		}
		if i >= n {
			t.transactionDate, t.bookingDate = today, today
			a.pending = append(a.pending, t)
			continue
		}
		a.booked = append(a.booked, t)
	}
	sortBooked(a)
}

func sign(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

// sortBooked orders booked transactions newest first (stable on insertion).
func sortBooked(a *account) {
	sort.SliceStable(a.booked, func(i, j int) bool { return a.booked[i].bookingDate.After(a.booked[j].bookingDate) })
}

// publicCustomerLocked is the exported view of a customer.
func (s *Server) publicCustomerLocked(c *customer, withAccounts, withAgreements bool) Customer {
	out := Customer{CustomerNumber: c.number, CustomerType: c.kind, Name: c.name}
	if withAccounts {
		for _, id := range c.accounts {
			out.Accounts = append(out.Accounts, publicAccount(s.accounts[id]))
		}
	}
	if withAgreements {
		for _, id := range s.agreementOrder {
			ag := s.agreements[id]
			if ag.owner == c.number || contains(ag.members, c.number) {
				out.Agreements = append(out.Agreements, publicAgreement(ag))
			}
		}
	}
	return out
}

func publicAccount(a *account) Account {
	out := Account{ResourceID: a.id, BBAN: a.bban, IBAN: a.iban, MaskedPan: a.maskedPan, Currency: a.currency,
		Name: a.name, Product: a.product, Card: a.card, Balance: formatAmount(a.balance), Closed: a.closed,
		Booked: len(a.booked), Pending: len(a.pending)}
	if a.card {
		out.CreditLimit = formatAmount(a.creditLimit)
	}
	return out
}

func publicAgreement(ag *agreement) Agreement {
	return Agreement{ID: ag.id, Name: ag.name, OrganisationNumber: ag.orgNumber, Owner: ag.owner,
		Accounts: append([]string{}, ag.accounts...), SignersRequired: ag.signersRequired,
		Members: append([]string{}, ag.members...)}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// splitFixes parses x-accept-fix into a set of lower-case values.
func splitFixes(h []string) map[string]bool {
	out := map[string]bool{}
	for _, v := range h {
		for _, f := range strings.Split(v, ",") {
			if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
				out[f] = true
			}
		}
	}
	return out
}

// pathSeg escapes an id for a path segment as RFC 3986 requires and no
// more, as the platform writes ids in hrefs ("enc!!QkFO+%2Fx="): letters,
// digits, "-._~", the sub-delims "!$&'()*+,;=", ":" and "@" stay; every
// other byte becomes %XX.
func pathSeg(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
