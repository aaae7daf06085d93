// Package bank is the fake bank's core: customers, accounts, agreements,
// consents, SCA sessions and limits, payments with their lifecycle
// (signatures, status moves, batch runs, cancellation, signing baskets)
// and what a completed SCA decides, as plain Go without HTTP. Package
// xs2atest is its HTTP face: requests, answers and the SCA pages.
//
// Locking: every exported method of Bank takes the bank's lock for one
// whole step and returns values or copies; unexported methods expect the
// lock held. Nothing outside the package touches the bank's state. Its
// refusals are *Error values that the face writes as the interface's
// error answers.
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

// Bank is the state of the fake bank. Every exported method takes its lock
// and hands out copies, never pointers into its state; the unexported ones
// expect the lock held.
type Bank struct {
	mu        sync.Mutex
	seedValue uint64
	rng       *rand.Rand
	now       func() time.Time // the bank's clock

	customers      map[string]*Customer // by customer number
	customerOrder  []string
	accounts       map[string]*Account // by resource id
	accountOrder   []string
	byBBAN         map[string]*Account
	agreements     map[string]*Agreement
	agreementOrder []string
	payments       map[string]*Payment
	paymentOrder   []string
	baskets        map[string]*Basket
	dupes          map[InvoiceKey][]string // ids of the payments of an invoice, oldest first
	// processed holds the invoice numbers of authorised e-invoice
	// payments: processed at the invoice scheme.
	processed map[string]bool
	lastBatch time.Time

	psus     map[string]*PSU // by psu-id: the PSUs that completed SCA for a TPP
	consents map[ConsentKey]*Consent
	sessions map[SessionKey]*Session
	usage    map[UsageKey][]time.Time // PSU-not-present requests, oldest first
}

// New returns a bank initialized with the sandbox data of seed, on clock
// now, whose batch runs are due from now on.
func New(seed uint64, now func() time.Time) *Bank {
	b := &Bank{seedValue: seed, now: now}
	b.reset()
	return b
}

// reset empties the bank and fills it with the sandbox data again, as
// POST /v1/sandbox/initialize does; ids repeat for the same seed.
func (b *Bank) reset() {
	b.rng = rand.New(rand.NewPCG(b.seedValue, 1))
	b.customers, b.customerOrder = map[string]*Customer{}, nil
	b.accounts, b.accountOrder, b.byBBAN = map[string]*Account{}, nil, map[string]*Account{}
	b.agreements, b.agreementOrder = map[string]*Agreement{}, nil
	b.payments, b.paymentOrder = map[string]*Payment{}, nil
	b.baskets, b.dupes, b.processed = map[string]*Basket{}, map[InvoiceKey][]string{}, map[string]bool{}
	b.psus, b.consents, b.sessions = map[string]*PSU{}, map[ConsentKey]*Consent{}, map[SessionKey]*Session{}
	b.usage = map[UsageKey][]time.Time{}
	b.lastBatch = b.now() // the runs before now had nothing to book
	b.seed()
}

// intN is a number in [0, n) from the bank's random source (seeded: it
// repeats for the same seed).
func (b *Bank) intN(n int) int { return b.rng.IntN(n) }
