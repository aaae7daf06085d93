package xs2a

import (
	"context"
	"net/http"
	"net/mail"
	"strings"
)

// TPPService registers the TPP's contact e-mail, a shared mailbox for
// technical and operational notices (docs/interface.md PO1). The calls act
// for no PSU. The bank binds a tppId to the TPP's certificate: pass
// Signer.TPPID() where the certificate has one.
type TPPService service

// maxEmailLen is the longest address SMTP can carry (RFC 5321 path limit).
const maxEmailLen = 254

// contactInformation is the body of /v1/tpps/{tppId}/contact-information.
type contactInformation struct {
	Email string `json:"email"`
}

func tppContactPath(tppID string) string {
	return "/v1/tpps/" + pathSegment(tppID) + "/contact-information"
}

// SetContactEmail registers or updates the TPP's contact e-mail with PUT
// /v1/tpps/{tppId}/contact-information (docs/interface.md PO1). tppID is the
// TPP's authorisation number, like "NO-FSA-987654321"; email a bare address
// (no display name) with a dot in its domain, at most 254 characters.
func (s *TPPService) SetContactEmail(ctx context.Context, tppID, email string) (*Response, error) {
	if err := firstError(checkTPPID(tppID), checkContactEmail("email", email)); err != nil {
		return nil, err
	}
	return s.client.do(ctx, &request{op: "tpp.setContactEmail", method: http.MethodPut, href: tppContactPath(tppID),
		body: contactInformation{Email: email}}, nil)
}

// ContactEmail returns the TPP's registered contact e-mail with GET
// /v1/tpps/{tppId}/contact-information (docs/interface.md PO1). When none is
// registered it returns "" and an *Error for which errors.Is(err,
// ErrNotFound) is true.
func (s *TPPService) ContactEmail(ctx context.Context, tppID string) (string, *Response, error) {
	if err := checkTPPID(tppID); err != nil {
		return "", nil, err
	}
	out, resp, err := doAs[contactInformation](ctx, s.client, &request{op: "tpp.contactEmail", method: http.MethodGet, href: tppContactPath(tppID)})
	if err != nil {
		return "", resp, err
	}
	return out.Email, resp, nil
}

// checkTPPID accepts 1 to 100 characters among letters, digits and "-._~:"
// (RFC 3986 unreserved characters and ':'), other than "." and "..", so the id
// stays one path segment.
func checkTPPID(id string) error {
	switch {
	case id == "":
		return invalid("tppID", "is required")
	case len(id) > 100 || id == "." || id == "..":
		return invalid("tppID", "must be the TPP's authorisation number (like NO-FSA-987654321), at most 100 characters")
	case strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:") != "":
		return invalid("tppID", "may hold only letters, digits and -._~: (like NO-FSA-987654321)")
	}
	return nil
}

// checkContactEmail accepts a bare e-mail address: net/mail parses it to
// itself (no display name, no angle brackets, no comments), its domain has a
// dot that does not end it, and it is printable Latin-1 of at most 254
// characters. The error never repeats the address.
func checkContactEmail(field, email string) error {
	if err := checkRequired(field, email, maxEmailLen); err != nil {
		return err
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Name != "" || a.Address != email {
		return invalid(field, "must be a bare e-mail address like ops@tpp.example, without a display name")
	}
	if !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") { // net/mail refuses one at either end
		return invalid(field, "must have a domain with a dot, like ops@tpp.example")
	}
	return nil
}
