package xs2a

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fixtures under testdata/sandbox are the answers of the xs2atest fake
// bank to the requests these tests expect, captured once and kept as is.

// sandboxFixture reads testdata/sandbox/name.
func sandboxFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sandbox", name))
	require.NoError(t, err)
	return b
}

// newStubBank serves status and body under the test base path, and returns a
// client whose clock is fixedNow.
func newStubBank(t *testing.T, status int, body []byte) (*testBank, *Client) {
	t.Helper()
	b := &testBank{fn: func(w http.ResponseWriter, _ *http.Request, _ int) {
		if len(body) > 0 {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		w.Write(body)
	}}
	_, c := newTestServer(t, b, WithClock(fixedNow))
	return b, c
}

// requireSignedWithoutPSU checks that a sandbox or TPP call was signed and
// carried no PSU headers (these calls act for no PSU).
func requireSignedWithoutPSU(t *testing.T, r seenRequest) {
	t.Helper()
	require.NotEmpty(t, r.Header.Get("Signature"))
	require.NotEmpty(t, r.Header.Get("X-Request-ID"))
	require.NotEmpty(t, r.Header.Get("TPP-Signature-Certificate"))
	require.Equal(t, "https://tpp.example/cb", r.Header.Get("TPP-Redirect-URI"))
	for _, h := range []string{"PSU-ID", "PSU-CORPORATE-ID", "PSU-IP-Address", "TPP-Session-ID"} {
		require.Empty(t, r.Header.Get(h), h)
	}
	if len(r.Body) > 0 {
		require.Equal(t, Digest(r.Body), r.Header.Get("Digest"))
		require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	}
}

// requireBankError checks err is the bank's *Error with status and code.
func requireBankError(t *testing.T, err error, status int, code, path string) *Error {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "want *Error, got %T %v", err, err)
	require.Equal(t, status, e.StatusCode)
	require.Equal(t, code, e.Code)
	require.NotEmpty(t, e.Messages)
	require.Equal(t, path, e.Messages[0].Path)
	require.NotEmpty(t, e.RequestID)
	return e
}

func TestSandboxInitialize(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusNoContent, nil)
	resp, err := c.Sandbox.Initialize(context.Background())
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	r := bank.only(t)
	require.Equal(t, http.MethodPost, r.Method)
	require.Equal(t, "/v1/sandbox/initialize", r.Path)
	require.Empty(t, r.Body)
	require.Zero(t, r.ContentLength)
	require.Empty(t, r.Query)
	requireSignedWithoutPSU(t, r)
	require.Equal(t, resp.RequestID, r.Header.Get("X-Request-ID"))
}

func TestSandboxInitializeError(t *testing.T) {
	t.Parallel()
	_, c := newStubBank(t, http.StatusForbidden, []byte(`{"tppMessages":[{"category":"ERROR","code":"ROLE_INVALID","text":"sandbox only"}]}`))
	resp, err := c.Sandbox.Initialize(context.Background())
	require.NotNil(t, resp)
	e := requireBankError(t, err, http.StatusForbidden, CodeRoleInvalid, "")
	require.Equal(t, "sandbox.initialize", e.Op)
}

func TestSandboxCustomers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      *CustomersOptions
		fixture   string
		wantQuery string
		check     func(t *testing.T, cs []SandboxCustomer)
	}{
		{
			name: "nil options", fixture: "customers.json", wantQuery: "",
			check: func(t *testing.T, cs []SandboxCustomer) {
				require.Equal(t, []SandboxCustomer{
					{CustomerNumber: SandboxPrivateCustomer1, CustomerType: CustomerPrivate, Name: "Kari Nordmann"},
					{CustomerNumber: SandboxPrivateCustomer2, CustomerType: CustomerPrivate, Name: "Ola Nordmann"},
					{CustomerNumber: SandboxCorporateCustomer1, CustomerType: CustomerCorporate, Name: "Nordlys Bygg AS"},
					{CustomerNumber: SandboxCorporateCustomer2, CustomerType: CustomerCorporate, Name: "Fjellvind Shipping AS"},
				}, cs)
			},
		},
		{
			name: "empty options", opts: &CustomersOptions{}, fixture: "customers.json", wantQuery: "",
			check: func(t *testing.T, cs []SandboxCustomer) { require.Len(t, cs, 4) },
		},
		{
			name: "accounts only", opts: &CustomersOptions{IncludeAccounts: true}, fixture: "customers.json",
			wantQuery: "includeAccounts=true",
			check:     func(t *testing.T, cs []SandboxCustomer) { require.Len(t, cs, 4) },
		},
		{
			name: "accounts and agreements", opts: &CustomersOptions{IncludeAccounts: true, IncludeAgreements: true},
			fixture: "customers_full.json", wantQuery: "includeAccounts=true&includeAgreements=true",
			check: func(t *testing.T, cs []SandboxCustomer) {
				require.Len(t, cs, 4)
				kari := cs[0]
				require.Equal(t, SandboxPrivateCustomer1, kari.CustomerNumber)
				require.Len(t, kari.Accounts, 3)
				require.Empty(t, kari.Agreements)
				require.Equal(t, SandboxAccount{
					ResourceID: "enc!!NwYh0yBbprB8w4xb4zDu5qQ0", CustomerNumber: SandboxPrivateCustomer1,
					BBAN: "97108883131", IBAN: "NO4897108883131", Currency: "NOK", Name: "Brukskonto",
					Product: "Brukskonto", Balance: "25345.12", BookedTransactions: 1100, PendingTransactions: 2,
				}, kari.Accounts[0])
				card := kari.Accounts[2]
				require.True(t, card.Card)
				require.Equal(t, "541275******1234", card.MaskedPAN)
				require.Equal(t, "50000.00", card.CreditLimit)
				require.Equal(t, "-4230.50", card.Balance)
				require.Empty(t, card.BBAN)

				nordlys := cs[2]
				require.Equal(t, CustomerCorporate, nordlys.CustomerType)
				require.Len(t, nordlys.Accounts, 2)
				// its own agreement and the one it is a member of
				require.Len(t, nordlys.Agreements, 2)
				require.Equal(t, SandboxAgreement{
					ID: "enc!!4I6L9dAlW_aSu4JVqrJyiBTH", Name: "Fjellvind Shipping AS - investeringer",
					OrganisationNumber: "939768750", CustomerNumber: SandboxCorporateCustomer2,
					Accounts: []string{"enc!!ZYFKJF7ZIOVfq5yOV4tB7XLG"}, SignersRequired: 2,
					Members: []string{SandboxCorporateCustomer2, SandboxCorporateCustomer1},
				}, nordlys.Agreements[1])
				for _, c := range cs {
					for _, a := range c.Accounts {
						require.Equal(t, c.CustomerNumber, a.CustomerNumber)
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusOK, sandboxFixture(t, tc.fixture))
			cs, resp, err := c.Sandbox.Customers(context.Background(), tc.opts)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			r := bank.only(t)
			require.Equal(t, http.MethodGet, r.Method)
			require.Equal(t, "/v1/sandbox/customers", r.Path)
			require.Equal(t, tc.wantQuery, r.Query)
			require.Empty(t, r.Body)
			requireSignedWithoutPSU(t, r)
			tc.check(t, cs)
		})
	}
}

func TestSandboxCustomersBodyShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    []SandboxCustomer
		wantErr bool
	}{
		{name: "bare array", body: `[{"customerNumber":"13039319955","customerType":"PRIVATE","name":"Kari Nordmann"}]`,
			want: []SandboxCustomer{{CustomerNumber: "13039319955", CustomerType: CustomerPrivate, Name: "Kari Nordmann"}}},
		{name: "empty list", body: `{"customers":[]}`, want: []SandboxCustomer{}},
		{name: "no customers key", body: `{}`, want: []SandboxCustomer{}},
		{name: "empty body", body: ``, want: []SandboxCustomer{}},
		{name: "unknown customer type stays visible", body: `{"customers":[{"customerNumber":"13039319955","customerType":"SOLE_TRADER","name":"X"}]}`,
			want: []SandboxCustomer{{CustomerNumber: "13039319955", CustomerType: "SOLE_TRADER", Name: "X"}}},
		{name: "not a list", body: `{"customers":"x"}`, wantErr: true},
		{name: "a string", body: `"x"`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := newStubBank(t, http.StatusOK, []byte(tc.body))
			cs, resp, err := c.Sandbox.Customers(context.Background(), nil)
			require.NotNil(t, resp)
			if tc.wantErr {
				require.Error(t, err)
				require.Nil(t, cs)
				require.True(t, strings.HasPrefix(err.Error(), "xs2a: sandbox.customers: decoding the response"), err.Error())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, cs)
		})
	}
}

func TestSandboxCreateCustomer(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusCreated, sandboxFixture(t, "customer_created.json"))
	in := &SandboxCustomer{
		CustomerNumber: "01017012345", CustomerType: CustomerCorporate, Name: "Havbris AS",
		// set by the sandbox, never sent
		Accounts:   []SandboxAccount{{ResourceID: "x"}},
		Agreements: []SandboxAgreement{{ID: "y"}},
	}
	before := *in
	got, resp, err := c.Sandbox.CreateCustomer(context.Background(), in)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	r := bank.only(t)
	require.Equal(t, http.MethodPost, r.Method)
	require.Equal(t, "/v1/sandbox/customers", r.Path)
	// the shape of the platform's scripts: type, in lower case (SB9)
	require.Equal(t, `{"customerNumber":"01017012345","name":"Havbris AS","type":"corporate"}`, string(r.Body), "compact JSON")
	requireSignedWithoutPSU(t, r)
	require.Equal(t, before, *in, "the caller's customer is not modified")
	require.Equal(t, &SandboxCustomer{
		CustomerNumber: "01017012345", CustomerType: CustomerCorporate, Name: "Havbris AS",
		Agreements: []SandboxAgreement{{
			ID: "enc!!WD9lGttagw_g-8SpW0m2eIls", Name: "Havbris AS", OrganisationNumber: "986140115",
			CustomerNumber: "01017012345", Accounts: []string{}, SignersRequired: 1, Members: []string{"01017012345"},
		}},
	}, got)
}

// The sandbox refuses an invalid CustomerType with 400 FORMAT_ERROR
// (docs/interface.md, Errors: an invalid CustomerType is a validation error).
// The SDK refuses unknown types locally, so this bank refuses a type the SDK
// knows: the answer must surface as *Error.
func TestSandboxCreateCustomerBankRefuses(t *testing.T) {
	t.Parallel()
	_, c := newStubBank(t, http.StatusBadRequest, sandboxFixture(t, "error_customer_type.json"))
	got, resp, err := c.Sandbox.CreateCustomer(context.Background(),
		&SandboxCustomer{CustomerNumber: "01017012346", CustomerType: CustomerPrivate, Name: "X"})
	require.Nil(t, got)
	require.NotNil(t, resp)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	e := requireBankError(t, err, http.StatusBadRequest, CodeFormatError, "customerType")
	require.Equal(t, "sandbox.createCustomer", e.Op)
	require.Contains(t, err.Error(), "invalid CustomerType")
	require.False(t, errors.Is(err, ErrNotFound))
}

func TestSandboxCreateAccount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       SandboxAccount
		fixture  string
		wantPath string // "" is /v1/sandbox/accounts
		wantBody string
		want     SandboxAccount
	}{
		{
			name:     "account",
			in:       SandboxAccount{CustomerNumber: "01017012345", Currency: "NOK", Name: "Driftskonto", Balance: "1000.50", ResourceID: "ignored", BookedTransactions: 7},
			fixture:  "account_created.json",
			wantBody: `{"customerNumber":"01017012345","accountName":"Driftskonto","currency":"NOK","balances":[{"balanceType":"EXPECTED","balanceAmount":{"currency":"NOK","amount":"1000.50"}}]}`,
			want: SandboxAccount{ResourceID: "enc!!DuoHnSSAUcI0BnL9sBAqylfb", CustomerNumber: "01017012345",
				BBAN: "97106103384", IBAN: "NO4997106103384", Currency: "NOK", Name: "Driftskonto",
				Product: "Driftskonto", Balance: "1000.50"},
		},
		{
			name:     "savings account with its number",
			in:       SandboxAccount{CustomerNumber: "01017012345", BBAN: "97106103384", Currency: "NOK", Name: "Driftskonto", Product: "Sparekonto", CashAccountType: "SVGS"},
			fixture:  "account_created.json",
			wantBody: `{"customerNumber":"01017012345","accountName":"Driftskonto","bban":"97106103384","currency":"NOK","product":"Sparekonto","cashAccountType":"SVGS"}`,
			want: SandboxAccount{ResourceID: "enc!!DuoHnSSAUcI0BnL9sBAqylfb", CustomerNumber: "01017012345",
				BBAN: "97106103384", IBAN: "NO4997106103384", Currency: "NOK", Name: "Driftskonto",
				Product: "Driftskonto", Balance: "1000.50", CashAccountType: "SVGS"},
		},
		{
			name:     "card account",
			in:       SandboxAccount{CustomerNumber: SandboxPrivateCustomer1, Currency: "NOK", Name: "Visa Gull", Card: true, MaskedPAN: "492500******9999", CreditLimit: "20000"},
			fixture:  "card_account_created.json",
			wantPath: "/v1/sandbox/card-accounts",
			wantBody: `{"customerNumber":"13039319955","name":"Visa Gull","currency":"NOK","maskedPan":"492500******9999","creditLimit":{"currency":"NOK","amount":"20000"}}`,
			want: SandboxAccount{ResourceID: "enc!!bOBYAPTvTzFvC7jyvXmE7Nnb", CustomerNumber: SandboxPrivateCustomer1,
				MaskedPAN: "492500******9999", Currency: "NOK", Name: "Visa Gull", Product: "Visa Gull", Card: true,
				Balance: "0.00", CreditLimit: "20000.00"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusCreated, sandboxFixture(t, tc.fixture))
			in := tc.in
			got, resp, err := c.Sandbox.CreateAccount(context.Background(), &in)
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, resp.StatusCode)
			r := bank.only(t)
			require.Equal(t, http.MethodPost, r.Method)
			require.Equal(t, cmp.Or(tc.wantPath, "/v1/sandbox/accounts"), r.Path)
			require.Equal(t, tc.wantBody, string(r.Body))
			requireSignedWithoutPSU(t, r)
			require.Equal(t, tc.in, in, "the caller's account is not modified")
			require.Equal(t, &tc.want, got)
		})
	}
}

func TestSandboxCreateAgreement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       SandboxAgreement
		wantBody string
	}{
		{
			name: "two signers",
			in: SandboxAgreement{CustomerNumber: "01017012345", Name: "Havbris AS - drift", Accounts: []string{"enc!!DuoHnSSAUcI0BnL9sBAqylfb"},
				SignersRequired: 2, Members: []string{SandboxCorporateCustomer1}, ID: "never sent", OrganisationNumber: "never sent"},
			wantBody: `{"owner":"01017012345","name":"Havbris AS - drift","accounts":["enc!!DuoHnSSAUcI0BnL9sBAqylfb"],"signersRequired":2,"members":["18129215603"]}`,
		},
		{
			name:     "defaults",
			in:       SandboxAgreement{CustomerNumber: "01017012345", Name: "Havbris AS - drift"},
			wantBody: `{"owner":"01017012345","name":"Havbris AS - drift"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusCreated, sandboxFixture(t, "agreement_created.json"))
			in := tc.in
			got, resp, err := c.Sandbox.CreateAgreement(context.Background(), &in)
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, resp.StatusCode)
			r := bank.only(t)
			require.Equal(t, http.MethodPost, r.Method)
			require.Equal(t, "/v1/sandbox/agreements", r.Path)
			require.Equal(t, tc.wantBody, string(r.Body))
			requireSignedWithoutPSU(t, r)
			require.Equal(t, tc.in, in)
			require.Equal(t, &SandboxAgreement{
				ID: "enc!!sp5RdHPG0IOkLLR8C4QQeuFJ", Name: "Havbris AS - drift", OrganisationNumber: "903305207",
				CustomerNumber: "01017012345", Accounts: []string{"enc!!DuoHnSSAUcI0BnL9sBAqylfb"}, SignersRequired: 2,
				Members: []string{"01017012345", SandboxCorporateCustomer1},
			}, got)
		})
	}
}

func TestSandboxCreateAgreementBankRefuses(t *testing.T) {
	t.Parallel()
	_, c := newStubBank(t, http.StatusBadRequest,
		[]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"customerNumber","text":"unknown corporate customer"}]}`))
	got, resp, err := c.Sandbox.CreateAgreement(context.Background(), &SandboxAgreement{CustomerNumber: SandboxPrivateCustomer1, Name: "X"})
	require.Nil(t, got)
	require.NotNil(t, resp)
	requireBankError(t, err, http.StatusBadRequest, CodeFormatError, "customerNumber")
}

func TestSandboxCreateTransaction(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusCreated, sandboxFixture(t, "transaction_created.json"))
	in := &SandboxTransaction{
		TransactionID:                     "never sent",
		TransactionAmount:                 Amount{Currency: "NOK", Amount: "-250.00"},
		BookingDate:                       Date{2026, time.February, 27},
		ValueDate:                         Date{2026, time.February, 28},
		CreditorName:                      "Kiwi",
		DebtorAccount:                     &AccountReference{BBAN: "97108883131"},
		RemittanceInformationUnstructured: "Varekjøp",
		ProprietaryBankTransactionCode:    TransactionCode{Value: "VARER"},
	}
	before := *in
	got, resp, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!NwYh0yBbprB8w4xb4zDu5qQ0", in)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	r := bank.only(t)
	require.Equal(t, http.MethodPost, r.Method)
	require.Equal(t, "/v1/sandbox/accounts/enc!!NwYh0yBbprB8w4xb4zDu5qQ0/transactions", r.Path)
	require.Equal(t, `[{"transactionAmount":{"currency":"NOK","amount":"-250.00"},"bookingDate":"2026-02-27","valueDate":"2026-02-28","creditorName":"Kiwi","debtorAccount":{"bban":"97108883131"},"remittanceInformationUnstructured":"Varekjøp","proprietaryBankTransactionCode":"VARER"}]`, string(r.Body), "an array of one (SB11)")
	requireSignedWithoutPSU(t, r)
	require.Equal(t, before, *in, "the caller's transaction is not modified")
	want := before
	want.TransactionID = "enc!!LHTbjACVaW-P6clBQ1wiWvZ4"
	require.Equal(t, &want, got)
}

func TestSandboxCreateTransactionPendingAndCard(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusCreated,
		[]byte(`{"transactionId":"enc!!p1","bookingDate":"2026-03-02","transactionAmount":{"amount":"-99.00","currency":"NOK"}}`))
	in := &SandboxTransaction{
		TransactionAmount:  Amount{Currency: "NOK", Amount: "-99"},
		TransactionDate:    Date{2026, time.March, 1},
		OriginalAmount:     &Amount{Currency: "EUR", Amount: "-8.61"},
		TransactionDetails: "Zalando SE Berlin",
		Pending:            true,
	}
	got, _, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!card", in)
	require.NoError(t, err)
	r := bank.only(t)
	require.Equal(t, `[{"transactionAmount":{"currency":"NOK","amount":"-99"},"transactionDate":"2026-03-01","originalAmount":{"currency":"EUR","amount":"-8.61"},"transactionDetails":"Zalando SE Berlin","pending":true}]`, string(r.Body))
	require.True(t, got.Pending, "copied from the request")
	require.Equal(t, "enc!!p1", got.TransactionID)
	require.Equal(t, Date{2026, time.March, 2}, got.BookingDate)
	require.True(t, got.ValueDate.IsZero())
}

// An account id is one path segment, escaped.
func TestSandboxAccountIDIsEscaped(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusOK, []byte(`{}`))
	_, err := c.Sandbox.SetBalance(context.Background(), "a/b?c#d e", &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "1"}})
	require.NoError(t, err)
	r := bank.only(t)
	require.Equal(t, "/v1/sandbox/accounts/a%2Fb%3Fc%23d%20e/balances", r.Path)
	require.Empty(t, r.Query)
}

// docs/interface.md, Sandbox: creating a transaction for an account with another
// account as debtor returns an error.
func TestSandboxCreateTransactionOtherDebtor(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusBadRequest, sandboxFixture(t, "error_debtor.json"))
	got, resp, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!NwYh0yBbprB8w4xb4zDu5qQ0", &SandboxTransaction{
		TransactionAmount: Amount{Currency: "NOK", Amount: "-250.00"},
		DebtorAccount:     &AccountReference{BBAN: "97102214750"},
	})
	require.Nil(t, got)
	require.NotNil(t, resp)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	e := requireBankError(t, err, http.StatusBadRequest, CodeFormatError, "debtorAccount")
	require.Equal(t, "sandbox.createTransaction", e.Op)
	require.Equal(t, http.MethodPost, e.Method)
	require.Len(t, bank.requests(), 1, "a POST is never re-sent")
}

func TestSandboxSetBalance(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusOK, sandboxFixture(t, "balances.json"))
	in := &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "12345.67"}}
	resp, err := c.Sandbox.SetBalance(context.Background(), "enc!!NwYh0yBbprB8w4xb4zDu5qQ0", in)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := bank.only(t)
	require.Equal(t, http.MethodPut, r.Method)
	require.Equal(t, "/v1/sandbox/accounts/enc!!NwYh0yBbprB8w4xb4zDu5qQ0/balances", r.Path)
	require.Equal(t, `{"balanceAmount":{"currency":"NOK","amount":"12345.67"}}`, string(r.Body))
	requireSignedWithoutPSU(t, r)
}

func TestSandboxSetBalanceUnknownAccount(t *testing.T) {
	t.Parallel()
	_, c := newStubBank(t, http.StatusNotFound,
		[]byte(`{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN","path":"mockAccountId","text":"unknown account"}]}`))
	resp, err := c.Sandbox.SetBalance(context.Background(), "enc!!gone", &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "1"}})
	require.NotNil(t, resp)
	requireBankError(t, err, http.StatusNotFound, CodeResourceUnknown, "mockAccountId")
	require.ErrorIs(t, err, ErrNotFound)
}

// Every local rule refuses with a *ValidationError naming the field, and
// nothing is sent.
func TestSandboxValidation(t *testing.T) {
	t.Parallel()
	okTx := func(mod func(*SandboxTransaction)) *SandboxTransaction {
		tx := &SandboxTransaction{TransactionAmount: Amount{Currency: "NOK", Amount: "-10"}}
		mod(tx)
		return tx
	}
	okAccount := func(mod func(*SandboxAccount)) *SandboxAccount {
		a := &SandboxAccount{CustomerNumber: SandboxPrivateCustomer1, Currency: "NOK", Name: "Brukskonto"}
		mod(a)
		return a
	}
	okCustomer := func(mod func(*SandboxCustomer)) *SandboxCustomer {
		c := &SandboxCustomer{CustomerNumber: "01017012345", CustomerType: CustomerPrivate, Name: "Kari"}
		mod(c)
		return c
	}
	okAgreement := func(mod func(*SandboxAgreement)) *SandboxAgreement {
		a := &SandboxAgreement{CustomerNumber: SandboxCorporateCustomer1, Name: "Drift"}
		mod(a)
		return a
	}
	okBalance := &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "1"}}
	tx := func(c *Client, tx *SandboxTransaction) error {
		_, _, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!a", tx)
		return err
	}
	account := func(c *Client, a *SandboxAccount) error {
		_, _, err := c.Sandbox.CreateAccount(context.Background(), a)
		return err
	}
	customer := func(c *Client, cu *SandboxCustomer) error {
		_, _, err := c.Sandbox.CreateCustomer(context.Background(), cu)
		return err
	}
	agreement := func(c *Client, a *SandboxAgreement) error {
		_, _, err := c.Sandbox.CreateAgreement(context.Background(), a)
		return err
	}
	// fixedNow is 2026-03-02 10:04 UTC, 11:04 in Oslo.
	tests := []struct {
		name  string
		call  func(*Client) error
		field string
	}{
		{"customer nil", func(c *Client) error { return customer(c, nil) }, "SandboxCustomer"},
		{"customer number short", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerNumber = "0101701234" }))
		}, "SandboxCustomer.CustomerNumber"},
		{"customer number long", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerNumber = "010170123456" }))
		}, "SandboxCustomer.CustomerNumber"},
		{"customer number letters", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerNumber = "0101701234a" }))
		}, "SandboxCustomer.CustomerNumber"},
		{"customer number full-width digits", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerNumber = "０１０１７０１２３４５" }))
		}, "SandboxCustomer.CustomerNumber"},
		{"customer type empty", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerType = "" }))
		}, "SandboxCustomer.CustomerType"},
		{"customer type lower case", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerType = "private" }))
		}, "SandboxCustomer.CustomerType"},
		{"customer type unknown", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.CustomerType = "COMPANY" }))
		}, "SandboxCustomer.CustomerType"},
		{"customer name blank", func(c *Client) error { return customer(c, okCustomer(func(x *SandboxCustomer) { x.Name = "  " })) }, "SandboxCustomer.Name"},
		{"customer name emoji", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.Name = "Kari 🙂" }))
		}, "SandboxCustomer.Name"},
		{"customer name too long", func(c *Client) error {
			return customer(c, okCustomer(func(x *SandboxCustomer) { x.Name = strings.Repeat("a", 71) }))
		}, "SandboxCustomer.Name"},

		{"account nil", func(c *Client) error { return account(c, nil) }, "SandboxAccount"},
		{"account customer number", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.CustomerNumber = "" })) }, "SandboxAccount.CustomerNumber"},
		{"account currency missing", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.Currency = "" })) }, "SandboxAccount.Currency"},
		{"account currency lower", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.Currency = "nok" })) }, "SandboxAccount.Currency"},
		{"account name missing", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.Name = "" })) }, "SandboxAccount.Name"},
		{"account product control char", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.Product = "a\nb" })) }, "SandboxAccount.Product"},
		{"account bban checksum", func(c *Client) error {
			return account(c, okAccount(func(x *SandboxAccount) { x.BBAN = "97108883132" }))
		}, "SandboxAccount.BBAN"},
		{"account bban on card", func(c *Client) error {
			return account(c, okAccount(func(x *SandboxAccount) { x.BBAN = "97108883131"; x.Card = true }))
		}, "SandboxAccount.BBAN"},
		{"account balance", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.Balance = "1,5" })) }, "SandboxAccount.Balance"},
		{"account masked pan without card", func(c *Client) error {
			return account(c, okAccount(func(x *SandboxAccount) { x.MaskedPAN = "4925******1" }))
		}, "SandboxAccount.MaskedPAN"},
		{"account credit limit without card", func(c *Client) error { return account(c, okAccount(func(x *SandboxAccount) { x.CreditLimit = "100" })) }, "SandboxAccount.CreditLimit"},
		{"account credit limit negative", func(c *Client) error {
			return account(c, okAccount(func(x *SandboxAccount) { x.Card = true; x.CreditLimit = "-100" }))
		}, "SandboxAccount.CreditLimit"},

		{"agreement nil", func(c *Client) error { return agreement(c, nil) }, "SandboxAgreement"},
		{"agreement customer number", func(c *Client) error {
			return agreement(c, okAgreement(func(x *SandboxAgreement) { x.CustomerNumber = "1" }))
		}, "SandboxAgreement.CustomerNumber"},
		{"agreement name", func(c *Client) error { return agreement(c, okAgreement(func(x *SandboxAgreement) { x.Name = "" })) }, "SandboxAgreement.Name"},
		{"agreement empty account id", func(c *Client) error {
			return agreement(c, okAgreement(func(x *SandboxAgreement) { x.Accounts = []string{"enc!!a", ""} }))
		}, "SandboxAgreement.Accounts[1]"},
		{"agreement member", func(c *Client) error {
			return agreement(c, okAgreement(func(x *SandboxAgreement) { x.Members = []string{"123"} }))
		}, "SandboxAgreement.Members[0]"},
		{"agreement signers negative", func(c *Client) error {
			return agreement(c, okAgreement(func(x *SandboxAgreement) { x.SignersRequired = -1 }))
		}, "SandboxAgreement.SignersRequired"},

		{"transaction account id empty", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransaction(context.Background(), "", okTx(func(*SandboxTransaction) {}))
			return err
		}, "mockAccountID"},
		{"transaction account id dot dot", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransaction(context.Background(), "..", okTx(func(*SandboxTransaction) {}))
			return err
		}, "mockAccountID"},
		{"transaction account id control char", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!a\r\n", okTx(func(*SandboxTransaction) {}))
			return err
		}, "mockAccountID"},
		{"transaction nil", func(c *Client) error { return tx(c, nil) }, "SandboxTransaction"},
		{"transaction amount missing", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.TransactionAmount = Amount{} }))
		}, "SandboxTransaction.TransactionAmount.Amount"},
		{"transaction amount float text", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.TransactionAmount.Amount = "1e3" }))
		}, "SandboxTransaction.TransactionAmount.Amount"},
		{"transaction currency", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.TransactionAmount.Currency = "KR" }))
		}, "SandboxTransaction.TransactionAmount.Currency"},
		{"transaction original amount", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.OriginalAmount = &Amount{Currency: "EUR"} }))
		}, "SandboxTransaction.OriginalAmount.Amount"},
		{"booking date tomorrow", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.BookingDate = Date{2026, time.March, 3} }))
		}, "SandboxTransaction.BookingDate"},
		{"value date tomorrow", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) {
				x.BookingDate = Date{2026, time.March, 1}
				x.ValueDate = Date{2026, time.March, 3}
			}))
		}, "SandboxTransaction.ValueDate"},
		{"value date before booking date", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) {
				x.BookingDate = Date{2026, time.March, 1}
				x.ValueDate = Date{2026, time.February, 28}
			}))
		}, "SandboxTransaction.ValueDate"},
		{"value date before today without booking date", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.ValueDate = Date{2026, time.March, 1} }))
		}, "SandboxTransaction.ValueDate"},
		{"booking date not a date", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.BookingDate = Date{2026, time.February, 30} }))
		}, "SandboxTransaction.BookingDate"},
		{"transaction date not a date", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.TransactionDate = Date{2026, 13, 1} }))
		}, "SandboxTransaction.TransactionDate"},
		{"debtor account bban", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.DebtorAccount = &AccountReference{BBAN: "12345678901"} }))
		}, "SandboxTransaction.DebtorAccount.BBAN"},
		{"creditor account empty", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.CreditorAccount = &AccountReference{} }))
		}, "SandboxTransaction.CreditorAccount"},
		{"creditor name emoji", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.CreditorName = "Kiwi 🥝" }))
		}, "SandboxTransaction.CreditorName"},
		{"debtor name too long", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.DebtorName = strings.Repeat("ø", 71) }))
		}, "SandboxTransaction.DebtorName"},
		{"remittance too long", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.RemittanceInformationUnstructured = strings.Repeat("x", 141) }))
		}, "SandboxTransaction.RemittanceInformationUnstructured"},
		{"remittance invalid UTF-8", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.RemittanceInformationUnstructured = "a\xffb" }))
		}, "SandboxTransaction.RemittanceInformationUnstructured"},
		{"transaction code too long", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) {
				x.ProprietaryBankTransactionCode = TransactionCode{Value: strings.Repeat("A", 36)}
			}))
		}, "SandboxTransaction.ProprietaryBankTransactionCode.Value"},
		{"additional information control char", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.AdditionalInformation = "a\tb" }))
		}, "SandboxTransaction.AdditionalInformation"},
		{"transaction details", func(c *Client) error {
			return tx(c, okTx(func(x *SandboxTransaction) { x.TransactionDetails = "\u0085" }))
		}, "SandboxTransaction.TransactionDetails"},

		{"balance account id empty", func(c *Client) error {
			_, err := c.Sandbox.SetBalance(context.Background(), "", okBalance)
			return err
		}, "mockAccountID"},
		{"balance nil", func(c *Client) error {
			_, err := c.Sandbox.SetBalance(context.Background(), "enc!!a", nil)
			return err
		}, "SandboxBalance"},
		{"balance amount", func(c *Client) error {
			_, err := c.Sandbox.SetBalance(context.Background(), "enc!!a", &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "1.2345"}})
			return err
		}, "SandboxBalance.BalanceAmount.Amount"},
		{"balance currency", func(c *Client) error {
			_, err := c.Sandbox.SetBalance(context.Background(), "enc!!a", &SandboxBalance{BalanceAmount: Amount{Amount: "1"}})
			return err
		}, "SandboxBalance.BalanceAmount.Currency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusCreated, []byte(`{}`))
			err := tc.call(c)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want *ValidationError, got %T %v", err, err)
			require.Equal(t, tc.field, ve.Field)
			require.True(t, strings.HasPrefix(err.Error(), "xs2a: invalid "+tc.field+": "), err.Error())
			require.Empty(t, bank.requests(), "nothing is sent")
		})
	}
}

// The date rules use the client's clock and the bank's calendar
// (Europe/Oslo): late in the evening UTC it is already tomorrow in Oslo.
func TestSandboxTransactionDates(t *testing.T) {
	t.Parallel()
	d := func(m time.Month, day int) Date { return Date{2026, m, day} }
	lateUTC := time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC) // 00:30 on 2 March in Oslo
	noon := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name           string
		now            time.Time
		booking, value Date
		wantField      string // "" accepted
	}{
		{"both empty", noon, Date{}, Date{}, ""},
		{"booking today", noon, d(3, 2), Date{}, ""},
		{"booking and value equal", noon, d(2, 1), d(2, 1), ""},
		{"value after booking", noon, d(2, 1), d(2, 3), ""},
		{"value today without booking", noon, Date{}, d(3, 2), ""},
		{"booking tomorrow", noon, d(3, 3), Date{}, "SandboxTransaction.BookingDate"},
		{"value tomorrow", noon, d(3, 1), d(3, 3), "SandboxTransaction.ValueDate"},
		{"value before booking", noon, d(3, 2), d(3, 1), "SandboxTransaction.ValueDate"},
		{"today in Oslo, tomorrow in UTC", lateUTC, d(3, 2), d(3, 2), ""},
		{"day after in Oslo", lateUTC, d(3, 3), Date{}, "SandboxTransaction.BookingDate"},
		{"far past", noon, Date{1999, time.December, 31}, Date{2000, time.January, 1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &testBank{fn: answer(http.StatusCreated, "application/json", `{"transactionId":"enc!!t"}`)}
			_, c := newTestServer(t, b, WithClock(func() time.Time { return tc.now }))
			_, _, err := c.Sandbox.CreateTransaction(context.Background(), "enc!!a", &SandboxTransaction{
				TransactionAmount: Amount{Currency: "NOK", Amount: "1"}, BookingDate: tc.booking, ValueDate: tc.value,
			})
			if tc.wantField == "" {
				require.NoError(t, err)
				require.Len(t, b.requests(), 1)
				return
			}
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want *ValidationError, got %v", err)
			require.Equal(t, tc.wantField, ve.Field)
			require.Empty(t, b.requests())
		})
	}
}

func TestCustomerTypeValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   CustomerType
		want bool
	}{{CustomerPrivate, true}, {CustomerCorporate, true}, {"", false}, {"private", false}, {"SOLE_TRADER", false}} {
		require.Equal(t, tc.want, tc.in.Valid(), string(tc.in))
	}
}

// The models marshal back to the sandbox's own JSON.
func TestSandboxModelsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"customer_created.json", "account_created.json", "card_account_created.json", "agreement_created.json", "transaction_created.json"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw := sandboxFixture(t, name)
			var v any
			switch name {
			case "customer_created.json":
				v = new(SandboxCustomer)
			case "agreement_created.json":
				v = new(SandboxAgreement)
			case "transaction_created.json":
				v = new(SandboxTransaction)
			default:
				v = new(SandboxAccount)
			}
			require.NoError(t, json.Unmarshal(raw, v))
			out, err := json.Marshal(v)
			require.NoError(t, err)
			require.JSONEq(t, string(raw), string(out))
		})
	}
}

func FuzzDecodeSandboxCustomers(f *testing.F) {
	f.Add(sandboxFixture(f, "customers_full.json"))
	f.Add(sandboxFixture(f, "customers.json"))
	f.Add([]byte(`[{"customerNumber":"1","accounts":[{"balance":"1"}]}]`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"customers":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		body := listBody[SandboxCustomer]{key: "customers"} // the answer of Sandbox.Customers
		if err := decodeJSON(b, &body); err != nil {
			return
		}
		cs := body.list()
		if cs == nil {
			t.Fatal("nil list without error")
		}
		for i := range cs {
			fillAccountOwner(&cs[i])
			for _, a := range cs[i].Accounts {
				if a.CustomerNumber == "" && cs[i].CustomerNumber != "" {
					t.Fatal("account owner not filled")
				}
			}
		}
	})
}

// TestSandboxTransactionCodeForms: a code with only a value is sent as a
// string, one with a code too as the object docs/interface.md allows in the
// sandbox ("both value and code").
func TestSandboxTransactionCodeForms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code TransactionCode
		want string
	}{
		{TransactionCode{Value: "VARER"}, `"proprietaryBankTransactionCode":"VARER"`},
		{TransactionCode{Value: "Varekjøp", Code: "VARER"}, `"proprietaryBankTransactionCode":{"value":"Varekjøp","code":"VARER"}`},
		{TransactionCode{}, ``},
	} {
		b, err := json.Marshal(SandboxTransaction{ProprietaryBankTransactionCode: tt.code})
		require.NoError(t, err)
		if tt.want == "" {
			require.NotContains(t, string(b), "proprietaryBankTransactionCode")
			continue
		}
		require.Contains(t, string(b), tt.want)
	}
}

// The new mock-data calls check their input like the others: a
// *ValidationError naming the field (an array item by its index), nothing
// sent (docs/interface.md SB10 to SB12).
func TestSandboxMockDataValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := SandboxTransaction{TransactionAmount: Amount{Currency: "NOK", Amount: "-10"}}
	future := ok
	future.BookingDate = Date{2026, time.March, 3} // fixedNow is 2026-03-02
	eng := func(mod func(*SandboxEngagement)) []SandboxEngagement {
		e := SandboxEngagement{Customer: SandboxPrivateCustomer1, Account: AccountReference{BBAN: "97108883131"},
			Roles: []EngagementRole{EngagementView, EngagementRegister}}
		mod(&e)
		return []SandboxEngagement{e}
	}
	agreement := func(mod func(*SandboxAgreement)) *SandboxAgreement {
		a := &SandboxAgreement{ID: "enc!!ag", CustomerNumber: SandboxCorporateCustomer1, Name: "Drift"}
		mod(a)
		return a
	}
	tests := []struct {
		name  string
		call  func(c *Client) error
		field string
	}{
		{"transactions: none", func(c *Client) error { _, _, err := c.Sandbox.CreateTransactions(ctx, "enc!!a", nil); return err }, "SandboxTransactions"},
		{"transactions: too many", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransactions(ctx, "enc!!a", make([]SandboxTransaction, MaxSandboxTransactions+1))
			return err
		}, "SandboxTransactions"},
		{"transactions: the second in the future", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransactions(ctx, "enc!!a", []SandboxTransaction{ok, future})
			return err
		}, "SandboxTransactions[1].BookingDate"},
		{"transactions: no amount at [0]", func(c *Client) error {
			_, _, err := c.Sandbox.CreateTransactions(ctx, "enc!!a", []SandboxTransaction{{}, ok})
			return err
		}, "SandboxTransactions[0].TransactionAmount.Amount"},
		{"card transactions: account id", func(c *Client) error {
			_, _, err := c.Sandbox.CreateCardTransactions(ctx, "..", []SandboxTransaction{ok})
			return err
		}, "mockAccountID"},
		{"customer update: number", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateCustomer(ctx, &SandboxCustomer{CustomerNumber: "1303931995", CustomerType: CustomerPrivate, Name: "K"})
			return err
		}, "SandboxCustomer.CustomerNumber"},
		{"customer update: nil", func(c *Client) error { _, _, err := c.Sandbox.UpdateCustomer(ctx, nil); return err }, "SandboxCustomer"},
		{"account update: nil", func(c *Client) error { _, _, err := c.Sandbox.UpdateAccount(ctx, nil); return err }, "SandboxAccount"},
		{"account update: no id", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{Name: "X"})
			return err
		}, "SandboxAccount.ResourceID"},
		{"account update: balance without currency", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{ResourceID: "enc!!a", Balance: "1"})
			return err
		}, "SandboxAccount.Currency"},
		{"account update: bad balance", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{ResourceID: "enc!!a", Currency: "NOK", Balance: "1,5"})
			return err
		}, "SandboxAccount.Balance"},
		{"account update: credit limit without card", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{ResourceID: "enc!!a", Currency: "NOK", CreditLimit: "1"})
			return err
		}, "SandboxAccount.CreditLimit"},
		{"agreement: engagement customer", func(c *Client) error {
			_, _, err := c.Sandbox.CreateAgreement(ctx, agreement(func(a *SandboxAgreement) {
				a.Engagements = eng(func(e *SandboxEngagement) { e.Customer = "123" })
			}))
			return err
		}, "SandboxAgreement.Engagements[0].Customer"},
		{"agreement: engagement without account", func(c *Client) error {
			_, _, err := c.Sandbox.CreateAgreement(ctx, agreement(func(a *SandboxAgreement) {
				a.Engagements = eng(func(e *SandboxEngagement) { e.Account = AccountReference{} })
			}))
			return err
		}, "SandboxAgreement.Engagements[0].Account"},
		{"agreement: engagement by PAN", func(c *Client) error {
			_, _, err := c.Sandbox.CreateAgreement(ctx, agreement(func(a *SandboxAgreement) {
				a.Engagements = eng(func(e *SandboxEngagement) { e.Account = AccountReference{PAN: "4925000000005678"} })
			}))
			return err
		}, "SandboxAgreement.Engagements[0].Account"},
		{"agreement: engagement bad bban", func(c *Client) error {
			_, _, err := c.Sandbox.CreateAgreement(ctx, agreement(func(a *SandboxAgreement) {
				a.Engagements = eng(func(e *SandboxEngagement) { e.Account = AccountReference{BBAN: "97108883132"} })
			}))
			return err
		}, "SandboxAgreement.Engagements[0].Account.BBAN"},
		{"agreement: engagement role", func(c *Client) error {
			_, _, err := c.Sandbox.CreateAgreement(ctx, agreement(func(a *SandboxAgreement) {
				a.Engagements = eng(func(e *SandboxEngagement) { e.Roles = []EngagementRole{EngagementView, "view"} })
			}))
			return err
		}, "SandboxAgreement.Engagements[0].Roles[1]"},
		{"agreement update: no id", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAgreement(ctx, agreement(func(a *SandboxAgreement) { a.ID = "" }))
			return err
		}, "SandboxAgreement.ID"},
		{"agreement update: name", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateAgreement(ctx, agreement(func(a *SandboxAgreement) { a.Name = "" }))
			return err
		}, "SandboxAgreement.Name"},
		{"engagements: none", func(c *Client) error { _, _, err := c.Sandbox.AddEngagements(ctx, "enc!!ag", nil); return err }, "SandboxEngagements"},
		{"engagements: agreement id", func(c *Client) error {
			_, _, err := c.Sandbox.AddEngagements(ctx, "", eng(func(*SandboxEngagement) {}))
			return err
		}, "mockAgreementID"},
		{"engagements: role", func(c *Client) error {
			_, _, err := c.Sandbox.AddEngagements(ctx, "enc!!ag", eng(func(e *SandboxEngagement) { e.Roles = []EngagementRole{"ADMIN"} }))
			return err
		}, "SandboxEngagements[0].Roles[0]"},
		{"transaction update: no id", func(c *Client) error {
			_, _, err := c.Sandbox.UpdateTransaction(ctx, "enc!!a", &ok)
			return err
		}, "SandboxTransaction.TransactionID"},
		{"transaction update: future", func(c *Client) error {
			tx := future
			tx.TransactionID = "enc!!t"
			_, _, err := c.Sandbox.UpdateTransaction(ctx, "enc!!a", &tx)
			return err
		}, "SandboxTransaction.BookingDate"},
		{"transaction update: nil", func(c *Client) error { _, _, err := c.Sandbox.UpdateTransaction(ctx, "enc!!a", nil); return err }, "SandboxTransaction"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusOK, []byte(`{}`))
			err := tc.call(c)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want *ValidationError, got %T %v", err, err)
			require.Equal(t, tc.field, ve.Field)
			require.True(t, strings.HasPrefix(err.Error(), "xs2a: invalid "+tc.field+": "), err.Error())
			require.Empty(t, bank.requests(), "nothing is sent")
		})
	}
}

// The wire of the new calls: methods, paths (ids escaped), bodies in the
// scripts' shapes, and the answers read back (docs/interface.md SB10 to SB12).
func TestSandboxMockDataWire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := SandboxTransaction{TransactionAmount: Amount{Currency: "NOK", Amount: "-10"}, BookingDate: Date{2026, time.March, 1}}
	tests := []struct {
		name         string
		answer       string
		call         func(c *Client) (any, error)
		method, path string
		body         string
		check        func(t *testing.T, got any)
	}{
		{"transactions", `[{"transactionId":"enc!!1"},{"transactionId":"enc!!2"}]`, func(c *Client) (any, error) {
			withID := tx
			withID.TransactionID = "never sent"
			pending := tx
			pending.Pending = true
			got, _, err := c.Sandbox.CreateTransactions(ctx, "a/b", []SandboxTransaction{withID, pending})
			return got, err
		}, "POST", "/v1/sandbox/accounts/a%2Fb/transactions",
			`[{"transactionAmount":{"currency":"NOK","amount":"-10"},"bookingDate":"2026-03-01"},{"transactionAmount":{"currency":"NOK","amount":"-10"},"bookingDate":"2026-03-01","pending":true}]`,
			func(t *testing.T, got any) {
				txs := got.([]SandboxTransaction)
				require.Len(t, txs, 2)
				require.Equal(t, "enc!!2", txs[1].TransactionID)
				require.False(t, txs[0].Pending)
				require.True(t, txs[1].Pending, "copied from the request")
			}},
		{"card transactions", `[{"transactionId":"enc!!c"}]`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.CreateCardTransactions(ctx, "enc!!card", []SandboxTransaction{tx})
			return got, err
		}, "POST", "/v1/sandbox/card-accounts/enc!!card/transactions",
			`[{"transactionAmount":{"currency":"NOK","amount":"-10"},"bookingDate":"2026-03-01"}]`, nil},
		{"customer update", `{"customerNumber":"13039319955","customerType":"private","name":"Kari N"}`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.UpdateCustomer(ctx, &SandboxCustomer{CustomerNumber: SandboxPrivateCustomer1, CustomerType: CustomerPrivate, Name: "Kari N"})
			return got, err
		}, "PUT", "/v1/sandbox/customers/13039319955", `{"customerNumber":"13039319955","name":"Kari N","type":"private"}`,
			func(t *testing.T, got any) {
				require.Equal(t, CustomerPrivate, got.(*SandboxCustomer).CustomerType, "the platform's lower case reads as the constant")
			}},
		{"account update", `{"resourceId":"enc!!a","name":"Felles"}`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{ResourceID: "enc!!a", CustomerNumber: SandboxPrivateCustomer1,
				BBAN: "97108883131", Name: "Felles", Currency: "NOK", Balance: "5"})
			return got, err
		}, "PUT", "/v1/sandbox/accounts/enc!!a",
			`{"accountName":"Felles","balances":[{"balanceType":"EXPECTED","balanceAmount":{"currency":"NOK","amount":"5"}}]}`, nil},
		{"card account update", `{"resourceId":"enc!!c","card":true}`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.UpdateAccount(ctx, &SandboxAccount{ResourceID: "enc!!c", Card: true, Currency: "NOK", CreditLimit: "100"})
			return got, err
		}, "PUT", "/v1/sandbox/card-accounts/enc!!c", `{"creditLimit":{"currency":"NOK","amount":"100"}}`, nil},
		{"agreement update", `{"id":"enc!!ag","name":"Drift"}`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.UpdateAgreement(ctx, &SandboxAgreement{ID: "enc!!ag", CustomerNumber: SandboxCorporateCustomer1, Name: "Drift",
				Engagements: []SandboxEngagement{{Customer: SandboxPrivateCustomer1, Account: AccountReference{IBAN: "NO4897108883131"}, Roles: []EngagementRole{EngagementView}}}})
			return got, err
		}, "PUT", "/v1/sandbox/agreements/enc!!ag",
			`{"owner":"18129215603","name":"Drift","engagements":[{"customer":"13039319955","account":{"iban":"NO4897108883131"},"roles":["VIEW"]}]}`, nil},
		{"engagements", `{"id":"enc!!ag","name":"Drift"}`, func(c *Client) (any, error) {
			got, _, err := c.Sandbox.AddEngagements(ctx, "enc!!ag", []SandboxEngagement{{Customer: SandboxPrivateCustomer1, Account: AccountReference{BBAN: "97108883131"}}})
			return got, err
		}, "POST", "/v1/sandbox/agreements/enc!!ag/engagements", `[{"customer":"13039319955","account":{"bban":"97108883131"}}]`, nil},
		{"transaction update", `{"transactionId":"enc!!t"}`, func(c *Client) (any, error) {
			withID := tx
			withID.TransactionID = "enc!!t"
			got, _, err := c.Sandbox.UpdateTransaction(ctx, "enc!!a", &withID)
			return got, err
		}, "PUT", "/v1/sandbox/accounts/enc!!a/transactions/enc!!t", `{"transactionAmount":{"currency":"NOK","amount":"-10"},"bookingDate":"2026-03-01"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusOK, []byte(tc.answer))
			got, err := tc.call(c)
			require.NoError(t, err)
			r := bank.only(t)
			require.Equal(t, tc.method, r.Method)
			require.Equal(t, tc.path, r.Path)
			require.Equal(t, tc.body, string(r.Body))
			requireSignedWithoutPSU(t, r)
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// An answer to a transactions POST that does not hold one transaction per
// one sent is an error, never a short list.
func TestSandboxTransactionsAnswerShapes(t *testing.T) {
	t.Parallel()
	two := []SandboxTransaction{{TransactionAmount: Amount{Currency: "NOK", Amount: "-1"}}, {TransactionAmount: Amount{Currency: "NOK", Amount: "-2"}}}
	for _, tc := range []struct {
		name, answer string
		n            int
		wantErr      bool
	}{
		{"array of two", `[{"transactionId":"a"},{"transactionId":"b"}]`, 2, false},
		{"one object for one", `{"transactionId":"a"}`, 1, false},
		{"array of one for one", `[{"transactionId":"a"}]`, 1, false},
		{"one object for two", `{"transactionId":"a"}`, 2, true},
		{"array of one for two", `[{"transactionId":"a"}]`, 2, true},
		{"empty: outcome unknown", ``, 1, true},
		{"a string", `"x"`, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := newStubBank(t, http.StatusCreated, []byte(tc.answer))
			got, resp, err := c.Sandbox.CreateTransactions(context.Background(), "enc!!a", two[:tc.n])
			require.NotNil(t, resp)
			if tc.wantErr {
				require.Error(t, err)
				require.Nil(t, got)
				require.True(t, strings.HasPrefix(err.Error(), "xs2a: sandbox.createTransactions: "), err.Error())
				return
			}
			require.NoError(t, err)
			require.Len(t, got, tc.n)
		})
	}
}

func TestCustomerTypeJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]CustomerType{`"private"`: CustomerPrivate, `"Corporate"`: CustomerCorporate,
		`"PRIVATE"`: CustomerPrivate, `"sole_trader"`: "sole_trader", `""`: ""} {
		var got CustomerType
		require.NoError(t, json.Unmarshal([]byte(in), &got), in)
		require.Equal(t, want, got, in)
	}
	var got CustomerType
	require.Error(t, json.Unmarshal([]byte(`1`), &got))
}

func FuzzDecodeSandboxTransactions(f *testing.F) {
	f.Add([]byte(`[{"transactionId":"a"}]`), 1)
	f.Add([]byte(`{"transactionId":"a","transactionAmount":{"amount":"1","currency":"NOK"}}`), 1)
	f.Add([]byte(`[]`), 0)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		out, err := decodeSandboxTransactions(b, n)
		if err == nil && len(out) != n {
			t.Fatalf("%d transactions for %d", len(out), n)
		}
		if err != nil && out != nil {
			t.Fatal("transactions with an error")
		}
	})
}
