package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/tppkit/xs2a"
)

// runVersion prints one line: the command's module version from the build
// information ("v1.2.0" when installed with go install ...@v1.2.0), with
// the VCS revision (12 hex digits, "+dirty" when the tree had changes)
// when the version is "(devel)", as a build from a clone may be; then the
// SDK's xs2a.Version (sent in User-Agent), the Go version and the
// platform.
//
//	xs2a version v1.2.0 (SDK 1.2.0, go1.26.0 linux/amd64)
//	xs2a version (devel) 3e7ab41c0f2a+dirty (SDK 1.2.0, go1.26.0 linux/amd64)
func runVersion(_ context.Context, e *env, args []string) error {
	if err := parse(e, newFlags("version"), "version", args); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "xs2a version %s (SDK %s, %s %s/%s)\n", moduleVersion(e.buildInfo), xs2a.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// moduleVersion is the main module's version as read says, "(devel)"
// followed by the VCS revision when there is one, or "unknown" without
// build information.
func moduleVersion(read func() (*debug.BuildInfo, bool)) string {
	bi, ok := read()
	if !ok || bi == nil {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if v != "(devel)" {
		return line(v)
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return v + " " + line(rev) + dirty
}
