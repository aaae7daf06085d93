package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// attempt is what a TPP stores of a payment before and after each call: the
// row written before Initiate is what makes a lost answer recoverable.
type attempt struct {
	state  string // "initiating", "unknown", "initiated", "authorising", "signed"
	id     string
	status xs2a.Link
	start  xs2a.Link
}

// Example_lostPaymentAnswers is the recipe for answers that get lost:
//
//   - Store the attempt before Initiate. If Initiate answers ErrOutcomeUnknown
//     the payment may exist at the bank, and nothing can look it up: mark the
//     attempt unknown, never initiate it again on your own, and ask the PSU
//     (see "Lost payment answers" in the README).
//   - Store the id and the links Initiate returns before the next call.
//   - StartAuthorisation may be sent again after ErrOutcomeUnknown: a second
//     POST only starts another SCA of the same payment, and the payment moves
//     when the PSU completes one of them; the one whose answer was lost is
//     never shown to the PSU.
//
// Here the bank acts on the first StartAuthorisation but the connection drops
// before its answer arrives.
func Example_lostPaymentAnswers() {
	bank, err := xs2atest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer bank.Close()
	signer, err := xs2atest.NewTestSigner(nil) // TEST-ONLY certificate
	if err != nil {
		log.Fatal(err)
	}
	client, err := bank.Client(signer)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	psu := register(ctx, bank, client)
	debtor, _ := bank.Customer(xs2atest.PrivateCustomer1)
	creditor, _ := bank.Customer(xs2atest.CorporateCustomer1)
	amount, err := xs2a.ParsePaymentAmount("NOK", "250.00")
	if err != nil {
		log.Fatal(err)
	}

	row := &attempt{state: "initiating"} // stored before the call
	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: amount, DebtorAccount: &xs2a.AccountReference{BBAN: debtor.Accounts[0].BBAN},
		CreditorAccount: xs2a.AccountReference{BBAN: creditor.Accounts[0].BBAN}, CreditorName: "Nordlys Bygg AS",
	}, nil)
	if errors.Is(err, xs2a.ErrOutcomeUnknown) {
		row.state = "unknown" // ask the PSU; do not initiate again on your own
		return
	} else if err != nil {
		log.Fatal(err)
	}
	row.state, row.id, row.status, row.start = "initiated", ini.PaymentID, ini.Links.Status, ini.Links.StartAuthorisation
	bank.AddFault(xs2atest.Fault{Method: "POST", Path: "/", Drop: true, Times: 1}) // the next POST: acted on, unanswered

	var sca *xs2a.SCALinks
	for try := 1; ; try++ {
		sca, _, err = client.Payments.StartAuthorisation(ctx, psu, row.start)
		if errors.Is(err, xs2a.ErrOutcomeUnknown) && try < 3 {
			fmt.Println("start authorisation: outcome unknown, sent again")
			continue
		} else if err != nil {
			log.Fatal(err)
		}
		break
	}
	row.state = "authorising"
	if _, err := bank.CompleteSCA(ctx, sca.Links.SCARedirect.Href, xs2atest.PrivateCustomer1); err != nil {
		log.Fatal(err)
	}
	st, _, err := client.Payments.PollStatus(ctx, psu, row.status, nil)
	if err != nil {
		log.Fatal(err)
	}
	row.state = "signed"
	fmt.Println("payment:", st.Outcome())
	// Output:
	// start authorisation: outcome unknown, sent again
	// payment: accepted
}

// register runs the PISP registration of PrivateCustomer1 and returns the
// PSU, present.
func register(ctx context.Context, bank *xs2atest.Server, client *xs2a.Client) xs2a.PSU {
	psu := xs2a.PSU{SessionID: xs2a.NewSessionID(), IPAddress: "192.0.2.10"}
	links, _, err := client.Users.Register(ctx, psu)
	if err != nil {
		log.Fatal(err)
	}
	back, err := bank.CompleteSCA(ctx, links.Links.SCARedirect.Href, xs2atest.PrivateCustomer1)
	if err != nil {
		log.Fatal(err)
	}
	cb, err := xs2a.ParseCallback(back.Query())
	if err != nil {
		log.Fatal(err)
	}
	return cb.PSU(psu.IPAddress)
}
