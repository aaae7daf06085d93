package xs2a

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithMeansClientOption: every exported func of the package named
// With... returns a client Option and nothing else, so that a reader of
// xs2a.WithX(...) knows it goes to NewClient. What adjusts a Signer is a
// field of SignerOptions, which NewClient cannot take (nor can NewSigner
// take an Option): the two cannot be mixed up, by a reader or the compiler.
func TestWithMeansClientOption(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || !strings.HasPrefix(fn.Name.Name, "With") {
				continue
			}
			found++
			res := fn.Type.Results
			ok = res != nil && len(res.List) == 1 && len(res.List[0].Names) <= 1
			if ok {
				id, isIdent := res.List[0].Type.(*ast.Ident)
				ok = isIdent && id.Name == "Option"
			}
			assert.True(t, ok, "%s (%s) is named as a client option but does not return Option", fn.Name.Name, name)
		}
	}
	assert.Greater(t, found, 10, "the client options found")
}
