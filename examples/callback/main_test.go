package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

// TestCallbackAgainstTheFakeBank runs the example as a user would: the
// backend on a loopback port receives the bank's redirect, stores the psu-id
// and uses it; a cancelled SCA reaches onFailure and leaves the session.
func TestCallbackAgainstTheFakeBank(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("callback failed: %v\n%s", err, out.String())
	}
	transcript := out.String()
	steps := []string{
		"browser → GET /accounts",
		"SDK → GET    /v1/accounts ← 401 Unauthorized",
		"browser ← 303 See Other → the bank's SCA page",
		"browser → GET /xs2a/callback?xs2a-state=…&psu-id=…&context=PRIVATE",
		"backend: SCA for alice (accounts) completed (context PRIVATE): session active, psu-id",
		"browser ← 303 See Other → /accounts  (Cache-Control: no-store, Referrer-Policy: no-referrer)",
		"backend: alice: listing accounts with the customer present (psu-id stored: true)",
		"SDK → GET    /v1/accounts ← 200 OK",
		"browser ← 200 OK: 2 accounts:",
		"SDK → POST   /v1/consents ← 201 Created",
		"browser → GET /xs2a/callback?xs2a-state=…&status=401&code=SCA_INVALID",
		"backend: SCA for alice (consent) failed: status=401 code=SCA_INVALID",
		"the earlier session stays valid",
		"browser ← 303 See Other → /sca-failed",
		"4. The aborted SCA",
		"SDK → GET    /v1/accounts ← 200 OK",
		"Done: 1 successful and 1 failed callback(s) handled",
	}
	at := 0
	for _, step := range steps {
		i := strings.Index(transcript[at:], step)
		if i < 0 {
			t.Fatalf("transcript lacks %q after offset %d:\n%s", step, at, transcript)
		}
		at += i + len(step)
	}
	if n := strings.Count(transcript, "401 Unauthorized"); n != 1 {
		t.Errorf("the bank asked for SCA %d times, want once (the stored psu-id and session serve later calls)", n)
	}
}

// newTestBackend is the example's backend against a fake bank for a test.
func newTestBackend(t *testing.T) (*backend, *xs2atest.Server) {
	t.Helper()
	bank := xs2atest.NewServer(t)
	client, err := bank.Client(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return newBackend(client, &printer{w: &bytes.Buffer{}}), bank
}

// callback sends the browser's GET of a callback URL to the backend.
func callback(b *backend, user string, q url.Values) *http.Response {
	r := httptest.NewRequest(http.MethodGet, "/xs2a/callback?"+q.Encode(), nil)
	if user != "" {
		r.AddCookie(&http.Cookie{Name: userCookie, Value: user})
	}
	w := httptest.NewRecorder()
	b.Handler().ServeHTTP(w, r)
	return w.Result()
}

// TestBackendCallback sends the backend's callback page what an attacker
// or a lost browser would: each answer, and what it stored, is checked.
func TestBackendCallback(t *testing.T) {
	t.Parallel()
	const psuID = "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"
	success := func(start xs2a.SCAStart) url.Values {
		return url.Values{"psu-id": {psuID}, "tpp-session-id": {start.SessionID}, "context": {"PRIVATE"},
			"xs2a-state": {start.State}}
	}
	tests := []struct {
		name       string
		user       string // the browser's login cookie
		query      func(start xs2a.SCAStart) url.Values
		wantStatus int
		wantLoc    string
		wantStored bool
		wantActive bool // the pending session became the active one
	}{
		{"completed SCA of the pending session", "alice", success, http.StatusSeeOther, "/accounts", true, true},
		// The bank completed alice's SCA, so her session is active; but the
		// psu-id is stored only for the browser that began it (CB6).
		{"completed SCA in a browser not logged in", "", success, http.StatusForbidden, "", false, true},
		{"alice's SCA in bob's browser", "bob", success, http.StatusForbidden, "", false, true},
		{"a forged state", "alice", func(s xs2a.SCAStart) url.Values {
			q := success(s)
			q.Set("xs2a-state", strings.Repeat("A", len(s.State)))
			return q
		}, http.StatusBadRequest, "", false, false},
		{"no state", "alice", func(s xs2a.SCAStart) url.Values {
			q := success(s)
			q.Del("xs2a-state")
			return q
		}, http.StatusBadRequest, "", false, false},
		{"a session the TPP never began", "alice", func(s xs2a.SCAStart) url.Values {
			q := success(s)
			q.Set("tpp-session-id", "not-begun")
			return q
		}, http.StatusBadRequest, "", false, false},
		{"failed SCA, without tpp-session-id", "", func(s xs2a.SCAStart) url.Values {
			return url.Values{"status": {"401"}, "code": {"SCA_INVALID"}, "message": {"cancelled"}, "xs2a-state": {s.State}}
		}, http.StatusSeeOther, "/sca-failed", false, false},
		{"not a callback at all", "alice", func(xs2a.SCAStart) url.Values { return url.Values{"psu-id": {"not-a-uuid"}} },
			http.StatusBadRequest, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _ := newTestBackend(t)
			ctx := context.Background()
			start, err := b.sessions.Begin(ctx, "alice", "consent")
			if err != nil {
				t.Fatal(err)
			}
			res := callback(b, tt.user, tt.query(start))
			if res.StatusCode != tt.wantStatus || res.Header.Get("Location") != tt.wantLoc {
				t.Fatalf("answer %d → %q, want %d → %q", res.StatusCode, res.Header.Get("Location"), tt.wantStatus, tt.wantLoc)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q: a URL carrying a psu-id must not be cached", got)
			}
			if stored := b.psuIDs.get("alice").ID == psuID; stored != tt.wantStored {
				t.Errorf("psu-id stored: %v, want %v", stored, tt.wantStored)
			}
			if b.psuIDs.get("bob") != (storedPSU{}) {
				t.Error("alice's psu-id stored for bob")
			}
			current, ok, err := b.sessions.Current(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if active := ok && current == start.SessionID; active != tt.wantActive {
				t.Errorf("pending session active: %v, want %v", active, tt.wantActive)
			}
			_, stillPending, err := b.sessions.Pending(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantLoc == "/sca-failed" && stillPending {
				t.Error("a failed SCA must drop the pending session")
			}
		})
	}
}

// TestBackendCallbackReplayed sends the same successful callback twice: the
// second is refused, as a state answers once.
func TestBackendCallbackReplayed(t *testing.T) {
	t.Parallel()
	b, _ := newTestBackend(t)
	start, err := b.sessions.Begin(context.Background(), "alice", "consent")
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"psu-id": {"3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"}, "context": {"PRIVATE"}, "xs2a-state": {start.State}}
	if res := callback(b, "alice", q); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first callback: %d, want 303", res.StatusCode)
	}
	if res := callback(b, "alice", q); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("replayed callback: %d, want 400", res.StatusCode)
	}
	if n := b.successes(); n != 1 {
		t.Errorf("%d successes counted, want 1", n)
	}
}

// TestBackendSendsThePSUToTheBank checks the accounts page without a stored
// psu-id: the browser is redirected to the bank's scaRedirect, and the
// request carried a new pending TPP-Session-ID.
func TestBackendSendsThePSUToTheBank(t *testing.T) {
	t.Parallel()
	b, bank := newTestBackend(t)
	r := httptest.NewRequest(http.MethodGet, "/accounts", nil)
	r.AddCookie(&http.Cookie{Name: userCookie, Value: "bob"})
	w := httptest.NewRecorder()
	b.Handler().ServeHTTP(w, r)
	res := w.Result()
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), bank.URL()+"/sca/") {
		t.Fatalf("answer %d → %q, want a redirect to the bank's SCA page", res.StatusCode, res.Header.Get("Location"))
	}
	_, pending, err := b.sessions.Pending(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	_, active, err := b.sessions.Current(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	if !pending || active {
		t.Errorf("pending %v, active %v: want one pending session and none active", pending, active)
	}
	if b.psuIDs.get("bob") != (storedPSU{}) {
		t.Error("nothing may be stored before the callback")
	}
}

func TestCallbackRejectsUnknownFlags(t *testing.T) {
	if err := run(context.Background(), []string{"-no-such-flag"}, &bytes.Buffer{}); err == nil {
		t.Fatal("run accepted an unknown flag")
	}
}
