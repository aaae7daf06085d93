package xs2atest

import "math/big"

// Fees and currencies of the fake bank's payments (API release 1.15.0:
// fees accumulated for cross-border payments). A payment's fees are summed
// into one transactionFees amount in NOK: per payment of a bulk, and per
// kind of fee.
const (
	instantFee     = 200  // 2.00 NOK per instant payment
	crossBorderFee = 2500 // 25.00 NOK per cross-border payment
	currencyFee    = 1500 // 15.00 NOK more when it is paid in another currency than the debtor account's
)

// nokPer is the fake bank's fixed exchange rate: NOK for one unit of the
// currency, in 1/10000 NOK. These are the currencies a cross-border payment
// may be made in.
var nokPer = map[string]int64{
	"NOK": 10000, "EUR": 115000, "USD": 106000, "GBP": 136000, "SEK": 9800, "DKK": 15400, "CHF": 122000,
}

// feeOf is what a payment of product costs, in NOK, for a debtor account in
// debtorCurrency: the fees of every entry, summed.
func feeOf(product string, entries []*paymentFacts, debtorCurrency string) int64 {
	var fee int64
	for _, e := range entries {
		switch product {
		case ProductInstant:
			fee += instantFee
		case ProductCrossBorder:
			fee += crossBorderFee
			if e.currency != debtorCurrency {
				fee += currencyFee
			}
		}
	}
	return fee
}

// feeText is how the fee shows in the debtor account's transactions.
func feeText(product string) string {
	if product == ProductCrossBorder {
		return "Gebyr utlandsbetaling"
	}
	return "Gebyr straksbetaling"
}

// convert changes an amount in minor units from one currency into another
// at the fixed rates, rounding half up. A currency without a rate (an
// account created in one through the sandbox) counts at par with NOK.
func convert(amount int64, from, to string) int64 {
	if from == to {
		return amount
	}
	rf, rt := rateOf(from), rateOf(to)
	n := new(big.Int).Mul(big.NewInt(amount), big.NewInt(rf))
	n.Add(n, big.NewInt(rt/2))
	return n.Quo(n, big.NewInt(rt)).Int64()
}

func rateOf(currency string) int64 {
	if r, ok := nokPer[currency]; ok {
		return r
	}
	return nokPer["NOK"]
}

// totalIn is what a payment takes from a debtor account in currency: every
// entry and the fee, converted.
func (p *payment) totalIn(currency string) int64 {
	t := convert(p.fee, "NOK", currency)
	for _, e := range p.entries {
		t += convert(e.amount, e.currency, currency)
	}
	return t
}

// debtorCurrencyLocked is the currency of the account a payment is paid
// from: the account's, else the one its debtorAccount names, else NOK (a
// debtor the PSU chooses at SCA).
func (s *Server) debtorCurrencyLocked(p *payment, ref *accountRefJSON) string {
	if a := s.accounts[p.debtor]; a != nil {
		return a.currency
	}
	if ref != nil && ref.Currency != "" {
		return ref.Currency
	}
	return "NOK"
}

// validIBAN checks an IBAN's shape (country, check digits, 11 to 30
// letters and digits) and its ISO 7064 MOD 97-10 check.
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !countryRE.MatchString(s[:2]) || !allDigits(s[2:4]) {
		return false
	}
	r, ok := mod97(s[4:] + s[:4])
	return ok && r == 1
}

// validRF checks an ISO 11649 creditor reference: RF, two check digits,
// 1 to 21 upper-case letters and digits, MOD 97-10.
func validRF(s string) bool {
	if len(s) < 5 || len(s) > 25 || s[:2] != "RF" || !allDigits(s[2:4]) {
		return false
	}
	r, ok := mod97(s[4:] + s[:4])
	return ok && r == 1
}

// mod97 is s modulo 97 with each letter A..Z read as the number 10..35;
// false when s holds anything but upper-case letters and digits.
func mod97(s string) (int, bool) {
	r := 0
	for i := range len(s) {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case 'A' <= c && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return 0, false
		}
	}
	return r, true
}
