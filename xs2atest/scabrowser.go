package xs2atest

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// CompleteSCA plays the PSU's browser on the SCA pages behind scaRedirect
// (the scaRedirect href of a 401, of POST /v1/consents, GET /v1/users or a
// startAuthorisation answer): it signs in as customerNumber (the 11-digit
// national id), confirms in the bank's app where the page asks for that
// (an SCA started with TPP-Redirect-Preferred: False), chooses the context,
// ticks the accounts or signs the payment,
// and returns the callback URL, the TPP-Redirect-URI with psu-id,
// tpp-session-id, context (and psu-corporate-id), without following it. With
// Cancel the callback carries the failure parameters status, code and
// message. An error means the page refused (unknown national id, no payment
// permission, an option not offered).
func (s *Server) CompleteSCA(ctx context.Context, scaRedirect, customerNumber string, opts ...SCAOption) (*url.URL, error) {
	hc := *s.browser
	hc.Jar, _ = cookiejar.New(nil) // a browser of its own: the page is tied to it by a cookie
	return s.walkSCA(ctx, &hc, scaRedirect, customerNumber, opts...)
}

// walkSCA is CompleteSCA with the browser hc, which keeps cookies and
// follows no redirect: the loopback one of CompleteSCA, or the in-process
// one of the control API.
func (s *Server) walkSCA(ctx context.Context, hc *http.Client, scaRedirect, customerNumber string, opts ...SCAOption) (*url.URL, error) {
	var ch scaChoice
	for _, o := range opts {
		o(&ch)
	}
	u, err := s.resolveHref(scaRedirect)
	if err != nil {
		return nil, fmt.Errorf("xs2atest: scaRedirect: %w", err)
	}
	scaPath := s.cfg.basePath + "/sca/"
	method, target := http.MethodGet, u
	var form url.Values
	for range 8 {
		resp, page, err := browse(ctx, hc, method, target, form)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusSeeOther {
			loc, err := target.Parse(resp.Header.Get("Location"))
			if err != nil {
				return nil, fmt.Errorf("xs2atest: bad redirect: %w", err)
			}
			if loc.Host != u.Host || !strings.HasPrefix(loc.Path, scaPath) {
				return loc, nil // the callback: not followed
			}
			method, target, form = http.MethodGet, loc, nil
			continue
		}
		if resp.StatusCode != http.StatusOK {
			if m := errorRE.FindStringSubmatch(page); m != nil {
				return nil, fmt.Errorf("xs2atest: SCA page answered %d: %s", resp.StatusCode, html.UnescapeString(m[1]))
			}
			return nil, fmt.Errorf("xs2atest: SCA page answered %d", resp.StatusCode)
		}
		if form, err = s.answerPage(page, customerNumber, &ch); err != nil {
			return nil, err
		}
		method = http.MethodPost
		if m := actionRE.FindStringSubmatch(page); m != nil {
			if target, err = target.Parse(html.UnescapeString(m[1])); err != nil {
				return nil, err
			}
		}
	}
	return nil, errors.New("xs2atest: SCA did not finish")
}

var (
	errorRE    = regexp.MustCompile(`id="error">([^<]*)<`)
	actionRE   = regexp.MustCompile(`<form method="post" action="([^"]*)"`)
	stepRE     = regexp.MustCompile(`name="step" value="([^"]*)"`)
	tokenRE    = regexp.MustCompile(`name="` + pageTokenField + `" value="([^"]*)"`)
	radioRE    = regexp.MustCompile(`<input type="radio" name="(choice|debtor)" value="([^"]*)"( checked)?>`)
	checkboxRE = regexp.MustCompile(`<input type="checkbox" name="account" value="([^"]*)"`)
)

// answerPage fills the form of one SCA page as the PSU would.
func (s *Server) answerPage(page, customerNumber string, ch *scaChoice) (url.Values, error) {
	m := stepRE.FindStringSubmatch(page)
	if m == nil {
		return nil, errors.New("xs2atest: SCA page has no form")
	}
	step := m[1]
	form := url.Values{"step": {step}}
	if t := tokenRE.FindStringSubmatch(page); t != nil {
		form.Set(pageTokenField, html.UnescapeString(t[1]))
	}
	if ch.cancel {
		form.Set("action", "cancel")
		return form, nil
	}
	var err error
	switch step {
	case stageLogin:
		form.Set("nationalId", customerNumber)
		form.Set("action", "next")
	case stageContext:
		err = s.answerContext(form, page, ch)
	case stageAccounts:
		err = answerAccounts(form, page, ch)
	case stageDebtor:
		err = answerDebtor(form, page, ch)
	default: // confirm, and app: confirmed in the bank's app
		form.Set("action", "confirm")
	}
	if err != nil {
		return nil, err
	}
	return form, nil
}

// answerContext picks the context the choice asks for among those the
// page offers (the checked one by default).
func (s *Server) answerContext(form url.Values, page string, ch *scaChoice) error {
	var values []string
	checked := ""
	for _, r := range radioRE.FindAllStringSubmatch(page, -1) {
		v := html.UnescapeString(r[2])
		values = append(values, v)
		if r[3] != "" {
			checked = v
		}
	}
	choice := checked
	switch ch.context {
	case "PRIVATE":
		choice = "PRIVATE"
	case "CORPORATE":
		choice = ""
		for _, v := range values {
			ag, ok := strings.CutPrefix(v, "CORPORATE:")
			if ok && (ch.agreement == "" || ch.agreement == ag || ch.agreement == s.corporateIDOfAgreement(page, ag)) {
				choice = v
				break
			}
		}
	}
	if !contains(values, choice) {
		return fmt.Errorf("xs2atest: the SCA page does not offer the context %s", ch.context)
	}
	form.Set("choice", choice)
	form.Set("action", "next")
	return nil
}

// answerAccounts ticks the accounts the choice names, or every offered one.
func answerAccounts(form url.Values, page string, ch *scaChoice) error {
	offered := offeredValues(checkboxRE, page, 1)
	ticks := offered
	if ch.accountsSet {
		if err := mustOffer(offered, ch.accounts); err != nil {
			return err
		}
		ticks = ch.accounts
	}
	form["account"] = ticks
	form.Set("action", "confirm")
	return nil
}

// answerDebtor picks the account to pay from: the choice's first account,
// or the first offered.
func answerDebtor(form url.Values, page string, ch *scaChoice) error {
	offered := offeredValues(radioRE, page, 2)
	if len(offered) == 0 {
		return errors.New("xs2atest: no account to pay from")
	}
	pick := offered[0]
	if len(ch.accounts) > 0 {
		if err := mustOffer(offered, ch.accounts[:1]); err != nil {
			return err
		}
		pick = ch.accounts[0]
	}
	form.Set("debtor", pick)
	form.Set("action", "next")
	return nil
}

// offeredValues are the values of the inputs re finds in page (submatch
// group), unescaped.
func offeredValues(re *regexp.Regexp, page string, group int) []string {
	var out []string
	for _, r := range re.FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(r[group]))
	}
	return out
}

// mustOffer fails on the first of ids the page does not offer.
func mustOffer(offered, ids []string) error {
	for _, id := range ids {
		if !contains(offered, id) {
			return errors.New("xs2atest: the SCA page does not offer account " + id)
		}
	}
	return nil
}

// corporateIDOfAgreement lets Corporate() take the psu-corporate-id a TPP
// holds as well as the agreement id: it maps the agreement to the id the
// SCA's TPP would get.
func (s *Server) corporateIDOfAgreement(page, agreementID string) string {
	m := actionRE.FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	token := strings.TrimPrefix(html.UnescapeString(m[1]), s.cfg.basePath+"/sca/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec := s.scas[token]; rec != nil {
		return corporateIDFor(rec.tpp, agreementID)
	}
	return ""
}

// resolveHref makes an href absolute: an absolute URL stays as it is, a path
// is relative to the base address, as _links hrefs are ("/sca/x" under
// "/api" is "/api/sca/x"; a path that already starts with the base path
// keeps it).
func (s *Server) resolveHref(href string) (*url.URL, error) {
	u, err := url.Parse(href)
	if err != nil || u.IsAbs() || u.Host != "" {
		return u, err
	}
	base := s.cfg.basePath
	if base != "" && u.Path != base && !strings.HasPrefix(u.Path, base+"/") {
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path
		}
		u.Path = base + u.Path
		u.RawPath = ""
	}
	origin, err := url.Parse(s.srv.URL)
	if err != nil {
		return nil, err
	}
	return origin.ResolveReference(u), nil
}

func browse(ctx context.Context, hc *http.Client, method string, u *url.URL, form url.Values) (*http.Response, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "text/html")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("xs2atest: SCA page: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, "", fmt.Errorf("xs2atest: SCA page: %w", err)
	}
	return resp, string(b), nil
}
