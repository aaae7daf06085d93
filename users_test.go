package xs2a

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsersRegisterAndChooseContext(t *testing.T) {
	t.Parallel()
	bank, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET /v1/users": serve(t, 200, "users.json"),
		"GET /v1/user":  serve(t, 200, `{"_links":{"scaRedirect":{"href":"https://auth.bank.example/sca?flow=user"}}}`),
	})
	l, _, err := c.Users.Register(context.Background(), aisPresent)
	require.NoError(t, err)
	assert.Equal(t, "https://auth.bank.example/sca?flow=users", l.Links.SCARedirect.Href)
	l, _, err = c.Users.ChooseContext(context.Background(), aisPresent)
	require.NoError(t, err)
	assert.Equal(t, "https://auth.bank.example/sca?flow=user", l.Links.SCARedirect.Href)
	assert.Equal(t, 2, bank.count())
}

func TestUsersAgreements(t *testing.T) {
	t.Parallel()
	want := []Agreement{
		{ID: "8d3f5a61-2c4b-4e7a-9f10-3b2c1d0e9a77", Name: "Nordmann Bygg AS", OrganisationNumber: "987654321",
			Extra: Extra{"role": json.RawMessage(`"signatory"`)}}, // a member the model does not name
		{ID: "0b9e7c52-6a1d-4f3e-8c2b-7d6e5f4a3b21", Name: "Nordmann Holding AS", OrganisationNumber: "912345678"},
	}
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(fixture(t, "agreements.json"), &doc))
	for name, body := range map[string]string{"object": "agreements.json", "bare array": string(doc["agreements"])} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bank, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/agreements": serve(t, 200, body)})
			got, _, err := c.Users.Agreements(context.Background(), aisNotPresent)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, aisPSUID, bank.requests()[0].Header.Get("PSU-ID"))
		})
	}
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		_, c := newAISBank(t, map[string]http.HandlerFunc{"GET /v1/agreements": serve(t, 200, `{"agreements":[]}`)})
		got, _, err := c.Users.Agreements(context.Background(), aisNotPresent)
		require.NoError(t, err)
		require.NotNil(t, got)
		assert.Empty(t, got)
	})
	t.Run("needs PSU.ID", func(t *testing.T) {
		t.Parallel()
		bank, c := newAISBank(t, nil)
		_, _, err := c.Users.Agreements(context.Background(), PSU{IPAddress: "192.0.2.10"})
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "PSU.ID", ve.Field)
		assert.Zero(t, bank.count())
	})
}
