package xs2a

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tppkit/xs2a/internal/inert"
)

// The redactor (docs/interface.md E16): every text from the bank, a callback
// or a cause net/http wrote passes through callIDs.text on its way into an
// error string or a log line, which makes it inert (internal/inert) and
// replaces the call's ids, in any ASCII case, and whatever has the shape of
// an identifier by redactedText.
const redactedText = "[redacted]"

// callIDs are the ids a call carried (PSU-ID, PSU-CORPORATE-ID,
// TPP-Session-ID, the resource ids of its path), longest first so that an
// id holding another is redacted whole.
type callIDs []string

// minPathID is the shortest path segment taken for an id: "v1" or a product
// code's abbreviation identify nobody, and redacting them wrecks the text.
const minPathID = 4

// routeWords are the fixed segments of the interface's paths: every other
// segment of a call's path (minPathID characters or more) is an id.
var routeWords = map[string]bool{
	"accounts": true, "card-accounts": true, "balances": true, "transactions": true,
	"payments": true, "bulk-payments": true, "periodic-payments": true, "signing-baskets": true,
	"consents": true, "bank-offered-consents": true, "authorisations": true, "funds-confirmations": true,
	"cancellation-authorisations": true, "status": true, "agreements": true, "tpps": true,
	"contact-information": true, "sandbox": true, "customers": true, "initialize": true,

	NorwegianDomesticCreditTransfers: true, InstantNorwegianDomesticCreditTransfersStraks: true,
	DomesticNorwayCreditTransfers: true, SEPACreditTransfers: true, CrossBorderCreditTransfers: true,
}

// ids returns the ids r carries (see idsOfCall).
func (r *request) ids() callIDs { return idsOfCall(r.psu, r.href, r.accountID) }

// idsOfCall returns the ids of a call for psu (may be nil) to href: the
// PSU's, accountID (the account it counts against the access budget) and
// each segment of href's path that is not a route word (as sent, and
// unescaped), longest first.
func idsOfCall(psu *PSU, href, accountID string) callIDs {
	var ids callIDs
	if psu != nil {
		ids = slices.DeleteFunc([]string{psu.ID, psu.CorporateID, psu.SessionID}, func(id string) bool { return id == "" })
	}
	add := func(id string) {
		if len(id) >= minPathID && !routeWords[strings.ToLower(id)] && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	add(accountID)
	path := href
	if u, err := url.Parse(href); err == nil {
		path = u.EscapedPath()
	} else if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	for seg := range strings.SplitSeq(path, "/") {
		add(seg)
		if un, err := url.PathUnescape(seg); err == nil {
			add(un)
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int { return len(b) - len(a) })
	return ids
}

// text is s as it may stand in an error string or a log line: inert,
// redacted, cut after max characters (0: no limit). Inert first, so that a
// line break cannot split a number; redacted before the cut, so that a cut
// cannot leave half an IBAN.
func (ids callIDs) text(s string, max int) string {
	return inert.Text(ids.redact(inert.Text(s, 0)), max)
}

// bankText is text from outside with no call's ids at hand (a callback, a
// status code, a signature header): inert, with everything shaped like an
// identifier redacted, cut after max characters.
func bankText(s string, max int) string { return callIDs(nil).text(s, max) }

// redact replaces every occurrence of each id in s, matched without regard
// to (ASCII) case, and every run of text shaped like an identifier, with
// [redacted]. It does not make s inert: text does.
func (ids callIDs) redact(s string) string {
	for _, id := range ids {
		s = replaceFold(s, id)
		if safe := inert.Text(id, 0); safe != id {
			s = replaceFold(s, safe)
		}
	}
	return redactShapes(s)
}

// The shapes of identifiers: UUIDs, IBANs, Norwegian BBANs, card numbers,
// masked PANs ("123456******1234", "XXXX XXXX XXXX 1234") and every run of 11
// or more digits. A separator in a grouped number is one space of any kind
// (or a dot in a BBAN, a dash in a card number).
var (
	uuidShape = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// An IBAN: two letters, two check digits, 11 to 30 letters and digits
	// (compact in any case, or in upper case in groups of four).
	ibanCompact = regexp.MustCompile(`(?i)[a-z]{2}[0-9]{2}[a-z0-9]{11,30}`)
	ibanGrouped = regexp.MustCompile(`[A-Z]{2}[0-9]{2}(?:\p{Zs}[A-Z0-9]{4}){2,7}(?:\p{Zs}[A-Z0-9]{1,3})?`)
	// Digits and mask characters with one separator at most between them,
	// judged by maskedPAN.
	maskRun = regexp.MustCompile(`[0-9*•xX#](?:[\p{Zs}-]?[0-9*•xX#])*`)
	// A card number in groups: 4-4-4-4 (of a 19-digit number, the last
	// three digits stay), 4-6-5 or 4-6-4; not within a longer number
	// (see replaceNumbers).
	panGrouped = regexp.MustCompile(`(?:^|[^0-9])([0-9]{4}(?:[\p{Zs}-][0-9]{4}){3}|[0-9]{4}[\p{Zs}-][0-9]{6}[\p{Zs}-][0-9]{4,5})`)
	// A Norwegian BBAN as 4.2.5, not within a longer number.
	bbanGrouped = regexp.MustCompile(`(?:^|[^0-9])([0-9]{4}[.\p{Zs}][0-9]{2}[.\p{Zs}][0-9]{5})`)
	// A BBAN (11 digits), a card number (13 to 19) or any longer run.
	longDigits = regexp.MustCompile(`[0-9]{11,}`)
)

// redactShapes replaces the text shaped like an identifier.
func redactShapes(s string) string {
	if !strings.ContainsAny(s, "0123456789") {
		return s // every shape holds a digit
	}
	s = uuidShape.ReplaceAllLiteralString(s, redactedText)
	s = ibanGrouped.ReplaceAllLiteralString(s, redactedText)
	s = ibanCompact.ReplaceAllLiteralString(s, redactedText)
	s = replaceNumbers(s, bbanGrouped)
	s = replaceNumbers(s, panGrouped)
	s = longDigits.ReplaceAllLiteralString(s, redactedText)
	return maskRun.ReplaceAllStringFunc(s, func(m string) string {
		if maskedPAN(m) {
			return redactedText
		}
		return m
	})
}

// replaceNumbers replaces each match of re's group 1 that is not followed
// by a digit; re matches a non-digit (or the start) before the group, so
// the group never starts within a longer number.
func replaceNumbers(s string, re *regexp.Regexp) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[2], m[3]
		if end < len(s) && '0' <= s[end] && s[end] <= '9' {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(redactedText)
		last = end
	}
	return b.String() + s[last:] // s itself when nothing was replaced
}

// maskedPAN reports a run of digits and mask characters that reads as a
// card number with some digits hidden: four mask characters or more, and
// four digits or more.
func maskedPAN(m string) bool {
	var digits, masks int
	for _, r := range m {
		switch {
		case '0' <= r && r <= '9':
			digits++
		case r == '*', r == '•', r == 'x', r == 'X', r == '#':
			masks++
		}
	}
	return masks >= 4 && digits >= 4
}

// replaceFold replaces the occurrences of id in s, ignoring ASCII case.
func replaceFold(s, id string) string {
	if id == "" || len(s) < len(id) {
		return s
	}
	lower, lid := asciiLower(s), asciiLower(id) // same lengths as s and id
	var b strings.Builder
	for i := strings.Index(lower, lid); i >= 0; i = strings.Index(lower, lid) {
		b.WriteString(s[:i])
		b.WriteString(redactedText)
		s, lower = s[i+len(id):], lower[i+len(id):]
	}
	return b.String() + s // s itself when there was no occurrence
}

// asciiLower lower-cases the ASCII letters of s and leaves every other byte
// as it is, so that offsets into the result are offsets into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// causeText is text(err.Error(), max) without the URL any *url.Error in
// err's chain quotes (a path holds ids, a Location whatever the bank wrote).
func (ids callIDs) causeText(err error, max int) string {
	s := err.Error()
	for _, ue := range urlErrors(err, 33) {
		s = strings.ReplaceAll(s, ue.Op+" "+strconv.Quote(ue.URL)+": ", "")
		if ue.URL != "" {
			s = strings.ReplaceAll(s, ue.URL, "[url]")
		}
	}
	return ids.text(s, max)
}

// urlErrors returns the *url.Errors in err's chain (each branch of a
// joined error included), depth levels down at most.
func urlErrors(err error, depth int) []*url.Error {
	if err == nil || depth == 0 {
		return nil
	}
	var out []*url.Error
	switch u := err.(type) {
	case *url.Error:
		out = append([]*url.Error{u}, urlErrors(u.Err, depth-1)...)
	case interface{ Unwrap() error }:
		out = urlErrors(u.Unwrap(), depth-1)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, urlErrors(e, depth-1)...)
		}
	}
	return out
}

// redactedError is an error about the bank's answer (a body that does not
// decode) whose text is prefix and the cause's text made inert and
// redacted; Unwrap returns the cause with its text as it was.
type redactedError struct {
	msg       string // the SDK's own words: "xs2a: <op>: decoding the response (X-Request-ID ...)"
	err       error
	ids       callIDs
	requestID string // the call's X-Request-ID (RequestIDOf)
}

func (e *redactedError) Error() string {
	if e.err == nil {
		return e.msg
	}
	return e.msg + ": " + e.ids.causeText(e.err, maxCauseText)
}
func (e *redactedError) Unwrap() error { return e.err }

// GoString and Format print the message alone in every fmt verb (formatError).
func (e *redactedError) GoString() string              { return goString("redactedError", e.Error()) }
func (e *redactedError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

// maxCauseText caps the text of a cause (net/http's, or a decoder's) in an
// error string.
const maxCauseText = 300

// goString is the %#v form of an error of the package: its type and its
// message, never its fields (they hold the bank's raw text).
func goString(typ, msg string) string { return "&xs2a." + typ + "{" + strconv.Quote(msg) + "}" }

// formatter is an error of the package with its %#v form.
type formatter interface {
	error
	GoString() string
}

// formatError prints e's GoString for %#v and its message for every other
// verb, with its flags, width and precision, so that no verb reaches the
// fields fmt would print for a struct.
func formatError(f fmt.State, verb rune, e formatter) {
	if verb == 'v' && f.Flag('#') {
		_, _ = fmt.Fprint(f, e.GoString())
		return
	}
	if verb == 'v' {
		verb = 's' // %+v, %v: the message
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), e.Error())
}
