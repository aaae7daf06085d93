package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEInvoiceAgainstTheFakeBank runs the example as a user would and checks
// that the transcript teaches Flow 4: a first attempt without
// allowLogicalDuplicate, a failed SCA, a refused retry without the flag, the
// retry with it, the payment accepted once signed (PDNG), and booked after
// the batch run.
func TestEInvoiceAgainstTheFakeBank(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatalf("einvoice failed: %v\n%s", err, out.String())
	}
	transcript := out.String()
	steps := []string{
		"→ GET    /v1/users\n  ← 200 OK",
		"= callback: psu-id=",
		"Attempt 1:",
		"→ POST   /v1/payments/norwegian-domestic-credit-transfers\n  ← 201 Created",
		"= callback reports a failed SCA: status=401 code=SCA_INVALID",
		"= the payment stays RCVD at the bank",
		"→ POST   /v1/payments/norwegian-domestic-credit-transfers\n  ← 400 Bad Request",
		"= refused: 400 PAYMENT_FAILED: logical duplicate",
		"Attempt 2:",
		"→ POST   /v1/payments/norwegian-domestic-credit-transfers?allowLogicalDuplicate=true\n  ← 201 Created",
		"= callback: the payment is signed",
		"= status PDNG",
		"= the bank accepted the payment (PDNG)",
		"the bank runs a payment batch",
		"= status ACSC",
		"Done: the invoice is paid (ACSC)",
		"the TPP never changes that status itself",
	}
	at := 0
	for _, step := range steps {
		i := strings.Index(transcript[at:], step)
		if i < 0 {
			t.Fatalf("transcript lacks %q after offset %d:\n%s", step, at, transcript)
		}
		at += i + len(step)
	}
	if n := strings.Count(transcript, "?allowLogicalDuplicate=true\n  ←"); n != 1 {
		t.Errorf("allowLogicalDuplicate=true was sent %d times, want once (the retry only):\n%s", n, transcript)
	}
}

func TestEInvoiceRejectsUnknownFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-no-such-flag"}, &out); err == nil {
		t.Fatal("run accepted an unknown flag")
	}
}

func TestEInvoiceFailsForAnUnknownCustomer(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"-customer", "01010100000"}, &out)
	if err == nil || !strings.Contains(err.Error(), "registration") {
		t.Fatalf("err = %v, want the registration step to fail for a national id the bank does not know", err)
	}
}
