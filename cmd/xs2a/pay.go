package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tppkit/xs2a"
)

const paySynopsis = "pay [-to BBAN] [-amount 100.00] [-currency NOK] [-creditor-name NAME] [-from BBAN] [-message TEXT] [-json] [-base-url URL ...]"

type payFlags struct{ from, to, amount, currency, creditorName, message, product string }

// payment checks the flags (the embedded fake bank fills -to with the
// customer's second account) and builds the payment.
func (f payFlags) payment(b *bankFlags, bk *bank) (*xs2a.Payment, error) {
	if f.to == "" && bk.fake != nil {
		if c, ok := bk.fake.Customer(b.customer); ok && len(c.Accounts) > 1 {
			f.to = c.Accounts[1].BBAN
		}
	}
	if f.to == "" {
		return nil, usagef("pay: -to (the creditor's account number) is required")
	}
	p := &xs2a.Payment{
		InstructedAmount:                  xs2a.Amount{Currency: f.currency, Amount: f.amount},
		CreditorAccount:                   xs2a.AccountReference{BBAN: f.to},
		CreditorName:                      f.creditorName,
		RemittanceInformationUnstructured: f.message,
	}
	if f.from != "" {
		p.DebtorAccount = &xs2a.AccountReference{BBAN: f.from}
	}
	return p, nil
}

// runPay initiates a payment, has the customer sign it at the bank, and
// prints its status. Without -from the customer picks the account to pay
// from at the bank.
func runPay(ctx context.Context, e *env, args []string) error {
	var f payFlags
	b, bk, err := clientCommand(e, "pay", paySynopsis, args, func(fs *flag.FlagSet) {
		fs.StringVar(&f.to, "to", "", "creditor's account number (embedded fake bank: the customer's second account)")
		fs.StringVar(&f.from, "from", "", "debtor's account number (default: the customer chooses at the bank)")
		fs.StringVar(&f.amount, "amount", "100.00", "amount, a decimal")
		fs.StringVar(&f.currency, "currency", "NOK", "ISO 4217 currency")
		fs.StringVar(&f.creditorName, "creditor-name", "xs2a pay", "creditor's name")
		fs.StringVar(&f.message, "message", "xs2a pay", "message to the creditor")
		fs.StringVar(&f.product, "product", xs2a.NorwegianDomesticCreditTransfers, "payment product")
	}, nil)
	if err != nil {
		return err
	}
	defer bk.close()
	p, err := f.payment(b, bk)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	psu := xs2a.PSU{ID: b.psuID, IPAddress: b.psuIP, SessionID: xs2a.NewSessionID()}
	init, _, err := bk.client.Payments.Initiate(ctx, psu, f.product, p, nil)
	if err != nil {
		return err
	}
	if err := signPayment(ctx, bk, psu, init); err != nil {
		return err
	}
	if bk.fake != nil {
		bk.fake.RunBatch()
		fmt.Fprintln(e.stderr, "xs2a: embedded fake bank: a payment batch ran")
	}
	st, _, err := bk.client.Payments.Status(ctx, psu, init.Links.Status)
	if err != nil {
		return err
	}
	return output(e, b.json, st, []string{"PAYMENT", "STATUS"}, func() [][]string {
		return [][]string{{firstNonEmpty(st.PaymentID, init.PaymentID), string(st.TransactionStatus)}}
	})
}

// signPayment takes the customer through the payment's SCA.
func signPayment(ctx context.Context, bk *bank, psu xs2a.PSU, init *xs2a.Initiation) error {
	href := init.Links.SCARedirect.Href
	if href == "" {
		auth, _, err := bk.client.Payments.StartAuthorisation(ctx, psu, init.Links.StartAuthorisation)
		if err != nil {
			return err
		}
		href = auth.Links.SCARedirect.Href
	}
	u, err := bk.authenticate(ctx, href, psu.SessionID)
	if err != nil {
		return err
	}
	if _, err := xs2a.ParseCallback(u.Query()); err != nil {
		return fmt.Errorf("the payment was not signed: %w", err)
	}
	return nil
}
