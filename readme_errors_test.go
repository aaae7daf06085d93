package xs2a_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every exported error of the package, each type with an Error() string
// method and each Err... variable, has a row in the README's Errors table,
// written as xs2a.Name, so a new error cannot ship undocumented.
func TestREADMEErrorsTableListsEveryError(t *testing.T) {
	t.Parallel()
	names := exportedErrors(t)
	require.Contains(t, names, "Error", "the package's errors were not found")
	require.Contains(t, names, "ErrOutcomeUnknown", "the package's errors were not found")
	listed := readmeTableNames(t, "README.md", "## Errors")
	for _, name := range names {
		assert.True(t, listed[name], "README.md's Errors table has no row naming xs2a.%s", name)
	}
}

// exportedErrors lists, sorted, the exported error types and Err...
// variables declared in the package's non-test files.
func exportedErrors(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	found := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			for _, n := range errorNames(decl) {
				if ast.IsExported(n) {
					found[n] = true
				}
			}
		}
	}
	var out []string
	for n := range found {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// errorNames returns the Err... variables a declaration declares, or the
// receiver type of an Error() string method.
func errorNames(decl ast.Decl) []string {
	switch d := decl.(type) {
	case *ast.GenDecl:
		if d.Tok != token.VAR {
			return nil
		}
		var out []string
		for _, spec := range d.Specs {
			for _, id := range spec.(*ast.ValueSpec).Names {
				if strings.HasPrefix(id.Name, "Err") {
					out = append(out, id.Name)
				}
			}
		}
		return out
	case *ast.FuncDecl:
		if d.Recv == nil || d.Name.Name != "Error" || d.Type.Params.NumFields() != 0 || d.Type.Results.NumFields() != 1 {
			return nil
		}
		if res, ok := d.Type.Results.List[0].Type.(*ast.Ident); !ok || res.Name != "string" {
			return nil
		}
		recv := d.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		if id, ok := recv.(*ast.Ident); ok {
			return []string{id.Name}
		}
	}
	return nil
}

// readmeTableNames returns the names written as xs2a.Name in the table rows
// of the README section that starts with heading (up to the next "## ").
func readmeTableNames(t *testing.T, path, heading string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	qualified := regexp.MustCompile(`xs2a\.([A-Za-z0-9_]+)`)
	names := map[string]bool{}
	in, rows := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "## "):
			in = false
		case in && strings.HasPrefix(line, "|"):
			rows++
			for _, m := range qualified.FindAllStringSubmatch(line, -1) {
				names[m[1]] = true
			}
		}
	}
	require.NoError(t, sc.Err())
	require.Positive(t, rows, "%s has no table under %q", path, heading)
	return names
}
