package xs2a

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Link is one entry of a response's _links: {"href": "...", "verbs": ["GET"]}.
// Href is usually relative to the client's base address; pass the Link back to
// the service method that follows it. A link given as a bare string decodes too.
type Link struct {
	Href  string   `json:"href"`
	Verbs []string `json:"verbs,omitempty"`
}

// UnmarshalJSON accepts {"href": "..."} and a bare "..." string.
func (l *Link) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*l = Link{}
		return json.Unmarshal(b, &l.Href)
	}
	type plain Link
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = Link(p)
	return nil
}

// IsZero reports whether the link is absent.
func (l Link) IsZero() bool { return l.Href == "" }

// retryAfter reads Retry-After as delay-seconds or an HTTP date; 0 when absent
// or unparsable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
