package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/tppkit/xs2a"
)

// syncer reads each connected user's new booked transactions without the
// customer present.
type syncer struct {
	client   *xs2a.Client
	store    Store
	log      *slog.Logger
	pageSize int // 499, as production clients use
}

// Run syncs every account of every user with a psu-id and a consent; an
// account whose budget is spent goes on at the next run.
func (s *syncer) Run(ctx context.Context) error {
	users, err := s.store.Users(ctx)
	if err != nil {
		return err
	}
	for _, key := range users {
		u, err := s.store.User(ctx, key)
		if err != nil || u.PSUID == "" || u.NeedsConsent {
			continue
		}
		for _, accountID := range u.Accounts {
			err := s.account(ctx, key, xs2a.PSU{ID: u.PSUID}, accountID, u.Synced[accountID])
			if errors.Is(err, xs2a.ErrConsentInvalid) { // revoked, or a 401 CONSENT_EXPIRED
				s.log.Info("sync: the user must consent again", "user", key, "request_id", xs2a.RequestIDOf(err))
				if err := s.store.UpdateUser(ctx, key, func(u *User) { u.NeedsConsent = true }); err != nil {
					return err
				}
				break
			}
			if err != nil {
				s.log.Warn("sync: account skipped", "user", key, "error", err, "request_id", xs2a.RequestIDOf(err))
			}
		}
	}
	return nil
}

// account reads one account's booked transactions on from its mark,
// leaving the day's reserve (xs2a.Accounts.Sync).
func (s *syncer) account(ctx context.Context, user string, psu xs2a.PSU, accountID string, mark xs2a.SyncMark) error {
	var booked []xs2a.Transaction
	var kept *xs2a.AccessExceededError
	// Of the account's 4 daily calls without the customer (docs/interface.md
	// L2), one is left for the rest of the day.
	q := &xs2a.TransactionsOptions{Limit: s.pageSize, KeepCalls: 1}
	for tx, err := range s.client.Accounts.Sync(ctx, psu, accountID, &mark, q) {
		if errors.As(err, &kept) && kept.Kept > 0 { // goes on at the next run
			s.log.Info("sync: calls kept in reserve", "user", user, "next_call_at", kept.Next)
			break
		} else if err != nil {
			return err
		}
		booked = append(booked, tx)
	}
	return s.store.AddTransactions(ctx, user, accountID, booked, mark)
}
