package xs2a

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInitiationSCA: a scaRedirect means SCA at once (also next to a
// startAuthorisation), a startAuthorisation an SCA to start, and neither an
// exemption; a link without href counts as absent.
func TestInitiationSCA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		links ResourceLinks
		want  InitiationSCA
	}{
		{ResourceLinks{StartAuthorisation: Link{Href: "/a"}, Status: Link{Href: "/s"}}, InitiationSCAStart},
		{ResourceLinks{SCARedirect: Link{Href: "https://bank.example/sca"}, StartAuthorisation: Link{Href: "/a"}}, InitiationSCARedirect},
		{ResourceLinks{SCARedirect: Link{Href: "https://bank.example/sca"}}, InitiationSCARedirect},
		{ResourceLinks{Status: Link{Href: "/s"}}, InitiationSCAExempt},
		{ResourceLinks{StartAuthorisation: Link{Verbs: []string{"POST"}}}, InitiationSCAExempt},
	}
	for _, tt := range tests {
		ini := Initiation{Links: tt.links}
		assert.Equal(t, tt.want, ini.SCA(), "%+v", tt.links)
	}
}
