package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tppkit/xs2a"
)

const transactionsSynopsis = "transactions [-account ID] [-from YYYY-MM-DD] [-to YYYY-MM-DD] [-status booked|pending|both] [-json] [-base-url URL ...]"

// pageProgress writes a line on w for each page of transactions after the
// first, while a walk pages.
type pageProgress struct {
	base  http.RoundTripper
	w     io.Writer
	pages atomic.Int32
}

func (p *pageProgress) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/transactions") {
		if n := p.pages.Add(1); n > 1 {
			fmt.Fprintf(p.w, "xs2a: reading page %d of transactions\n", n)
		}
	}
	return p.base.RoundTrip(r)
}

type txFlags struct{ account, from, to, status string }

// query checks the flags and turns them into a TransactionsOptions.
func (f txFlags) query() (*xs2a.TransactionsOptions, error) {
	q := &xs2a.TransactionsOptions{BookingStatus: xs2a.BookingStatus(f.status)}
	switch q.BookingStatus {
	case xs2a.BookingBooked, xs2a.BookingPending, xs2a.BookingBoth:
	default:
		return nil, usagef("transactions: -status %q: want booked, pending or both", f.status)
	}
	for _, d := range []struct {
		flag, v string
		into    *time.Time
	}{{"from", f.from, &q.DateFrom}, {"to", f.to, &q.DateTo}} {
		if d.v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, d.v)
		if err != nil {
			return nil, usagef("transactions: -%s %q: want YYYY-MM-DD", d.flag, d.v)
		}
		*d.into = t
	}
	if !q.DateFrom.IsZero() && q.DateTo.Before(q.DateFrom) && !q.DateTo.IsZero() {
		return nil, usagef("transactions: -to %s is before -from %s", f.to, f.from)
	}
	return q, nil
}

// txFields maps the SDK's validation fields of the query to the flags.
var txFields = flagFields{"accountID": "-account", "TransactionsOptions.DateFrom": "-from", "TransactionsOptions.DateTo": "-to", "TransactionsOptions.BookingStatus": "-status"}

// txReport is the -json output: the transactions grouped as the bank
// groups them, each group present when -status asked for it (an empty
// group is [], not null).
type txReport struct {
	Booked  *[]xs2a.Transaction `json:"booked,omitempty"`
	Pending *[]xs2a.Transaction `json:"pending,omitempty"`
}

// groupTransactions groups list by each entry's BookingStatus (booked or
// pending).
func groupTransactions(status xs2a.BookingStatus, list []xs2a.Transaction) txReport {
	var r txReport
	booked, pending := []xs2a.Transaction{}, []xs2a.Transaction{}
	if status == xs2a.BookingBooked || status == xs2a.BookingBoth {
		r.Booked = &booked
	}
	if status == xs2a.BookingPending || status == xs2a.BookingBoth {
		r.Pending = &pending
	}
	for _, tx := range list {
		switch tx.BookingStatus {
		case xs2a.BookingPending:
			pending = append(pending, tx)
			r.Pending = &pending
		default:
			booked = append(booked, tx)
			r.Booked = &booked
		}
	}
	return r
}

func runTransactions(ctx context.Context, e *env, args []string) error {
	var f txFlags
	progress := func(rt http.RoundTripper) http.RoundTripper { return &pageProgress{base: rt, w: e.stderr} }
	b, bk, err := clientCommand(e, "transactions", transactionsSynopsis, args, func(fs *flag.FlagSet) {
		fs.StringVar(&f.account, "account", "", "resource id of the account (default: the first one listed)")
		fs.StringVar(&f.from, "from", "", "first booking date, YYYY-MM-DD (default: the bank's, 90 days back)")
		fs.StringVar(&f.to, "to", "", "last booking date, YYYY-MM-DD")
		fs.StringVar(&f.status, "status", "both", "booked, pending or both")
	}, progress)
	if err != nil {
		return err
	}
	defer bk.close()
	q, err := f.query()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	psu, id, err := consentedAccount(ctx, e, bk, b, f.account)
	if err != nil {
		return err
	}
	var list []xs2a.Transaction
	for tx, err := range bk.client.Accounts.Transactions(ctx, psu, id, q) {
		if err != nil {
			return txFields.usage("transactions", err)
		}
		list = append(list, tx)
	}
	return output(e, b.json, groupTransactions(q.BookingStatus, list), []string{"DATE", "STATUS", "AMOUNT", "CURRENCY", "COUNTERPARTY", "TEXT"}, func() [][]string {
		rows := make([][]string, 0, len(list))
		for _, tx := range list {
			date := tx.BookingDate
			if date.IsZero() {
				date = tx.ValueDate
			}
			rows = append(rows, []string{date.String(), string(tx.BookingStatus), tx.TransactionAmount.Amount, tx.TransactionAmount.Currency,
				firstNonEmpty(tx.CreditorName, tx.DebtorName), tx.RemittanceInformationUnstructured})
		}
		return rows
	})
}
