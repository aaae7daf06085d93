package xs2atest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Sandbox customer numbers after POST /v1/sandbox/initialize.
const (
	PrivateCustomer1   = bank.PrivateCustomer1
	PrivateCustomer2   = bank.PrivateCustomer2
	CorporateCustomer1 = bank.CorporateCustomer1
	CorporateCustomer2 = bank.CorporateCustomer2
)

const bankBIC = "FAKENOKK"

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

func validBBAN(s string) bool {
	if len(s) != 11 || !allDigits(s) {
		return false
	}
	c := bank.Mod11Control(s[:10])
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

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// publicCustomer is the exported view of a customer.
func (s *Server) publicCustomer(c bank.Customer, withAccounts, withAgreements bool) Customer {
	out := Customer{CustomerNumber: c.Number, CustomerType: c.Kind, Name: c.Name}
	if withAccounts {
		for _, id := range c.Accounts {
			if a, ok := s.bank.Account(id); ok {
				out.Accounts = append(out.Accounts, publicAccount(&a))
			}
		}
	}
	if withAgreements {
		for _, ag := range s.bank.Agreements() {
			if ag.Owner == c.Number || contains(ag.Members, c.Number) {
				out.Agreements = append(out.Agreements, publicAgreement(&ag))
			}
		}
	}
	return out
}

func publicAccount(a *bank.Account) Account {
	out := Account{ResourceID: a.ID, BBAN: a.BBAN, IBAN: a.IBAN, MaskedPan: a.MaskedPan, Currency: a.Currency,
		Name: a.Name, Product: a.Product, Card: a.Card, Balance: formatAmount(a.Balance), Closed: a.Closed,
		Booked: len(a.Booked), Pending: len(a.Pending)}
	if a.Card {
		out.CreditLimit = formatAmount(a.CreditLimit)
	}
	return out
}

func publicAgreement(ag *bank.Agreement) Agreement {
	return Agreement{ID: ag.ID, Name: ag.Name, OrganisationNumber: ag.OrgNumber, Owner: ag.Owner,
		Accounts: append([]string{}, ag.Accounts...), SignersRequired: ag.SignersRequired,
		Members: append([]string{}, ag.Members...)}
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
