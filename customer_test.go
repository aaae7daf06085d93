package xs2a

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallPresent: the call runs under the current session; when the bank
// asks for SCA, under a new one whose state resolves to the user and the
// purpose; a payment's SCA under the current session is recorded there.
func TestCallPresent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	present := PSU{IPAddress: "192.0.2.10"}
	scaAnswer := &SCARequiredError{Redirect: Link{Href: "https://bank.example/sca/7"}, StatusCode: 401}
	type call struct {
		result *resultWithLink
		err    error
	}
	tests := []struct {
		name      string
		active    bool   // the user has a current session
		answers   []call // the bank's answer to each call, in order
		wantCalls int
		wantLink  string
		wantErr   error
		wantNew   bool // the last call ran under a new session
		wantSCA   bool // the last call's state resolves to alice and the purpose
	}{
		{"no session: a new one, and the bank's link", false,
			[]call{{nil, scaAnswer}}, 1, "https://bank.example/sca/7", nil, true, true},
		{"a current session that serves the call", true,
			[]call{{&resultWithLink{}, nil}}, 1, "", nil, false, false},
		{"the bank asks for SCA under the current session: again under a new one", true,
			[]call{{nil, scaAnswer}, {nil, &SCARequiredError{Redirect: Link{Href: "https://bank.example/sca/8"}}}},
			2, "https://bank.example/sca/8", nil, true, true},
		{"a payment's SCA under the current session", true,
			[]call{{&resultWithLink{link: Link{Href: "https://bank.example/sca/9"}}, nil}}, 1,
			"https://bank.example/sca/9", nil, false, true},
		{"no session: a payment's SCA under the new one", false,
			[]call{{&resultWithLink{link: Link{Href: "https://bank.example/sca/9"}}, nil}}, 1,
			"https://bank.example/sca/9", nil, true, true},
		{"the bank refuses: its error, nothing recorded", true,
			[]call{{&resultWithLink{link: Link{Href: "https://bank.example/sca/9"}}, ErrAccessExceeded}}, 1, "",
			ErrAccessExceeded, false, false},
		{"a nil result", true, []call{{nil, nil}}, 1, "", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			m := NewSessionManager(nil, clock.Now)
			var s1 SCAStart
			if tt.active {
				var err error
				s1, err = m.Begin(ctx, "alice", "accounts")
				require.NoError(t, err)
				_, err = m.Callback(ctx, successQuery(s1))
				require.NoError(t, err)
			}
			before, err := m.store.Load(ctx, "alice")
			require.NoError(t, err)
			var sent []PSU
			_, link, err := CallPresent(ctx, m, "alice", "payment 42", present, func(p PSU) (*resultWithLink, *Response, error) {
				a := tt.answers[len(sent)]
				sent = append(sent, p)
				return a.result, nil, a.err
			})
			require.ErrorIs(t, err, tt.wantErr)
			require.Len(t, sent, tt.wantCalls)
			if tt.wantLink == "" {
				assert.Nil(t, link)
			} else if assert.NotNil(t, link) {
				assert.Equal(t, tt.wantLink, link.Href)
			}
			last := sent[len(sent)-1]
			assert.Equal(t, present.IPAddress, last.IPAddress)
			assert.NotEmpty(t, last.SCAState)
			if tt.active && !tt.wantNew {
				assert.Equal(t, s1.SessionID, last.SessionID, "the current session")
			} else {
				assert.NotEqual(t, s1.SessionID, last.SessionID, "a new session")
			}
			if len(sent) == 2 {
				assert.NotEqual(t, sent[0].SCAState, sent[1].SCAState)
				_, err := m.Callback(ctx, url.Values{"status": {"401"}, "code": {"X"}, paramState: {sent[0].SCAState}})
				assert.ErrorIs(t, err, ErrUnknownSession, "the first call's state names no SCA")
			}
			if !tt.wantSCA {
				after, err := m.store.Load(ctx, "alice")
				require.NoError(t, err)
				assert.Equal(t, before, after, "nothing recorded")
				return
			}
			res, err := m.Callback(ctx, url.Values{"psu-id": {cbPSUID}, "context": {"PRIVATE"},
				"tpp-session-id": {last.SessionID}, paramState: {last.SCAState}})
			require.NoError(t, err)
			assert.Equal(t, SCAResult{User: "alice", Purpose: "payment 42", SessionID: last.SessionID,
				Callback: res.Callback}, *res)
			cur, _, err := m.Current(ctx, "alice")
			require.NoError(t, err)
			assert.Equal(t, last.SessionID, cur)
		})
	}
}

// TestCallPresentRefuses: without the customer's address, with a bad
// purpose, a nil manager or call, nothing is called and nothing stored.
func TestCallPresentRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := NewSessionManager(nil, nil)
	called := false
	call := func(PSU) (*resultWithLink, *Response, error) { called = true; return nil, nil, nil }
	for _, tt := range []struct {
		name, field string
		run         func() error
	}{
		{"the customer not present", "PSU.IPAddress", func() error {
			_, _, err := CallPresent(ctx, m, "alice", "accounts", PSU{}, call)
			return err
		}},
		{"an empty purpose", "purpose", func() error {
			_, _, err := CallPresent(ctx, m, "alice", "", PSU{IPAddress: "192.0.2.1"}, call)
			return err
		}},
		{"an oversized purpose", "purpose", func() error {
			_, _, err := CallPresent(ctx, m, "alice", strings.Repeat("x", 65), PSU{IPAddress: "192.0.2.1"}, call)
			return err
		}},
		{"a purpose with a line break", "purpose", func() error {
			_, _, err := CallPresent(ctx, m, "alice", "pay\nX-Evil: 1", PSU{IPAddress: "192.0.2.1"}, call)
			return err
		}},
		{"no user", "user", func() error {
			_, _, err := CallPresent(ctx, m, "", "accounts", PSU{IPAddress: "192.0.2.1"}, call)
			return err
		}},
		{"a nil manager", "SessionManager", func() error {
			_, _, err := CallPresent(ctx, nil, "alice", "accounts", PSU{IPAddress: "192.0.2.1"}, call)
			return err
		}},
		{"a nil call", "call", func() error {
			_, _, err := CallPresent[*resultWithLink](ctx, m, "alice", "accounts", PSU{IPAddress: "192.0.2.1"}, nil)
			return err
		}},
	} {
		var ve *ValidationError
		require.True(t, errors.As(tt.run(), &ve), tt.name)
		assert.Equal(t, tt.field, ve.Field, tt.name)
	}
	assert.False(t, called)
}
