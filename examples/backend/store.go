package main

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/tppkit/xs2a"
)

// User is what the backend keeps of one of its users at the bank.
type User struct {
	PSUID        string                   // from the first successful SCA; "" before
	Accounts     []string                 // resource ids of the accounts consented to
	NeedsConsent bool                     // the bank refused the consent: the user must connect again
	Synced       map[string]xs2a.SyncMark // by account: where its nightly sync goes on
}

// Attempt is one payment, stored before Initiate and after every step.
type Attempt struct {
	ID, User   string
	State      string           // initiating, unknown, refused or initiated: then the bank's status says the rest
	RequestID  string           // X-Request-ID of a lost or refused answer, for the bank's support
	Initiation *xs2a.Initiation // the bank's answer: the payment's id and links
}

var errNoAttempt = errors.New("no such payment")

// Store is the backend's database. It counts no calls: the SDK's budget
// store does (xs2a.WithBudgetStore), here the client's default in memory.
type Store interface {
	User(ctx context.Context, user string) (User, error)
	UpdateUser(ctx context.Context, user string, fn func(*User)) error
	Users(ctx context.Context) ([]string, error)
	PutAttempt(ctx context.Context, a Attempt) error
	Attempt(ctx context.Context, id string) (Attempt, error) // errNoAttempt when unknown
	// AddTransactions stores booked entries (by id: one read twice adds
	// nothing) and, with them, the account's SyncMark in User.Synced.
	AddTransactions(ctx context.Context, user, accountID string, txs []xs2a.Transaction, m xs2a.SyncMark) error
}

// memStore is a Store in memory, for the example and its tests.
type memStore struct {
	mu       sync.Mutex
	users    map[string]User
	attempts map[string]Attempt
	txs      map[string]map[string]xs2a.Transaction // by user and account, then by transaction id
}

func newMemStore() *memStore {
	return &memStore{users: map[string]User{}, attempts: map[string]Attempt{}, txs: map[string]map[string]xs2a.Transaction{}}
}

// copyOf is u as a database returns it, sharing nothing with the store.
func copyOf(u User) User {
	u.Accounts, u.Synced = slices.Clone(u.Accounts), maps.Clone(u.Synced)
	return u
}

func (s *memStore) User(_ context.Context, user string) (User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyOf(s.users[user]), nil
}

func (s *memStore) UpdateUser(_ context.Context, user string, fn func(*User)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := copyOf(s.users[user])
	fn(&u)
	s.users[user] = u
	return nil
}

func (s *memStore) Users(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.users)), nil
}

func (s *memStore) PutAttempt(_ context.Context, a Attempt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts[a.ID] = a
	return nil
}

func (s *memStore) Attempt(_ context.Context, id string) (Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.attempts[id]
	if !ok {
		return a, errNoAttempt
	}
	return a, nil
}

func (s *memStore) AddTransactions(_ context.Context, user, accountID string, txs []xs2a.Transaction,
	m xs2a.SyncMark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := user + "/" + accountID
	if s.txs[key] == nil {
		s.txs[key] = map[string]xs2a.Transaction{}
	}
	for _, tx := range txs {
		s.txs[key][tx.TransactionID] = tx
	}
	u := copyOf(s.users[user])
	if u.Synced == nil {
		u.Synced = map[string]xs2a.SyncMark{}
	}
	u.Synced[accountID] = m
	s.users[user] = u
	return nil
}
