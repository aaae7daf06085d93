package xs2a_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// requireRefusedAt asserts the bank's 400 FORMAT_ERROR naming path.
func requireRefusedAt(t *testing.T, err error, path string) {
	t.Helper()
	e := requireBankError(t, err, 400, xs2a.CodeFormatError)
	require.NotEmpty(t, e.Messages)
	require.Equal(t, path, e.Messages[0].Path, "%v", err)
}

// TestSandboxMockDataShapes: docs/interface.md SB9 to SB11, end to end. The
// SDK sends the shapes of the platform's own mock-data scripts (type in
// lower case, accountName and balances, card accounts on their own route,
// owner and engagements, transactions as an array) and the fake bank takes
// them; what the sandbox refuses comes back as *Error 400 FORMAT_ERROR
// whose path names the member, and a refused array creates nothing.
func TestSandboxMockDataShapes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	sb := b.c.Sandbox
	today := xs2a.DateOf(b.clock.Now().In(oslo))

	per, _, err := sb.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "01078900497", CustomerType: xs2a.CustomerPrivate, Name: "Test Testperson 1"})
	require.NoError(t, err)
	assert.Equal(t, xs2a.CustomerPrivate, per.CustomerType)
	firm, _, err := sb.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: "17099233842", CustomerType: xs2a.CustomerCorporate, Name: "Testfirma 2"})
	require.NoError(t, err)
	assert.Len(t, firm.Agreements, 1, "a corporate customer's default agreement")

	acct, _, err := sb.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: per.CustomerNumber, Name: "Brukskonto", BBAN: "90412263056",
		Currency: "NOK", Product: "Brukskonto", CashAccountType: "CACC", Balance: "10000"})
	require.NoError(t, err)
	assert.Equal(t, "10000.00", acct.Balance)
	assert.Equal(t, "NO2390412263056", acct.IBAN)
	card, _, err := sb.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: per.CustomerNumber, Name: "Basic Credit", Card: true,
		Currency: "NOK", MaskedPAN: "1234xxxxxxxx4321", CreditLimit: "1000"})
	require.NoError(t, err)
	assert.True(t, card.Card)
	assert.Equal(t, "1000.00", card.CreditLimit)
	assert.Equal(t, "1234xxxxxxxx4321", card.MaskedPAN)
	firmAcct, _, err := sb.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: firm.CustomerNumber, Name: "Driftskonto", Currency: "NOK"})
	require.NoError(t, err)

	ag, _, err := sb.CreateAgreement(ctx, &xs2a.SandboxAgreement{CustomerNumber: firm.CustomerNumber, Name: "Testavtale 1",
		Engagements: []xs2a.SandboxEngagement{{Customer: per.CustomerNumber, Account: xs2a.AccountReference{IBAN: firmAcct.IBAN},
			Roles: []xs2a.EngagementRole{xs2a.EngagementView, xs2a.EngagementRegister}}}})
	require.NoError(t, err)
	assert.Equal(t, []string{firm.CustomerNumber, per.CustomerNumber}, ag.Members)
	assert.Equal(t, []string{firmAcct.ResourceID}, ag.Accounts)

	// several transactions in one POST, created in order
	txs, _, err := sb.CreateTransactions(ctx, acct.ResourceID, []xs2a.SandboxTransaction{
		{TransactionAmount: nok(t, "1500"), BookingDate: today.AddDays(-2), CreditorName: "Aftenposten", RemittanceInformationUnstructured: "63444766"},
		{TransactionAmount: nok(t, "-123.50"), BookingDate: today.AddDays(-1), ValueDate: today, CreditorName: "Sognekraft"},
		{TransactionAmount: nok(t, "-10"), Pending: true},
	})
	require.NoError(t, err)
	require.Len(t, txs, 3)
	assert.Equal(t, "Aftenposten", txs[0].CreditorName)
	assert.Equal(t, "-123.50", txs[1].TransactionAmount.Amount)
	assert.True(t, txs[2].Pending)
	assert.NotEqual(t, txs[0].TransactionID, txs[1].TransactionID)
	assert.Equal(t, "11376.50", b.Balance(acct.ResourceID), "booked ones move the balance")
	cardTxs, _, err := sb.CreateCardTransactions(ctx, card.ResourceID, []xs2a.SandboxTransaction{
		{TransactionAmount: nok(t, "-100"), TransactionDate: today.AddDays(-3), BookingDate: today.AddDays(-2), OriginalAmount: &xs2a.Amount{Currency: "EUR", Amount: "-8.61"}, TransactionDetails: "Zalando SE Berlin"},
	})
	require.NoError(t, err)
	require.Len(t, cardTxs, 1)

	// the sandbox's refusals
	other := xs2a.AccountReference{BBAN: customerAccount(t, b, xs2a.SandboxPrivateCustomer2).BBAN}
	_, _, err = sb.CreateTransactions(ctx, acct.ResourceID, []xs2a.SandboxTransaction{
		{TransactionAmount: nok(t, "-1")}, {TransactionAmount: nok(t, "-1"), DebtorAccount: &other}})
	requireRefusedAt(t, err, "[1].debtorAccount")
	assert.Equal(t, "11376.50", b.Balance(acct.ResourceID), "a refused array creates nothing")
	_, _, err = sb.CreateCardTransactions(ctx, acct.ResourceID, []xs2a.SandboxTransaction{{TransactionAmount: nok(t, "-1")}})
	requireBankError(t, err, 404, xs2a.CodeResourceUnknown)
	_, _, err = sb.CreateAgreement(ctx, &xs2a.SandboxAgreement{CustomerNumber: firm.CustomerNumber, Name: "X",
		Engagements: []xs2a.SandboxEngagement{{Customer: per.CustomerNumber, Account: xs2a.AccountReference{BBAN: acct.BBAN}}}})
	requireRefusedAt(t, err, "engagements[0].account")
	_, _, err = sb.AddEngagements(ctx, ag.ID, []xs2a.SandboxEngagement{{Customer: per.CustomerNumber, Account: xs2a.AccountReference{BBAN: "86011117947"}}})
	requireRefusedAt(t, err, "[0].account")
	_, _, err = sb.CreateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: per.CustomerNumber, CustomerType: xs2a.CustomerPrivate, Name: "Again"})
	requireRefusedAt(t, err, "customerNumber")

	// engagements added later; VIEW alone makes a member without granting the account
	second, _, err := sb.CreateAccount(ctx, &xs2a.SandboxAccount{CustomerNumber: firm.CustomerNumber, Name: "Skattetrekk", Currency: "NOK"})
	require.NoError(t, err)
	ag, _, err = sb.AddEngagements(ctx, ag.ID, []xs2a.SandboxEngagement{
		{Customer: xs2a.SandboxCorporateCustomer1, Account: xs2a.AccountReference{BBAN: second.BBAN}, Roles: []xs2a.EngagementRole{xs2a.EngagementView}}})
	require.NoError(t, err)
	assert.Equal(t, []string{firm.CustomerNumber, per.CustomerNumber, xs2a.SandboxCorporateCustomer1}, ag.Members)
	assert.Equal(t, []string{firmAcct.ResourceID}, ag.Accounts)
}

// TestSandboxMockDataUpdates: docs/interface.md SB12, end to end. A
// customer, an account, a card account, an agreement and a transaction
// change in place; what cannot change is refused with 400 naming it.
func TestSandboxMockDataUpdates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBank(t)
	sb := b.c.Sandbox
	today := xs2a.DateOf(b.clock.Now().In(oslo))
	kari, ok := b.Customer(xs2a.SandboxPrivateCustomer1)
	require.True(t, ok)
	acc, card := kari.Accounts[0], kari.Accounts[2]

	c, _, err := sb.UpdateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: kari.CustomerNumber, CustomerType: xs2a.CustomerPrivate, Name: "Kari Nordmann-Hansen"})
	require.NoError(t, err)
	assert.Equal(t, "Kari Nordmann-Hansen", c.Name)
	_, _, err = sb.UpdateCustomer(ctx, &xs2a.SandboxCustomer{CustomerNumber: kari.CustomerNumber, CustomerType: xs2a.CustomerCorporate, Name: "Kari AS"})
	requireRefusedAt(t, err, "type")

	a, _, err := sb.UpdateAccount(ctx, &xs2a.SandboxAccount{ResourceID: acc.ResourceID, Name: "Felleskonto", Currency: "NOK", Balance: "500"})
	require.NoError(t, err)
	assert.Equal(t, "Felleskonto", a.Name)
	assert.Equal(t, "500.00", b.Balance(acc.ResourceID))
	_, _, err = sb.UpdateAccount(ctx, &xs2a.SandboxAccount{ResourceID: acc.ResourceID, Currency: "EUR", Balance: "500"})
	requireRefusedAt(t, err, "balances[0].balanceAmount.currency")
	cardNow, _, err := sb.UpdateAccount(ctx, &xs2a.SandboxAccount{ResourceID: card.ResourceID, Card: true, Currency: "NOK", CreditLimit: "75000"})
	require.NoError(t, err)
	assert.Equal(t, "75000.00", cardNow.CreditLimit)
	_, _, err = sb.UpdateAccount(ctx, &xs2a.SandboxAccount{ResourceID: acc.ResourceID, Card: true, Name: "X"})
	requireBankError(t, err, 404, xs2a.CodeResourceUnknown)

	nordlys, ok := b.Customer(xs2a.SandboxCorporateCustomer1)
	require.True(t, ok)
	ag, _, err := sb.UpdateAgreement(ctx, &xs2a.SandboxAgreement{ID: nordlys.Agreements[0].ID, CustomerNumber: nordlys.CustomerNumber,
		Name: "Nordlys Bygg AS - drift", Accounts: []string{nordlys.Accounts[0].ResourceID}, Members: []string{xs2a.SandboxCorporateCustomer2}, SignersRequired: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, ag.SignersRequired)
	assert.Equal(t, []string{nordlys.Accounts[0].ResourceID}, ag.Accounts)
	_, _, err = sb.UpdateAgreement(ctx, &xs2a.SandboxAgreement{ID: nordlys.Agreements[0].ID, CustomerNumber: xs2a.SandboxCorporateCustomer2, Name: "X"})
	requireRefusedAt(t, err, "owner")

	tx, _, err := sb.CreateTransaction(ctx, acc.ResourceID, &xs2a.SandboxTransaction{TransactionAmount: nok(t, "-100"), BookingDate: today.AddDays(-1)})
	require.NoError(t, err)
	assert.Equal(t, "400.00", b.Balance(acc.ResourceID))
	fixed := *tx
	fixed.TransactionAmount, fixed.CreditorName = nok(t, "-250"), "Kiwi"
	got, _, err := sb.UpdateTransaction(ctx, acc.ResourceID, &fixed)
	require.NoError(t, err)
	assert.Equal(t, tx.TransactionID, got.TransactionID)
	assert.Equal(t, "Kiwi", got.CreditorName)
	assert.Equal(t, "250.00", b.Balance(acc.ResourceID), "the old amount leaves the balance, the new one enters")
	gone := fixed
	gone.TransactionID = "enc!!gone"
	_, _, err = sb.UpdateTransaction(ctx, acc.ResourceID, &gone)
	requireBankError(t, err, 404, xs2a.CodeResourceUnknown)
}

// customerAccount is the first account of a sandbox customer.
func customerAccount(t *testing.T, b *bank, number string) xs2atest.Account {
	t.Helper()
	c, ok := b.Customer(number)
	require.True(t, ok)
	return c.Accounts[0]
}
