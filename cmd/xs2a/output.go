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

// columnWidth caps the columns of free text, by header: a longer cell is
// shortened (see shorten). -json output is never shortened.
var columnWidth = map[string]int{"NAME": 32, "PRODUCT": 24, "COUNTERPARTY": 28, "TEXT": 40}

// shorten returns s, or when it is longer than max characters, its words
// that fit in max-1 with "…" after them: cut at the last space (trailing
// punctuation dropped), or within a word when no space falls in the second
// half of the room (one long word, or a short word before a long one).
func shorten(s string, max int) string {
	r := []rune(s)
	if max <= 0 || len(r) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	cut := r[:max-1]
	if r[max-1] != ' ' {
		if i := lastSpace(cut); i >= len(cut)/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(string(cut), " ,;:-–") + "…"
}

// lastSpace is the index of the last space in r, or -1.
func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	return -1
}

// table writes rows as aligned columns under a header; each cell is one
// inert line (see line), shortened to its column's width (columnWidth).
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = line(c)
			if i < len(header) {
				cells[i] = shorten(cells[i], columnWidth[header[i]])
			}
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
