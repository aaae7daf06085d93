package xs2a_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// The status of one PSU's SCA: started until the PSU signs, finalised
// after. A TPP whose callback never came can tell an abandoned SCA from a
// finished one this way, where the bank names the authorisation: production
// banks answer startAuthorisation without its id (here the fake bank gives
// it, WithFullAuthorisationAnswer), and AuthorisationLink then says so. The
// payment's status answer names the payment and links to it.
func ExamplePaymentsService_AuthorisationStatus() {
	srv, client := startExampleBank(xs2atest.WithFullAuthorisationAnswer())
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer2)
	ola, _ := srv.Customer(xs2atest.PrivateCustomer2)

	ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
		InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: "250.00"},
		DebtorAccount:    &xs2a.AccountReference{BBAN: ola.Accounts[0].BBAN},
		CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
		CreditorName:     "Kari Nordmann",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	auth, _, err := client.Payments.StartAuthorisation(ctx, psu, ini.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err)
	}
	link, err := auth.AuthorisationLink(ini.Links.StartAuthorisation)
	if err != nil {
		log.Fatal(err) // the bank named no authorisation: read the payment's status instead
	}
	st, _, err := client.Payments.AuthorisationStatus(ctx, psu, link)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("before the PSU signs:", st.SCAStatus, "final:", st.SCAStatus.Final())

	psuFromSCA(ctx, srv, auth.Links.SCARedirect.Href, xs2atest.PrivateCustomer2, psu.IPAddress)
	st, _, err = client.Payments.AuthorisationStatus(ctx, psu, link)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after:", st.SCAStatus, "final:", st.SCAStatus.Final())

	ps, _, err := client.Payments.Status(ctx, psu, ini.Links.Status)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("payment:", ps.TransactionStatus, "same id:", ps.PaymentID == ini.PaymentID,
		"signer due:", !ps.Links.StartAuthorisation.IsZero())
	// Output:
	// before the PSU signs: started final: false
	// after: finalised final: true
	// payment: PDNG same id: true signer due: false
}

// A signing basket can be read, and deleted while the PSU has not
// authorised it; the payments in it stay.
func ExampleSigningBasketsService_Cancel() {
	srv, client := startExampleBank()
	defer srv.Close()
	defer client.Close()
	ctx := context.Background()
	psu := consentedPSU(ctx, srv, client, xs2atest.PrivateCustomer1)
	kari, _ := srv.Customer(xs2atest.PrivateCustomer1)

	var payments []*xs2a.Initiation
	for _, amount := range []string{"100.00", "200.00"} {
		ini, _, err := client.Payments.Initiate(ctx, psu, xs2a.NorwegianDomesticCreditTransfers, &xs2a.Payment{
			InstructedAmount: xs2a.Amount{Currency: "NOK", Amount: amount},
			DebtorAccount:    &xs2a.AccountReference{BBAN: kari.Accounts[0].BBAN},
			CreditorAccount:  xs2a.AccountReference{BBAN: "86011117947"},
			CreditorName:     "Ola Nordmann",
		}, nil)
		if err != nil {
			log.Fatal(err)
		}
		payments = append(payments, ini)
	}
	basket, _, err := client.SigningBaskets.Create(ctx, psu, &xs2a.SigningBasket{Payments: payments})
	if err != nil {
		log.Fatal(err)
	}
	got, _, err := client.SigningBaskets.Get(ctx, psu, basket.Links.Self)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("basket:", got.TransactionStatus, len(got.Payments), "payments")

	if _, err := client.SigningBaskets.Cancel(ctx, psu, basket.Links.Self); err != nil {
		log.Fatal(err)
	}
	_, _, err = client.SigningBaskets.Status(ctx, psu, basket.Links.Status)
	fmt.Println("deleted:", errors.Is(err, xs2a.ErrNotFound))
	st, _, err := client.Payments.Status(ctx, psu, payments[0].Links.Status)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("its payment:", st.TransactionStatus)
	// Output:
	// basket: RCVD 2 payments
	// deleted: true
	// its payment: RCVD
}
