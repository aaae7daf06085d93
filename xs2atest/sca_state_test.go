package xs2atest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/xs2a"
)

// TestSCAStateReachesTheBank: the state the SDK adds to a call's
// TPP-Redirect-URI is signed, accepted, and returned in the callback after
// the TPP's own query kept byte for byte, as member banks append theirs;
// success and a cancelled SCA both resolve to the user and purpose.
func TestSCAStateReachesTheBank(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	const own = "https://tpp.example/cb?a=%7E&b=1"
	c, err := s.Client(nil, xs2a.WithRedirectURI(own))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	m := xs2a.NewSessionManager(nil, nil)

	for _, tc := range []struct {
		name    string
		opts    []SCAOption
		wantErr error
	}{
		{"completed", nil, nil},
		{"cancelled", []SCAOption{Cancel()}, xs2a.ErrSCAFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := m.Begin(ctx, "alice", "accounts "+tc.name)
			require.NoError(t, err)
			_, _, err = c.Accounts.List(ctx, start.PSU(xs2a.PSU{IPAddress: "192.0.2.10"}))
			var sca *xs2a.SCARequiredError
			require.True(t, errors.As(err, &sca), "%v", err)
			u, err := s.CompleteSCA(ctx, sca.Redirect.Href, PrivateCustomer1, tc.opts...)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(u.String(), own+"&xs2a-state="+start.State+"&"), u.String())
			res, err := m.Callback(ctx, u.Query())
			if tc.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.NotNil(t, res)
			assert.Equal(t, "alice", res.User)
			assert.Equal(t, "accounts "+tc.name, res.Purpose)
		})
	}
}
