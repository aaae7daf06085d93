package xs2a_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// `TestX`, `TestX/sub`, `FuzzX`, `ExampleX`, `BenchmarkX`, then an
	// optional (path/of/file_test.go) that declares it.
	docTestRef = regexp.MustCompile("`((?:Test|Fuzz|Example|Benchmark)[A-Z_][A-Za-z0-9_]*)(?:/[^`]*)?`(?:\\s+\\(([A-Za-z0-9_./-]+_test\\.go)\\))?")
	// `xs2a.X`, `xs2a.X.Y`, `xs2atest.X`, `xs2atest.X.Y`.
	docAPIRef = regexp.MustCompile("`(xs2a|xs2atest)\\.([A-Z][A-Za-z0-9_]*)(?:\\.([A-Z][A-Za-z0-9_]*))?")
	// A rule: a list item or table row that opens with its bold id.
	docRuleID = regexp.MustCompile(`^(?:- |\| )\*\*([A-Z]+[0-9]+)\*\*`)
	// A citation of rule ids in a Go comment: "docs/interface.md G3, AIS2".
	goRuleCite = regexp.MustCompile(`interface\.md,? ((?:[A-Z]+[0-9]+)(?:(?:, | and )[A-Z]+[0-9]+)*)\b`)
)

// TestInterfaceDocCitesRealNames keeps docs/interface.md true to the code:
// every test, fuzz target, example and benchmark it names is a func of a
// _test.go file (of the very file it gives, when it gives one); every
// xs2a.X, xs2a.X.Y, xs2atest.X and xs2atest.X.Y is an exported name of that
// package; every rule has one id and names a test or says "not covered"; and
// every rule id a Go comment cites exists.
func TestInterfaceDocCitesRealNames(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("docs", "interface.md"))
	require.NoError(t, err)
	doc := string(raw)
	funcs := testFuncsByFile(t)
	apis := map[string]*apiNames{"xs2a": parseAPI(t, "."), "xs2atest": parseAPI(t, "xs2atest")}

	tests := docTestRef.FindAllStringSubmatch(doc, -1)
	require.Greater(t, len(tests), 100, "docs/interface.md names too few tests: the pattern is broken")
	for _, m := range tests {
		files := funcs[m[1]]
		if assert.NotEmpty(t, files, "docs/interface.md names %s, which no _test.go file declares", m[1]) && m[2] != "" {
			assert.True(t, files[m[2]], "docs/interface.md puts %s in %s, which does not declare it (%v)", m[1], m[2], files)
		}
	}
	refs := docAPIRef.FindAllStringSubmatch(doc, -1)
	require.Greater(t, len(refs), 100, "docs/interface.md names too few symbols: the pattern is broken")
	for _, m := range refs {
		assert.True(t, apis[m[1]].has(m[2], m[3]), "docs/interface.md names %s, which package %s does not export",
			strings.Trim(m[0], "`"), m[1])
	}
	ids := checkRules(t, doc)
	for _, cite := range ruleCitations(t) {
		assert.True(t, ids[cite.id], "%s cites docs/interface.md %s, which is no rule id", cite.file, cite.id)
	}
}

// checkRules checks that each rule id is given once and that each rule
// (its list item or table row) names a test or says it is not covered. It
// returns the ids.
func checkRules(t *testing.T, doc string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for _, rule := range docRules(doc) {
		id := docRuleID.FindStringSubmatch(rule)[1]
		assert.False(t, ids[id], "docs/interface.md gives rule id %s twice", id)
		ids[id] = true
		assert.True(t, docTestRef.MatchString(rule) || strings.Contains(strings.ToLower(rule), "not covered"),
			"docs/interface.md rule %s names no test and does not say \"not covered\"", id)
	}
	require.Greater(t, len(ids), 100, "docs/interface.md has too few rules: the pattern is broken")
	return ids
}

// docRules splits doc into its rules: a list item opening with a bold id,
// with the indented lines that continue it, or a table row opening with one.
func docRules(doc string) []string {
	var rules []string
	open := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case docRuleID.MatchString(line):
			rules = append(rules, line)
			open = strings.HasPrefix(line, "- ")
		case open && strings.HasPrefix(line, "  "):
			rules[len(rules)-1] += "\n" + line
		default:
			open = false
		}
	}
	return rules
}

// testFuncsByFile maps each Test, Fuzz, Example and Benchmark func of the
// repository's _test.go files (testdata left out) to the slash paths of the
// files that declare it.
func testFuncsByFile(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				if out[fn.Name.Name] == nil {
					out[fn.Name.Name] = map[string]bool{}
				}
				out[fn.Name.Name][filepath.ToSlash(path)] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// apiNames are the exported names of a package's non-test files: top-level
// names, and per type its methods and struct fields, with the type of each
// field that is a (pointer to a) named type, so that xs2a.Accounts.List
// resolves through Client.Accounts.
type apiNames struct {
	top     map[string]bool
	members map[string]map[string]bool // type -> method or field
	client  map[string]string          // Client field -> its type
}

// has reports whether x (and x.y when y is not empty) is exported: x a
// top-level name with member y, or x a field of Client whose type has y.
func (a *apiNames) has(x, y string) bool {
	if y == "" {
		return a.top[x]
	}
	if a.top[x] && a.members[x][y] {
		return true
	}
	typ, ok := a.client[x]
	return ok && a.members[typ][y]
}

func parseAPI(t *testing.T, dir string) *apiNames {
	t.Helper()
	a := &apiNames{top: map[string]bool{}, members: map[string]map[string]bool{}, client: map[string]string{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			a.add(decl)
		}
	}
	require.NotEmpty(t, a.top, "no exported names in %s", dir)
	return a
}

func (a *apiNames) add(decl ast.Decl) {
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			a.top[d.Name.Name] = true
		} else if typ := recvType(d.Recv.List[0].Type); typ != "" {
			a.member(typ, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.ValueSpec:
				for _, id := range s.Names {
					a.top[id.Name] = true
				}
			case *ast.TypeSpec:
				a.top[s.Name.Name] = true
				a.fields(s)
			}
		}
	}
}

// fields records the fields (and interface methods) of a type.
func (a *apiNames) fields(s *ast.TypeSpec) {
	var list *ast.FieldList
	switch typ := s.Type.(type) {
	case *ast.StructType:
		list = typ.Fields
	case *ast.InterfaceType:
		list = typ.Methods
	default:
		return
	}
	for _, field := range list.List {
		for _, id := range field.Names {
			a.member(s.Name.Name, id.Name)
			if s.Name.Name == "Client" {
				a.client[id.Name] = recvType(field.Type)
			}
		}
	}
}

func (a *apiNames) member(typ, name string) {
	if a.members[typ] == nil {
		a.members[typ] = map[string]bool{}
	}
	a.members[typ][name] = true
}

// recvType is the name of T or *T, else "".
func recvType(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

type ruleCitation struct{ file, id string }

// ruleCitations lists the rule ids that comments of the repository's Go
// files (testdata left out) cite as "docs/interface.md ID".
func ruleCitations(t *testing.T) []ruleCitation {
	t.Helper()
	var out []ruleCitation
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range goRuleCite.FindAllStringSubmatch(string(src), -1) {
			for _, id := range regexp.MustCompile(`[A-Z]+[0-9]+`).FindAllString(m[1], -1) {
				out = append(out, ruleCitation{filepath.ToSlash(path), id})
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
