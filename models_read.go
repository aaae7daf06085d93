package xs2a

import (
	"bytes"
	"reflect"
	"time"
)

// The one-pass decoders of the models read in bulk (Transaction,
// CardTransaction, Account and the pages and lists that hold them), over
// reader. Each gives the value encoding/json would give, or fails (false)
// on anything it does not take itself, and the caller decodes the same bytes
// with encoding/json then: a member whose name matches a field only in
// another letter case, a key with escapes, a value of an unexpected kind, a
// value encoding/json would refuse. The members that are rare in answers go
// through encoding/json one by one (reader.into).

// Member names of the types read here without an Extra, for the letter
// case check of members they do not name.
var (
	amountNames    = namesOf(reflect.TypeFor[Amount](), "")
	referenceNames = namesOf(reflect.TypeFor[AccountReference](), "")
	linkNames      = namesOf(reflect.TypeFor[Link](), "")
	codeNames      = namesOf(reflect.TypeFor[TransactionCode](), "")
	accLinksNames  = namesOf(reflect.TypeFor[AccountLinks](), "")
	reportNames    = namesOf(reflect.TypeFor[TransactionReport](), "")
	accReportNames = namesOf(reflect.TypeFor[AccountReport](), "")
	cardReportNms  = namesOf(reflect.TypeFor[cardTransactionReport](), "")
	cardAccRepNms  = namesOf(reflect.TypeFor[cardAccountReport](), "")
)

// unnamed skips the value of a member that names does not take, as
// encoding/json ignores it; a name that matches one in another letter case
// fails.
func (r *reader) unnamed(key []byte, names *fieldNames) bool {
	if names.known(string(key)) {
		return false
	}
	_, ok := r.skip()
	return ok
}

// date reads a Date as Date.UnmarshalJSON does.
func (r *reader) date(d *Date) bool {
	if r.null() {
		*d = Date{}
		return true
	}
	if r.ws() != '"' {
		return false
	}
	start := r.i
	content, simple, ok := r.stringSpan()
	if !ok {
		return false
	}
	if !simple {
		r.i = start
		return r.into(d)
	}
	if v, ok := dateOf(content); ok {
		*d = v
		return true
	}
	return d.UnmarshalText(content) == nil
}

// dateOf parses a YYYY-MM-DD date as ParseDate does, without making a
// string of b; false for anything else.
func dateOf(b []byte) (Date, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return Date{}, false
	}
	n := [3]int{}
	for i, part := range [3][]byte{b[:4], b[5:7], b[8:]} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return Date{}, false
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	d := Date{Year: n[0], Month: time.Month(n[1]), Day: n[2]}
	return d, d.valid()
}

// amount reads an Amount as Amount.UnmarshalJSON does.
func (r *reader) amount(a *Amount) bool {
	if r.null() {
		return true
	}
	if !r.open('{') {
		return false
	}
	var cur string
	var raw []byte
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		switch {
		case !ok:
			return false
		case end:
			s, ok := r.decimal(raw)
			*a = Amount{Currency: cur, Amount: s}
			return ok
		case string(key) == "currency":
			ok = r.str(&cur)
		case string(key) == "amount":
			raw, ok = r.skip()
		default:
			ok = r.unnamed(key, amountNames)
		}
		if !ok {
			return false
		}
	}
}

// decimal is the text of the raw value of an amount, as decimalField
// gives it, with the text in a block (see text); false when decimalField
// refuses it.
func (r *reader) decimal(raw []byte) (string, bool) {
	text := raw
	if len(raw) >= 2 && raw[0] == '"' {
		text = raw[1 : len(raw)-1]
	}
	if len(raw) == 0 || raw[0] == 'n' || len(text) == 0 || bytes.IndexByte(text, '\\') >= 0 {
		s, err := decimalField(raw, "amount", maxAmountFraction, true)
		return s, err == nil
	}
	s := r.text(text)
	return s, isDecimal(s, maxAmountFraction, true)
}

// amountPtr reads an optional Amount.
func (r *reader) amountPtr(p **Amount) bool {
	if r.null() {
		*p = nil
		return true
	}
	if *p == nil {
		*p = new(Amount)
	}
	return r.amount(*p)
}

// reference reads an AccountReference into what it holds, as encoding/json
// reads a plain struct.
func (r *reader) reference(a *AccountReference) bool {
	if r.null() {
		return true
	}
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "iban":
			return r.str(&a.IBAN)
		case "bban":
			return r.str(&a.BBAN)
		case "pan":
			return r.str(&a.PAN)
		case "maskedPan":
			return r.str(&a.MaskedPAN)
		case "msisdn":
			return r.str(&a.MSISDN)
		case "currency":
			return r.str(&a.Currency)
		}
		return r.unnamed(key, referenceNames)
	})
}

// strings reads a []string that is still nil. Elements that are null (and
// an array already set: a repeated member) fail.
func (r *reader) strings(s *[]string) bool {
	if r.null() {
		*s = nil
		return true
	}
	if *s != nil || !r.open('[') {
		return false
	}
	var stack [4]string
	list := stack[:0]
	for n := 0; ; n++ {
		end, ok := r.elem(n)
		switch {
		case !ok:
			return false
		case end:
			*s = append(make([]string, 0, len(list)), list...)
			return true
		case r.null():
			return false
		}
		var v string
		if !r.str(&v) {
			return false
		}
		list = append(list, v)
	}
}

// code reads a TransactionCode as TransactionCode.UnmarshalJSON does.
func (r *reader) code(c *TransactionCode) bool {
	if r.null() {
		return true
	}
	switch r.ws() {
	case '"':
		*c = TransactionCode{}
		return r.str(&c.Value)
	case '{':
		var out TransactionCode
		ok := r.members(func(key []byte) bool {
			switch string(key) {
			case "value":
				return r.str(&out.Value)
			case "code":
				return r.str(&out.Code)
			}
			return r.unnamed(key, codeNames)
		})
		if ok {
			*c = out
		}
		return ok
	}
	return r.into(c)
}

// link reads a Link as Link.UnmarshalJSON does.
func (r *reader) link(l *Link) bool {
	if r.null() {
		*l = Link{}
		return true
	}
	if r.ws() == '"' {
		*l = Link{}
		return r.str(&l.Href)
	}
	if !r.open('{') {
		return false
	}
	var p Link
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		switch {
		case !ok:
			return false
		case end:
			*l = p
			return true
		case string(key) == "href":
			ok = r.str(&p.Href)
		case string(key) == "verbs":
			ok = r.strings(&p.Verbs)
		default:
			ok = r.unnamed(key, linkNames)
		}
		if !ok {
			return false
		}
	}
}

// collect notes the member key, whose value comes next, in r.found (a
// member of Extra) when names does not take it.
func (r *reader) collect(key []byte, names *fieldNames) bool {
	name := string(key)
	if names.known(name) {
		return false
	}
	start := r.i
	if _, ok := r.skip(); !ok {
		return false
	}
	r.found = append(r.found, extraSpan{name, start, r.i})
	return true
}

// dropFound forgets the members noted in r.found from mark on, once the
// object they belong to is read.
func (r *reader) dropFound(mark int) { r.found = r.found[:mark] }

// readList reads an array into *list (nil so far; a repeated member
// fails), each element with item. The list is allocated once, at the
// length countElements finds (see listCap), and not grown by copies. null
// gives nil and [] an empty list, as encoding/json gives; a null element
// stays zero.
func readList[T any](r *reader, list *[]T, item func(*reader, *T) bool) bool {
	if r.null() {
		*list = nil
		return true
	}
	if *list != nil || !r.open('[') {
		return false
	}
	if w := r.win; w != nil && w.ends == nil && len(r.found) == 0 {
		return readListIn(w, list, item)
	}
	n, objects := countElements(r.data, r.i)
	if !objects {
		return false // before making the list: a refused element ([0,0,...])
	}
	s := make([]T, 0, listCap[T](n, len(r.data)-r.i))
	return readElements(r, list, s, item, nil)
}

// listCap is the room made for a list of count elements whose JSON takes at
// most bytes: count, but never more than 8 bytes of T for a byte of JSON
// (a Transaction of 800 B is at least 100 B of JSON), so that a list of
// elements the reader then refuses ([0,0,...]) makes no large list first.
func listCap[T any](count, bytes int) int {
	size := max(int(reflect.TypeFor[T]().Size()), 1)
	return min(count, 8*bytes/size+1)
}

// readElements reads the elements of the array the reader is in into s,
// then *list, each with item, calling before (when set) ahead of each.
func readElements[T any](r *reader, list *[]T, s []T, item func(*reader, *T) bool, before func() bool) bool {
	var zero T
	for n := 0; ; n++ {
		if before != nil && !before() {
			return false
		}
		end, ok := r.elem(n)
		switch {
		case !ok:
			return false
		case end:
			*list = s
			return true
		case r.null():
			s = append(s, zero)
			continue
		}
		s = append(s, zero)
		if !item(r, &s[len(s)-1]) {
			return false
		}
	}
}

// countElements counts the elements of the array whose content starts at
// data[i] (after its '['), as listScan does; objects reports whether each
// is an object or null, as a list of structs must hold.
func countElements(data []byte, i int) (n int, objects bool) {
	s := listScan{next: true}
	s.scan(data[i:])
	return s.count(), !s.notObject
}

// transaction reads a Transaction as Transaction.UnmarshalJSON does.
func (r *reader) transaction(t *Transaction) bool {
	if !r.open('{') {
		return false
	}
	*t = Transaction{}
	mark := len(r.found)
	defer r.dropFound(mark)
	var structured []byte
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		switch {
		case !ok:
			return false
		case end:
			return t.finish(r.data, structured, r.found[mark:])
		case string(key) == "remittanceInformationStructured":
			structured, ok = r.skip()
		case len(key) >= len(additionalProprietaryPrefix) &&
			string(key[:len(additionalProprietaryPrefix)]) == additionalProprietaryPrefix:
			ok = r.proprietary(t, string(key))
		default:
			ok = r.transactionMember(t, key)
		}
		if !ok {
			return false
		}
	}
}

// finish completes a transaction read by reader.transaction.
func (t *Transaction) finish(data, structured []byte, found []extraSpan) bool {
	s, err := structuredRemittance(structured)
	if err != nil {
		return false
	}
	t.RemittanceInformationStructured = s
	if len(t.AdditionalInformationProprietary) == 0 {
		t.AdditionalInformationProprietary = nil
	}
	t.Extra = copyExtra(data, found)
	return true
}

// proprietary reads the member key of the additionalInformationProprietary
// family into t.AdditionalInformationProprietary; the last one of a key
// counts, and a last one that is null leaves the key out.
func (r *reader) proprietary(t *Transaction, key string) bool {
	raw, ok := r.skip()
	if !ok {
		return false
	}
	if isNull(raw) {
		delete(t.AdditionalInformationProprietary, key)
		return true
	}
	s, ok := proprietaryText(raw)
	if !ok {
		return false
	}
	if t.AdditionalInformationProprietary == nil {
		t.AdditionalInformationProprietary = make(map[string]string)
	}
	t.AdditionalInformationProprietary[key] = s
	return true
}

// transactionMember reads the member key of a transaction into its field,
// or into found when no field takes it.
func (r *reader) transactionMember(t *Transaction, key []byte) bool {
	if p := t.textField(key); p != nil {
		return r.str(p)
	}
	switch string(key) {
	case "bookingDate":
		return r.date(&t.BookingDate)
	case "valueDate":
		return r.date(&t.ValueDate)
	case "transactionAmount":
		return r.amount(&t.TransactionAmount)
	case "creditorAccount":
		return r.reference(&t.CreditorAccount)
	case "debtorAccount":
		return r.reference(&t.DebtorAccount)
	case "remittanceInformationUnstructuredArray":
		return r.strings(&t.RemittanceInformationUnstructuredArray)
	case "bankTransactionCode":
		return r.code(&t.BankTransactionCode)
	case "proprietaryBankTransactionCode":
		return r.code(&t.ProprietaryBankTransactionCode)
	}
	if p := t.rareField(key); p != nil {
		return r.into(p)
	}
	return r.collect(key, transactionNames)
}

// textField is the string field of t that the member key names, or nil.
func (t *Transaction) textField(key []byte) *string {
	switch string(key) {
	case "transactionId":
		return &t.TransactionID
	case "entryReference":
		return &t.EntryReference
	case "endToEndId":
		return &t.EndToEndID
	case "mandateId":
		return &t.MandateID
	case "checkId":
		return &t.CheckID
	case "creditorId":
		return &t.CreditorID
	case "creditorName":
		return &t.CreditorName
	case "creditorAgent":
		return &t.CreditorAgent
	case "ultimateCreditor":
		return &t.UltimateCreditor
	case "debtorName":
		return &t.DebtorName
	case "debtorAgent":
		return &t.DebtorAgent
	case "ultimateDebtor":
		return &t.UltimateDebtor
	case "remittanceInformationUnstructured":
		return &t.RemittanceInformationUnstructured
	case "additionalInformation":
		return &t.AdditionalInformation
	case "purposeCode":
		return &t.PurposeCode
	}
	return nil
}

// rareField is the field of t, decoded with encoding/json, that the member
// key names, or nil.
func (t *Transaction) rareField(key []byte) any {
	switch string(key) {
	case "batchIndicator":
		return &t.BatchIndicator
	case "batchNumberOfTransactions":
		return &t.BatchNumberOfTransactions
	case "currencyExchange":
		return &t.CurrencyExchange
	case "remittanceInformationStructuredArray":
		return &t.RemittanceInformationStructuredArray
	case "entryDetails":
		return &t.EntryDetails
	case "additionalInformationStructured":
		return &t.AdditionalInformationStructured
	case "balanceAfterTransaction":
		return &t.BalanceAfterTransaction
	case "_links":
		return &t.Links
	}
	return nil
}

// cardTransaction reads a CardTransaction as CardTransaction.UnmarshalJSON
// does.
func (r *reader) cardTransaction(t *CardTransaction) bool {
	if !r.open('{') {
		return false
	}
	*t = CardTransaction{}
	mark := len(r.found)
	defer r.dropFound(mark)
	var acceptor string
	hasAcceptor := false
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		switch {
		case !ok:
			return false
		case end:
			t.Extra = copyExtra(r.data, r.found[mark:])
			if !hasAcceptor {
				return true
			}
			at, err := parseDateTime("acceptorTransactionDateTime", &acceptor)
			t.AcceptorTransactionDateTime = at
			return err == nil
		case string(key) == "acceptorTransactionDateTime":
			ok = r.optionalText(&acceptor, &hasAcceptor)
		default:
			ok = r.cardMember(t, key)
		}
		if !ok {
			return false
		}
	}
}

// optionalText reads a value that encoding/json would decode into a
// *string: null makes it absent (set false), a string sets it.
func (r *reader) optionalText(s *string, set *bool) bool {
	if r.null() {
		*set = false
		return true
	}
	*set = true
	return r.str(s)
}

// cardMember reads the member key of a card transaction into its field, or
// into found when no field takes it.
func (r *reader) cardMember(t *CardTransaction, key []byte) bool {
	if p := t.textField(key); p != nil {
		return r.str(p)
	}
	switch string(key) {
	case "transactionDate":
		return r.date(&t.TransactionDate)
	case "bookingDate":
		return r.date(&t.BookingDate)
	case "valueDate":
		return r.date(&t.ValueDate)
	case "transactionAmount":
		return r.amount(&t.TransactionAmount)
	case "originalAmount":
		return r.amountPtr(&t.OriginalAmount)
	case "grandTotalAmount":
		return r.amountPtr(&t.GrandTotalAmount)
	case "markupFee":
		return r.amountPtr(&t.MarkupFee)
	case "proprietaryBankTransactionCode":
		return r.code(&t.ProprietaryBankTransactionCode)
	case "currencyExchange":
		return r.into(&t.CurrencyExchange)
	case "cardAcceptorAddress":
		return r.into(&t.CardAcceptorAddress)
	case "invoiced":
		return r.into(&t.Invoiced)
	}
	return r.collect(key, cardTransactionNames)
}

// textField is the string field of t that the member key names, or nil.
func (t *CardTransaction) textField(key []byte) *string {
	switch string(key) {
	case "cardTransactionId":
		return &t.CardTransactionID
	case "terminalId":
		return &t.TerminalID
	case "markupFeePercentage":
		return &t.MarkupFeePercentage
	case "cardAcceptorId":
		return &t.CardAcceptorID
	case "cardAcceptorPhone":
		return &t.CardAcceptorPhone
	case "merchantCategoryCode":
		return &t.MerchantCategoryCode
	case "maskedPAN":
		return &t.MaskedPAN
	case "transactionDetails":
		return &t.TransactionDetails
	}
	return nil
}

// account reads an Account into what it holds, as Account.UnmarshalJSON
// does (Extra is replaced).
func (r *reader) account(a *Account) bool {
	if !r.open('{') {
		return false
	}
	mark := len(r.found)
	defer r.dropFound(mark)
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		if !ok {
			return false
		}
		if end {
			a.Extra = copyExtra(r.data, r.found[mark:])
			return true
		}
		if p := a.textField(key); p != nil {
			ok = r.str(p)
		} else {
			ok = r.accountMember(a, key)
		}
		if !ok {
			return false
		}
	}
}

// accountMember reads the member key of an account that is not text into
// its field, or into found when no field takes it.
func (r *reader) accountMember(a *Account, key []byte) bool {
	switch string(key) {
	case "balances":
		return readList(r, &a.Balances, (*reader).balance)
	case "_links":
		return r.accountLinks(&a.Links)
	case "ownerNames":
		return r.into(&a.OwnerNames)
	}
	return r.collect(key, accountNames)
}

// textField is the string field of a that the member key names, or nil.
func (a *Account) textField(key []byte) *string {
	switch string(key) {
	case "resourceId":
		return &a.ResourceID
	case "iban":
		return &a.IBAN
	case "bban":
		return &a.BBAN
	case "msisdn":
		return &a.MSISDN
	case "currency":
		return &a.Currency
	case "ownerName":
		return &a.OwnerName
	case "psuName":
		return &a.PSUName
	case "name":
		return &a.Name
	case "displayName":
		return &a.DisplayName
	case "product":
		return &a.Product
	case "cashAccountType":
		return (*string)(&a.CashAccountType)
	case "status":
		return (*string)(&a.Status)
	case "bic":
		return &a.BIC
	case "linkedAccounts":
		return &a.LinkedAccounts
	case "usage":
		return (*string)(&a.Usage)
	case "details":
		return &a.Details
	}
	return nil
}

// balance reads a Balance as Balance.UnmarshalJSON does.
func (r *reader) balance(b *Balance) bool {
	if !r.open('{') {
		return false
	}
	*b = Balance{}
	mark := len(r.found)
	defer r.dropFound(mark)
	var last string
	hasLast := false
	for n := 0; ; n++ {
		key, end, ok := r.next(n)
		switch {
		case !ok:
			return false
		case end:
			b.Extra = copyExtra(r.data, r.found[mark:])
			if !hasLast {
				return true
			}
			t, err := parseDateTime("lastChangeDateTime", &last)
			b.LastChangeDateTime = t
			return err == nil
		}
		switch string(key) {
		case "balanceAmount":
			ok = r.amount(&b.BalanceAmount)
		case "balanceType":
			ok = r.str((*string)(&b.BalanceType))
		case "referenceDate":
			ok = r.date(&b.ReferenceDate)
		case "lastCommittedTransaction":
			ok = r.str(&b.LastCommittedTransaction)
		case "lastChangeDateTime":
			ok = r.optionalText(&last, &hasLast)
		case "creditLimitIncluded":
			ok = r.into(&b.CreditLimitIncluded)
		default:
			ok = r.collect(key, balanceNames)
		}
		if !ok {
			return false
		}
	}
}

// accountLinks reads AccountLinks into what they hold, as encoding/json
// reads a plain struct.
func (r *reader) accountLinks(l *AccountLinks) bool {
	if r.null() {
		return true
	}
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "self":
			return r.link(&l.Self)
		case "balances":
			return r.link(&l.Balances)
		case "transactions":
			return r.link(&l.Transactions)
		}
		return r.unnamed(key, accLinksNames)
	})
}

// fastDecoder is an answer type that decodes itself in one pass over a
// reader (see reader). read reports false, leaving the value as it was,
// when encoding/json must decode the body instead.
type fastDecoder interface {
	read(r *reader) bool
}

// decodeFast decodes data into f in one pass (see fastDecoder).
func decodeFast(f fastDecoder, data []byte) bool { return f.read(&reader{data: data}) }

// read decodes a transaction page (see fastDecoder).
func (rep *TransactionReport) read(r *reader) bool {
	var out TransactionReport
	ok := r.members(func(key []byte) bool {
		switch string(key) {
		case "account":
			return r.reference(&out.Account)
		case "transactions":
			return r.accountReport(&out.Transactions)
		case "balances":
			return r.into(&out.Balances)
		}
		return r.unnamed(key, reportNames)
	})
	if !ok || !r.end() {
		return false
	}
	*rep = out
	return true
}

// accountReport reads the transactions of a page into what they hold.
func (r *reader) accountReport(a *AccountReport) bool {
	if r.null() {
		return true
	}
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "booked":
			return readList(r, &a.Booked, (*reader).transaction)
		case "pending":
			return readList(r, &a.Pending, (*reader).transaction)
		case "information":
			return readList(r, &a.Information, (*reader).transaction)
		case "_links":
			return r.into(&a.Links)
		}
		return r.unnamed(key, accReportNames)
	})
}

// read decodes a card transaction page (see fastDecoder).
func (rep *cardTransactionReport) read(r *reader) bool {
	var out cardTransactionReport
	ok := r.members(func(key []byte) bool {
		switch string(key) {
		case "cardAccount":
			return r.reference(&out.CardAccount)
		case "debitAccounting":
			return r.into(&out.DebitAccounting)
		case "cardTransactions":
			return r.cardAccountReport(&out.CardTransactions)
		case "balances":
			return r.into(&out.Balances)
		}
		return r.unnamed(key, cardReportNms)
	})
	if !ok || !r.end() {
		return false
	}
	*rep = out
	return true
}

// cardAccountReport reads the card transactions of a page into what they
// hold.
func (r *reader) cardAccountReport(a *cardAccountReport) bool {
	if r.null() {
		return true
	}
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "booked":
			return readList(r, &a.Booked, (*reader).cardTransaction)
		case "pending":
			return readList(r, &a.Pending, (*reader).cardTransaction)
		case "_links":
			return r.into(&a.Links)
		}
		return r.unnamed(key, cardAccRepNms)
	})
}

// read decodes an account list (see fastDecoder); lists of other models
// go to encoding/json.
func (l *listBody[T]) read(r *reader) bool {
	list, ok := any(&l.items).(*[]Account)
	if !ok {
		return false
	}
	var items []Account
	if r.ws() == '[' {
		if !readList(r, &items, (*reader).account) || !r.end() {
			return false
		}
		*list = items
		return true
	}
	ok = r.members(func(key []byte) bool {
		if string(key) == l.key {
			return items == nil && readList(r, &items, (*reader).account)
		}
		_, ok := r.skip()
		return ok
	})
	if !ok || !r.end() {
		return false
	}
	*list = items
	return true
}
