package xs2atest

import "github.com/tppkit/xs2a/xs2atest/internal/bank"

// The HTTP face names the bank core's types by these aliases.
type (
	customer       = bank.Customer
	account        = bank.Account
	transaction    = bank.Transaction
	agreement      = bank.Agreement
	accountRefJSON = bank.AccountRef
	payment        = bank.Payment
	basket         = bank.Basket
	paymentFacts   = bank.Entry
	apiError       = bank.Error
	psuRecord      = bank.PSU
	consentKey     = bank.ConsentKey
	consent        = bank.Consent
	sessionKey     = bank.SessionKey
	session        = bank.Session
	usageKey       = bank.UsageKey
)
