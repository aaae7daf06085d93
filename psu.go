package xs2a

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/google/uuid"
)

// PSU is the payment service user a call acts for, passed by value to every
// call and turned into headers by one set of rules (docs/interface.md H3, H4,
// H9 to H12): ID into PSU-ID (empty before the first SCA), CorporateID into
// PSU-CORPORATE-ID, IPAddress into PSU-IP-Address (set only when the PSU is
// present in real time: without it a call is limited, L1, L2; payment
// initiation needs it, L7), SessionID into TPP-Session-ID, RedirectPreferred
// into TPP-Redirect-Preferred, Context into PSU-Context on the calls that
// start a consent or registration SCA, and SCAState into the xs2a-state
// parameter of the call's TPP-Redirect-URI (CB7). Values are checked before
// anything is sent (H16).
type PSU struct {
	ID                string     // psu-id from the SCA callback; "" before the first SCA
	CorporateID       string     // psu-corporate-id, corporate context only
	IPAddress         string     // set only when the PSU is present in real time
	SessionID         string     // TPP-Session-ID
	RedirectPreferred *bool      // TPP-Redirect-Preferred (false: app biometrics)
	Context           PSUContext // PSU-Context on consent and registration calls; "" not sent
	// SCAState is the state of the SCA this call may start, from
	// SessionManager.Begin (SCAStart.PSU) or CallPresent: the SDK adds it to
	// the client's TPP-Redirect-URI as xs2a-state, and SessionManager.Callback
	// reads it back. "" sends the client's TPP-Redirect-URI as it is.
	SCAState string
}

// Present reports whether the PSU takes part in real time (IPAddress set).
func (p PSU) Present() bool { return p.IPAddress != "" }

// LogValue implements slog.LogValuer: a PSU logged with slog (slog.Any("psu",
// psu), at any level of groups, by any handler) is a group that says what is
// set and shows no identifier: "present" (IPAddress set), then id,
// corporate_id, session_id, ip_address and sca_state as "[redacted]" when set and
// left out when not, redirect_preferred when set, and context when it is
// one of the PSUContext constants ("[redacted]" otherwise). slog resolves
// the PSU value itself and a non-nil *PSU. A PSU inside a struct, slice or
// map logged whole is not resolved: a text handler prints it with fmt
// (Format: redacted, unless the field is unexported), a JSON handler with
// encoding/json (the fields as they are). Log the PSU as its own attribute.
func (p PSU) LogValue() slog.Value {
	attrs := make([]slog.Attr, 1, 8)
	attrs[0] = slog.Bool("present", p.Present())
	for _, f := range [...][2]string{
		{"id", p.ID}, {"corporate_id", p.CorporateID}, {"session_id", p.SessionID}, {"ip_address", p.IPAddress},
		{"sca_state", p.SCAState},
	} {
		if f[1] != "" {
			attrs = append(attrs, slog.String(f[0], redactedText))
		}
	}
	if p.RedirectPreferred != nil {
		attrs = append(attrs, slog.Bool("redirect_preferred", *p.RedirectPreferred))
	}
	switch {
	case p.Context.Valid():
		attrs = append(attrs, slog.String("context", string(p.Context)))
	case p.Context != "":
		attrs = append(attrs, slog.String("context", redactedText))
	}
	return slog.GroupValue(attrs...)
}

// Format prints the PSU as LogValue describes it, for every verb and flag:
// {present=true id=[redacted] ...}; %#v prints xs2a.PSU{...}. No fmt verb
// shows an identifier (Value.String of slog.Any("psu", psu) included).
func (p PSU) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = fmt.Fprint(f, p.GoString())
		return
	}
	_, _ = fmt.Fprint(f, p.text())
}

// GoString is %#v: xs2a.PSU and the text of Format.
func (p PSU) GoString() string { return "xs2a.PSU" + p.text() }

// text is {key=value ...} of LogValue's attributes.
func (p PSU) text() string {
	b := []byte{'{'}
	for i, a := range p.LogValue().Group() {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(append(append(b, a.Key...), '='), a.Value.String()...)
	}
	return string(append(b, '}'))
}

// writeHeaders checks every field (H16) and then writes the PSU's headers
// to h, PSU-Context only when withContext (the calls that take it). Nothing
// is written when a field is refused.
func (p PSU) writeHeaders(h http.Header, withContext bool) error {
	for _, id := range [...]struct{ field, v, from string }{
		{"PSU.ID", p.ID, "the SCA callback (psu-id)"},
		{"PSU.CorporateID", p.CorporateID, "the SCA callback or Agreements"},
	} {
		// The canonical 8-4-4-4-12 hex form (either case) only.
		if id.v != "" && (len(id.v) != 36 || uuid.Validate(id.v) != nil) {
			return invalid(id.field, "must be the RFC 4122 UUID from %s", id.from)
		}
	}
	if p.CorporateID != "" && p.ID == "" {
		return invalid("PSU.CorporateID", "needs PSU.ID as well")
	}
	if p.IPAddress != "" {
		// netip accepts an IPv6 zone ("fe80::1%eth0") of any bytes, CR and
		// LF included; a zone means nothing off the PSU's own host.
		if a, err := netip.ParseAddr(p.IPAddress); err != nil || a.Zone() != "" {
			return invalid("PSU.IPAddress", "must be an IPv4 or IPv6 address of the PSU's device, without a zone")
		}
	}
	if p.SessionID != "" && !headerSafe(p.SessionID, 200) {
		return invalid("PSU.SessionID", "must be 1 to 200 printable ASCII characters")
	}
	if p.Context != "" && !p.Context.Valid() {
		return invalid("PSU.Context", "must be PRIVATE or CORPORATE (ContextPrivate, ContextCorporate)")
	}
	if p.SCAState != "" && !validState(p.SCAState) {
		return invalid("PSU.SCAState", "must be a state from SessionManager.Begin or CallPresent")
	}
	for _, kv := range [...][2]string{
		{"PSU-ID", p.ID}, {"PSU-CORPORATE-ID", p.CorporateID}, {"PSU-IP-Address", p.IPAddress},
		{"TPP-Session-ID", p.SessionID},
	} {
		if kv[1] != "" {
			h.Set(kv[0], kv[1])
		}
	}
	if withContext && p.Context != "" {
		h.Set("PSU-Context", string(p.Context))
	}
	if p.RedirectPreferred != nil {
		// docs/interface.md writes the value as False (and so True).
		v := "False"
		if *p.RedirectPreferred {
			v = "True"
		}
		h.Set("TPP-Redirect-Preferred", v)
	}
	return nil
}

// writeRedirect sets the call's own TPP-Redirect-URI, uri with the
// SCAState added (writeHeaders checked it); prepare calls it for a PSU
// with a state.
func (p PSU) writeRedirect(h http.Header, uri string) {
	if uri != "" {
		h.Set("TPP-Redirect-URI", redirectWithState(uri, p.SCAState))
	}
}

// headerSafe reports whether s is 1..max printable ASCII characters.
func headerSafe(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
