package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

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
		"browser → GET /xs2a/callback?psu-id=…&context=PRIVATE",
		"backend: SCA completed for alice (context PRIVATE): session active, psu-id",
		"browser ← 303 See Other → /accounts  (Cache-Control: no-store, Referrer-Policy: no-referrer)",
		"backend: alice: calling the bank with the stored psu-id",
		"SDK → GET    /v1/accounts ← 200 OK",
		"browser ← 200 OK: 2 accounts:",
		"SDK → POST   /v1/consents ← 201 Created",
		"browser → GET /xs2a/callback?code=SCA_INVALID",
		"backend: SCA failed for alice: status=401 code=SCA_INVALID",
		"backend: pending session aborted; the earlier session stays valid",
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

func TestBackendCallback(t *testing.T) {
	t.Parallel()
	const psuID = "3f6c1b2a-9d4e-4c1a-8b7f-0e2d5a6c7b8d"
	success := func(session string) url.Values {
		return url.Values{"psu-id": {psuID}, "tpp-session-id": {session}, "context": {"PRIVATE"}}
	}
	tests := []struct {
		name       string
		user       string
		query      func(pending string) url.Values
		wantStatus int
		wantLoc    string
		wantStored bool
		wantActive bool // the pending session became the active one
	}{
		{"completed SCA of the pending session", "alice", success, http.StatusSeeOther, "/accounts", true, true},
		{"a session the TPP never began", "alice", func(string) url.Values { return success("not-begun") }, http.StatusBadRequest, "", false, false},
		{"no TPP login cookie", "", success, http.StatusUnauthorized, "", false, false},
		{"failed SCA", "alice", func(string) url.Values {
			return url.Values{"status": {"401"}, "code": {"SCA_INVALID"}, "message": {"cancelled"}}
		}, http.StatusSeeOther, "/sca-failed", false, false},
		{"not a callback at all", "alice", func(string) url.Values { return url.Values{"psu-id": {"not-a-uuid"}} },
			http.StatusSeeOther, "/sca-failed", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _ := newTestBackend(t)
			ctx := context.Background()
			pending, err := b.sessions.Begin(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			res := callback(b, tt.user, tt.query(pending))
			if res.StatusCode != tt.wantStatus || res.Header.Get("Location") != tt.wantLoc {
				t.Fatalf("answer %d → %q, want %d → %q", res.StatusCode, res.Header.Get("Location"), tt.wantStatus, tt.wantLoc)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q: a URL carrying a psu-id must not be cached", got)
			}
			if stored := b.psuIDs.get("alice").ID == psuID; stored != tt.wantStored {
				t.Errorf("psu-id stored: %v, want %v", stored, tt.wantStored)
			}
			current, ok, err := b.sessions.Current(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if active := ok && current == pending; active != tt.wantActive {
				t.Errorf("pending session active: %v, want %v", active, tt.wantActive)
			}
			_, stillPending, err := b.sessions.Pending(ctx, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantLoc == "/sca-failed" && stillPending {
				t.Error("a failed SCA must abort the pending session")
			}
		})
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
