package xs2a_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestExamplesBuild type-checks and compiles every program under examples/
// without linking them (go list -export), so an API change that breaks one
// fails here even where only this package's tests run. Linking five
// binaries, as go build does, cost tens of seconds on a busy machine and
// found nothing more; go build ./... and the examples' own tests run in CI.
func TestExamplesBuild(t *testing.T) {
	if _, err := os.Stat("examples"); err != nil {
		t.Fatalf("examples/ not found next to the package: %v", err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command(goCmd, "list", "-export", "-f", "{{.ImportPath}}", "./examples/...").CombinedOutput()
	if err != nil {
		t.Fatalf("the examples do not compile (go list -export ./examples/...): %v\n%s", err, out)
	}
}
