package bank

import (
	"strings"
	"time"
)

type Customer struct {
	Number, Kind, Name string
	Accounts           []string // resource ids, in creation order
}

type Account struct {
	ID, Owner, BBAN, IBAN, Currency, Name, Product, Kind string
	Balance                                              int64 // booked, minor units
	Closed                                               bool
	Card                                                 bool
	NoPayments                                           bool // payment right withdrawn; still readable
	MaskedPan                                            string
	CreditLimit                                          int64
	Booked                                               []*Transaction // newest first
	Pending                                              []*Transaction
}

// Is reports whether ref names this account: it names at least one of its
// identifiers (bban, iban, maskedPan) and none that differs.
func (a *Account) Is(ref *AccountRef) bool {
	named := false
	for _, id := range [][2]string{{ref.BBAN, a.BBAN}, {ref.IBAN, a.IBAN}, {ref.MaskedPan, a.MaskedPan}} {
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

type Transaction struct {
	ID                                      string
	BookingDate, ValueDate, TransactionDate time.Time
	Amount                                  int64
	Currency                                string
	CreditorName, DebtorName                string
	CreditorBBAN, DebtorBBAN                string
	CreditorIBAN                            string // a creditor abroad (cross-border payment)
	Remittance, Code, Info                  string // code: proprietaryBankTransactionCode, its value
	CodeID                                  string // its code, given with the value in the sandbox; "" = the value alone
	OrigAmount                              int64
	OrigCurrency                            string
	Details                                 string
	// Proprietary are the references the backend has beyond the others
	// (additionalInformationProprietary1, 2, ...); nil for none.
	Proprietary []string
	// Exchange is the rate a transaction in another currency was booked
	// at; the zero Exchange for none.
	Exchange Exchange
}

// Exchange is a currency exchange of a transaction (Berlin Group
// reportExchangeRate): Rate units of Target for one unit of Source, under
// the bank's contract Contract, quoted on Quoted.
type Exchange struct {
	Source, Target, Rate, Contract string
	Quoted                         time.Time
}

type Agreement struct {
	ID, Name, OrgNumber, Owner string
	Accounts                   []string
	SignersRequired            int
	Members                    []string
}

type AccountRef struct {
	BBAN      string `json:"bban,omitempty"`
	IBAN      string `json:"iban,omitempty"`
	MaskedPan string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
}
