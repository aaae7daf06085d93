package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tppkit/xs2a/internal/inert"
)

// Everything the command prints that a bank (or a callback, or an error)
// wrote passes through internal/inert: table cells, messages on standard
// error and links through line, -json output through inert.JSON. No
// control, bidi or format character reaches the terminal raw.

// line is s as one inert line: inert.Text, white space folded into single
// spaces (a tab or newline in bank text would break a table's columns or
// an error's one line).
func line(s string) string { return strings.Join(strings.Fields(inert.Text(s, 0)), " ") }

// table writes rows as aligned columns under a header.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = line(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON, for scripts. C1 controls, U+2028,
// U+2029 and format characters (bidi among them) are written as \u escapes,
// which a JSON reader decodes to the same text; encoding/json escapes the
// C0 controls itself.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(inert.JSON(buf.Bytes()))
	return err
}

// output prints v as JSON under -json, else as the table rows make.
func output(e *env, asJSON bool, v any, header []string, rows func() [][]string) error {
	if asJSON {
		return writeJSON(e.stdout, v)
	}
	return table(e.stdout, header, rows())
}
