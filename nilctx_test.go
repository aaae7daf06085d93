package xs2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ctxType is context.Context; reflect.Zero(ctxType) is the nil context
// the tests pass (a literal nil would be refused by staticcheck, SA1012).
var ctxType = reflect.TypeFor[context.Context]()

// ctxMethod is an exported method whose first parameter is a
// context.Context, bound to its receiver.
type ctxMethod struct {
	name string // "PaymentsService.Initiate"
	fn   reflect.Value
}

// ctxMethodsOf lists the exported methods of each receiver that take a
// context first: a method added later is found here without a change.
func ctxMethodsOf(recvs ...any) []ctxMethod {
	var out []ctxMethod
	for _, r := range recvs {
		v := reflect.ValueOf(r)
		typeName := strings.TrimPrefix(v.Type().String(), "*xs2a.")
		for i := range v.NumMethod() {
			m := v.Type().Method(i)
			if ft := v.Method(i).Type(); ft.NumIn() > 0 && ft.In(0) == ctxType {
				out = append(out, ctxMethod{name: typeName + "." + m.Name, fn: v.Method(i)})
			}
		}
	}
	return out
}

// servicesOf returns the services of c: every exported field of Client
// that points to a service.
func servicesOf(c *Client) []any {
	var out []any
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && f.Type.Kind() == reflect.Pointer {
			out = append(out, v.Field(i).Interface())
		}
	}
	return out
}

// nilCtxArgs are the arguments after ctx a method is called with: valid
// ones, so that with a live context each call gets past its own checks (the
// test checks that) and the nil context is what a nil-context call fails on.
// By method, else by type.
func nilCtxArgs(t *testing.T, m ctxMethod) []reflect.Value {
	psu := PSU{ID: "6f1f3b5e-2c7e-4a8e-9d5b-0c1a2b3c4d5e", IPAddress: "192.0.2.10"}
	payment := &Payment{InstructedAmount: Amount{Currency: "NOK", Amount: "842.50"},
		CreditorAccount: AccountReference{BBAN: "12345678903"}, CreditorName: "Nordlys Bygg AS"}
	paymentHref := "/v1/payments/" + NorwegianDomesticCreditTransfers + "/p-1"
	byMethod := map[string][]any{
		"Client.Do":                  {psu, http.MethodGet, "/v1/accounts", nil, nil},
		"TPPService.SetContactEmail": {"NO-FSA-987654321", "ops@tpp.example"},
		"TPPService.ContactEmail":    {"NO-FSA-987654321"},
		"PaymentsService.Initiate":   {psu, NorwegianDomesticCreditTransfers, payment, (*InitiateOptions)(nil)},
		"PaymentsService.InitiateEInvoice": {psu, NorwegianDomesticCreditTransfers, payment,
			EInvoice{KID: "12345678903", InvoiceNumber: "F-1"}, (*InitiateOptions)(nil)},
		"PaymentsService.ResolveEInvoice": {psu, NorwegianDomesticCreditTransfers, payment,
			EInvoice{KID: "12345678903", InvoiceNumber: "F-1"}},
		"SandboxService.CreateCustomer": {&SandboxCustomer{CustomerNumber: "01017012345", CustomerType: CustomerPrivate, Name: "Per Test"}},
		"SandboxService.CreateAccount":  {&SandboxAccount{CustomerNumber: "01017012345", Currency: "NOK", Name: "Lønnskonto", Balance: "1000.00"}},
		"SandboxService.CreateAgreement": {&SandboxAgreement{Name: "Kari Nordmann ENK", CustomerNumber: "01017012345",
			Accounts: []string{"acc-1"}, Members: []string{"01017012346"}}},
		"SandboxService.CreateTransaction": {"acc-1", &SandboxTransaction{TransactionAmount: Amount{Currency: "NOK", Amount: "-50.00"}, CreditorName: "Ruter AS"}},
		"SandboxService.SetBalance":        {"acc-1", &SandboxBalance{BalanceAmount: Amount{Currency: "NOK", Amount: "10.00"}}},
		"SigningBasketsService.Create":     {psu, &SigningBasket{PaymentIDs: []string{"p-1", "p-2"}}},
		"SandboxService.UpdateCustomer":    {&SandboxCustomer{CustomerNumber: "01017012345", CustomerType: CustomerPrivate, Name: "Per Test"}},
		"SandboxService.UpdateAccount":     {&SandboxAccount{ResourceID: "acc-1", Name: "Sparekonto"}},
		"SandboxService.UpdateAgreement": {&SandboxAgreement{ID: "agr-1", Name: "Kari Nordmann ENK", CustomerNumber: "01017012345",
			Accounts: []string{"acc-1"}, Members: []string{"01017012346"}}},
		"SandboxService.AddEngagements": {"agr-1", []SandboxEngagement{{Customer: "01017012346",
			Account: AccountReference{BBAN: "12345678903"}, Roles: []EngagementRole{EngagementView}}}},
		"SandboxService.CreateTransactions":     {"acc-1", []SandboxTransaction{{TransactionAmount: Amount{Currency: "NOK", Amount: "-50.00"}, CreditorName: "Ruter AS"}}},
		"SandboxService.CreateCardTransactions": {"card-1", []SandboxTransaction{{TransactionAmount: Amount{Currency: "NOK", Amount: "-50.00"}, CreditorName: "Ruter AS"}}},
		"SandboxService.UpdateTransaction": {"acc-1", &SandboxTransaction{TransactionID: "tx-1",
			TransactionAmount: Amount{Currency: "NOK", Amount: "-50.00"}, CreditorName: "Ruter AS"}},
		// Links of the purpose each method follows (docs/interface.md L12).
		"PaymentsService.AuthorisationStatus": {psu, Link{Href: paymentHref + "/authorisations/a-1"}},
		"PaymentsService.Cancel":              {psu, Link{Href: paymentHref}},
		"PaymentsService.Get":                 {psu, Link{Href: paymentHref}},
		"PaymentsService.StartAuthorisation":  {psu, Link{Href: paymentHref + "/authorisations"}},
		"PaymentsService.Authorise": {NewSessionManager(nil, nil), "alice", "payment 1", psu,
			Link{Href: paymentHref + "/authorisations"}},
		"SigningBasketsService.Cancel": {psu, Link{Href: "/v1/signing-baskets/b-1"}},
		"SigningBasketsService.Get":    {psu, Link{Href: "/v1/signing-baskets/b-1"}},
		"SigningBasketsService.Status": {psu, Link{Href: "/v1/signing-baskets/b-1/status"}},
	}
	byType := map[reflect.Type]any{
		reflect.TypeFor[PSU]():                                      psu,
		reflect.TypeFor[string]():                                   "acc-1",
		reflect.TypeFor[Link]():                                     Link{Href: paymentHref + "/status"},
		reflect.TypeFor[*PollOptions]():                             &PollOptions{MaxAttempts: 1},
		reflect.TypeFor[time.Time]():                                time.Date(2026, 3, 2, 10, 4, 5, 0, time.UTC),
		reflect.TypeFor[int]():                                      AccessLimit,
		reflect.TypeFor[BudgetEndpoint]():                           BudgetBalances,
		reflect.TypeFor[time.Duration]():                            AccessWindow,
		reflect.TypeFor[func(SessionState) (SessionState, error)](): func(s SessionState) (SessionState, error) { return s, nil },
		reflect.TypeFor[url.Values]():                               url.Values{"xs2a-state": {newState()}},
		reflect.TypeFor[*SyncMark]():                                &SyncMark{},
	}
	ft := m.fn.Type()
	var args []reflect.Value
	given, ok := byMethod[m.name]
	for i := 1; i < ft.NumIn(); i++ {
		pt := ft.In(i)
		var a any
		switch {
		case ok:
			require.Len(t, given, ft.NumIn()-1, "%s: arguments", m.name)
			a = given[i-1]
		case byType[pt] != nil:
			a = byType[pt]
		case pt.Kind() == reflect.Pointer || pt.Kind() == reflect.Interface:
			args = append(args, reflect.Zero(pt)) // nil: the default (a query, options, into)
			continue
		default:
			t.Fatalf("%s: no argument of type %v for the test: add one to byType or byMethod", m.name, pt)
		}
		if a == nil {
			args = append(args, reflect.Zero(pt))
			continue
		}
		args = append(args, reflect.ValueOf(a).Convert(pt))
	}
	return args
}

// callCtx calls m with ctx and args and returns what it panicked with, and
// the error it ends with: its last result, or for an iterator the error it
// yields, which must be its last yield, with the zero value.
func callCtx(t *testing.T, m ctxMethod, ctx reflect.Value, args []reflect.Value) (panicked any, err error) {
	defer func() { panicked = recover() }()
	out := m.fn.Call(append([]reflect.Value{ctx}, args...))
	last := out[len(out)-1]
	if last.Type() == reflect.TypeFor[error]() {
		err, _ = last.Interface().(error)
		return nil, err
	}
	require.Equal(t, reflect.Func, last.Kind(), "%s: neither an error nor an iterator last", m.name)
	// An iter.Seq2[T, error]: range over it.
	yieldType := last.Type().In(0)
	var yields []error
	yield := reflect.MakeFunc(yieldType, func(in []reflect.Value) []reflect.Value {
		e, _ := in[1].Interface().(error)
		if e != nil {
			assert.True(t, in[0].IsZero(), "%s: an error comes with the zero value", m.name)
		}
		yields = append(yields, e)
		return []reflect.Value{reflect.ValueOf(true)}
	})
	last.Call([]reflect.Value{yield})
	for i, e := range yields {
		if e != nil {
			assert.Len(t, yields, i+1, "%s: the error is the last yield", m.name)
			return nil, e
		}
	}
	return nil, nil
}

// Every exported method that takes a context, of the Client, its services,
// the SessionManager and the SDK's stores, answers a nil context with a
// *ValidationError naming "ctx", sends nothing and does not panic; an
// iterator yields that error once. With a live context and the same
// arguments each call gets past its own checks, so the nil context is what
// the refusal is about.
func TestNilContextIsAnError(t *testing.T) {
	t.Parallel()
	bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}}
	_, c := newTestServer(t, bank)
	SetSleep(c, func(context.Context, time.Duration) error { return nil })
	recvs := append([]any{c}, servicesOf(c)...)
	recvs = append(recvs, NewSessionManager(nil, nil), NewMemorySessionStore(), NewMemoryBudgetStore())
	methods := ctxMethodsOf(recvs...)
	require.Greater(t, len(methods), 40, "the methods found")

	for _, m := range methods {
		t.Run(m.name, func(t *testing.T) {
			args := nilCtxArgs(t, m)
			p, err := callCtx(t, m, reflect.ValueOf(context.Background()), args)
			require.Nil(t, p, "panicked with a live context")
			var ve *ValidationError
			require.False(t, errors.As(err, &ve), "the arguments pass the method's checks with a live context: %v", err)

			before := bank.count()
			p, err = callCtx(t, m, reflect.Zero(ctxType), args)
			require.Nil(t, p, "panicked on a nil context")
			require.ErrorAs(t, err, &ve, "a nil context")
			assert.Equal(t, "ctx", ve.Field)
			assert.True(t, strings.HasPrefix(err.Error(), "xs2a: "), "%v", err)
			assert.Equal(t, before, bank.count(), "nothing sent")
		})
	}
}

// The methods found include every service's and the iterators.
func TestNilContextFindsEveryMethod(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://bank.example/api", testSigner(t), WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	var names []string
	for _, m := range ctxMethodsOf(append([]any{c}, servicesOf(c)...)...) {
		names = append(names, m.name)
	}
	for _, want := range []string{"Client.Do", "AccountsService.Transactions", "CardAccountsService.Transactions",
		"PaymentsService.PollStatus", "PaymentsService.ResolveEInvoice", "SandboxService.Initialize", "TPPService.ContactEmail",
		"UsersService.Agreements", "ConsentsService.Create", "SigningBasketsService.Cancel"} {
		assert.Contains(t, names, want, fmt.Sprint(names))
	}
}
