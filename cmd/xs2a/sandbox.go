package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tppkit/xs2a"
)

const sandboxSynopsis = "sandbox init | sandbox customers [-json] [-base-url URL (-p12 FILE | -cert FILE -key FILE)]"

// sandboxWords are the sandbox command's words.
var sandboxWords = []string{"init", "customers"}

// runSandbox runs "sandbox init" (reset the sandbox's data) and "sandbox
// customers" (list its customers and their accounts). "sandbox -h" prints
// the usage and the flags both take.
func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		_, _, err := clientCommand(e, "sandbox", sandboxSynopsis, args[:1], nil, nil)
		return err
	}
	if len(args) == 0 || !slices.Contains(sandboxWords, args[0]) {
		return usagef("sandbox: want init or customers (see xs2a sandbox -h)")
	}
	sub := args[0]
	b, bk, err := clientCommand(e, "sandbox "+sub, sandboxSynopsis, args[1:], nil, nil)
	if err != nil {
		return err
	}
	defer bk.close()
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	if sub == "init" {
		if _, err := bk.client.Sandbox.Initialize(ctx); err != nil {
			return err
		}
		if b.json {
			return writeJSON(e.stdout, map[string]bool{"initialized": true})
		}
		fmt.Fprintln(e.stdout, "sandbox initialized: the sandbox customers and their accounts are as new")
		return nil
	}
	list, _, err := bk.client.Sandbox.Customers(ctx, &xs2a.CustomersOptions{IncludeAccounts: true, IncludeAgreements: true})
	if err != nil {
		return err
	}
	return output(e, b.json, list, []string{"CUSTOMER", "TYPE", "NAME", "ACCOUNTS"}, func() [][]string {
		rows := make([][]string, 0, len(list))
		for _, c := range list {
			var accts []string
			for _, a := range c.Accounts {
				accts = append(accts, firstNonEmpty(a.BBAN, a.MaskedPAN))
			}
			rows = append(rows, []string{c.CustomerNumber, string(c.CustomerType), c.Name, strings.Join(accts, " ")})
		}
		return rows
	})
}
