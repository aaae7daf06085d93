package xs2a_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// TestWayToTheWire is the call whose way docs/architecture.md counts: a
// client over a canned answer ("client"), and the same client making one
// Accounts.List ("list"). Run each subtest alone under -coverpkg and
// compare the functions entered (the page shows the commands).
func TestWayToTheWire(t *testing.T) {
	body := appendAccountList(nil, 2)
	newClient := func(t *testing.T) *xs2a.Client {
		return benchClient(t, readySignerFor(t), pageRT{page: func(*http.Request) []byte { return body }})
	}
	t.Run("client", func(t *testing.T) {
		require.NotNil(t, newClient(t))
	})
	t.Run("list", func(t *testing.T) {
		psu := xs2a.PSU{ID: "3f0b5a0e-8a4e-4d7e-9a51-2b8c9f1e6d21", IPAddress: "192.0.2.1"}
		list, resp, err := newClient(t).Accounts.List(context.Background(), psu)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, 1, resp.Attempts)
	})
}
