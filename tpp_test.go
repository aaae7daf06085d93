package xs2a

import (
	"context"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTPPSetContactEmail(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusOK, sandboxFixture(t, "contact.json"))
	resp, err := c.TPP.SetContactEmail(context.Background(), "NO-FSA-987654321", "ops@tpp.example")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := bank.only(t)
	require.Equal(t, http.MethodPut, r.Method)
	require.Equal(t, "/v1/tpps/NO-FSA-987654321/contact-information", r.Path)
	require.Equal(t, `{"email":"ops@tpp.example"}`, string(r.Body))
	require.Empty(t, r.Query)
	requireSignedWithoutPSU(t, r)
}

func TestTPPSetContactEmailBankRefuses(t *testing.T) {
	t.Parallel()
	_, c := newStubBank(t, http.StatusBadRequest,
		[]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"email","text":"email must be a plain address like ops@tpp.example"}]}`))
	resp, err := c.TPP.SetContactEmail(context.Background(), "NO-FSA-987654321", "ops@tpp.example")
	require.NotNil(t, resp)
	e := requireBankError(t, err, http.StatusBadRequest, CodeFormatError, "email")
	require.Equal(t, "tpp.setContactEmail", e.Op)
	require.Equal(t, http.MethodPut, e.Method)
}

func TestTPPContactEmail(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusOK, sandboxFixture(t, "contact.json"))
	email, resp, err := c.TPP.ContactEmail(context.Background(), "NO-FSA-987654321")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "ops@tpp.example", email)
	r := bank.only(t)
	require.Equal(t, http.MethodGet, r.Method)
	require.Equal(t, "/v1/tpps/NO-FSA-987654321/contact-information", r.Path)
	require.Empty(t, r.Body)
	requireSignedWithoutPSU(t, r)
}

// Registration is optional: without one the bank answers 404, which
// ContactEmail returns as "" and an *Error that is ErrNotFound.
func TestTPPContactEmailNotRegistered(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusNotFound, sandboxFixture(t, "error_contact_unknown.json"))
	email, resp, err := c.TPP.ContactEmail(context.Background(), "NO-FSA-987654321")
	require.Empty(t, email)
	require.NotNil(t, resp)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.ErrorIs(t, err, ErrNotFound)
	e := requireBankError(t, err, http.StatusNotFound, CodeResourceUnknown, "tppId")
	require.Equal(t, "tpp.contactEmail", e.Op)
	require.Len(t, bank.requests(), 1, "a 404 is not retried")
}

func TestTPPContactEmailEscapesID(t *testing.T) {
	t.Parallel()
	bank, c := newStubBank(t, http.StatusOK, []byte(`{"email":"ops@tpp.example"}`))
	_, _, err := c.TPP.ContactEmail(context.Background(), "urn:NO-FSA:987.654_321~x")
	require.NoError(t, err)
	r := bank.only(t)
	require.Equal(t, "/v1/tpps/urn:NO-FSA:987.654_321~x/contact-information", r.Path)
}

func TestTPPValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tppID, email string
		field              string
	}{
		{"tpp id empty", "", "ops@tpp.example", "tppID"},
		{"tpp id slash", "NO/FSA", "ops@tpp.example", "tppID"},
		{"tpp id dot dot", "..", "ops@tpp.example", "tppID"},
		{"tpp id dot", ".", "ops@tpp.example", "tppID"},
		{"tpp id query", "NO-FSA?x=1", "ops@tpp.example", "tppID"},
		{"tpp id percent", "NO%2FFSA", "ops@tpp.example", "tppID"},
		{"tpp id space", "NO FSA", "ops@tpp.example", "tppID"},
		{"tpp id newline", "NO-FSA\n1", "ops@tpp.example", "tppID"},
		{"tpp id non-ASCII", "NO-FSÅ-1", "ops@tpp.example", "tppID"},
		{"tpp id too long", strings.Repeat("A", 101), "ops@tpp.example", "tppID"},
		{"email empty", "NO-FSA-1", "", "email"},
		{"email display name", "NO-FSA-1", "Ops <ops@tpp.example>", "email"},
		{"email angle brackets", "NO-FSA-1", "<ops@tpp.example>", "email"},
		{"email no at", "NO-FSA-1", "ops.tpp.example", "email"},
		{"email no domain dot", "NO-FSA-1", "ops@localhost", "email"},
		{"email trailing dot", "NO-FSA-1", "ops@tpp.example.", "email"},
		{"email two addresses", "NO-FSA-1", "a@tpp.example, b@tpp.example", "email"},
		{"email spaces", "NO-FSA-1", " ops@tpp.example ", "email"},
		{"email comment", "NO-FSA-1", "ops@tpp.example (Ops)", "email"},
		{"email newline", "NO-FSA-1", "ops@tpp.example\r\nBcc: x@y.z", "email"},
		{"email emoji", "NO-FSA-1", "🙂@tpp.example", "email"},
		{"email too long", "NO-FSA-1", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 187) + ".no", "email"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bank, c := newStubBank(t, http.StatusOK, []byte(`{"email":"ops@tpp.example"}`))
			_, err := c.TPP.SetContactEmail(context.Background(), tc.tppID, tc.email)
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "want *ValidationError, got %T %v", err, err)
			require.Equal(t, tc.field, ve.Field)
			if tc.email != "" {
				require.NotContains(t, err.Error(), tc.email, "the error never repeats the address")
			}
			if tc.field == "tppID" {
				email, resp, err := c.TPP.ContactEmail(context.Background(), tc.tppID)
				require.Empty(t, email)
				require.Nil(t, resp)
				require.True(t, errors.As(err, &ve))
				require.Equal(t, "tppID", ve.Field)
			}
			require.Empty(t, bank.requests(), "nothing is sent")
		})
	}
}

func TestCheckContactEmailAccepts(t *testing.T) {
	t.Parallel()
	for _, email := range []string{
		"ops@tpp.example", "psd2-drift@bank.no", "first.last+tag@sub.tpp.example", "støtte@tpp.no", "o'brien@tpp.example",
	} {
		require.NoError(t, checkContactEmail("email", email), email)
	}
}

func FuzzCheckContactEmail(f *testing.F) {
	for _, s := range []string{"ops@tpp.example", "Ops <ops@tpp.example>", "a@b", `"a b"@tpp.example`, "a@[127.0.0.1]", "=?utf-8?q?x?=@tpp.example", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := checkContactEmail("email", s)
		if err == nil {
			a, perr := mail.ParseAddress(s)
			if perr != nil || a.Address != s || a.Name != "" {
				t.Fatalf("accepted %q that is not a bare address", s)
			}
			if checkText("email", s, maxEmailLen) != nil || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
				t.Fatalf("accepted %q", s)
			}
			return
		}
		// (That the error never repeats the address is checked by
		// TestTPPValidation: a short input can be a word of the message.)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "email" {
			t.Fatalf("error %v is not a *ValidationError for email", err)
		}
	})
}
