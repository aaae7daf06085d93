package xs2atest

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const modulePath = "github.com/tppkit/xs2a"

// TestNoHTTPMockDependency: importing xs2atest does not pull in httpmock
// (the canned responders live in package mockbank). It follows the imports
// of the non-test files of xs2atest and of every package of this module
// they reach, read with go/build, and fails on an import of httpmock.
func TestNoHTTPMockDependency(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	queue := []string{modulePath + "/xs2atest"}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if seen[path] {
			continue
		}
		seen[path] = true
		dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, modulePath), "/")))
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, "github.com/jarcoal/httpmock") {
				t.Errorf("%s imports %s", path, imp)
			}
			if imp == modulePath || strings.HasPrefix(imp, modulePath+"/") {
				queue = append(queue, imp)
			}
		}
	}
	if !seen[modulePath] {
		t.Errorf("the walk did not reach the root package: %v", seen)
	}
}
