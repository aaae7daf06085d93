package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"strings"

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

// payFields maps the SDK's validation fields of the payment to the flags
// that fed them.
var payFields = flagFields{
	"Payment.InstructedAmount":                  "-amount",
	"Payment.InstructedAmount.Currency":         "-currency",
	"Payment.CreditorAccount":                   "-to",
	"Payment.DebtorAccount":                     "-from",
	"Payment.CreditorName":                      "-creditor-name",
	"Payment.RemittanceInformationUnstructured": "-message",
	"product": "-product",
}

// runPay initiates a payment, has the customer sign it at the bank, polls
// its status until the bank has decided (PaymentsService.PollStatus) and
// prints it. Without -from the customer picks the account to pay from at
// the bank. A refusal (RJCT, CANC) or fundsAvailable false is printed and
// exits 1 (payOutcome).
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
	psu := b.psu()
	fields := b.fields()
	maps.Copy(fields, payFields)
	init, _, err := bk.client.Payments.Initiate(ctx, psu, f.product, p, nil)
	if err != nil {
		return fundsRefusal(fields.usage("pay", err))
	}
	if err := signPayment(ctx, e, bk, psu, init); err != nil {
		return fundsRefusal(err)
	}
	if bk.fake != nil {
		bk.fake.RunBatch()
		fmt.Fprintln(e.stderr, "xs2a: embedded fake bank: a payment batch ran")
	}
	st, _, err := bk.client.Payments.PollStatus(ctx, psu, init.Links.Status, nil)
	if st == nil || err != nil {
		return fundsRefusal(err)
	}
	funds := ""
	if st.FundsAvailable != nil {
		funds = map[bool]string{true: "available", false: "insufficient"}[*st.FundsAvailable]
	}
	if err := output(e, b.json, st, []string{"PAYMENT", "STATUS", "FUNDS"}, func() [][]string {
		return [][]string{{firstNonEmpty(st.PaymentID, init.PaymentID), string(st.TransactionStatus), funds}}
	}); err != nil {
		return err
	}
	return payOutcome(st)
}

// payOutcome is the error of a payment status the bank decided against:
// fundsAvailable false, RJCT or CANC. Any other status is nil.
func payOutcome(st *xs2a.PaymentStatus) error {
	code := line(string(st.TransactionStatus))
	var texts []string
	for _, m := range st.Messages {
		texts = append(texts, strings.TrimSpace(m.Code+" "+m.Text))
	}
	why := ""
	if len(texts) > 0 {
		why = ": " + strings.Join(texts, "; ")
	}
	switch {
	case st.InsufficientFunds() && st.TransactionStatus.Final():
		return fmt.Errorf("the bank refused the payment for lack of funds (status %s, fundsAvailable false)%s", code, why)
	case st.InsufficientFunds():
		return fmt.Errorf("insufficient funds (status %s, fundsAvailable false)%s: the bank keeps the payment and may execute it when funds arrive: cancel it before paying again", code, why)
	case st.TransactionStatus == xs2a.TransactionStatusRJCT || st.TransactionStatus == xs2a.TransactionStatusCANC:
		return fmt.Errorf("the bank refused the payment (status %s)%s", code, why)
	}
	return nil
}

// fundsRefusal says plainly that an error is a refusal for lack of funds:
// an error that answers xs2a.ErrInsufficientFunds (400 FUNDS_NOT_AVAILABLE
// at initiation), or an SCA that failed with FUNDS_NOT_AVAILABLE (an
// instant payment executed at its authorisation). Any other error is
// returned as it is.
func fundsRefusal(err error) error {
	var f *xs2a.SCAFailedError
	switch {
	case errors.As(err, &f) && f.Code == xs2a.CodeFundsNotAvailable:
		err = f
	case !errors.Is(err, xs2a.ErrInsufficientFunds):
		return err
	}
	return fmt.Errorf("the bank refused the payment for lack of funds: %s", strings.TrimPrefix(err.Error(), "xs2a: "))
}

// signPayment takes the customer through the payment's SCA.
func signPayment(ctx context.Context, e *env, bk *bank, psu xs2a.PSU, init *xs2a.Initiation) error {
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
	cb, err := xs2a.ParseCallback(u.Query())
	if err != nil {
		return fmt.Errorf("the payment was not signed: %w", err)
	}
	printPSUID(e, bk, cb.PSUID, psu.SessionID)
	return nil
}
