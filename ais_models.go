package xs2a

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// BookingStatus is the bookingStatus query parameter of
// GET /v1/accounts/{id}/transactions (docs/interface.md, Endpoints), and the group
// a yielded transaction came from. Other values are sent as they are; they
// must be printable ASCII.
type BookingStatus string

// The booking statuses docs/interface.md names (and booked, the Berlin Group
// default).
const (
	// BookingBooked asks for booked (fully processed) transactions only.
	BookingBooked BookingStatus = "booked"
	// BookingPending asks for pending transactions only; production
	// accounts return all of them unfiltered (docs/interface.md, Endpoints).
	BookingPending BookingStatus = "pending"
	// BookingBoth asks for booked and pending transactions; the iterators
	// yield each pending entry once.
	BookingBoth BookingStatus = "both"
	// BookingAll asks for booked, pending and standing orders (in
	// AccountReport.Information, yielded once each with BookingStatus
	// BookingInformation). Card accounts read it as BookingBoth.
	BookingAll BookingStatus = "all"
	// BookingInformation asks for the standing orders only (one entry per
	// active standing order), where a bank offers them.
	BookingInformation BookingStatus = "information"
)

// IncludesPending reports whether a query with this status returns pending
// transactions (pending, both, all).
func (s BookingStatus) IncludesPending() bool {
	return s == BookingPending || s == BookingBoth || s == BookingAll
}

// CashAccountType is the cashAccountType of an account (docs/interface.md, "Account,
// balance and transaction fields"): ISO 20022 with the x-accept-fix
// cash-account-type-iso (CashAccountTypeISO), else possibly the bank's own
// values, which decode as they are (see ISO).
type CashAccountType string

// The ISO 20022 ExternalCashAccountType1Code values.
const (
	CashAccountCurrent                 CashAccountType = "CACC" // current account
	CashAccountCard                    CashAccountType = "CARD" // card account
	CashAccountCashPayment             CashAccountType = "CASH" // cash payment
	CashAccountCharges                 CashAccountType = "CHAR" // charges
	CashAccountCashIncome              CashAccountType = "CISH" // cash income
	CashAccountCommission              CashAccountType = "COMM" // commission
	CashAccountClearingParticipant     CashAccountType = "CPAC" // clearing participant settlement
	CashAccountLimitedLiquiditySavings CashAccountType = "LLSV" // limited liquidity savings
	CashAccountLoan                    CashAccountType = "LOAN" // loan
	CashAccountMarginalLending         CashAccountType = "MGLD" // marginal lending
	CashAccountMoneyMarket             CashAccountType = "MOMA" // money market
	CashAccountNonResidentExternal     CashAccountType = "NREX" // non-resident external
	CashAccountOverdraft               CashAccountType = "ODFT" // overdraft
	CashAccountOvernightDeposit        CashAccountType = "ONDP" // overnight deposit
	CashAccountOther                   CashAccountType = "OTHR" // other
	CashAccountSettlement              CashAccountType = "SACC" // settlement
	CashAccountSalary                  CashAccountType = "SLRY" // salary
	CashAccountSavings                 CashAccountType = "SVGS" // savings
	CashAccountTax                     CashAccountType = "TAXE" // tax
	CashAccountTransacting             CashAccountType = "TRAN" // transacting
	CashAccountCashTrading             CashAccountType = "TRAS" // cash trading
)

var isoCashAccountTypes = []CashAccountType{
	CashAccountCurrent, CashAccountCard, CashAccountCashPayment, CashAccountCharges, CashAccountCashIncome,
	CashAccountCommission, CashAccountClearingParticipant, CashAccountLimitedLiquiditySavings, CashAccountLoan,
	CashAccountMarginalLending, CashAccountMoneyMarket, CashAccountNonResidentExternal, CashAccountOverdraft,
	CashAccountOvernightDeposit, CashAccountOther, CashAccountSettlement, CashAccountSalary, CashAccountSavings,
	CashAccountTax, CashAccountTransacting, CashAccountCashTrading,
}

// ISO reports whether t is an ISO 20022 ExternalCashAccountType1Code (x-accept-fix
// cash-account-type-iso).
func (t CashAccountType) ISO() bool { return slices.Contains(isoCashAccountTypes, t) }

// AccountStatus is an account's accountStatus; absent means available.
type AccountStatus string

// The Berlin Group account statuses.
const (
	AccountEnabled AccountStatus = "enabled" // available
	AccountDeleted AccountStatus = "deleted" // terminated
	AccountBlocked AccountStatus = "blocked" // blocked, for instance for legal reasons
)

// AccountUsage is the usage of an account (Berlin Group usage).
type AccountUsage string

// The Berlin Group account usages.
const (
	UsagePrivate      AccountUsage = "PRIV" // private personal account
	UsageProfessional AccountUsage = "ORGA" // professional account
)

// Account is one entry of GET /v1/accounts (docs/interface.md AIS1). Pass
// ResourceID to AccountsService.
type Account struct {
	// ResourceID is the opaque id of the account in paths ("enc!!...").
	ResourceID string `json:"resourceId,omitempty"`
	IBAN       string `json:"iban,omitempty"`
	BBAN       string `json:"bban,omitempty"` // Norwegian account number
	MSISDN     string `json:"msisdn,omitempty"`
	Currency   string `json:"currency,omitempty"` // ISO 4217; "XXX" for a multicurrency account
	OwnerName  string `json:"ownerName,omitempty"`
	// OwnerNames lists the owners, where the bank gives more than one.
	OwnerNames []AccountOwner `json:"ownerNames,omitempty"`
	PSUName    string         `json:"psuName,omitempty"`
	// Name is the account's name as the bank assigned it: up to 70
	// characters with the x-accept-fix longer-names (LongerNames).
	Name            string          `json:"name,omitempty"`
	DisplayName     string          `json:"displayName,omitempty"` // name the PSU gave the account online
	Product         string          `json:"product,omitempty"`
	CashAccountType CashAccountType `json:"cashAccountType,omitempty"`
	Status          AccountStatus   `json:"status,omitempty"`
	BIC             string          `json:"bic,omitempty"`
	LinkedAccounts  string          `json:"linkedAccounts,omitempty"`
	Usage           AccountUsage    `json:"usage,omitempty"`
	Details         string          `json:"details,omitempty"`
	Balances        []Balance       `json:"balances,omitempty"`
	Links           AccountLinks    `json:"_links,omitzero"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes an account; members it does not name go to Extra.
func (a *Account) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Account
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes an account with its Extra members.
func (a Account) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Account
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *Account) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a Account) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// AccountOwner is one entry of ownerNames (Berlin Group accountOwner).
type AccountOwner struct {
	Name string `json:"name,omitempty"`
	Role string `json:"role,omitempty"` // owner, legalRepresentative, authorisedUser
}

// AccountLinks are an account's _links: its balances and transactions.
type AccountLinks struct {
	Self         Link `json:"self,omitzero"`
	Balances     Link `json:"balances,omitzero"`
	Transactions Link `json:"transactions,omitzero"`
}

// Balances is the answer of GET /v1/accounts/{id}/balances (docs/interface.md
// AIS3).
type Balances struct {
	Account  AccountReference `json:"account,omitzero"`
	Balances []Balance        `json:"balances"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a balances answer; members it does not name go to Extra.
func (b *Balances) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Balances
	return jsonv2.UnmarshalDecode(d, (*plain)(b))
}

// MarshalJSONTo encodes a balances answer with its Extra members.
func (b Balances) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Balances
	return marshalModel(e, (*plain)(&b), &b.Extra, b)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (b *Balances) UnmarshalJSON(data []byte) error { return decodeJSON(data, b) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (b Balances) MarshalJSON() ([]byte, error) { return encodeJSON(b) }

// Find returns the first balance of type t.
func (b *Balances) Find(t BalanceType) (Balance, bool) {
	if i := slices.IndexFunc(b.Balances, func(x Balance) bool { return x.BalanceType == t }); i >= 0 {
		return b.Balances[i], true
	}
	return Balance{}, false
}

// BalanceType is a balance's balanceType; unknown types decode as they are.
type BalanceType string

// The balance types of the Berlin Group and of the platform.
const (
	BalanceClosingBooked    BalanceType = "closingBooked"
	BalanceExpected         BalanceType = "expected"
	BalanceOpeningBooked    BalanceType = "openingBooked"
	BalanceInterimAvailable BalanceType = "interimAvailable"
	BalanceInterimBooked    BalanceType = "interimBooked"
	BalanceForwardAvailable BalanceType = "forwardAvailable"
	BalanceNonInvoiced      BalanceType = "nonInvoiced" // card accounts
	BalanceAuthorised       BalanceType = "authorised"
)

// Balance is one balance of an account (Berlin Group balance).
type Balance struct {
	BalanceAmount       Amount      `json:"balanceAmount"`
	BalanceType         BalanceType `json:"balanceType"`
	CreditLimitIncluded *bool       `json:"creditLimitIncluded,omitempty"`
	// LastChangeDateTime is sent as RFC 3339 with an offset
	// ("2024-05-02T10:00:00+02:00", docs/interface.md G3).
	LastChangeDateTime       *time.Time `json:"lastChangeDateTime,omitempty"`
	ReferenceDate            Date       `json:"referenceDate,omitzero"`
	LastCommittedTransaction string     `json:"lastCommittedTransaction,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a balance, lastChangeDateTime with or without a
// colon in its offset; null leaves it as it is.
func (b *Balance) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return decodeWire(d, b, (*balanceWire)(unsafe.Pointer(b)))
}

// finish checks lastChangeDateTime.
func (w *balanceWire) finish() error { return w.LastChangeDateTime.check("lastChangeDateTime") }

// balanceWire is the wire of a Balance (decodeWire): lastChangeDateTime
// through a dateTimeField.
type balanceWire struct {
	BalanceAmount            Amount        `json:"balanceAmount"`
	BalanceType              BalanceType   `json:"balanceType"`
	CreditLimitIncluded      *bool         `json:"creditLimitIncluded,omitempty"`
	LastChangeDateTime       dateTimeField `json:"lastChangeDateTime,omitempty"`
	ReferenceDate            Date          `json:"referenceDate,omitzero"`
	LastCommittedTransaction string        `json:"lastCommittedTransaction,omitempty"`
	Extra                    Extra         `json:",embed"`
}

// MarshalJSONTo encodes lastChangeDateTime as "+00:00", not "Z" (docs/interface.md
// G3), and Extra.
func (b Balance) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Balance
	w := struct {
		plain
		LastChange string `json:"lastChangeDateTime,omitempty"`
	}{plain: plain(b), LastChange: formatDateTime(b.LastChangeDateTime)}
	return marshalModel(e, &w, &w.Extra, b)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (b *Balance) UnmarshalJSON(data []byte) error { return decodeJSON(data, b) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (b Balance) MarshalJSON() ([]byte, error) { return encodeJSON(b) }

// CardAccount is one entry of GET /v1/card-accounts (docs/interface.md, Production; Berlin
// Group cardAccountDetails).
type CardAccount struct {
	// ResourceID is the opaque id of the card account in paths.
	ResourceID string `json:"resourceId,omitempty"`
	MaskedPAN  string `json:"maskedPan,omitempty"`
	Currency   string `json:"currency,omitempty"`
	OwnerName  string `json:"ownerName,omitempty"`
	// Name is up to 70 characters with the x-accept-fix longer-names
	// (LongerNames), as Account.Name.
	Name        string `json:"name,omitempty"`
	DisplayName string `json:"displayName,omitempty"`
	Product     string `json:"product,omitempty"`
	// DebitAccounting true: debits are quoted as positive amounts.
	DebitAccounting *bool         `json:"debitAccounting,omitempty"`
	Status          AccountStatus `json:"status,omitempty"`
	Usage           AccountUsage  `json:"usage,omitempty"`
	Details         string        `json:"details,omitempty"`
	CreditLimit     *Amount       `json:"creditLimit,omitempty"`
	Balances        []Balance     `json:"balances,omitempty"`
	Links           AccountLinks  `json:"_links,omitzero"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a card account; members it does not name go to Extra.
func (a *CardAccount) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain CardAccount
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes a card account with its Extra members.
func (a CardAccount) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain CardAccount
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *CardAccount) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a CardAccount) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// Agreement is a PSU's corporate agreement (docs/interface.md F2); PSU.CorporateID
// takes its ID.
type Agreement struct {
	ID                 string `json:"id"`
	Name               string `json:"name,omitempty"`
	OrganisationNumber string `json:"organisationNumber,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes an agreement; members it does not name go to Extra.
func (a *Agreement) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain Agreement
	return jsonv2.UnmarshalDecode(d, (*plain)(a))
}

// MarshalJSONTo encodes an agreement with its Extra members.
func (a Agreement) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Agreement
	return marshalModel(e, (*plain)(&a), &a.Extra, a)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *Agreement) UnmarshalJSON(data []byte) error { return decodeJSON(data, a) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (a Agreement) MarshalJSON() ([]byte, error) { return encodeJSON(a) }

// isNull reports whether data is the JSON null.
func isNull(data []byte) bool { return string(bytes.TrimSpace(data)) == "null" }

// listBody decodes a list answer: {"<key>": [...]} or a bare array. A missing
// key or null gives an empty list.
type listBody[T any] struct {
	key   string
	items []T
}

// UnmarshalJSONFrom decodes the array, or the object's key member (the last when
// repeated).
func (l *listBody[T]) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '[':
		return jsonv2.UnmarshalDecode(d, &l.items)
	case '{':
	default:
		return jsonv2.UnmarshalDecode(d, new(map[string]jsontext.Value)) // null, or the error a map gives
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	for seen := false; d.PeekKind() != '}'; {
		name, err := d.ReadToken()
		if err != nil {
			return err
		}
		if key := name.String(); strings.EqualFold(key, l.key) { // in any letter case, as the models match names
			if seen {
				l.items = nil // a repeated member: the last is the list
			}
			seen = true
			err = fieldBelow(key, jsonv2.UnmarshalDecode(d, &l.items))
		} else {
			err = d.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

// list returns the items, never nil.
func (l *listBody[T]) list() []T {
	if l.items == nil {
		return []T{}
	}
	return l.items
}

// singleBody decodes the answer of a single-resource read:
// {"<key>": {...}} (GET /v1/accounts/{id}: "account";
// GET /v1/card-accounts/{id}: "cardAccount"), or a bare object.
type singleBody[T any] struct {
	key  string
	item T
}

// UnmarshalJSONFrom decodes the member named key when it is an object (the
// last such member), else the whole value.
func (b *singleBody[T]) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	whole, err := d.ReadValue()
	if err != nil {
		return err
	}
	var doc map[string]jsontext.Value
	if err := decodeJSON(whole, &doc); err != nil {
		return err
	}
	if v := doc[b.key]; len(v) > 0 && v[0] == '{' {
		return decodeJSON(v, &b.item)
	}
	return decodeJSON(whole, &b.item)
}

// cardBalancesBody decodes GET /v1/card-accounts/{id}/balances, whose
// reference is under "cardAccount" (Berlin Group) or "account".
type cardBalancesBody struct {
	Balances
	CardAccount AccountReference `json:"cardAccount"`
}

// UnmarshalJSONFrom decodes the Balances (whose own method would otherwise
// be promoted and take the whole body) and the card reference.
func (b *cardBalancesBody) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	whole, err := d.ReadValue()
	if err != nil {
		return err
	}
	if err := decodeJSON(whole, &b.Balances); err != nil {
		return err
	}
	var w struct {
		CardAccount AccountReference `json:"cardAccount"`
	}
	if err := decodeJSON(whole, &w); err != nil {
		return err
	}
	b.CardAccount = w.CardAccount
	return nil
}

// balances returns the Balances, with the card account's reference in
// Account when the bank sent it under "cardAccount" and no "account". It
// leaves Extra only when AccountReference holds all of it; otherwise it
// stays in Extra as sent, so that every field reaches the caller.
func (b *cardBalancesBody) balances() *Balances {
	out := b.Balances
	if out.Account != (AccountReference{}) || b.CardAccount == (AccountReference{}) {
		return &out
	}
	out.Account = b.CardAccount
	var members map[string]json.RawMessage
	if json.Unmarshal(out.Extra["cardAccount"], &members) == nil {
		for k := range members {
			if !slices.Contains([]string{"iban", "bban", "pan", "maskedPan", "msisdn", "currency"}, k) {
				return &out
			}
		}
	}
	delete(out.Extra, "cardAccount")
	if len(out.Extra) == 0 {
		out.Extra = nil
	}
	return &out
}

// transactionDetailsBody decodes the answer of
// GET /v1/accounts/{id}/transactions/{transactionId}:
// {"transactionsDetails": {...}}, the Berlin Group's
// {"transactionDetails": {...}}, or a bare transaction object.
type transactionDetailsBody struct{ tx Transaction }

func (b *transactionDetailsBody) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	whole, err := d.ReadValue()
	if err != nil {
		return err
	}
	var w struct {
		Platform    jsontext.Value `json:"transactionsDetails"`
		BerlinGroup jsontext.Value `json:"transactionDetails"`
	}
	if err := decodeJSON(whole, &w); err != nil {
		return err
	}
	for _, raw := range []jsontext.Value{w.Platform, w.BerlinGroup} {
		if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '{' {
			return decodeJSON(raw, &b.tx)
		}
	}
	return decodeJSON(whole, &b.tx)
}
