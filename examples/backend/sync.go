package main

import (
	"context"
	"errors"
	"log/slog"
	"time"
	_ "time/tzdata" // the bank's calendar on machines without a zoneinfo database

	"github.com/tppkit/xs2a"
)

// reserve is how many of an account's 4 daily calls without the customer
// (docs/interface.md L2) the sync leaves for the rest of the day.
const reserve = 1

// oslo is the bank's calendar, which counts the 90 days of history.
var oslo, _ = time.LoadLocation("Europe/Oslo")

// syncer reads each connected user's new booked transactions without the
// customer present.
type syncer struct {
	client   *xs2a.Client
	store    Store
	log      *slog.Logger
	now      func() time.Time
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
			err := s.account(ctx, key, xs2a.PSU{ID: u.PSUID}, accountID)
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

// account reads one account's pages from where the last walk stopped,
// while the day's calls left are more than the reserve.
func (s *syncer) account(ctx context.Context, user string, psu xs2a.PSU, accountID string) error {
	budget, err := s.client.Budget(ctx, psu, accountID, xs2a.BudgetTransactions)
	if err != nil || budget.Remaining <= reserve {
		return err
	}
	mark, err := s.store.SyncMark(ctx, user, accountID)
	if err != nil {
		return err
	}
	// At most 90 days back in the bank's calendar. A first walk starts 85
	// days back, so that one the budget stops can go on for a few days.
	today := xs2a.DateOf(s.now().In(oslo))
	if mark.From.IsZero() || mark.From.Before(today.AddDays(-89)) {
		mark = SyncMark{From: today.AddDays(-85)}
	}
	for {
		q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingBooked, DateFrom: mark.From.In(oslo),
			Limit: s.pageSize, Offset: mark.Offset}
		page, resp, err := s.client.Accounts.TransactionsPage(ctx, psu, accountID, q)
		if err != nil {
			return err
		}
		booked := page.Transactions.Booked
		for _, tx := range booked {
			if tx.BookingDate.After(mark.Latest) {
				mark.Latest = tx.BookingDate
			}
		}
		mark.Offset += len(booked)
		last := len(booked) < s.pageSize
		if last && !mark.Latest.IsZero() { // the next walk: from a day before the latest booking
			mark = SyncMark{From: mark.Latest.AddDays(-1), Latest: mark.Latest}
		} else if last {
			mark.Offset = 0
		}
		if err := s.store.AddTransactions(ctx, user, accountID, booked, mark); err != nil || last {
			return err
		}
		if resp.Budget != nil && resp.Budget.Remaining <= reserve {
			s.log.Info("sync: one call kept in reserve", "user", user, "next_call_at", resp.Budget.Reset)
			return nil
		}
	}
}
