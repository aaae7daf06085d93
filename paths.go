package xs2a

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// pathSegment escapes an id for one path segment as RFC 3986 (section 3.3)
// requires and no more (docs/interface.md PRQ4): url.PathEscape would also
// escape "!", "," and ";", which a bank matching ids literally does not
// recognise.
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
	return isAlnum(c) || strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

// isAlnum reports an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func accountPath(accountID string) string { return "/v1/accounts/" + pathSegment(accountID) }

func cardAccountPath(cardAccountID string) string {
	return "/v1/card-accounts/" + pathSegment(cardAccountID)
}

func transactionsPath(accountID string) string { return accountPath(accountID) + "/transactions" }

// The bank's view of a path (docs/interface.md L11): bankView reads a path
// as a servlet container routes it and refuses what another reading would
// route elsewhere; its route is the access budget's key and what a followed
// link is checked against (routeRule).

// routeKind names an endpoint of docs/interface.md a path routes to.
type routeKind uint8

const (
	routeOther                 routeKind = iota // none the SDK names
	routeAccount                                // /v1/accounts/{id}
	routeBalances                               // /v1/accounts/{id}/balances
	routeTransactions                           // /v1/accounts/{id}/transactions
	routeTransaction                            // /v1/accounts/{id}/transactions/{transactionId}
	routeCardAccount                            // /v1/card-accounts/{id}
	routeCardBalances                           // /v1/card-accounts/{id}/balances
	routeCardTransactions                       // /v1/card-accounts/{id}/transactions
	routePayment                                // /v1/{payment service}/{product}/{paymentId}
	routePaymentStatus                          // .../{paymentId}/status
	routePaymentAuthorisations                  // .../{paymentId}/authorisations
	routePaymentAuthorisation                   // .../{paymentId}/authorisations/{authorisationId}
	routeBasket                                 // /v1/signing-baskets/{basketId}
	routeBasketStatus                           // .../{basketId}/status
	routeBasketAuthorisations                   // .../{basketId}/authorisations
	routeBasketAuthorisation                    // .../{basketId}/authorisations/{authorisationId}
)

var routeNames = [...]string{
	routeOther:                 "no endpoint the SDK names",
	routeAccount:               "an account",
	routeBalances:              "an account's balances",
	routeTransactions:          "an account's transactions",
	routeTransaction:           "a transaction's details",
	routeCardAccount:           "a card account",
	routeCardBalances:          "a card account's balances",
	routeCardTransactions:      "a card account's transactions",
	routePayment:               "a payment",
	routePaymentStatus:         "a payment's status",
	routePaymentAuthorisations: "a payment's authorisations",
	routePaymentAuthorisation:  "a payment's authorisation",
	routeBasket:                "a signing basket",
	routeBasketStatus:          "a signing basket's status",
	routeBasketAuthorisations:  "a signing basket's authorisations",
	routeBasketAuthorisation:   "a signing basket's authorisation",
}

func (k routeKind) String() string { return routeNames[k] }

// route is a request's path as the bank routes it: the endpoint and its
// ids, unescaped. Two paths the bank routes alike have equal routes.
type route struct {
	kind    routeKind
	service string // payment service ("payments", "bulk-payments", "periodic-payments"), as the SDK spells it
	product string // payment product
	id      string // account, card account, payment or basket id
	sub     string // transaction or authorisation id
}

// routeBudgets are the access budget's endpoints by the route they count
// (docs/interface.md L1, L2); "" for a route the budget does not count.
var routeBudgets = [len(routeNames)]BudgetEndpoint{
	routeBalances:     BudgetBalances,
	routeCardBalances: BudgetBalances,
	routeTransactions: BudgetTransactions,
	routeTransaction:  BudgetTransaction,
}

// routeRule is what a request's path may route to.
type routeRule struct {
	// field names the input the path came from in a refusal ("link"
	// when empty): "path" for Client.Do, "accountID" for a path built
	// from one.
	field string
	kinds []routeKind // the endpoints allowed; nil: any
	id    string      // when set, the id the route must hold (a walk's account)
}

// maxRouteSegments is the most segments a named endpoint has.
const maxRouteSegments = 6

// bankView reads p, an escaped path below the base path ("/v1/..."), as the
// bank's servlet container routes it, and returns its route. What it
// refuses, with a *ValidationError naming field, is listed under
// docs/interface.md L11; a dot segment is also ErrCrossOrigin.
func bankView(p, field string) (route, error) {
	var segs [maxRouteSegments + 1]string
	n, slashed := 0, false
	for rest := p; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "/")
		if seg == "" {
			continue // "//" and a trailing "/" collapse
		}
		d, err := bankSegment(seg, field)
		if err != nil {
			return route{}, err
		}
		slashed = slashed || strings.IndexByte(d, '/') >= 0 || strings.Contains(d, "%2F") || strings.Contains(d, "%2f")
		if n < len(segs) {
			segs[n] = d
		}
		n++
	}
	if n > maxRouteSegments {
		n = len(segs) // routes to no named endpoint
	}
	rt := classify(segs[:n])
	if slashed {
		if err := sameWhenSplit(rt, segs[:n], field); err != nil {
			return route{}, err
		}
	}
	return rt, nil
}

// bankSegment checks one escaped segment (not empty) as the bank's server
// may read it: as it is, unescaped once and unescaped twice. It returns the
// segment unescaped once. A dot segment in any reading (".", "..", "..;x",
// "%2e%2e", "%252e", a piece between escaped slashes or backslashes) is
// refused before anything else, as errDotSegment.
func bankSegment(seg, field string) (string, error) {
	var refused error // the first refusal but a dot segment
	d, s := seg, seg
	for level := 0; ; level++ {
		for piece := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '\\' }) {
			if piece, _, _ = strings.Cut(piece, ";"); piece == "." || piece == ".." {
				return "", errDotSegment(field)
			}
		}
		switch {
		case refused != nil:
		case strings.ContainsAny(s, ";\\"):
			refused = invalid(field, "holds a ';' or '\\', raw or escaped, which the bank's server may read as a path parameter or '/'")
		case !utf8.ValidString(s):
			refused = invalid(field, "holds bytes that are not UTF-8 once unescaped (an overlong '.' or '/')")
		case level < 2 && (strings.Contains(s, "%2e") || strings.Contains(s, "%2E")):
			refused = invalid(field, "holds an escaped '.', which the bank's server may read as a dot segment")
		}
		if level == 2 || strings.IndexByte(s, '%') < 0 {
			break
		}
		next, err := url.PathUnescape(s)
		if err != nil {
			if level == 0 && refused == nil {
				refused = invalid(field, "has a malformed escape")
			}
			break // "100%" once unescaped: no second unescaping reads it
		}
		if level == 0 {
			d = next
		}
		s = next
	}
	if refused != nil {
		return "", refused
	}
	return d, nil
}

// sameWhenSplit refuses segs (unescaped, routed to rt) when reading their
// encoded slashes as separators, after one or two unescapings, routes to
// another endpoint the SDK names: Accounts.Get of "A/balances" would read
// A's balances uncounted.
func sameWhenSplit(rt route, segs []string, field string) error {
	for _, twice := range []bool{false, true} {
		var split []string
		for _, s := range segs {
			if twice && strings.IndexByte(s, '%') >= 0 {
				if d, err := url.PathUnescape(s); err == nil {
					s = d
				}
			}
			split = append(split, strings.FieldsFunc(s, func(r rune) bool { return r == '/' })...)
		}
		if len(split) > maxRouteSegments {
			continue
		}
		if other := classify(split); other.kind != routeOther && other != rt {
			return invalid(field, "holds an escaped '/' the bank's server may read as a separator, which leads to %s", other.kind)
		}
	}
	return nil
}

// classify returns the route of the unescaped segments of a path below
// the base path. Literal segments are compared without regard to case, so
// a bank that routes "/v1/Accounts" too is counted.
func classify(segs []string) route {
	n := len(segs)
	if n < 3 || !strings.EqualFold(segs[0], "v1") {
		return route{}
	}
	at := func(i int, lit string) bool { return n > i && strings.EqualFold(segs[i], lit) }
	switch {
	case at(1, "accounts"), at(1, "card-accounts"):
		card := at(1, "card-accounts")
		rt := route{id: segs[2]}
		switch {
		case n == 3:
			rt.kind = pick(card, routeCardAccount, routeAccount)
		case n == 4 && at(3, "balances"):
			rt.kind = pick(card, routeCardBalances, routeBalances)
		case n == 4 && at(3, "transactions"):
			rt.kind = pick(card, routeCardTransactions, routeTransactions)
		case n == 5 && at(3, "transactions") && !card:
			rt.kind, rt.sub = routeTransaction, segs[4]
		default:
			return route{}
		}
		return rt
	case at(1, "signing-baskets"):
		return resourceRoute(segs[2:], route{}, routeBasket)
	}
	for _, svc := range []string{"payments", "bulk-payments", "periodic-payments"} {
		if at(1, svc) && n >= 4 {
			return resourceRoute(segs[3:], route{service: svc, product: segs[2]}, routePayment)
		}
	}
	return route{}
}

// resourceRoute classifies the segments from a payment's or basket's id on:
// the resource (self), its status, its authorisations or one of them. The
// kinds of a basket follow those of a payment in the same order.
func resourceRoute(segs []string, rt route, self routeKind) route {
	rt.id = segs[0]
	at := func(i int, lit string) bool { return len(segs) > i && strings.EqualFold(segs[i], lit) }
	switch {
	case len(segs) == 1:
		rt.kind = self
	case len(segs) == 2 && at(1, "status"):
		rt.kind = self + 1
	case len(segs) == 2 && at(1, "authorisations"):
		rt.kind = self + 2
	case len(segs) == 3 && at(1, "authorisations"):
		rt.kind, rt.sub = self+3, segs[2]
	default:
		return route{}
	}
	return rt
}

func pick(card bool, ifCard, ifAccount routeKind) routeKind {
	if card {
		return ifCard
	}
	return ifAccount
}

// dotSegmentError refuses a dot segment: a *ValidationError that is also
// ErrCrossOrigin, as the segment may take the path out of the base path.
type dotSegmentError struct{ v *ValidationError }

func (e *dotSegmentError) Error() string   { return e.v.Error() }
func (e *dotSegmentError) Unwrap() []error { return []error{e.v, ErrCrossOrigin} }

// GoString is the message: no fmt verb prints the fields.
func (e *dotSegmentError) GoString() string { return goString("dotSegmentError", e.Error()) }

// Format prints the message for every verb, GoString for %#v.
func (e *dotSegmentError) Format(f fmt.State, verb rune) { formatError(f, verb, e) }

func errDotSegment(field string) error {
	return &dotSegmentError{invalid(field, "holds a dot segment, which the bank's server resolves")}
}

// target is the URL r is sent to: r.href resolved under the base address,
// read as the bank routes it (bankView), with r.query added. It refuses a
// path the bank could route elsewhere or to another endpoint than r.rule
// allows, and sets r's access budget endpoint and account from the route,
// whatever the caller set.
func (c *Client) target(r *request) (*url.URL, error) {
	field := cmp.Or(r.rule.field, "link")
	u, err := c.resolveAs(r.href, field)
	if err != nil {
		return nil, err
	}
	p, ok := strings.CutPrefix(u.EscapedPath(), c.basePath)
	if !ok {
		return nil, invalid(field, "is not under the base path")
	}
	rt, err := bankView(p, field)
	if err != nil {
		return nil, err
	}
	if rr := r.rule; len(rr.kinds) > 0 && !(slices.Contains(rr.kinds, rt.kind) && (rr.id == "" || rr.id == rt.id)) {
		want := rr.kinds[0].String()
		if rr.id != "" {
			want = "the same " + strings.TrimPrefix(want, "an ")
		}
		return nil, invalid(field, "leads at the bank to %s, not to %s", rt.kind, want)
	}
	r.budgetEndpoint, r.accountID = routeBudgets[rt.kind], ""
	if r.budgetEndpoint != "" {
		r.accountID = rt.id
	}
	if len(r.query) > 0 {
		q := u.Query()
		for k, vs := range r.query {
			q[k] = append(q[k], vs...)
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}

// hasDotSegment reports a "." or ".." segment in an unescaped path ("..",
// also as %2e%2e before unescaping), which would take the path out of the
// base path at the server, which resolves it.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// resolve turns a path or a _links href into an absolute URL under the base
// address. A relative href is taken relative to the base address, path
// included ("/v1/x" under "https://h/api" is "https://h/api/v1/x"); an href
// that already starts with the base path is not prefixed twice. An absolute
// href must be on the base origin and under the base path; no href may hold a
// dot segment (ErrCrossOrigin, and a *ValidationError).
func (c *Client) resolve(href string) (*url.URL, error) {
	u, err := c.resolveAs(href, "link")
	if err == nil && hasDotSegment(u.Path) {
		return nil, errDotSegment("link")
	}
	return u, err
}

// resolveAs is resolve without the dot segment check (target's bankView
// makes it, in every spelling), naming field in its *ValidationError.
func (c *Client) resolveAs(href, field string) (*url.URL, error) {
	u, err := url.Parse(href)
	if err != nil {
		return nil, invalid(field, "is not a URL")
	}
	if u.Fragment != "" || u.User != nil {
		return nil, invalid(field, "must have no fragment or user info")
	}
	p, abs := u.EscapedPath(), u.IsAbs() || u.Host != ""
	if !abs && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	in := c.basePath == "" || p == c.basePath || strings.HasPrefix(p, c.basePath+"/")
	switch {
	case abs && (!in || !c.sameOrigin(u)):
		return nil, ErrCrossOrigin
	case !in:
		p = c.basePath + p
	}
	path, err := url.PathUnescape(p)
	if err != nil {
		return nil, invalid(field, "has a malformed path")
	}
	out := &url.URL{Scheme: c.base.Scheme, Host: c.base.Host, Path: path, RawPath: p, RawQuery: u.RawQuery}
	if out.EscapedPath() != p {
		out.RawPath = ""
	}
	return out, nil
}
