package xs2a

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// TransactionReport is the answer of GET /v1/accounts/{id}/transactions.
type TransactionReport struct {
	Account      AccountReference `json:"account,omitzero"`
	Transactions AccountReport    `json:"transactions"`
	Balances     []Balance        `json:"balances,omitempty"`
}

// AccountReport holds one page of transactions, booked (fully processed)
// and pending ones (docs/interface.md, "Account, balance and transaction
// fields"), and the links to the pages next to it.
type AccountReport struct {
	Booked  []Transaction `json:"booked,omitempty"`
	Pending []Transaction `json:"pending,omitempty"`
	// Information holds standing orders (bookingStatus information).
	Information []Transaction `json:"information,omitempty"`
	Links       ReportLinks   `json:"_links,omitzero"`
}

// ReportLinks are a transaction page's _links; Next is empty on the last.
type ReportLinks struct {
	Account  Link `json:"account,omitzero"`
	First    Link `json:"first,omitzero"`
	Next     Link `json:"next,omitzero"`
	Previous Link `json:"previous,omitzero"`
	Last     Link `json:"last,omitzero"`
}

// additionalProprietaryPrefix starts the keys collected into
// Transaction.AdditionalInformationProprietary.
const additionalProprietaryPrefix = "additionalInformationProprietary"

// Transaction is a booked or pending account transaction (docs/interface.md,
// "Account, balance and transaction fields"). A booked one's TransactionID
// is stable; a pending one may change between reads.
type Transaction struct {
	TransactionID             string `json:"transactionId,omitempty"`
	EntryReference            string `json:"entryReference,omitempty"`
	EndToEndID                string `json:"endToEndId,omitempty"`
	BatchIndicator            *bool  `json:"batchIndicator,omitempty"`
	BatchNumberOfTransactions int    `json:"batchNumberOfTransactions,omitempty"`
	MandateID                 string `json:"mandateId,omitempty"`
	CheckID                   string `json:"checkId,omitempty"`
	CreditorID                string `json:"creditorId,omitempty"`
	BookingDate               Date   `json:"bookingDate,omitzero"`
	ValueDate                 Date   `json:"valueDate,omitzero"` // absent on pending entries
	// TransactionAmount is negative for a debit.
	TransactionAmount                      Amount               `json:"transactionAmount"`
	CurrencyExchange                       []ReportExchangeRate `json:"currencyExchange,omitempty"`
	CreditorName                           string               `json:"creditorName,omitempty"`
	CreditorAccount                        AccountReference     `json:"creditorAccount,omitzero"`
	CreditorAgent                          string               `json:"creditorAgent,omitempty"` // BIC
	UltimateCreditor                       string               `json:"ultimateCreditor,omitempty"`
	DebtorName                             string               `json:"debtorName,omitempty"`
	DebtorAccount                          AccountReference     `json:"debtorAccount,omitzero"`
	DebtorAgent                            string               `json:"debtorAgent,omitempty"` // BIC
	UltimateDebtor                         string               `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured      string               `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray []string             `json:"remittanceInformationUnstructuredArray,omitempty"`
	// RemittanceInformationStructured: an object, or a string decoded into
	// Reference.
	RemittanceInformationStructured      *StructuredRemittance  `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	// EntryDetails are the entries of a batch, as the bank sent them.
	EntryDetails          json.RawMessage `json:"entryDetails,omitempty"`
	AdditionalInformation string          `json:"additionalInformation,omitempty"`
	// AdditionalInformationStructured is the raw JSON object (standing order
	// details), as the bank sent it.
	AdditionalInformationStructured json.RawMessage `json:"additionalInformationStructured,omitempty"`
	// AdditionalInformationProprietary collects the members named
	// additionalInformationProprietary* (a value that is no JSON string as
	// its JSON text); they are written back as members, other keys left out.
	AdditionalInformationProprietary map[string]string `json:"-"`
	PurposeCode                      string            `json:"purposeCode,omitempty"`
	// BankTransactionCode is the ISO 20022 domain-family-subfamily code
	// ("PMNT-RCDT-ESCT").
	BankTransactionCode            TransactionCode  `json:"bankTransactionCode,omitzero"`
	ProprietaryBankTransactionCode TransactionCode  `json:"proprietaryBankTransactionCode,omitzero"`
	BalanceAfterTransaction        *Balance         `json:"balanceAfterTransaction,omitempty"`
	Links                          TransactionLinks `json:"_links,omitzero"`
	// BookingStatus is the report's group the transaction came from
	// (BookingBooked, BookingPending, BookingInformation); empty on
	// AccountsService.Transaction. It is not part of the bank's JSON.
	BookingStatus BookingStatus `json:"-"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// TransactionLinks are the _links of a transaction.
type TransactionLinks struct {
	TransactionDetails Link `json:"transactionDetails,omitzero"`
}

// UnmarshalJSONFrom decodes a transaction: remittanceInformationStructured
// as a string or an object, the additionalInformationProprietary* members
// into AdditionalInformationProprietary, and the other members it does not
// name into Extra. null leaves it as it is.
func (t *Transaction) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return decodeWire(d, t, (*transactionWire)(unsafe.Pointer(t)))
}

// transactionWire is the wire of a Transaction (decodeWire):
// remittanceInformationStructured through a structuredField,
// remittanceInformationUnstructuredArray through a textsField.
type transactionWire struct {
	TransactionID                          string                 `json:"transactionId,omitempty"`
	EntryReference                         string                 `json:"entryReference,omitempty"`
	EndToEndID                             string                 `json:"endToEndId,omitempty"`
	BatchIndicator                         *bool                  `json:"batchIndicator,omitempty"`
	BatchNumberOfTransactions              int                    `json:"batchNumberOfTransactions,omitempty"`
	MandateID                              string                 `json:"mandateId,omitempty"`
	CheckID                                string                 `json:"checkId,omitempty"`
	CreditorID                             string                 `json:"creditorId,omitempty"`
	BookingDate                            Date                   `json:"bookingDate,omitzero"`
	ValueDate                              Date                   `json:"valueDate,omitzero"`
	TransactionAmount                      Amount                 `json:"transactionAmount"`
	CurrencyExchange                       []ReportExchangeRate   `json:"currencyExchange,omitempty"`
	CreditorName                           string                 `json:"creditorName,omitempty"`
	CreditorAccount                        AccountReference       `json:"creditorAccount,omitzero"`
	CreditorAgent                          string                 `json:"creditorAgent,omitempty"`
	UltimateCreditor                       string                 `json:"ultimateCreditor,omitempty"`
	DebtorName                             string                 `json:"debtorName,omitempty"`
	DebtorAccount                          AccountReference       `json:"debtorAccount,omitzero"`
	DebtorAgent                            string                 `json:"debtorAgent,omitempty"`
	UltimateDebtor                         string                 `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured      string                 `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationUnstructuredArray textsField             `json:"remittanceInformationUnstructuredArray,omitempty"`
	RemittanceInformationStructured        structuredField        `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray   []StructuredRemittance `json:"remittanceInformationStructuredArray,omitempty"`
	EntryDetails                           json.RawMessage        `json:"entryDetails,omitempty"`
	AdditionalInformation                  string                 `json:"additionalInformation,omitempty"`
	AdditionalInformationStructured        json.RawMessage        `json:"additionalInformationStructured,omitempty"`
	AdditionalInformationProprietary       map[string]string      `json:"-"`
	PurposeCode                            string                 `json:"purposeCode,omitempty"`
	BankTransactionCode                    TransactionCode        `json:"bankTransactionCode,omitzero"`
	ProprietaryBankTransactionCode         TransactionCode        `json:"proprietaryBankTransactionCode,omitzero"`
	BalanceAfterTransaction                *Balance               `json:"balanceAfterTransaction,omitempty"`
	Links                                  TransactionLinks       `json:"_links,omitzero"`
	BookingStatus                          BookingStatus          `json:"-"`
	Extra                                  Extra                  `json:",embed"`
}

// finish checks remittanceInformationStructured and moves the
// additionalInformationProprietary* members out of Extra.
func (w *transactionWire) finish() error {
	err := w.RemittanceInformationStructured.check()
	(*Transaction)(unsafe.Pointer(w)).takeProprietary()
	return err
}

// textsField is a list of texts decoded in a room of 8, then copied out at
// its length, not grown by copies.
type textsField []string

var textRooms = sync.Pool{New: func() any { return new([8]string) }}

// UnmarshalJSONFrom decodes the list; a repeated member into the list before.
func (x *textsField) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if *x != nil {
		return jsonv2.UnmarshalDecode(d, (*[]string)(x))
	}
	room := textRooms.Get().(*[8]string)
	*x = room[:0]
	err := jsonv2.UnmarshalDecode(d, (*[]string)(x))
	if list := *x; unsafe.SliceData(list) == &room[0] { // not null, [] or more than 8
		*x = nil
		if len(list) > 0 {
			*x = slices.Clone(list)
		}
	}
	clear(room[:])
	textRooms.Put(room)
	return err
}

// takeProprietary moves the additionalInformationProprietary* members
// from Extra into AdditionalInformationProprietary (null ones are
// dropped), as their text.
func (t *Transaction) takeProprietary() {
	for k, v := range t.Extra {
		if !strings.HasPrefix(k, additionalProprietaryPrefix) {
			continue
		}
		delete(t.Extra, k)
		if s, ok := proprietaryText(v); ok && !isNull(v) {
			if t.AdditionalInformationProprietary == nil {
				t.AdditionalInformationProprietary = make(map[string]string)
			}
			t.AdditionalInformationProprietary[k] = s
		}
	}
	if len(t.Extra) == 0 {
		t.Extra = nil
	}
}

// structuredField is remittanceInformationStructured as it is decoded: a
// string (into Reference) or an object, the last member winning; null gives
// none. A value that does not decode is held with its error until check.
type structuredField struct{ s *StructuredRemittance }

// heldStructured is a value held with its error: its Reference lies at
// heldMark, where no decoded text does.
type heldStructured struct {
	StructuredRemittance
	err error
}

var heldMark = new(byte)

// UnmarshalJSONFrom reads the value next in d.
func (x *structuredField) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	raw, err := d.ReadValue()
	if x.s = nil; err != nil || raw[0] == 'n' {
		return err
	}
	s := new(StructuredRemittance)
	switch raw[0] {
	case '"':
		err = decodeJSON(raw, &s.Reference)
	case '{':
		err = decodeJSON(raw, s)
	default:
		err = errors.New("xs2a: decoding transaction: remittanceInformationStructured is neither a string nor an object")
	}
	if x.s = s; err != nil {
		x.s = &(&heldStructured{StructuredRemittance{Reference: unsafe.String(heldMark, 1)}, err}).StructuredRemittance
	}
	return nil
}

// check is the error of a value held, which it takes out; nil for another.
func (x *structuredField) check() error {
	if x.s == nil || unsafe.StringData(x.s.Reference) != heldMark {
		return nil
	}
	err := (*heldStructured)(unsafe.Pointer(x.s)).err
	x.s = nil
	return err
}

// proprietaryText is the text of an additionalInformationProprietary*
// value: a string, or the compact JSON text of another value; false when
// it is not valid JSON.
func proprietaryText(v []byte) (string, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return "", false
	}
	return buf.String(), true
}

// MarshalJSONTo encodes as the bank does: proprietary entries at top level, then
// Extra, each sorted.
func (t Transaction) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain Transaction
	rest, err := t.rest()
	if err != nil {
		return err
	}
	t.Extra = nil
	return jsonv2.MarshalEncode(e, struct {
		plain
		Rest jsontext.Value `json:",embed"`
	}{plain(t), rest})
}

// rest is the object of the members written after the named fields: the
// AdditionalInformationProprietary entries, then the Extra members a field
// does not take; nil when there are none.
func (t Transaction) rest() (jsontext.Value, error) {
	var b []byte
	member := func(k string, v []byte) {
		b = append(b, ',')
		b, _ = jsontext.AppendQuote(b, k)
		b = append(append(b, ':'), v...)
	}
	for _, k := range slices.Sorted(maps.Keys(t.AdditionalInformationProprietary)) {
		if strings.HasPrefix(k, additionalProprietaryPrefix) {
			v, _ := jsontext.AppendQuote(nil, t.AdditionalInformationProprietary[k])
			member(k, v)
		}
	}
	extra, err := t.Extra.without(t)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		member(k, extra[k])
	}
	if b == nil {
		return nil, nil
	}
	b[0] = '{'
	return append(b, '}'), nil
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (t *Transaction) UnmarshalJSON(data []byte) error { return decodeJSON(data, t) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (t Transaction) MarshalJSON() ([]byte, error) { return encodeJSON(t) }

// TransactionCode is a bank transaction code: a JSON string (into Value),
// or in the sandbox an object {"value": ..., "code": ...} (docs/interface.md).
type TransactionCode struct {
	Value string `json:"value,omitempty"`
	Code  string `json:"code,omitempty"`
}

// String returns Value, or Code when Value is empty.
func (c TransactionCode) String() string {
	if c.Value != "" {
		return c.Value
	}
	return c.Code
}

// IsZero reports whether the code is absent.
func (c TransactionCode) IsZero() bool { return c == TransactionCode{} }

// UnmarshalJSONFrom accepts a string, number or {value, code}; null changes
// nothing.
func (c *TransactionCode) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case 'n':
		_, err := d.ReadToken()
		return err
	case '"':
		*c = TransactionCode{}
		return readText(d, &c.Value, "value")
	case '0':
		v, err := d.ReadValue()
		*c = TransactionCode{Value: string(v)}
		return err
	case '{':
		*c = TransactionCode{}
		type plain TransactionCode
		return jsonv2.UnmarshalDecode(d, (*plain)(c))
	}
	if err := d.SkipValue(); err != nil {
		return err
	}
	return errors.New("xs2a: decoding transaction code: neither a string nor an object")
}

// MarshalJSONTo encodes a Value alone as a string, with a Code as an object.
func (c TransactionCode) MarshalJSONTo(e *jsontext.Encoder) error {
	switch {
	case c.Code != "":
		type plain TransactionCode
		return jsonv2.MarshalEncode(e, plain(c))
	case c.Value == "":
		return e.WriteToken(jsontext.Null)
	}
	return e.WriteToken(jsontext.String(c.Value))
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (c *TransactionCode) UnmarshalJSON(data []byte) error { return decodeJSON(data, c) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (c TransactionCode) MarshalJSON() ([]byte, error) { return encodeJSON(c) }

// ReportExchangeRate is one entry of currencyExchange (Berlin Group
// reportExchangeRate).
type ReportExchangeRate struct {
	SourceCurrency string `json:"sourceCurrency,omitempty"`
	ExchangeRate   string `json:"exchangeRate,omitempty"` // decimal text; a JSON number is accepted
	UnitCurrency   string `json:"unitCurrency,omitempty"`
	TargetCurrency string `json:"targetCurrency,omitempty"`
	QuotationDate  Date   `json:"quotationDate,omitzero"`
	// ContractIdentification is Max35Text (docs/interface.md).
	ContractIdentification string `json:"contractIdentification,omitempty"`
}

// UnmarshalJSONFrom accepts exchangeRate as a string or a JSON number,
// either a plain decimal without a sign or exponent: 1 to 14 digits, and
// optionally '.' and 1 to 15 digits ("11.52"). Another value is a
// *json.UnmarshalTypeError whose Field ends in "exchangeRate".
func (r *ReportExchangeRate) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if null, err := unmarshalJSONFromNull(d); null {
		return err
	}
	type plain ReportExchangeRate
	var w struct {
		*plain
		Rate jsontext.Value `json:"exchangeRate"`
	}
	*r = ReportExchangeRate{}
	w.plain = (*plain)(r)
	if err := jsonv2.UnmarshalDecode(d, &w); err != nil {
		return err
	}
	rate, err := decimalField(w.Rate, "exchangeRate", maxRateFraction, false)
	r.ExchangeRate = rate
	return err
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (r *ReportExchangeRate) UnmarshalJSON(data []byte) error { return decodeJSON(data, r) }

// maxRateFraction bounds the digits of an exchange rate after the '.'.
const maxRateFraction = 15

// CardTransaction is a booked or pending card account transaction (docs/interface.md,
// "Account, balance and transaction fields"). TransactionAmount is always in
// the card account's currency, OriginalAmount in the purchase's, whether or
// not the x-accept-fix CardAccountSwitchAmounts was sent (see
// CardAccountsService.Transactions).
type CardTransaction struct {
	CardTransactionID           string     `json:"cardTransactionId,omitempty"`
	TerminalID                  string     `json:"terminalId,omitempty"`
	TransactionDate             Date       `json:"transactionDate,omitzero"`
	AcceptorTransactionDateTime *time.Time `json:"acceptorTransactionDateTime,omitempty"`
	BookingDate                 Date       `json:"bookingDate,omitzero"`
	ValueDate                   Date       `json:"valueDate,omitzero"`
	// TransactionAmount is the amount in the card account's currency.
	TransactionAmount Amount               `json:"transactionAmount"`
	GrandTotalAmount  *Amount              `json:"grandTotalAmount,omitempty"`
	CurrencyExchange  []ReportExchangeRate `json:"currencyExchange,omitempty"`
	// OriginalAmount is the amount in the currency of the purchase.
	OriginalAmount       *Amount              `json:"originalAmount,omitempty"`
	MarkupFee            *Amount              `json:"markupFee,omitempty"`
	MarkupFeePercentage  string               `json:"markupFeePercentage,omitempty"`
	CardAcceptorID       string               `json:"cardAcceptorId,omitempty"`
	CardAcceptorAddress  *CardAcceptorAddress `json:"cardAcceptorAddress,omitempty"`
	CardAcceptorPhone    string               `json:"cardAcceptorPhone,omitempty"`
	MerchantCategoryCode string               `json:"merchantCategoryCode,omitempty"`
	MaskedPAN            string               `json:"maskedPAN,omitempty"`
	TransactionDetails   string               `json:"transactionDetails,omitempty"`
	Invoiced             *bool                `json:"invoiced,omitempty"`
	// ProprietaryBankTransactionCode decodes from a string or an object (see
	// TransactionCode).
	ProprietaryBankTransactionCode TransactionCode `json:"proprietaryBankTransactionCode,omitzero"`
	// BookingStatus is the report's group (BookingBooked or BookingPending).
	BookingStatus BookingStatus `json:"-"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes a card transaction, accepting
// acceptorTransactionDateTime with or without a colon in its offset;
// members it does not name go to Extra. null leaves it as it is.
func (t *CardTransaction) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return decodeWire(d, t, (*cardTransactionWire)(unsafe.Pointer(t)))
}

// finish checks acceptorTransactionDateTime.
func (w *cardTransactionWire) finish() error {
	return w.AcceptorTransactionDateTime.check("acceptorTransactionDateTime")
}

// cardTransactionWire is the wire of a CardTransaction (decodeWire):
// acceptorTransactionDateTime through a dateTimeField.
type cardTransactionWire struct {
	CardTransactionID              string               `json:"cardTransactionId,omitempty"`
	TerminalID                     string               `json:"terminalId,omitempty"`
	TransactionDate                Date                 `json:"transactionDate,omitzero"`
	AcceptorTransactionDateTime    dateTimeField        `json:"acceptorTransactionDateTime,omitempty"`
	BookingDate                    Date                 `json:"bookingDate,omitzero"`
	ValueDate                      Date                 `json:"valueDate,omitzero"`
	TransactionAmount              Amount               `json:"transactionAmount"`
	GrandTotalAmount               *Amount              `json:"grandTotalAmount,omitempty"`
	CurrencyExchange               []ReportExchangeRate `json:"currencyExchange,omitempty"`
	OriginalAmount                 *Amount              `json:"originalAmount,omitempty"`
	MarkupFee                      *Amount              `json:"markupFee,omitempty"`
	MarkupFeePercentage            string               `json:"markupFeePercentage,omitempty"`
	CardAcceptorID                 string               `json:"cardAcceptorId,omitempty"`
	CardAcceptorAddress            *CardAcceptorAddress `json:"cardAcceptorAddress,omitempty"`
	CardAcceptorPhone              string               `json:"cardAcceptorPhone,omitempty"`
	MerchantCategoryCode           string               `json:"merchantCategoryCode,omitempty"`
	MaskedPAN                      string               `json:"maskedPAN,omitempty"`
	TransactionDetails             string               `json:"transactionDetails,omitempty"`
	Invoiced                       *bool                `json:"invoiced,omitempty"`
	ProprietaryBankTransactionCode TransactionCode      `json:"proprietaryBankTransactionCode,omitzero"`
	BookingStatus                  BookingStatus        `json:"-"`
	Extra                          Extra                `json:",embed"`
}

// wireList is a list of models M decoded as their wires W (the same
// layout), each finished as M's UnmarshalJSONFrom finishes one, in order:
// the first failure is the list's error. A list decoded again (a repeated
// member) is decoded by M's method, which starts each entry afresh.
type wireList[M, W any, P interface {
	*W
	finish() error
}] []W

// UnmarshalJSONFrom decodes the list.
func (l *wireList[M, W, P]) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if len(*l) > 0 {
		return jsonv2.UnmarshalDecode(d, (*[]M)(unsafe.Pointer(l)))
	}
	err := jsonv2.UnmarshalDecode(d, (*[]W)(l))
	done := len(*l) // entries decoded whole; an error leaves the last one part decoded
	if err != nil {
		done--
	}
	var first error
	for i := range *l {
		if e := P(&(*l)[i]).finish(); e != nil && i < done && first == nil {
			first = e
		}
	}
	return cmp.Or(first, err)
}

// accountReportWire is an AccountReport as it is decoded.
type accountReportWire struct {
	Booked      wireList[Transaction, transactionWire, *transactionWire] `json:"booked,omitempty"`
	Pending     wireList[Transaction, transactionWire, *transactionWire] `json:"pending,omitempty"`
	Information wireList[Transaction, transactionWire, *transactionWire] `json:"information,omitempty"`
	Links       ReportLinks                                              `json:"_links,omitzero"`
}

// UnmarshalJSONFrom decodes a page of transactions as each transaction's
// UnmarshalJSONFrom would.
func (r *AccountReport) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(d, (*accountReportWire)(unsafe.Pointer(r)))
}

// cardTransactionReportWire is a cardTransactionReport as it is decoded.
type cardTransactionReportWire struct {
	CardAccount      AccountReference `json:"cardAccount,omitzero"`
	DebitAccounting  *bool            `json:"debitAccounting,omitempty"`
	CardTransactions struct {
		Booked  wireList[CardTransaction, cardTransactionWire, *cardTransactionWire] `json:"booked,omitempty"`
		Pending wireList[CardTransaction, cardTransactionWire, *cardTransactionWire] `json:"pending,omitempty"`
		Links   cardReportLinks                                                      `json:"_links,omitzero"`
	} `json:"cardTransactions"`
	Balances []Balance `json:"balances,omitempty"`
}

// UnmarshalJSONFrom decodes a card transaction page.
func (r *cardTransactionReport) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return jsonv2.UnmarshalDecode(d, (*cardTransactionReportWire)(unsafe.Pointer(r)))
}

// MarshalJSONTo encodes acceptorTransactionDateTime in the offset form of
// docs/interface.md G3, and the Extra members.
func (t CardTransaction) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain CardTransaction
	w := struct {
		plain
		Acceptor string `json:"acceptorTransactionDateTime,omitempty"`
	}{plain: plain(t), Acceptor: formatDateTime(t.AcceptorTransactionDateTime)}
	return marshalModel(e, &w, &w.Extra, t)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (t *CardTransaction) UnmarshalJSON(data []byte) error { return decodeJSON(data, t) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (t CardTransaction) MarshalJSON() ([]byte, error) { return encodeJSON(t) }

// swapAmounts undoes the bank's legacy mapping of card amounts, in which
// transactionAmount held the original amount and originalAmount the amount
// in the account's currency.
func (t *CardTransaction) swapAmounts() {
	if t.OriginalAmount == nil {
		return
	}
	t.TransactionAmount, *t.OriginalAmount = *t.OriginalAmount, t.TransactionAmount
}

// CardAcceptorAddress is the address of a card acceptor (Berlin Group
// address).
type CardAcceptorAddress struct {
	StreetName     string `json:"streetName,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	TownName       string `json:"townName,omitempty"`
	PostCode       string `json:"postCode,omitempty"`
	Country        string `json:"country,omitempty"` // ISO 3166 alpha-2
}

// cardTransactionReport is the answer of
// GET /v1/card-accounts/{id}/transactions (docs/interface.md, Production; Berlin Group
// cardAccountsTransactionsResponse200).
type cardTransactionReport struct {
	CardAccount      AccountReference  `json:"cardAccount,omitzero"`
	DebitAccounting  *bool             `json:"debitAccounting,omitempty"`
	CardTransactions cardAccountReport `json:"cardTransactions"`
	Balances         []Balance         `json:"balances,omitempty"`
}

// cardAccountReport is one page of card transactions.
type cardAccountReport struct {
	Booked  []CardTransaction `json:"booked,omitempty"`
	Pending []CardTransaction `json:"pending,omitempty"`
	Links   cardReportLinks   `json:"_links,omitzero"`
}

// cardReportLinks are a card transaction page's _links (an alias: the page
// keeps the type it had).
type cardReportLinks = struct {
	CardAccount Link `json:"cardAccount,omitzero"`
	Card        Link `json:"card,omitzero"`
	First       Link `json:"first,omitzero"`
	Next        Link `json:"next,omitzero"`
	Previous    Link `json:"previous,omitzero"`
	Last        Link `json:"last,omitzero"`
}
