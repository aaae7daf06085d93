package xs2a

import "encoding/json"

// Link is one entry of a response's _links: {"href": "...", "verbs": ["GET"]}.
// Href is usually relative to the client's base address; pass the Link back to
// the service method that follows it. A link given as a bare string decodes too.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitempty"`
}

// UnmarshalJSON accepts {"href": "..."} and a bare "..." string.
func (l *Link) UnmarshalJSON(b []byte) error {
	if href, ok := plainHrefObject(b); ok {
		*l = Link{Href: href}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		*l = Link{}
		return json.Unmarshal(b, &l.Href)
	}
	type plain Link
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = Link(p)
	return nil
}

// IsZero reports whether the link is absent.
func (l Link) IsZero() bool { return l.Href == "" }

// SCALinks is an answer that starts an SCA: consent creation, user
// registration, payment authorisation. Send the PSU's browser to
// Links.SCARedirect; the bank returns it to the TPP-Redirect-URI (see
// ParseCallback).
type SCALinks struct {
	ConsentStatus   string       `json:"consentStatus,omitempty"`
	ConsentID       string       `json:"consentId,omitempty"`
	SCAStatus       SCAStatus    `json:"scaStatus,omitempty"`
	AuthorisationID string       `json:"authorisationId,omitempty"`
	Links           SCALinkSet   `json:"_links"`
	Messages        []TPPMessage `json:"tppMessages,omitempty"`
	// Extra holds the members the bank sent that the fields above do not
	// name (see Extra).
	Extra Extra `json:"-"`
}

// SCALinkSet holds the _links of an SCALinks answer. The answer of a
// startAuthorisation link carries SCAStatus, the authorisation's own link:
// pass it to PaymentsService.AuthorisationStatus.
type SCALinkSet struct {
	SCARedirect        Link `json:"scaRedirect,omitzero"`
	Self               Link `json:"self,omitzero"`
	Status             Link `json:"status,omitzero"`
	SCAStatus          Link `json:"scaStatus,omitzero"`
	StartAuthorisation Link `json:"startAuthorisation,omitzero"`
}

// IsZero reports whether no link is set (an entry without href counts as
// absent).
func (l SCALinkSet) IsZero() bool {
	return l.SCARedirect.IsZero() && l.Self.IsZero() && l.Status.IsZero() && l.SCAStatus.IsZero() && l.StartAuthorisation.IsZero()
}

// plainHrefObject reads the shape nearly every link has, {"href":"..."}
// with no escape in the string and no space, without a decoder of its own:
// a nested json.Unmarshal per link was most of what a large accounts list
// allocated beyond its items. Any other shape is left to encoding/json.
func plainHrefObject(b []byte) (string, bool) {
	const head, tail = `{"href":"`, `"}`
	if len(b) < len(head)+len(tail) || string(b[:len(head)]) != head || string(b[len(b)-len(tail):]) != tail {
		return "", false
	}
	v := b[len(head) : len(b)-len(tail)]
	for _, c := range v {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return "", false
		}
	}
	return string(v), true
}
