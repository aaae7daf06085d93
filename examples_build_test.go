package xs2a_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestExamplesBuild compiles every program under examples/, so an API change
// that breaks one fails here even where its own tests are not run.
func TestExamplesBuild(t *testing.T) {
	if _, err := os.Stat("examples"); err != nil {
		t.Fatalf("examples/ not found next to the package: %v", err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	out, err := exec.Command(goCmd, "build", "./examples/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./examples/... failed: %v\n%s", err, out)
	}
}
