package xs2a

import (
	"slices"
	"strings"
)

// redactedText stands in error strings and logs for a PSU id that the bank's
// text echoed.
const redactedText = "[redacted]"

// psuIDs are the ids a call carried (PSU-ID, PSU-CORPORATE-ID,
// TPP-Session-ID): banks echo them in tppMessages and other text, which
// must not carry them into error strings or logs.
type psuIDs []string

// idsOf returns the ids p carries, longest first (so that an id holding
// another is redacted whole); nil for no PSU.
func idsOf(p *PSU) psuIDs {
	if p == nil {
		return nil
	}
	var ids psuIDs
	for _, id := range []string{p.ID, p.CorporateID, p.SessionID} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	slices.SortStableFunc(ids, func(a, b string) int { return len(b) - len(a) })
	return ids
}

// redact replaces every occurrence of each id in s, matched without regard
// to (ASCII) case, with [redacted]. The ids are ASCII (PSU.validate).
func (ids psuIDs) redact(s string) string {
	for _, id := range ids {
		s = replaceFold(s, id)
	}
	return s
}

// replaceFold replaces the occurrences of id in s, ignoring ASCII case.
func replaceFold(s, id string) string {
	if id == "" || len(s) < len(id) {
		return s
	}
	lower, lid := asciiLower(s), asciiLower(id) // same lengths as s and id
	i := strings.Index(lower, lid)
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteString(redactedText)
		s, lower = s[i+len(id):], lower[i+len(id):]
		i = strings.Index(lower, lid)
	}
	b.WriteString(s)
	return b.String()
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

// redactedError is an error about the bank's answer whose text has the
// call's PSU ids redacted; Unwrap returns the error with its text as it was.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
