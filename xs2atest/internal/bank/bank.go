// Package bank is the fake bank's core: customers, accounts, agreements and
// payments with their lifecycle (signatures, status moves, batch runs,
// cancellation, signing baskets), as plain Go without HTTP. Its refusals are
// *Error values that the HTTP face of package xs2atest writes as the
// interface's error answers.
package bank

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Sandbox customer numbers after an initialization.
const (
	PrivateCustomer1   = "13039319955"
	PrivateCustomer2   = "12085592767"
	CorporateCustomer1 = "18129215603"
	CorporateCustomer2 = "20079518612"
)

// Customer kinds.
const (
	CustomerPrivate   = "PRIVATE"
	CustomerCorporate = "CORPORATE"
)

// Code is the bank's registration number: the first four digits of its
// account numbers.
const Code = "9710"

// Bank is the state of the fake bank. Its methods expect the bank's lock to
// be held (Lock, Unlock): a caller that reads or changes the state across
// several calls holds it throughout.
type Bank struct {
	mu        sync.Mutex
	seedValue uint64
	rng       *rand.Rand
	// Now is the bank's clock.
	Now func() time.Time

	Customers      map[string]*Customer // by customer number
	CustomerOrder  []string
	Accounts       map[string]*Account // by resource id
	AccountOrder   []string
	ByBBAN         map[string]*Account
	Agreements     map[string]*Agreement
	AgreementOrder []string
	Payments       map[string]*Payment
	PaymentOrder   []string
	Baskets        map[string]*Basket
	Dupes          map[InvoiceKey][]string // ids of the payments of an invoice, oldest first
	// ProcessedInvoices holds the invoice numbers of authorised e-invoice
	// payments: processed at the invoice scheme.
	ProcessedInvoices map[string]bool
	lastBatch         time.Time

	PSUs     map[string]*PSU // by psu-id: the PSUs that completed SCA for a TPP
	Consents map[ConsentKey]*Consent
	Sessions map[SessionKey]*Session
	Usage    map[UsageKey][]time.Time // PSU-not-present requests, oldest first
}

// New returns a bank initialized with the sandbox data of seed, on clock
// now, whose batch runs are due from now on.
func New(seed uint64, now func() time.Time) *Bank {
	b := &Bank{seedValue: seed, Now: now}
	b.Reset()
	b.lastBatch = now()
	return b
}

// Lock takes the bank's lock.
func (b *Bank) Lock() { b.mu.Lock() }

// Unlock releases the bank's lock.
func (b *Bank) Unlock() { b.mu.Unlock() }

// Reset empties the bank and fills it with the sandbox data again, as
// POST /v1/sandbox/initialize does; ids repeat for the same seed.
func (b *Bank) Reset() {
	b.rng = rand.New(rand.NewPCG(b.seedValue, 1))
	b.Customers, b.CustomerOrder = map[string]*Customer{}, nil
	b.Accounts, b.AccountOrder, b.ByBBAN = map[string]*Account{}, nil, map[string]*Account{}
	b.Agreements, b.AgreementOrder = map[string]*Agreement{}, nil
	b.Payments, b.PaymentOrder = map[string]*Payment{}, nil
	b.Baskets, b.Dupes, b.ProcessedInvoices = map[string]*Basket{}, map[InvoiceKey][]string{}, map[string]bool{}
	b.PSUs, b.Consents, b.Sessions = map[string]*PSU{}, map[ConsentKey]*Consent{}, map[SessionKey]*Session{}
	b.Usage = map[UsageKey][]time.Time{}
	b.seed()
}

// IntN is a number in [0, n) from the bank's random source (seeded: it
// repeats for the same seed).
func (b *Bank) IntN(n int) int { return b.rng.IntN(n) }
