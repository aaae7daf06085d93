package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestQuickstartAgainstTheFakeBank runs the README's first command as a user
// would, and checks the transcript walks both flows: the poll ends when the
// bank accepts the signed payment (PDNG), and goes on to the final status
// once the fake bank's batch run books it.
func TestQuickstartAgainstTheFakeBank(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("quickstart failed: %v\n%s", err, out.String())
	}
	transcript := out.String()
	for _, step := range []string{
		"→ GET    /v1/accounts\n  ← 401 Unauthorized",
		"= callback to the TPP-Redirect-URI: psu-id=",
		"← 200 OK\n    = 2 accounts consented to",
		"/balances\n  ← 200 OK",
		"/transactions\n  ← 200 OK",
		"→ POST   /v1/payments/norwegian-domestic-credit-transfers\n  ← 201 Created",
		"/authorisations\n  ← 201 Created",
		"= callback: the payment is signed",
		"= status PDNG\n    = the bank accepted the payment (PDNG)",
		"… the bank runs a payment batch",
		"= status ACSC\n",
	} {
		if !strings.Contains(transcript, step) {
			t.Errorf("transcript lacks %q:\n%s", step, transcript)
		}
	}
	last := strings.TrimSpace(transcript[strings.LastIndex(strings.TrimSpace(transcript), "\n")+1:])
	if last != "Done: the payment reached the final status ACSC" {
		t.Errorf("transcript ends with %q, want a final payment status", last)
	}
}

func TestQuickstartRefusesARealSandboxWithoutCertificate(t *testing.T) {
	err := run(context.Background(), []string{"-base-url", "https://psd2.bank.example/api"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-p12") {
		t.Fatalf("err = %v, want a hint about the certificate flags", err)
	}
}
