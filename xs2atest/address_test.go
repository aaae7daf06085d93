package xs2atest

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithAddress: the bank listens where it is told, and an address in
// use makes Start fail instead of picking another port.
func TestWithAddress(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()

	t.Run("free", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		s, err := Start(WithAddress(addr))
		require.NoError(t, err)
		defer s.Close()
		assert.Equal(t, "http://"+addr+DefaultBasePath, s.URL())
		resp, err := http.Get(s.URL() + "/v1/accounts")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "unsigned")
	})
	t.Run("in use", func(t *testing.T) {
		_, err := Start(WithAddress(busy.Addr().String()))
		require.Error(t, err)
		assert.True(t, strings.Contains(err.Error(), "in use"), err.Error())
	})
}
