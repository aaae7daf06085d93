package bank

import (
	"math/big"
	"time"
)

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

// FeeOf is what a payment of product costs, in NOK, for a debtor account in
// debtorCurrency: the fees of every entry, summed.
func FeeOf(product string, entries []*Entry, debtorCurrency string) int64 {
	var fee int64
	for _, e := range entries {
		switch product {
		case ProductInstant:
			fee += instantFee
		case ProductCrossBorder:
			fee += crossBorderFee
			if e.Currency != debtorCurrency {
				fee += currencyFee
			}
		}
	}
	return fee
}

// FeeText is how the fee shows in the debtor account's transactions.
func FeeText(product string) string {
	if product == ProductCrossBorder {
		return "Gebyr utlandsbetaling"
	}
	return "Gebyr straksbetaling"
}

// Convert changes an amount in minor units from one currency into another
// at the fixed rates, rounding half up. A currency without a rate (an
// account created in one through the sandbox) counts at par with NOK.
func Convert(amount int64, from, to string) int64 {
	if from == to {
		return amount
	}
	rf, rt := rateOf(from), rateOf(to)
	n := new(big.Int).Mul(big.NewInt(amount), big.NewInt(rf))
	n.Add(n, big.NewInt(rt/2))
	return n.Quo(n, big.NewInt(rt)).Int64()
}

// ExchangeOf is the exchange of an amount in from booked in to on day at
// the fixed rates, under contract; the zero Exchange when the currencies
// are the same.
func ExchangeOf(from, to, contract string, day time.Time) Exchange {
	if from == to {
		return Exchange{}
	}
	rate := new(big.Rat).SetFrac64(rateOf(from), rateOf(to)).FloatString(6)
	return Exchange{Source: from, Target: to, Rate: rate, Contract: contract, Quoted: day}
}

func rateOf(currency string) int64 {
	if r, ok := nokPer[currency]; ok {
		return r
	}
	return nokPer["NOK"]
}

// Traded reports whether the bank has an exchange rate for currency: the
// currencies a cross-border payment may be made in.
func Traded(currency string) bool {
	_, ok := nokPer[currency]
	return ok
}

// debtorCurrency is the currency of the account a payment is paid
// from: the account's, else the one its debtorAccount names, else NOK (a
// debtor the PSU chooses at SCA).
func (b *Bank) debtorCurrency(p *Payment, ref *AccountRef) string {
	if a := b.accounts[p.Debtor]; a != nil {
		return a.Currency
	}
	if ref != nil && ref.Currency != "" {
		return ref.Currency
	}
	return "NOK"
}
