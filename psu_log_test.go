package xs2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logPSU is a PSU with every identifier set, in the spellings a log might
// change (the corporate id in upper case).
var logPSU = PSU{
	ID:                "0b7d3c9e-6a5f-4e1d-9c2b-8a7f6e5d4c3b",
	CorporateID:       "7E9A1B2C-3D4E-4F50-8A6B-7C8D9E0F1A2B",
	SessionID:         "tpp-session-4711-abcdef",
	IPAddress:         "192.0.2.10",
	RedirectPreferred: new(false),
	Context:           ContextCorporate,
	SCAState:          "q9T2Zx7LmN4pR8sV1wY3bC6dF0gH5jK2lM9nP4rS7tU",
}

// assertNoPSUID fails when out holds any of psu's identifiers, in any case.
func assertNoPSUID(t *testing.T, psu PSU, out string) {
	t.Helper()
	for _, id := range []string{psu.ID, psu.CorporateID, psu.SessionID, psu.IPAddress, psu.SCAState} {
		if id != "" {
			assert.NotContains(t, strings.ToLower(out), strings.ToLower(id), "an identifier in:\n%s", out)
		}
	}
}

// TestPSULogValue: a PSU logged through slog, by the text and the JSON
// handler, alone, in a group, under WithGroup or With, by value or by
// pointer, and as the %v of slog.Any, says which fields are set and shows
// no identifier.
func TestPSULogValue(t *testing.T) {
	t.Parallel()
	psu := logPSU
	for _, h := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
	} {
		for _, tc := range []struct {
			name string
			log  func(l *slog.Logger)
		}{
			{"top level", func(l *slog.Logger) { l.Info("call", "psu", psu) }},
			{"slog.Any", func(l *slog.Logger) { l.Info("call", slog.Any("psu", psu)) }},
			{"pointer", func(l *slog.Logger) { l.Info("call", "psu", &psu) }},
			{"in a group", func(l *slog.Logger) { l.Info("call", slog.Group("call", slog.Any("psu", psu), "op", "accounts.list")) }},
			{"in nested groups", func(l *slog.Logger) { l.Info("call", slog.Group("a", slog.Group("b", "psu", psu))) }},
			{"WithGroup", func(l *slog.Logger) { l.WithGroup("xs2a").Info("call", "psu", psu) }},
			{"With", func(l *slog.Logger) { l.With("psu", psu).Info("call") }},
			{"LogAttrs", func(l *slog.Logger) { l.LogAttrs(t.Context(), slog.LevelWarn, "call", slog.Any("psu", psu)) }},
			{"%v of slog.Any", func(l *slog.Logger) { l.Info(fmt.Sprintf("%v", slog.Any("psu", psu))) }},
			{"Value.String", func(l *slog.Logger) { l.Info(slog.AnyValue(psu).String()) }},
		} {
			t.Run(h.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				tc.log(slog.New(h.new(&buf)))
				out := buf.String()
				assertNoPSUID(t, psu, out)
				assert.Contains(t, out, redactedText)
				assert.Contains(t, out, "present")
			})
		}
	}
}

// TestPSULogValueShape: the group names what is set, with the ids as
// [redacted]; an unset field is left out; a PSUContext that is none of the
// constants is redacted too (it is whatever the caller put there).
func TestPSULogValueShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		psu  PSU
		want map[string]any
	}{
		{"every field", logPSU, map[string]any{"present": true, "id": redactedText, "corporate_id": redactedText,
			"session_id": redactedText, "ip_address": redactedText, "redirect_preferred": false, "context": "CORPORATE",
			"sca_state": redactedText}},
		{"not present, before SCA", PSU{SessionID: "s-1"}, map[string]any{"present": false, "session_id": redactedText}},
		{"zero", PSU{}, map[string]any{"present": false}},
		{"context not a constant", PSU{Context: PSUContext(logPSU.ID)}, map[string]any{"present": false, "context": redactedText}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("call", "psu", tc.psu)
			var rec struct{ PSU map[string]any }
			require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
			assert.Equal(t, tc.want, rec.PSU)
			assertNoPSUID(t, logPSU, buf.String())
		})
	}
}

// TestPSUFormat: no fmt verb or flag shows an identifier of a PSU, %#v
// included.
func TestPSUFormat(t *testing.T) {
	t.Parallel()
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v"} {
		out := fmt.Sprintf(verb, logPSU)
		assertNoPSUID(t, logPSU, out)
		assert.Contains(t, out, "id="+redactedText, verb)
		out = fmt.Sprintf(verb, &logPSU)
		assertNoPSUID(t, logPSU, out)
	}
	assert.Equal(t, "xs2a.PSU{present=false session_id=[redacted]}", fmt.Sprintf("%#v", PSU{SessionID: "s"}))
	assert.Equal(t, "{present=true ip_address=[redacted]}", fmt.Sprint(PSU{IPAddress: "192.0.2.1"}))
}

// TestPSUInsideAStructLogged is the attacker's case: slog resolves a
// LogValuer only where the value itself is logged. A PSU inside a struct
// logged whole is printed by the handler: the text handler prints the
// struct with fmt, which reaches PSU.Format through an exported field
// (redacted) but not through an unexported one (fmt prints its fields);
// the JSON handler uses encoding/json, which prints the fields as they
// are. These are the limits PSU.LogValue documents: log the PSU as its own
// attribute.
func TestPSUInsideAStructLogged(t *testing.T) {
	t.Parallel()
	type exported struct {
		Op  string
		PSU PSU
	}
	type unexported struct {
		op  string
		psu PSU
	}
	log := func(h func(*bytes.Buffer) slog.Handler, v any) string {
		var buf bytes.Buffer
		slog.New(h(&buf)).Info("call", slog.Any("call", v))
		return buf.String()
	}
	text := func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }
	jsonH := func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }

	out := log(text, exported{"accounts.list", logPSU})
	assertNoPSUID(t, logPSU, out)
	assert.Contains(t, out, "id="+redactedText)

	for _, leak := range []string{
		log(text, unexported{"accounts.list", logPSU}),
		log(jsonH, exported{"accounts.list", logPSU}),
	} {
		assert.Contains(t, leak, logPSU.ID, "the documented limit no longer holds: update PSU.LogValue's doc")
	}
	// The way that works: the PSU as its own attribute, beside the rest.
	var buf bytes.Buffer
	slog.New(jsonH(&buf)).Info("call", "op", "accounts.list", "psu", logPSU)
	assertNoPSUID(t, logPSU, buf.String())
}
