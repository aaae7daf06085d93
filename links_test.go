package xs2a

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResourceLinksOneShape: every answer that carries SCA or payment links
// decodes all five members into the one ResourceLinks, the authorisation's
// status link under SCAStatusLink beside the answer's own scaStatus, and
// writes them back under the bank's member names.
func TestResourceLinksOneShape(t *testing.T) {
	t.Parallel()
	const links = `"_links":{"self":{"href":"/p"},"status":{"href":"/p/status"},` +
		`"startAuthorisation":{"href":"/p/authorisations","verbs":["POST"]},` +
		`"scaRedirect":{"href":"https://bank.example/sca"},"scaStatus":"/p/authorisations/a1"}`
	want := ResourceLinks{
		Self:               Link{Href: "/p"},
		Status:             Link{Href: "/p/status"},
		StartAuthorisation: Link{Href: "/p/authorisations", Verbs: []string{"POST"}},
		SCARedirect:        Link{Href: "https://bank.example/sca"},
		SCAStatusLink:      Link{Href: "/p/authorisations/a1"},
	}
	body := []byte(`{"scaStatus":"started","transactionStatus":"RCVD",` + links + `}`)
	for _, c := range []struct {
		name  string
		links func() (any, *ResourceLinks)
	}{
		{"SCALinks", func() (any, *ResourceLinks) { v := new(SCALinks); return v, &v.Links }},
		{"Initiation", func() (any, *ResourceLinks) { v := new(Initiation); return v, &v.Links }},
		{"PaymentStatus", func() (any, *ResourceLinks) { v := new(PaymentStatus); return v, &v.Links }},
		{"AuthorisationStatus", func() (any, *ResourceLinks) { v := new(AuthorisationStatus); return v, &v.Links }},
		{"BasketInitiation", func() (any, *ResourceLinks) { v := new(BasketInitiation); return v, &v.Links }},
		{"BasketDetails", func() (any, *ResourceLinks) { v := new(BasketDetails); return v, &v.Links }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			into, got := c.links()
			require.NoError(t, json.Unmarshal(body, into))
			assert.Equal(t, want, *got)
		})
	}
	var sca SCALinks
	require.NoError(t, json.Unmarshal(body, &sca))
	assert.Equal(t, SCAStatusStarted, sca.SCAStatus, "the status is not the link")

	out, err := json.Marshal(want)
	require.NoError(t, err)
	assert.JSONEq(t, `{"self":{"href":"/p"},"status":{"href":"/p/status"},`+
		`"startAuthorisation":{"href":"/p/authorisations","verbs":["POST"]},`+
		`"scaRedirect":{"href":"https://bank.example/sca"},"scaStatus":{"href":"/p/authorisations/a1"}}`, string(out))
}

// TestResourceLinksIsZero: any one link with an href makes the set non-zero;
// an entry without href counts as absent.
func TestResourceLinksIsZero(t *testing.T) {
	t.Parallel()
	l := Link{Href: "/x"}
	for _, c := range []struct {
		name  string
		links ResourceLinks
		zero  bool
	}{
		{"none", ResourceLinks{}, true},
		{"verbs without href", ResourceLinks{StartAuthorisation: Link{Verbs: []string{"POST"}}}, true},
		{"self", ResourceLinks{Self: l}, false},
		{"status", ResourceLinks{Status: l}, false},
		{"startAuthorisation", ResourceLinks{StartAuthorisation: l}, false},
		{"scaRedirect", ResourceLinks{SCARedirect: l}, false},
		{"scaStatus", ResourceLinks{SCAStatusLink: l}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, c.zero, c.links.IsZero())
			out, err := json.Marshal(PaymentStatus{Links: c.links})
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(out, &doc))
			_, has := doc["_links"]
			assert.Equal(t, !c.zero, has, "_links is written when a link is set")
		})
	}
}
