package xs2a

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tppkit/xs2a/internal/inert"
)

// checkSCARedirect returns link with its href checked, and resolved under
// the base address when relative, or a *SCARedirectError for the answer of
// status to r.
func (c *Client) checkSCARedirect(r *request, status int, requestID string, link Link) (Link, error) {
	href, reason := c.scaRedirectHref(link.Href)
	if reason != "" {
		return Link{}, &SCARedirectError{Op: r.op, StatusCode: status, RequestID: requestID, Reason: reason}
	}
	link.Href = href
	return link, nil
}

// scaRedirectHref returns the address an scaRedirect href sends the PSU's
// browser to, or the reason it is refused. Browsers drop or reinterpret
// white space, control characters and backslashes ("java\tscript:",
// "/\evil.example" as "//evil.example"), and bidi and format characters
// make a link read otherwise than it leads, so a link holding any Unicode
// space (inert.Space), any character inert.Unsafe reports (C0 and C1
// controls, bidi and other format characters, line and paragraph
// separators, invalid UTF-8) or a backslash is refused before it is parsed,
// and the parsed address is the one judged.
func (c *Client) scaRedirectHref(href string) (string, string) {
	if strings.ContainsFunc(href, refusedInLink) {
		return "", "holds spaces, control, bidi or format characters, or backslashes"
	}
	u, err := url.Parse(href)
	switch {
	case err != nil:
		return "", "is not a URL"
	case u.Scheme == "" && u.Host == "" && !strings.HasPrefix(href, "//"):
		resolved, err := c.resolve(href)
		if err != nil {
			return "", "is relative and does not resolve under the base address"
		}
		u, href = resolved, resolved.String()
	}
	if reason := webAddressReason(u); reason != "" {
		return "", reason
	}
	return href, ""
}

// refusedInLink reports a character an scaRedirect may not hold.
func refusedInLink(r rune) bool { return r == '\\' || inert.Unsafe(r) || inert.Space(r) }

// webAddressReason says why u is not an address to send a browser to, or
// returns "": it must be https with a host and no user info, or plain http
// on a loopback host.
func webAddressReason(u *url.URL) string {
	switch {
	case u.Scheme == "":
		return "has no scheme"
	case u.Scheme != "https" && u.Scheme != "http":
		return "is not an https address"
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return "has no host"
	case u.User != nil:
		return "holds user info"
	case u.Scheme == "http" && !isLoopback(u.Hostname()):
		return "uses plain http on a host that is not loopback"
	}
	return ""
}

// scaRedirectHolder is a result whose _links may hold an scaRedirect
// (SCALinks, Initiation, BasketInitiation).
type scaRedirectHolder interface{ scaRedirectLink() *Link }

func (s *SCALinks) scaRedirectLink() *Link         { return &s.Links.SCARedirect }
func (i *Initiation) scaRedirectLink() *Link       { return &i.Links.SCARedirect }
func (b *BasketInitiation) scaRedirectLink() *Link { return &b.Links.SCARedirect }

// checkResultRedirect checks the scaRedirect of a decoded result, resolving a
// relative one in place.
func (c *Client) checkResultRedirect(r *request, resp *http.Response, requestID string, into any) error {
	h, ok := into.(scaRedirectHolder)
	if !ok || h.scaRedirectLink().IsZero() {
		return nil
	}
	link, err := c.checkSCARedirect(r, resp.StatusCode, requestID, *h.scaRedirectLink())
	if err != nil {
		return err
	}
	*h.scaRedirectLink() = link
	return nil
}
