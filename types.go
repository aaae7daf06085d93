package xs2a

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// Amount is an amount of money as the interface carries it in
// instructedAmount, balanceAmount, transactionAmount, transactionFees and the
// like: {"currency": "NOK", "amount": "100.26"}. Amounts travel as JSON
// strings (docs/interface.md G5, V3); Amount keeps the decimal text, never a
// float, so no øre is lost. Build one with ParseAmount, or set the fields and call Validate.
type Amount struct {
	Currency string `json:"currency"` // ISO 4217 code, e.g. "NOK"
	Amount   string `json:"amount"`   // decimal text, e.g. "100.26" or "-5"
}

// amountPattern is the Berlin Group Amount pattern: up to 14 integer digits
// and up to 3 decimals, "." as the separator, an optional leading minus.
var amountPattern = regexp.MustCompile(`^-?[0-9]{1,14}(\.[0-9]{1,3})?$`)

// ParseAmount returns the Amount of currency and amount after the checks of
// Amount.Validate (docs/interface.md, payment initiation request: instructedAmount is
// "currency (ISO 4217 code), amount (string)"). The text is kept as given:
// ParseAmount("NOK", "100.50") holds "100.50". Errors are *ValidationError.
// It accepts zero and negative amounts, which balances and sandbox
// transactions hold; for a sum to pay use ParsePaymentAmount.
func ParseAmount(currency, amount string) (Amount, error) {
	a := Amount{Currency: currency, Amount: amount}
	if err := a.Validate(); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// ParsePaymentAmount is ParseAmount for a payment's instructedAmount: the
// same grammar, and greater than zero, as PaymentsService.Initiate checks
// it; the error is Initiate's, with Field "Amount.Amount" or
// "Amount.Currency". Use it on what a user types in as the sum to pay.
func ParsePaymentAmount(currency, amount string) (Amount, error) {
	a := Amount{Currency: currency, Amount: amount}
	if err := a.validatePayment("Amount"); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// validatePayment is validate and, as a payment's amount must be, greater
// than zero.
func (a Amount) validatePayment(field string) error {
	if err := a.validate(field); err != nil {
		return err
	}
	if strings.HasPrefix(a.Amount, "-") || strings.Trim(a.Amount, "0.") == "" {
		return invalid(field+".Amount", "must be greater than zero")
	}
	return nil
}

// Validate checks the amount against the Berlin Group Amount type that
// docs/interface.md's instructedAmount uses: Amount matches
// ^-?[0-9]{1,14}(\.[0-9]{1,3})?$ and Currency is an ISO 4217 code in shape
// (three letters A-Z). The error is a *ValidationError with Field
// "Amount.Amount" or "Amount.Currency".
func (a Amount) Validate() error { return a.validate("Amount") }

// validate is Validate with the Field prefixed by field (for example
// "Payment.InstructedAmount" gives "Payment.InstructedAmount.Amount").
func (a Amount) validate(field string) error {
	switch {
	case a.Amount == "":
		return invalid(field+".Amount", "is required")
	case !amountPattern.MatchString(a.Amount):
		return invalid(field+".Amount", "must be a decimal number with up to 14 digits before and 3 after a '.'")
	}
	return checkCurrency(field+".Currency", a.Currency, true)
}

// checkCurrency checks the shape of an ISO 4217 code: three letters A-Z.
func checkCurrency(field, c string, required bool) error {
	switch {
	case c == "" && required:
		return invalid(field, "is required")
	case c != "" && (len(c) != 3 || !isUpper(c[0]) || !isUpper(c[1]) || !isUpper(c[2])):
		return invalid(field, "must be an ISO 4217 currency code (three upper-case letters)")
	}
	return nil
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// String returns the amount and its currency, "100.26 NOK".
func (a Amount) String() string {
	switch {
	case a.Currency == "":
		return a.Amount
	case a.Amount == "":
		return a.Currency
	}
	return a.Amount + " " + a.Currency
}

// UnmarshalJSONFrom decodes an amount object from an answer. amount may be a
// JSON string or number holding a plain decimal (Validate's grammar), kept as
// sent; missing, null or "" decodes as "". A malformed amount is a
// *json.UnmarshalTypeError whose Field is its path
// ("balances.balanceAmount.amount"). null leaves the Amount unchanged.
func (a *Amount) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if d.PeekKind() != '{' {
		return jsonv2.UnmarshalDecode(d, new(struct{})) // null, or the error a struct gives
	}
	// Read member by member (readText): an answer holds an amount or two
	// per entry, and json/v2's struct decoding costs more.
	if _, err := d.ReadToken(); err != nil { // '{'
		return err
	}
	var name, cur, amount string
	var amountErr error
	for d.PeekKind() != '}' {
		if err := readText(d, &name, ""); err != nil {
			return err
		}
		var err error
		switch {
		case strings.EqualFold(name, "currency"): // in any letter case, as encoding/json matches names
			err = readText(d, &cur, "currency")
		case strings.EqualFold(name, "amount"):
			var raw jsontext.Value
			if raw, err = d.ReadValue(); err == nil {
				// The last amount member is the one decoded.
				amount, amountErr = decimalField(raw, "amount", maxAmountFraction, true)
			}
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil { // '}'
		return err
	}
	if amountErr != nil {
		return amountErr
	}
	*a = Amount{Currency: cur, Amount: amount}
	return nil
}

// readText reads the JSON string next in d (a member name or a value) into
// *s as encoding/json does: escapes read, invalid UTF-8 replaced; null
// leaves *s as it is, another kind of value is a *json.UnmarshalTypeError
// naming field. A short text made lately is the string made then.
func readText(d *jsontext.Decoder, s *string, field string) error {
	switch kind := d.PeekKind(); kind {
	case 'n':
		_, err := d.ReadToken()
		return err
	case '"':
	default:
		if err := d.SkipValue(); err != nil {
			return err
		}
		return &json.UnmarshalTypeError{Value: kindName(kind), Type: reflect.TypeFor[string](), Field: field}
	}
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	text := raw[1 : len(raw)-1]
	if bytes.IndexByte(text, '\\') >= 0 || !utf8.Valid(text) {
		text, _ = jsontext.AppendUnquote(nil, raw)
	}
	if len(text) == 0 || len(text) > 16 {
		*s = string(text)
		return nil
	}
	slot := &recentTexts[(len(text)*31+int(text[0])*7+int(text[len(text)-1]))%len(recentTexts)]
	if p := slot.Load(); p != nil && *p == string(text) {
		*s = *p
		return nil
	}
	made := string(text)
	slot.Store(&made)
	*s = made
	return nil
}

// recentTexts are short texts readText made lately, by a hash of their
// bytes: the names, currencies and codes a page repeats are made once.
var recentTexts [64]atomic.Pointer[string]

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (a *Amount) UnmarshalJSON(data []byte) error {
	if err := decodeJSON(data, a); err != nil {
		return keepPath(err, "amount")
	}
	return nil
}

// maxAmountIntegerDigits and maxAmountFraction bound an amount's digits
// before and after the '.' (the Berlin Group Amount pattern).
const (
	maxAmountIntegerDigits = 14
	maxAmountFraction      = 3
)

// keepPath returns a *json.UnmarshalTypeError as it is, so that
// encoding/json can put the path of the enclosing fields in front of its
// Field; any other error is wrapped with what was being decoded.
func keepPath(err error, what string) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return te
	}
	return fmt.Errorf("xs2a: decoding %s: %w", what, err)
}

// plainPath returns err with the name of the embedded alias ("plain.") taken
// out of a *json.UnmarshalTypeError's Field. The UnmarshalJSON methods that
// decode through a struct embedding *plain call it, so that the path of a
// field they refuse is the JSON path ("balances.balanceAmount.amount").
func plainPath(err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		te.Field = strings.TrimPrefix(te.Field, "plain.")
	}
	return err
}

// decimalField decodes the raw JSON value of the decimal field named field: a
// string or number holding a plain decimal, an optional leading '-' (when
// signed), 1 to 14 digits, and optionally a '.' and 1 to maxFraction digits;
// missing, null and "" give "". Anything else is a *json.UnmarshalTypeError
// naming field, not the value.
func decimalField(raw []byte, field string, maxFraction int, signed bool) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	switch {
	case raw[0] != '"':
		s = string(raw)
	case bytes.IndexByte(raw, '\\') < 0:
		// A valid JSON string without escapes: its text is between the
		// quotes (anything but ASCII is no decimal).
		s = string(raw[1 : len(raw)-1])
	default:
		var text string // declared here: it escapes, and costs an allocation only for an escaped string
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", keepPath(err, field)
		}
		s = text
	}
	if s == "" {
		return "", nil
	}
	digits := s
	if signed {
		digits = strings.TrimPrefix(s, "-")
	}
	ip, fp, point := strings.Cut(digits, ".")
	nonDigit := strings.Trim(ip, "0123456789") != "" || strings.Trim(fp, "0123456789") != ""
	if nonDigit || ip == "" || len(ip) > maxAmountIntegerDigits || point && (fp == "" || len(fp) > maxFraction) {
		return "", &json.UnmarshalTypeError{Value: kindName(jsontext.Value(raw).Kind()) + " that is not a plain decimal",
			Type: reflect.TypeFor[string](), Field: field}
	}
	return s, nil
}

// Date is a calendar date without a time or zone, the ISO 8601 YYYY-MM-DD
// form of docs/interface.md G3 (requestedExecutionDate,
// bookingDate, valueDate, dateFrom, dateTo, startDate, endDate).
//
// The zero Date means "no date": String and MarshalText give "", MarshalJSON
// gives null, and IsZero reports true. Use it with the omitzero option so an
// unset date is left out of the body:
//
//	RequestedExecutionDate xs2a.Date `json:"requestedExecutionDate,omitzero"`
type Date struct {
	Year  int        // 1..9999
	Month time.Month // 1..12
	Day   int        // 1..31
}

// DateOf returns t's date in t's location; zero gives zero.
func DateOf(t time.Time) Date {
	if t.IsZero() {
		return Date{}
	}
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// dateError is the error of a date that is not YYYY-MM-DD.
func dateError() error {
	return invalid("Date", "must be a calendar date in the form YYYY-MM-DD")
}

// ParseDate parses an ISO 8601 calendar date "YYYY-MM-DD" (docs/interface.md General
// convention 3), strictly: four-digit year 0001..9999, two-digit month and
// day, a day that exists in that month. The error is a *ValidationError.
func ParseDate(s string) (Date, error) {
	if d, ok := parseDate(s); ok {
		return d, nil
	}
	return Date{}, dateError()
}

// parseDate parses "YYYY-MM-DD" as ParseDate does, without making a string
// of a []byte; false for anything else, a year 0 or a day its month lacks.
func parseDate[S ~string | ~[]byte](b S) (Date, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return Date{}, false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if b[i]-'0' > 9 {
			return Date{}, false
		}
	}
	digit := func(i int) int { return int(b[i] - '0') }
	d := Date{Year: digit(0)*1000 + digit(1)*100 + digit(2)*10 + digit(3), Month: time.Month(digit(5)*10 + digit(6)), Day: digit(8)*10 + digit(9)}
	return d, d.valid()
}

// monthDays are the days of each month of a common year.
var monthDays = [...]int{time.January: 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// valid reports whether d is a real date of the years 1..9999.
func (d Date) valid() bool {
	if d.Year < 1 || d.Year > 9999 || d.Month < time.January || d.Month > time.December || d.Day < 1 {
		return false
	}
	leap := d.Year%4 == 0 && (d.Year%100 != 0 || d.Year%400 == 0)
	return d.Day <= monthDays[d.Month] || d.Month == time.February && leap && d.Day == 29
}

// String returns the date as YYYY-MM-DD (docs/interface.md G3), or
// "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsZero reports whether d is the zero Date, "no date". encoding/json's
// omitzero option uses it.
func (d Date) IsZero() bool { return d == Date{} }

// Compare returns -1, 0 or +1 as d is before, equal to or after other.
func (d Date) Compare(other Date) int {
	return cmp.Or(cmp.Compare(d.Year, other.Year), cmp.Compare(d.Month, other.Month), cmp.Compare(d.Day, other.Day))
}

// Before reports whether d is before other.
func (d Date) Before(other Date) bool { return d.Compare(other) < 0 }

// After reports whether d is after other.
func (d Date) After(other Date) bool { return d.Compare(other) > 0 }

// AddDays returns d plus n days (n may be negative); zero stays zero.
func (d Date) AddDays(n int) Date {
	if d.IsZero() {
		return d
	}
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC))
}

// In returns d's midnight in loc (nil: UTC); zero gives zero.
func (d Date) In(loc *time.Location) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, cmp.Or(loc, time.UTC))
}

// MarshalText returns YYYY-MM-DD (docs/interface.md G3), or empty
// text for the zero Date. A Date that is not a real date of the years
// 1..9999 is an error.
func (d Date) MarshalText() ([]byte, error) {
	if d.IsZero() {
		return []byte{}, nil
	}
	if !d.valid() {
		return nil, dateError()
	}
	return []byte(d.String()), nil
}

// UnmarshalText parses YYYY-MM-DD (docs/interface.md G3). Empty
// text gives the zero Date. A date-time ("2024-01-02T10:00:00+01:00"), which
// some banks send where a date belongs, gives its date part as written,
// without converting it to another zone.
func (d *Date) UnmarshalText(b []byte) error {
	s := string(b)
	if len(s) > 10 && isDateTimeTail(s[10:]) {
		s = s[:10]
	}
	v, ok := parseDate(s) // the zero Date for ""
	if !ok && s != "" {
		return dateError()
	}
	*d = v
	return nil
}

// isDateTimeTail reports whether rest looks like the time part of an ISO 8601
// date-time: a 'T' (or a space) followed by a time and an optional zone.
func isDateTimeTail(rest string) bool {
	return len(rest) >= 2 && (rest[0] == 'T' || rest[0] == 't' || rest[0] == ' ') && '0' <= rest[1] && rest[1] <= '9' &&
		strings.Trim(rest[2:], "0123456789:.+-Zz") == ""
}

// MarshalJSONTo writes "YYYY-MM-DD" (docs/interface.md G3), or null for zero.
func (d Date) MarshalJSONTo(e *jsontext.Encoder) error {
	if d.IsZero() {
		return e.WriteToken(jsontext.Null)
	}
	if !d.valid() {
		return dateError()
	}
	return e.WriteToken(jsontext.String(d.String()))
}

// UnmarshalJSONFrom accepts "YYYY-MM-DD", a date-time, and "" or null (zero).
func (d *Date) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		*d = Date{}
		_, err := dec.ReadToken()
		return err
	case '"':
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if v, ok := parseDate(raw[1 : len(raw)-1]); ok {
			*d = v
			return nil
		}
		text, _ := jsontext.AppendUnquote(nil, raw) // invalid UTF-8 replaced, as encoding/json does
		return d.UnmarshalText(text)
	}
	kind := kindName(dec.PeekKind())
	if err := dec.SkipValue(); err != nil {
		return err
	}
	return fmt.Errorf("xs2a: decoding date: %w", &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[string]()})
}

// MarshalJSON is MarshalJSONTo for encoding/json.
func (d Date) MarshalJSON() ([]byte, error) { return encodeJSON(d) }

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (d *Date) UnmarshalJSON(b []byte) error { return decodeJSON(b, d) }

// Link is one entry of a response's _links: {"href": "...", "verbs": ["GET"]}.
// Href is usually relative to the client's base address; pass the Link back to
// the service method that follows it. A link given as a bare string decodes too.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitempty"`
}

// UnmarshalJSONFrom accepts {"href": "..."} and a bare "..." string; null
// gives the zero Link.
func (l *Link) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	switch d.PeekKind() {
	case '"':
		tok, err := d.ReadToken()
		*l = Link{Href: tok.String()}
		return err
	case 'n', '{':
		*l = Link{} // an object replaces the link
	}
	type plain Link
	return jsonv2.UnmarshalDecode(d, (*plain)(l))
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (l *Link) UnmarshalJSON(b []byte) error { return decodeJSON(b, l) }

// IsZero reports whether the link is absent.
func (l Link) IsZero() bool { return l.Href == "" }

// decodeWire decodes the value next in d into the model m through its
// wire w, then finishes w; null leaves m as it is. A wire is its model's
// layout (TestWireLayouts) with field types of its own and no method, so that
// json/v2 decodes a list of them field by field (wireList).
func decodeWire[M any, W interface{ finish() error }](d *jsontext.Decoder, m *M, w W) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	*m = *new(M)
	return cmp.Or(jsonv2.UnmarshalDecode(d, w), w.finish())
}

// dateTimeLayouts are the date-time forms accepted in responses: RFC 3339,
// and the same with an offset without a colon ("+0200").
var dateTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700"}

// formatDateTime writes a date-time in the offset form of docs/interface.md General
// convention 3 ("2024-05-02T10:00:00+00:00"); "" for nil.
func formatDateTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format("2006-01-02T15:04:05.999999999-07:00")
}

// dateTimeField is a date-time member (*time.Time) decoded as a *string
// would be ("" and null give no time), parsed in one of dateTimeLayouts
// without a string of its text. A text that does not parse is held as
// invalidDateTime until check.
type dateTimeField struct{ t *time.Time }

// invalidDateTime marks a dateTimeField whose text does not parse.
var invalidDateTime time.Time

// UnmarshalJSONFrom reads and parses the value next in d.
func (x *dateTimeField) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	x.t = nil
	if d.PeekKind() != '"' {
		var s *string
		return jsonv2.UnmarshalDecode(d, &s) // null, or the error a *string gives
	}
	raw, err := d.ReadValue()
	if err != nil {
		return err
	}
	var room [64]byte
	text, _ := jsontext.AppendUnquote(room[:0], raw) // invalid UTF-8 replaced, as encoding/json does
	if len(text) == 0 {
		return nil
	}
	// time.Parse keeps no part of the text, which lives only in this call.
	s := unsafe.String(&text[0], len(text))
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			x.t = &t
			return nil
		}
	}
	x.t = &invalidDateTime
	return nil
}

// check is the error naming field of a text that is no date-time with an
// offset, which it takes out; nil for any other.
func (x *dateTimeField) check(field string) error {
	if x.t != &invalidDateTime {
		return nil
	}
	x.t = nil
	return fmt.Errorf("xs2a: decoding %s: not an ISO 8601 date-time with an offset", field)
}

// AccountReference identifies an account in a request or a response
// (debtorAccount, creditorAccount, account, cardAccount): docs/interface.md's
// payment initiation request gives accounts as {"bban", "currency"}; the
// Berlin Group AccountReference the interface is based on also allows iban,
// pan, maskedPan and msisdn.
type AccountReference struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"` // Norwegian account number, 11 digits
	PAN       string `json:"pan,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	MSISDN    string `json:"msisdn,omitempty"`
	Currency  string `json:"currency,omitempty"` // ISO 4217 code
}

// Validate checks the reference as a debtorAccount or creditorAccount of
// docs/interface.md's payment initiation request: at least one of IBAN, BBAN, PAN,
// MaskedPAN and MSISDN; a BBAN that passes ValidBBAN; an IBAN that passes
// ValidIBAN (and, for a Norwegian IBAN given with a BBAN, holds that BBAN); a
// Currency, when set, that is an ISO 4217 code in shape. PAN, MaskedPAN and
// MSISDN must be at most 35 characters of text the bank can process. The
// error is a *ValidationError whose Field starts with "AccountReference".
func (r AccountReference) Validate() error { return r.validate("AccountReference") }

// validate is Validate with the Field prefixed by field
// ("Payment.DebtorAccount" gives "Payment.DebtorAccount.BBAN").
func (r AccountReference) validate(field string) error {
	bban, norwegian := BBANFromIBAN(r.IBAN)
	switch {
	case r.IBAN == "" && r.BBAN == "" && r.PAN == "" && r.MaskedPAN == "" && r.MSISDN == "":
		return invalid(field, "needs one of iban, bban, pan, maskedPan or msisdn")
	case r.BBAN != "" && !ValidBBAN(r.BBAN):
		return invalid(field+".BBAN", "must be a Norwegian account number of 11 digits with a valid MOD11 control digit")
	case r.IBAN != "" && !ValidIBAN(r.IBAN):
		return invalid(field+".IBAN", "must be an IBAN in electronic form with a valid length and checksum")
	case norwegian && r.BBAN != "" && bban != r.BBAN:
		return invalid(field+".BBAN", "does not match the account number in IBAN")
	}
	for _, f := range []struct{ name, value string }{
		{".PAN", r.PAN}, {".MaskedPAN", r.MaskedPAN}, {".MSISDN", r.MSISDN},
	} {
		if err := checkText(field+f.name, f.value, maxReferenceLen); err != nil {
			return err
		}
	}
	return checkCurrency(field+".Currency", r.Currency, false)
}
