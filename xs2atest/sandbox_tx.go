package xs2atest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
)

// Sandbox mock transactions (docs/interface.md, Sandbox, SB4, SB5 and SB11)
// and the amounts of mock-data bodies.

// maxMockTransactions is how many transactions one POST may create.
const maxMockTransactions = 1000

// mockAmount is an amount of a mock-data body: a JSON string ("100.26"),
// as the interface writes amounts, or a JSON number (15000), as the
// platform's scripts send them. Any other JSON value is kept as an invalid
// amount, so the refusal names its member.
type mockAmount string

// UnmarshalJSON keeps a string's text or a number's literal.
func (m *mockAmount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*m = mockAmount(s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*m = mockAmount(b)
	default:
		*m = "invalid"
	}
	return nil
}

// parse reads the amount in minor units; false for none or a bad one (a
// negative one unless signed).
func (m *mockAmount) parse(signed bool) (int64, bool) {
	if m == nil {
		return 0, false
	}
	return parseAmount(string(*m), signed)
}

// mockAmountObj is {"amount","currency"} with a mockAmount.
type mockAmountObj struct {
	Amount   mockAmount `json:"amount"`
	Currency string     `json:"currency"`
}

// parse reads the amount, which must be in currency when currency is not
// empty: 400 FORMAT_ERROR naming path.amount or path.currency.
func (o *mockAmountObj) parse(path, currency string, signed bool) (int64, *bank.Error) {
	if o == nil {
		return 0, bank.FormatErr(path, path+" is required")
	}
	v, ok := o.Amount.parse(signed)
	switch {
	case !ok:
		return 0, bank.FormatErr(path+".amount", "amount must be an amount like 100.26")
	case currency != "" && o.Currency != currency:
		return 0, bank.FormatErr(path+".currency", "currency must be the account currency")
	case !currencyRE.MatchString(o.Currency):
		return 0, bank.FormatErr(path+".currency", "currency must be an ISO 4217 code")
	}
	return v, nil
}

// strictJSON decodes raw into v, refusing unknown members and trailing
// data, as decodeBody does for a whole body.
func strictJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// decodeOneOrMany decodes a body that is one object or an array of them
// into out: 400 FORMAT_ERROR for another JSON value, an empty array, more
// than maxMockTransactions items, or an item that does not decode (its
// path starts with [i] in an array).
func decodeOneOrMany[T any](raw json.RawMessage, out *[]T) *bank.Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var one T
		if err := strictJSON(raw, &one); err != nil {
			return bank.FormatErr(fieldOf(err, ""), "the body is not valid: "+jsonReason(err))
		}
		*out = []T{one}
		return nil
	}
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return bank.FormatErr("", "the body must be one object or an array of objects")
	}
	switch {
	case len(items) == 0:
		return bank.FormatErr("", "the array is empty")
	case len(items) > maxMockTransactions:
		return bank.FormatErr("", fmt.Sprintf("at most %d items in one request", maxMockTransactions))
	}
	*out = make([]T, len(items))
	for i, it := range items {
		prefix := fmt.Sprintf("[%d]", i)
		if b := bytes.TrimSpace(it); len(b) == 0 || b[0] != '{' {
			return bank.FormatErr(prefix, "each item must be an object")
		}
		if err := strictJSON(it, &(*out)[i]); err != nil {
			return bank.FormatErr(fieldOf(err, prefix), "the body is not valid: "+jsonReason(err))
		}
	}
	return nil
}

// fieldOf is the path of the member a decoding error names, under prefix.
func fieldOf(err error, prefix string) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		if prefix == "" {
			return ute.Field
		}
		return prefix + "." + ute.Field
	}
	return prefix
}

// sandboxTx is a mock transaction: the interface's shape (transactionAmount)
// or the platform scripts' (amount and currency beside the other members,
// and for card accounts the card transaction's members). Members the fake
// bank does not keep are accepted and checked for form only.
type sandboxTx struct {
	TransactionAmount                 *mockAmountObj   `json:"transactionAmount"`
	Amount                            *mockAmount      `json:"amount"`
	Currency                          string           `json:"currency"`
	BookingDate                       string           `json:"bookingDate"`
	ValueDate                         string           `json:"valueDate"`
	TransactionDate                   string           `json:"transactionDate"`
	CreditorName                      string           `json:"creditorName"`
	DebtorName                        string           `json:"debtorName"`
	CreditorAccount                   *bank.AccountRef `json:"creditorAccount"`
	DebtorAccount                     *bank.AccountRef `json:"debtorAccount"`
	RemittanceInformationUnstructured string           `json:"remittanceInformationUnstructured"`
	ProprietaryBankTransactionCode    json.RawMessage  `json:"proprietaryBankTransactionCode"` // parseTxCode
	AdditionalInformation             string           `json:"additionalInformation"`
	OriginalAmount                    *mockAmountObj   `json:"originalAmount"`
	TransactionDetails                string           `json:"transactionDetails"`
	Pending                           bool             `json:"pending"`

	// accepted from the platform's scripts, not kept
	CreditorID           string          `json:"creditorId"`
	UltimateCreditor     string          `json:"ultimateCreditor"`
	UltimateDebtor       string          `json:"ultimateDebtor"`
	PurposeCode          string          `json:"purposeCode"`
	BankTransactionCode  string          `json:"bankTransactionCode"`
	CardTransactionID    string          `json:"cardTransactionId"`
	TerminalID           string          `json:"terminalId"`
	MerchantCategoryCode string          `json:"merchantCategoryCode"`
	MarkupFee            *mockAmountObj  `json:"markupFee"`
	MarkupFeePercentage  string          `json:"markupFeePercentage"`
	CardAcceptorID       string          `json:"cardAcceptorId"`
	CardAcceptorAddress  json.RawMessage `json:"cardAcceptorAddress"`
	MaskedPan            string          `json:"maskedPan"`
	Invoiced             json.RawMessage `json:"invoiced"`
}

// txCodeJSON is proprietaryBankTransactionCode. docs/interface.md, Resources:
// "Transaction code can be given with both value and code in the sandbox":
// a mock transaction gives it as a string (the value) or as an object
// {"value": ..., "code": ...}, and reads back in the same form. Generated
// and batch-booked transactions carry a value only, written as a string.
type txCodeJSON struct {
	Value string `json:"value,omitempty"`
	Code  string `json:"code,omitempty"`
}

// IsZero reports an absent code (omitzero leaves it out of a transaction).
func (c txCodeJSON) IsZero() bool { return c == txCodeJSON{} }

// MarshalJSON writes the value alone as a string, a code with an object.
func (c txCodeJSON) MarshalJSON() ([]byte, error) {
	if c.Code == "" {
		return json.Marshal(c.Value)
	}
	type plain txCodeJSON
	return json.Marshal(plain(c))
}

// parseTxCode reads proprietaryBankTransactionCode of a mock transaction:
// absent, null, a string, or an object with value and code (strings, at
// least one not empty, no other member).
func parseTxCode(raw json.RawMessage) (txCodeJSON, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return txCodeJSON{}, true
	}
	var c txCodeJSON
	if raw[0] == '"' {
		return c, json.Unmarshal(raw, &c.Value) == nil
	}
	if raw[0] != '{' {
		return c, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) != nil || c.IsZero() {
		return c, false
	}
	return c, true
}

// POST /v1/sandbox/accounts/{mockAccountId}/transactions and
// /v1/sandbox/card-accounts/{mockCardAccountId}/transactions (card: the
// account must be a card account): one transaction (an object; the answer
// is the transaction) or several (an array; the answer is the array, in
// order). Every item is checked before any is added, so a refused array
// adds none; a refusal's path starts with [i]. The debtor account, when
// given, must be this account; dates are in the past and bookingDate <=
// valueDate. A booked transaction moves the balance.
func (s *Server) sandboxAddTransactions(card bool) http.HandlerFunc {
	param := map[bool]string{false: "mockAccountId", true: "mockCardAccountId"}[card]
	return func(w http.ResponseWriter, r *http.Request) {
		var raw json.RawMessage
		if !decodeBody(w, r, &raw) {
			return
		}
		a, ok := s.accountAt(w, r, param, card)
		if !ok {
			return
		}
		var reqs []sandboxTx
		e := decodeOneOrMany(raw, &reqs)
		isArray := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("["))
		ts, pending := make([]bank.Transaction, len(reqs)), make([]bool, len(reqs))
		today := bank.DateOf(s.now())
		for i := 0; e == nil && i < len(reqs); i++ {
			var t *bank.Transaction
			if t, e = sandboxTransaction(&reqs[i], &a, today); e == nil {
				ts[i], pending[i] = *t, reqs[i].Pending
			} else if isArray {
				e.Path = fmt.Sprintf("[%d].%s", i, e.Path)
			}
		}
		if e == nil {
			ts, e = s.bank.AddTransactions(a.ID, ts, pending)
		}
		if e != nil {
			writeAPIError(w, e)
			return
		}
		out := make([]txJSON, len(ts))
		for i := range ts {
			out[i] = txOf(&ts[i], !pending[i])
		}
		if !isArray {
			writeJSON(w, http.StatusCreated, out[0])
			return
		}
		writeJSON(w, http.StatusCreated, out)
	}
}

// PUT /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId}:
// the fake bank's own route. The body, one transaction in the shape of a
// POST, replaces the transaction under the same id; a booked one's old
// amount leaves the balance and the new one enters it.
func (s *Server) sandboxReplaceTransaction(w http.ResponseWriter, r *http.Request) {
	var req sandboxTx
	if !decodeBody(w, r, &req) {
		return
	}
	a, ok := s.accountAt(w, r, "mockAccountId", false)
	if !ok {
		return
	}
	t, e := sandboxTransaction(&req, &a, bank.DateOf(s.now()))
	if e == nil {
		*t, e = s.bank.ReplaceTransaction(a.ID, r.PathValue("transactionId"), *t, req.Pending)
	}
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, txOf(t, !req.Pending))
}

// sandboxTransaction checks a sandbox transaction for account a and builds
// it, without an id (the bank gives one as it adds it).
func sandboxTransaction(req *sandboxTx, a *bank.Account, today time.Time) (*bank.Transaction, *bank.Error) {
	amt, e := sandboxTxAmount(req, a)
	if e != nil {
		return nil, e
	}
	bd, vd, e := sandboxTxDates(req, today)
	if e != nil {
		return nil, e
	}
	code, ok := parseTxCode(req.ProprietaryBankTransactionCode)
	if !ok {
		return nil, bank.FormatErr("proprietaryBankTransactionCode", `proprietaryBankTransactionCode must be a string or an object {"value":"...","code":"..."}`)
	}
	if req.MarkupFee != nil {
		if _, e := req.MarkupFee.parse("markupFee", "", false); e != nil {
			return nil, e
		}
	}
	t := &bank.Transaction{BookingDate: bd, ValueDate: vd, TransactionDate: bd, Amount: amt,
		Currency: a.Currency, CreditorName: req.CreditorName, DebtorName: req.DebtorName,
		Remittance: req.RemittanceInformationUnstructured, Code: code.Value, CodeID: code.Code,
		Info: req.AdditionalInformation, OrigAmount: amt, OrigCurrency: a.Currency, Details: req.TransactionDetails}
	if req.CreditorAccount != nil {
		t.CreditorBBAN = req.CreditorAccount.BBAN
	}
	if req.DebtorAccount != nil {
		t.DebtorBBAN = req.DebtorAccount.BBAN
	}
	return t, sandboxTxOriginal(req, t)
}

// sandboxTxAmount is the transaction's amount in the account's currency
// (transactionAmount, or amount and currency), a debit when the account
// is its debtor.
func sandboxTxAmount(req *sandboxTx, a *bank.Account) (int64, *bank.Error) {
	amount, path := req.TransactionAmount, "transactionAmount"
	switch {
	case amount != nil && (req.Amount != nil || req.Currency != ""):
		return 0, bank.FormatErr("amount", "give transactionAmount or amount and currency, not both")
	case amount == nil && req.Amount == nil:
		return 0, bank.FormatErr("transactionAmount", "transactionAmount (or amount and currency) is required")
	case amount == nil:
		amount, path = &mockAmountObj{Amount: *req.Amount, Currency: req.Currency}, ""
	}
	at := func(m string) string {
		if path == "" {
			return m
		}
		return path + "." + m
	}
	amt, ok := amount.Amount.parse(true)
	switch {
	case !ok || amt == 0:
		return 0, bank.FormatErr(at("amount"), "amount must be a non-zero amount like -100.26")
	case amount.Currency != a.Currency:
		return 0, bank.FormatErr(at("currency"), "currency must be the account currency")
	case req.DebtorAccount != nil && !a.Is(req.DebtorAccount):
		return 0, bank.FormatErr("debtorAccount", "the debtor account must be the account the transaction is created for")
	case req.DebtorAccount != nil && amt > 0:
		amt = -amt
	}
	return amt, nil
}

// sandboxTxDates are the booking and value dates: today unless given, in
// the past, and bookingDate <= valueDate.
func sandboxTxDates(req *sandboxTx, today time.Time) (bd, vd time.Time, e *bank.Error) {
	bd, ok := today, true
	if req.BookingDate != "" {
		if bd, ok = bank.ParseDate(req.BookingDate); !ok || bd.After(today) {
			return bd, vd, bank.FormatErr("bookingDate", "bookingDate must be a date (YYYY-MM-DD) in the past")
		}
	}
	vd = bd
	if req.ValueDate != "" {
		if vd, ok = bank.ParseDate(req.ValueDate); !ok || vd.After(today) {
			return bd, vd, bank.FormatErr("valueDate", "valueDate must be a date (YYYY-MM-DD) in the past")
		}
	}
	if vd.Before(bd) {
		return bd, vd, bank.FormatErr("valueDate", "bookingDate must not be after valueDate")
	}
	return bd, vd, nil
}

// sandboxTxOriginal sets the transactionDate and originalAmount a sandbox
// transaction gives.
func sandboxTxOriginal(req *sandboxTx, t *bank.Transaction) *bank.Error {
	var ok bool
	if req.TransactionDate != "" {
		if t.TransactionDate, ok = bank.ParseDate(req.TransactionDate); !ok {
			return bank.FormatErr("transactionDate", "transactionDate must be YYYY-MM-DD")
		}
	}
	if req.OriginalAmount != nil {
		v, e := req.OriginalAmount.parse("originalAmount", "", true)
		if e != nil {
			return e
		}
		t.OrigAmount, t.OrigCurrency = v, req.OriginalAmount.Currency
	}
	return nil
}
