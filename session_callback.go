package xs2a

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// SCAResult is what a callback with a valid state resolves to: the TPP's
// user and purpose of the SCA it ends, on success and failure alike.
type SCAResult struct {
	User      string // the user key given to Begin or CallPresent
	Purpose   string // the purpose given with it
	SessionID string // the TPP-Session-ID the SCA ran under
	// Callback is the successful SCA's callback (psu-id and context); nil
	// for a failed one.
	Callback *Callback
}

// Callback resolves the query of a request to the TPP-Redirect-URI by its
// xs2a-state (docs/interface.md CB7) to the SCA SessionManager began:
//
//   - (res, nil): the SCA completed. A Pending ID it began is now Active
//     (CS4); one begun under the Active ID (a payment's) leaves it as it is.
//   - (res, *SCAFailedError): the SCA failed; a Pending ID it began is
//     dropped and the Active ID stays valid.
//   - (res, err) with errors.Is(err, ErrUnknownSession): the state is known
//     but the SCA began more than PendingValidity ago, a later Begin replaced
//     its Pending ID (CS6), or the tpp-session-id is not the one it ran under;
//     nothing became Active. res.Callback is set when the bank said success.
//   - (nil, err): a *CallbackError (CB3; the xs2a-state missing, repeated or
//     malformed), ErrUnknownSession and ErrInvalidCallback both (a state
//     never handed out, already used, or dropped), or the store's error.
//
// A state answers once: its SCA is dropped on the first callback that
// resolves it, whatever the outcome. When the browser is logged in to the
// TPP, check that res.User is that user before storing res.Callback.PSUID
// (CB6).
func (m *SessionManager) Callback(ctx context.Context, q url.Values) (*SCAResult, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	cb, failed := ParseCallback(q)
	if failed != nil && !errors.Is(failed, ErrSCAFailed) {
		return nil, failed
	}
	state, err := callbackState(q)
	if err != nil {
		return nil, err
	}
	hash := stateHash(state)
	user, err := m.lookup(ctx, stateKey(state), state)
	if errors.Is(err, ErrUnknownSession) {
		return nil, errNoSuchState
	}
	if err != nil {
		return nil, err
	}
	var (
		res     *SCAResult
		outcome error
	)
	err = m.update(ctx, user, func(s SessionState) (SessionState, error) {
		res, outcome = nil, nil // fn may run again
		i := slices.IndexFunc(s.SCAs, func(p PendingSCA) bool { return sameSecret(p.StateHash, hash) })
		if i < 0 {
			return s, errNoSuchState
		}
		sca := s.SCAs[i]
		res = &SCAResult{User: user, Purpose: sca.Purpose, SessionID: sca.SessionID, Callback: cb}
		s, outcome = m.conclude(s, sca, cb, failed)
		if i := slices.IndexFunc(s.SCAs, func(p PendingSCA) bool { return p.StateHash == sca.StateHash }); i >= 0 {
			s.SCAs = withoutSCA(s.SCAs, i) // single use, whatever the outcome
		}
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	return res, outcome
}

// errNoSuchState is Callback's answer to a state no SCA of the store has:
// ErrUnknownSession, and ErrInvalidCallback since nothing may act on it.
var errNoSuchState = fmt.Errorf("%w: %w: no SCA has this state (never begun, already called back, or dropped)",
	ErrInvalidCallback, ErrUnknownSession)

// conclude applies a resolved callback of sca to s: its outcome (nil, or the
// *SCAFailedError), or why it completes nothing.
func (m *SessionManager) conclude(s SessionState, sca PendingSCA, cb *Callback, failed error) (SessionState, error) {
	ownPending := sca.NewSession && sca.SessionID == s.Pending
	switch {
	case !m.fresh(sca.Since):
		return s, errSCAStale
	case failed != nil:
		if ownPending {
			s.Pending, s.PendingSince = "", time.Time{}
		}
		return s, failed
	case cb.TPPSessionID != "" && cb.TPPSessionID != sca.SessionID:
		return s, fmt.Errorf("%w: the callback's tpp-session-id is not the one its SCA ran under", ErrUnknownSession)
	case ownPending:
		return m.activate(s), nil
	case sca.NewSession && sca.SessionID != s.Active:
		return s, fmt.Errorf("%w: a later Begin for this user replaced the session this SCA began", ErrUnknownSession)
	}
	return s, nil // an SCA under the Active ID: the session stays as it is
}

// CallbackHandler serves the TPP-Redirect-URI (docs/interface.md CB6, CB7)
// as the package's CallbackHandler does (GET only, no-store, no-referrer),
// and calls fn with what Callback returns for the request's query. A query
// that url.ParseQuery refuses is a *CallbackError unless it still reads as a
// failure.
func (m *SessionManager) CallbackHandler(fn func(w http.ResponseWriter, r *http.Request, res *SCAResult, err error)) http.Handler {
	if fn == nil {
		panic("xs2a: SessionManager.CallbackHandler: nil fn")
	}
	return callbackPage(func(w http.ResponseWriter, r *http.Request) {
		q, _, err := parseCallbackQuery(r.URL.RawQuery)
		if q == nil {
			fn(w, r, nil, err)
			return
		}
		res, err := m.Callback(r.Context(), q)
		fn(w, r, res, err)
	})
}
