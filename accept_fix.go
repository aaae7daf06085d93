package xs2a

import (
	"context"
	"slices"
	"strings"
)

// AcceptFix is a value of the x-accept-fix header, which turns on optional
// early-access behaviour of the interface per request (docs/interface.md,
// Versioning). Several fixes are sent as one comma-separated header. Values
// other than the constants below are sent as they are, so a fix announced
// after this release can be used without an SDK update.
type AcceptFix string

// The fixes of docs/interface.md's Versioning table.
const (
	// AmountAsString serializes amounts as strings. Default at the bank since
	// 08.2020; sending it is harmless.
	AmountAsString AcceptFix = "amount-as-string"
	// CardAccountSwitchAmounts maps transactionAmount and originalAmount of
	// card transactions correctly (they were swapped before). The SDK sends it
	// on card transaction calls unless the caller removes it with
	// ContextWithoutAcceptFixes; see CardAccountsService.Transactions.
	CardAccountSwitchAmounts AcceptFix = "cardaccount-switch-originalamount-and-transactionamount"
	// LongerNames allows account and card account names of up to 70 characters.
	LongerNames AcceptFix = "longer-names"
	// CashAccountTypeISO maps cashAccountType to ISO 20022 codes.
	CashAccountTypeISO AcceptFix = "cash-account-type-iso"
)

// Default reports whether the bank applies the fix without the header
// (docs/interface.md, Versioning).
func (f AcceptFix) Default() bool { return f == AmountAsString }

// valid reports whether f can be sent in the header: printable ASCII
// (docs/interface.md G2: the backend refuses what it cannot
// process), without the list's comma, spaces or quotes.
func (f AcceptFix) valid() bool {
	return headerSafe(string(f), 200) && !strings.ContainsAny(string(f), ", \"")
}

type acceptFixKey struct{}

// acceptFixCtx is the per-call adjustment carried by a context.
type acceptFixCtx struct {
	add, remove []AcceptFix
}

// ContextWithAcceptFixes returns a context under which calls also send the
// given fixes, on top of the client's (WithAcceptFixes):
//
//	ctx = xs2a.ContextWithAcceptFixes(ctx, xs2a.LongerNames)
//	accounts, _, err := client.Accounts.List(ctx, psu)
func ContextWithAcceptFixes(ctx context.Context, fixes ...AcceptFix) context.Context {
	return adjustFixes(ctx, fixes, nil)
}

// ContextWithoutAcceptFixes returns a context under which calls do not send
// the given fixes, even when the client or the SDK would. For
// CardAccountSwitchAmounts the SDK then maps the legacy (swapped) amounts
// back itself, so CardTransaction.TransactionAmount keeps its meaning; do
// not remove that fix once the bank has made it its default.
func ContextWithoutAcceptFixes(ctx context.Context, fixes ...AcceptFix) context.Context {
	return adjustFixes(ctx, nil, fixes)
}

// adjustFixes is ctx with add added to its adjustment and remove removed
// (each in new slices: a parent context's lists are never written).
func adjustFixes(ctx context.Context, add, remove []AcceptFix) context.Context {
	cur, _ := ctx.Value(acceptFixKey{}).(acceptFixCtx)
	less := func(list, drop []AcceptFix) []AcceptFix {
		return slices.DeleteFunc(slices.Clone(list), func(f AcceptFix) bool { return slices.Contains(drop, f) })
	}
	return context.WithValue(ctx, acceptFixKey{}, acceptFixCtx{
		add:    slices.Concat(less(cur.add, remove), add),
		remove: slices.Concat(less(cur.remove, add), remove),
	})
}
