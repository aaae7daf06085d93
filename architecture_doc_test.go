package xs2a

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The places docs/architecture.md names: "file.go: name, name" (each name
// declared in that file) and `name` in backquotes (declared in the SDK or
// the fake bank).
var (
	archFileNames = regexp.MustCompile(`([a-z_0-9/]+\.go): ([A-Za-z_][\w.]*(?:, [A-Za-z_][\w.]*)*)`)
	archFile      = regexp.MustCompile(`\b([a-z_0-9]+\.go)\b`)
	archQuoted    = regexp.MustCompile("`([A-Za-z_][\\w.]*)`")
)

// archDirs are the packages docs/architecture.md describes.
var archDirs = []string{".", "xs2atest", filepath.Join("xs2atest", "internal", "bank"), "redisstore"}

// TestArchitectureDocNamesRealCode: every file docs/architecture.md names
// exists, every function or type it puts in a file is declared there, and
// every name it quotes is declared in one of the packages it describes, so
// that the page a newcomer reads first stays true of the code.
func TestArchitectureDocNamesRealCode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("docs", "architecture.md"))
	require.NoError(t, err)
	doc := string(raw)
	byFile := map[string]map[string]bool{} // file name -> names declared in it, over archDirs
	all := map[string]bool{}
	for _, dir := range archDirs {
		for file, names := range declaredNames(t, dir) {
			if byFile[file] == nil {
				byFile[file] = map[string]bool{}
			}
			for n := range names {
				byFile[file][n], all[n] = true, true
			}
		}
	}
	files := archFile.FindAllStringSubmatch(doc, -1)
	require.Greater(t, len(files), 20, "the file pattern is broken")
	for _, m := range files {
		assert.NotNil(t, byFile[m[1]], "docs/architecture.md names %s, which no package it describes holds", m[1])
	}
	pairs := archFileNames.FindAllStringSubmatch(doc, -1)
	require.Greater(t, len(pairs), 10, "the file: names pattern is broken")
	for _, m := range pairs {
		file := filepath.Base(m[1])
		for _, name := range strings.Split(m[2], ", ") {
			assert.True(t, byFile[file][name], "docs/architecture.md puts %s in %s, which does not declare it", name, file)
		}
	}
	for _, m := range archQuoted.FindAllStringSubmatch(doc, -1) {
		name := m[1]
		if strings.HasSuffix(name, ".go") || strings.Contains(name, "/") {
			continue
		}
		assert.True(t, all[name] || all[name[strings.LastIndex(name, ".")+1:]] || isKnownOutside(name),
			"docs/architecture.md quotes %s, which no package it describes declares", name)
	}
}

// isKnownOutside reports names of other modules the page quotes.
func isKnownOutside(name string) bool {
	switch name {
	case "xs2a", "xs2atest", "mockbank", "redisstore", "browsertest", "xs2aotel", "bank":
		return true // packages
	}
	return strings.HasPrefix(name, "jsontext.") || strings.HasPrefix(name, "uuid.") || strings.HasPrefix(name, "http.") ||
		strings.HasPrefix(name, "json.")
}

// declaredNames parses the non-test Go files of dir and returns, per file
// name, the functions ("name" and "Type.name" for methods), types, constants
// and variables it declares.
func declaredNames(t *testing.T, dir string) map[string]map[string]bool {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		names := map[string]bool{}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names[d.Name.Name] = true
				if d.Recv != nil && len(d.Recv.List) == 1 {
					names[recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		out[filepath.Base(p)] = names
	}
	return out
}

// recvName is the type name of a method's receiver.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
