package xs2atest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestHeaderFormats: X-Request-ID must be a UUID, PSU-IP-Address an IP
// address and TPP-Redirect-Preferred True or False (docs/interface.md, Request
// headers), Date the RFC 7231 IMF-fixdate (conventions 4); otherwise 400
// FORMAT_ERROR with the header as path.
func TestHeaderFormats(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithClock(func() time.Time { return time.Date(2025, 3, 12, 10, 1, 0, 0, time.UTC) }))
	tests := []struct {
		name       string
		set        [][2]string // headers to set ("" value: delete)
		wantStatus int
		wantPath   string
	}{
		{"all well-formed", [][2]string{{"PSU-IP-Address", "192.0.2.10"}, {"TPP-Redirect-Preferred", "True"}}, 200, ""},
		{"IPv6 address", [][2]string{{"PSU-IP-Address", "2001:db8::7"}}, 200, ""},
		{"upper-case UUID", [][2]string{{"X-Request-ID", "99391C7E-AD88-49EC-A2AD-99DDCB1F7721"}}, 200, ""},
		{"False", [][2]string{{"TPP-Redirect-Preferred", "False"}}, 200, ""},
		{"lower-case false", [][2]string{{"TPP-Redirect-Preferred", "false"}}, 200, ""},
		{"upper-case TRUE", [][2]string{{"TPP-Redirect-Preferred", "TRUE"}}, 200, ""},
		{"X-Request-ID not a UUID", [][2]string{{"X-Request-ID", "req-0001"}}, 400, "X-Request-ID"},
		{"X-Request-ID UUID without hyphens", [][2]string{{"X-Request-ID", "99391c7ead8849eca2ad99ddcb1f7721"}}, 400, "X-Request-ID"},
		{"X-Request-ID missing", [][2]string{{"X-Request-ID", ""}}, 400, "X-Request-ID"},
		{"PSU-IP-Address a name", [][2]string{{"PSU-IP-Address", "localhost"}}, 400, "PSU-IP-Address"},
		{"PSU-IP-Address with a port", [][2]string{{"PSU-IP-Address", "192.0.2.10:443"}}, 400, "PSU-IP-Address"},
		{"PSU-IP-Address out of range", [][2]string{{"PSU-IP-Address", "192.0.2.300"}}, 400, "PSU-IP-Address"},
		{"TPP-Redirect-Preferred yes", [][2]string{{"TPP-Redirect-Preferred", "yes"}}, 400, "TPP-Redirect-Preferred"},
		{"TPP-Redirect-Preferred 1", [][2]string{{"TPP-Redirect-Preferred", "1"}}, 400, "TPP-Redirect-Preferred"},
		{"Date IMF-fixdate", [][2]string{{"Date", "Wed, 12 Mar 2025 10:00:00 GMT"}}, 200, ""},
		{"Date without a Date header", [][2]string{{"Date", ""}}, 200, ""},
		{"Date RFC 3339", [][2]string{{"Date", "2025-03-12T10:00:00Z"}}, 400, "Date"},
		{"Date a word", [][2]string{{"Date", "yesterday"}}, 400, "Date"},
		{"Date with a numeric zone", [][2]string{{"Date", "Wed, 12 Mar 2025 10:00:00 +0000"}}, 400, "Date"},
		{"Date in local time", [][2]string{{"Date", "Wed, 12 Mar 2025 11:00:00 CET"}}, 400, "Date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newTestClient(t, s)
			r := c.doWith(func(r *http.Request) {
				for _, kv := range tt.set {
					if kv[1] == "" {
						r.Header.Del(kv[0])
					} else {
						r.Header.Set(kv[0], kv[1])
					}
				}
				r.Header.Set("Signature", c.tpp.signatureValue(t, r.Header, c.tpp.keyID))
			}, "GET", "/v1/sandbox/customers", nil)
			assert.Equal(t, tt.wantStatus, r.status, "body: %s", r.body)
			if tt.wantStatus != 200 {
				assert.Equal(t, "FORMAT_ERROR", r.code())
				var e struct {
					TPPMessages []tppMessage `json:"tppMessages"`
				}
				_ = json.Unmarshal(r.body, &e)
				if assert.NotEmpty(t, e.TPPMessages) {
					assert.Equal(t, tt.wantPath, e.TPPMessages[0].Path)
				}
			}
		})
	}
}
