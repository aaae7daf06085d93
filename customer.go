package xs2a

import (
	"context"
	"errors"
	"reflect"
)

// CallPresent makes a call for user with the customer present
// (docs/interface.md CS6): call gets psu with the user's Active
// TPP-Session-ID (SessionManager.Current) and a new SCAState. When the bank
// asks for SCA, in an *SCARequiredError or in a result holding an
// scaRedirect (a consent, a payment, an authorisation), CallPresent records
// the SCA with purpose (1 to 64 printable ASCII characters, returned by
// SessionManager.Callback) and returns its link: send the browser there.
//
//   - No Active ID, or the bank asked for SCA under it: CallPresent begins
//     a new TPP-Session-ID (SessionManager.Begin) and makes the call (again)
//     under it. call may thus run twice; only a call the bank answered with
//     an SCA request runs again, so hand it only a call that may be repeated
//     then (any GET, a consent; not a payment initiation: without an Active
//     ID it runs once, under the new ID).
//   - The answer holds an scaRedirect (a payment's SCA under the Active ID):
//     the SCA is recorded under that ID, which its completion leaves as it is.
//
// psu.IPAddress must be set (the customer is present); psu.SessionID and
// psu.SCAState are CallPresent's to set. The result is call's; link is
// non-nil exactly when the PSU must go to the bank, and then err is nil. A
// store error after the call returns the call's result with the error.
func CallPresent[T any](ctx context.Context, m *SessionManager, user, purpose string, psu PSU,
	call func(PSU) (T, *Response, error)) (v T, link *Link, err error) {
	switch {
	case m == nil:
		return v, nil, invalid("SessionManager", "is nil")
	case call == nil:
		return v, nil, invalid("call", "is nil")
	case !psu.Present():
		return v, nil, invalid("PSU.IPAddress", "must be set: the customer is present")
	case !validPurpose(purpose):
		return v, nil, invalid("purpose", "must be 1 to %d printable ASCII characters", maxPurpose)
	}
	cur, active, err := m.Current(ctx, user)
	if err != nil {
		return v, nil, err
	}
	if active {
		start := SCAStart{SessionID: cur, State: newState()}
		v, _, err = call(start.PSU(psu))
		if _, ok := errors.AsType[*SCARequiredError](err); !ok {
			link := resultSCALink(&v)
			if err != nil || link == nil {
				return v, nil, err
			}
			// A payment's SCA under the Active ID: its state names it now.
			if err := m.record(ctx, user, purpose, start, false); err != nil {
				return v, nil, err
			}
			return v, link, nil
		}
		// The bank wants SCA although the session should hold (consent
		// revoked, the session ended early): a new session, as with none.
	}
	start, err := m.Begin(ctx, user, purpose)
	if err != nil {
		var zero T
		return zero, nil, err
	}
	v, _, err = call(start.PSU(psu))
	if sca, ok := errors.AsType[*SCARequiredError](err); ok {
		link := sca.Redirect
		return v, &link, nil
	}
	if link := resultSCALink(&v); link != nil && err == nil {
		return v, link, nil
	}
	return v, nil, err
}

// resultSCALink returns the scaRedirect that the result *pv holds (a result
// type or a pointer to one), nil when none.
func resultSCALink[T any](pv *T) *Link {
	var h scaRedirectHolder
	switch x := any(pv).(type) {
	case scaRedirectHolder: // T is a result type
		h = x
	default:
		rv := reflect.ValueOf(*pv)
		if rv.Kind() != reflect.Pointer || rv.IsNil() {
			return nil
		}
		if h, _ = any(*pv).(scaRedirectHolder); h == nil {
			return nil
		}
	}
	if h.scaRedirectLink().IsZero() {
		return nil
	}
	link := *h.scaRedirectLink()
	return &link
}

// authoriseAttempts bounds the startAuthorisations Authorise sends.
const authoriseAttempts = 3

// errAuthoriseSpent: Authorise sent its startAuthorisations and got no link.
var errAuthoriseSpent = errors.New("xs2a: payments.authorise: 3 startAuthorisations sent, none gave a link")

// errNoSCARedirect: a startAuthorisation answer without a link for the PSU.
var errNoSCARedirect = errors.New("xs2a: payments.authorise: the bank's answer holds no scaRedirect")

// Authorise starts the customer's SCA of a payment or signing basket with
// CallPresent: StartAuthorisation on start for user, recorded with purpose,
// and returns the link to send the browser to. A startAuthorisation whose
// answer was lost (ErrOutcomeUnknown) is sent again, 3 in all whatever
// CallPresent repeats: another starts a new SCA of the same payment, which
// itself is never sent again. start is checked before any session begins.
func (s *PaymentsService) Authorise(ctx context.Context, m *SessionManager, user, purpose string, psu PSU, start Link) (*Link, error) {
	r, err := startRequest(start, "start")
	if err == nil {
		_, err = s.client.target(r) // the route, before any session begins
	}
	if err != nil {
		return nil, err
	}
	sent := 0
	call := func(p PSU) (*SCALinks, *Response, error) {
		if sent == authoriseAttempts { // CallPresent's call again after the last one
			return nil, nil, errAuthoriseSpent
		}
		sent++
		return s.StartAuthorisation(ctx, p, start)
	}
	var link *Link
	for try := 0; try < authoriseAttempts; try++ {
		_, link, err = CallPresent(ctx, m, user, purpose, psu, call)
		if sent == authoriseAttempts || !errors.Is(err, ErrOutcomeUnknown) {
			break
		}
	}
	if err == nil && link == nil {
		err = errNoSCARedirect
	}
	return link, err
}
