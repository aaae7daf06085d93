package xs2a

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConsentsCreate(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{"POST /v1/consents": serve(t, 201, "consent.json")})
	links, resp, err := c.Consents.Create(context.Background(), PSU{IPAddress: "192.0.2.10"})
	require.NoError(t, err, "the scaRedirect is the result, not an error")
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, "https://auth.bank.example/sca?session=abc", links.Links.SCARedirect.Href)
	assert.Equal(t, "received", links.ConsentStatus)
	r := bank.requests()[0]
	assert.Empty(t, r.Body, "no body is sent")
	assert.Empty(t, r.Header.Get("PSU-ID"))
}
