package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCorporateAgainstTheFakeBank runs the example as a user would and checks
// that the transcript walks Flow 2 in order: corporate consent, the 400
// without PSU-CORPORATE-ID, the agreement switch with its new SCA, and the
// two-signer payment through PATC to PDNG, where the bank has accepted it,
// and after the batch run to ACSC.
func TestCorporateAgainstTheFakeBank(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("corporate failed: %v\n%s", err, out.String())
	}
	transcript := out.String()
	steps := []string{
		"→ GET    /v1/accounts\n  ← 401 Unauthorized",
		"context=CORPORATE (persist both)",
		"→ GET    /v1/accounts   [PSU-ID, PSU-CORPORATE-ID]\n  ← 200 OK",
		"→ GET    /v1/accounts   [PSU-ID]\n  ← 400 Bad Request",
		"= refused: 400 CORPORATE_ID_INVALID: errors.Is(err, xs2a.ErrCorporateIDRequired) is true",
		"→ GET    /v1/agreements",
		"= 2 agreements",
		"→ GET    /v1/accounts   [PSU-ID, PSU-CORPORATE-ID]\n  ← 401 Unauthorized",
		"psu-corporate-id is the picked agreement's id",
		"Investeringskonto",
		"→ POST   /v1/payments/norwegian-domestic-credit-transfers   [PSU-ID, PSU-CORPORATE-ID]\n  ← 201 Created",
		"signature 1 of 2",
		"= status PATC",
		"from the status answer's link",
		"/authorisations   [PSU-ID, PSU-CORPORATE-ID]\n  ← 201 Created",
		"signature 2 of 2",
		"names no authorisation to read",
		"= status PDNG",
		"both have signed: the bank accepted the payment (PDNG)",
		"the bank runs a payment batch",
		"= status ACSC",
		"Done: the payment signed by both representatives reached the final status ACSC",
	}
	at := 0
	for _, step := range steps {
		i := strings.Index(transcript[at:], step)
		if i < 0 {
			t.Fatalf("transcript lacks %q after offset %d:\n%s", step, at, transcript)
		}
		at += i + len(step)
	}
	if n := strings.Count(transcript, "= status PATC"); n != 1 {
		t.Errorf("PATC reported %d times, want once (OnPATC fires once per PATC episode):\n%s", n, transcript)
	}
}

func TestCorporateRejectsUnknownFlags(t *testing.T) {
	if err := run(context.Background(), []string{"-no-such-flag"}, &bytes.Buffer{}); err == nil {
		t.Fatal("run accepted an unknown flag")
	}
}
