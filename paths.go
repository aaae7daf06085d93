package xs2a

import "strings"

// Paths built from resource ids. The banks write ids such as
// "enc!!QkFOSy0xMjM0NTY3ODkwMTI=" and expect them back in paths as they
// are: every path the SDK builds from an id goes through pathSegment, and
// _links hrefs are followed as the bank wrote them (Client.resolve keeps
// their escaping).

// pathSegment escapes id for one path segment as RFC 3986 (section 3.3)
// requires and no more: unreserved characters, sub-delims ("!$&'()*+,;=")
// and ":" and "@" stay as they are; every other byte, "/", "%", "?", "#",
// space and each byte of a non-ASCII character included, becomes %XX.
// url.PathEscape would also escape "!", "," and ";", which a bank matching
// ids literally does not recognise.
func pathSegment(id string) string {
	n := 0
	for i := 0; i < len(id); i++ {
		if !isPChar(id[i]) {
			n++
		}
	}
	if n == 0 {
		return id
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(id) + 2*n)
	for i := 0; i < len(id); i++ {
		c := id[i]
		if isPChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// isPChar reports whether c may stand unescaped in a path segment: an RFC
// 3986 pchar other than a percent-encoding.
func isPChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

func accountPath(accountID string) string { return "/v1/accounts/" + pathSegment(accountID) }

func cardAccountPath(cardAccountID string) string {
	return "/v1/card-accounts/" + pathSegment(cardAccountID)
}

func transactionsPath(accountID string) string { return accountPath(accountID) + "/transactions" }
