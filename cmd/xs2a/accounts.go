package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"time"

	"github.com/tppkit/xs2a"
)

const accountsSynopsis = "accounts [-json] [-base-url URL (-p12 FILE | -cert FILE -key FILE)] [-redirect-uri URI] [-open] [-customer N]"

// clientCommand parses a client subcommand's flags (extra adds its own)
// and opens the bank (rt as openBank has it); the caller closes it.
func clientCommand(e *env, name, synopsis string, args []string, extra func(*flag.FlagSet), rt func(http.RoundTripper) http.RoundTripper) (*bankFlags, *bank, error) {
	b := &bankFlags{cmd: name}
	fs := newFlags(name)
	b.register(fs)
	if extra != nil {
		extra(fs)
	}
	if err := parse(e, fs, synopsis, args); err != nil {
		return nil, nil, err
	}
	b.fromEnv(e, fs)
	if err := b.check(name); err != nil {
		return nil, nil, err
	}
	bk, err := openBank(e, b, rt)
	return b, bk, err
}

func runAccounts(ctx context.Context, e *env, args []string) error {
	b, bk, err := clientCommand(e, "accounts", accountsSynopsis, args, nil, nil)
	if err != nil {
		return err
	}
	defer bk.close()
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	var list []xs2a.Account
	_, err = withConsent(ctx, e, bk, b, func(psu xs2a.PSU) (err error) {
		list, _, err = bk.client.Accounts.List(ctx, psu)
		return err
	})
	if err != nil {
		return err
	}
	return output(e, b.json, list, []string{"ID", "ACCOUNT", "CURRENCY", "NAME", "PRODUCT"}, func() [][]string {
		rows := make([][]string, 0, len(list))
		for _, a := range list {
			rows = append(rows, []string{a.ResourceID, firstNonEmpty(a.BBAN, a.IBAN), a.Currency, a.Name, a.Product})
		}
		return rows
	})
}

// consentedAccount returns the account id: the given one, or the first
// account the customer consents to.
func consentedAccount(ctx context.Context, e *env, bk *bank, b *bankFlags, id string) (xs2a.PSU, string, error) {
	psu, err := withConsent(ctx, e, bk, b, func(psu xs2a.PSU) error {
		list, _, err := bk.client.Accounts.List(ctx, psu)
		if err == nil && id == "" {
			if len(list) == 0 {
				return errors.New("the customer consented to no account")
			}
			id = list[0].ResourceID
		}
		return err
	})
	return psu, id, err
}

const balancesSynopsis = "balances [-account ID] [-json] [-base-url URL (-p12 FILE | -cert FILE -key FILE)] ..."

func runBalances(ctx context.Context, e *env, args []string) error {
	var account string
	b, bk, err := clientCommand(e, "balances", balancesSynopsis, args, func(fs *flag.FlagSet) {
		fs.StringVar(&account, "account", "", "resource id of the account (default: the first one listed)")
	}, nil)
	if err != nil {
		return err
	}
	defer bk.close()
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	psu, id, err := consentedAccount(ctx, e, bk, b, account)
	if err != nil {
		return err
	}
	bal, resp, err := bk.client.Accounts.Balances(ctx, psu, id)
	if err != nil {
		return flagFields{"accountID": "-account"}.usage("balances", err)
	}
	answered := e.now()
	if resp != nil {
		if t, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
			answered = t
		}
	}
	return output(e, b.json, bal, []string{"TYPE", "AMOUNT", "CURRENCY", "DATE"}, func() [][]string {
		rows := make([][]string, 0, len(bal.Balances))
		for _, x := range bal.Balances {
			rows = append(rows, []string{string(x.BalanceType), string(x.BalanceAmount.Amount), x.BalanceAmount.Currency, balanceDate(x, answered)})
		}
		return rows
	})
}

// balanceDate is the date of a balance for the table: its referenceDate,
// else its lastChangeDateTime (in the offset the bank wrote), else the
// time of the bank's answer in the local zone, "as of" it. The platform's
// banks send neither date (docs/interface.md PRS3), so the last is the
// usual case: a balance is the bank's figure when it answered.
func balanceDate(b xs2a.Balance, answered time.Time) string {
	switch {
	case !b.ReferenceDate.IsZero():
		return b.ReferenceDate.String()
	case b.LastChangeDateTime != nil && !b.LastChangeDateTime.IsZero():
		return b.LastChangeDateTime.Format("2006-01-02 15:04 -07:00")
	default:
		return "as of " + answered.Local().Format("2006-01-02 15:04")
	}
}
