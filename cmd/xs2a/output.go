package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// table writes rows as aligned columns under a header.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		for i := range r {
			r[i] = oneLine(r[i]) // a tab or newline in bank text would break the columns
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON, for scripts.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// output prints v as JSON under -json, else as the table rows make.
func output(e *env, asJSON bool, v any, header []string, rows func() [][]string) error {
	if asJSON {
		return writeJSON(e.stdout, v)
	}
	return table(e.stdout, header, rows())
}
