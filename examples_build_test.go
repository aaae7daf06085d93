package xs2a_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// goTool returns the go command of the toolchain running the tests, or the
// one on PATH.
func goTool(t *testing.T) string {
	t.Helper()
	name := "go"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if root := runtime.GOROOT(); root != "" {
		if p := filepath.Join(root, "bin", name); fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: not in GOROOT/bin and not on PATH: %v", err)
	}
	return p
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// TestExamplesBuild compiles every program under examples/, so an API change
// that breaks one fails here even where its own tests are not run.
func TestExamplesBuild(t *testing.T) {
	if _, err := os.Stat("examples"); err != nil {
		t.Fatalf("examples/ not found next to the package: %v", err)
	}
	cmd := exec.Command(goTool(t), "build", "./examples/...")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./examples/... failed: %v\n%s", err, out)
	}
}
