package xs2a

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// SCALinks is an answer that starts an SCA: consent creation, user
// registration, payment authorisation. Send the PSU's browser to
// Links.SCARedirect; the bank returns it to the TPP-Redirect-URI (see
// ParseCallback).
type SCALinks struct {
	ConsentStatus   string        `json:"consentStatus,omitempty"`
	ConsentID       string        `json:"consentId,omitempty"`
	SCAStatus       SCAStatus     `json:"scaStatus,omitempty"`
	AuthorisationID string        `json:"authorisationId,omitempty"`
	Links           ResourceLinks `json:"_links"`
	Messages        []TPPMessage  `json:"tppMessages,omitempty"`
	// Extra holds the bank's members the fields above do not name (see Extra).
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes an SCA-starting answer; unnamed members go to Extra.
func (l *SCALinks) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	type plain SCALinks
	return jsonv2.UnmarshalDecode(d, (*plain)(l))
}

// MarshalJSONTo encodes an answer that starts an SCA with its Extra members.
func (l SCALinks) MarshalJSONTo(e *jsontext.Encoder) error {
	type plain SCALinks
	return marshalModel(e, (*plain)(&l), &l.Extra, l)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (l *SCALinks) UnmarshalJSON(data []byte) error { return decodeJSON(data, l) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (l SCALinks) MarshalJSON() ([]byte, error) { return encodeJSON(l) }

// ResourceLinks are the _links of a consent, payment, signing basket or
// authorisation answer (SCALinks, Initiation, PaymentStatus,
// AuthorisationStatus, BasketInitiation, BasketDetails); links the bank did
// not send are zero. Pass each back to the service method that follows it.
type ResourceLinks struct {
	Self               Link `json:"self,omitzero"`               // GET: the resource; DELETE: cancel the payment
	Status             Link `json:"status,omitzero"`             // GET: the resource's status
	StartAuthorisation Link `json:"startAuthorisation,omitzero"` // POST: start a PSU's SCA (the next signer's of a PATC payment)
	SCARedirect        Link `json:"scaRedirect,omitzero"`        // where the PSU's browser goes for SCA now
	SCAStatusLink      Link `json:"scaStatus,omitzero"`          // GET: the authorisation's status (PaymentsService.AuthorisationStatus)
}

// IsZero reports whether no link is set (an entry without href counts as
// absent).
func (l ResourceLinks) IsZero() bool {
	return l.Self.IsZero() && l.Status.IsZero() && l.StartAuthorisation.IsZero() && l.SCARedirect.IsZero() && l.SCAStatusLink.IsZero()
}
