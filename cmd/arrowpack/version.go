package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/arrowpack/arrowpack"
)

const versionUsage = "arrowpack version (or arrowpack -version)"

const versionAbout = `Prints the version of arrowpack, the Go release that built it, the
platform, the kernels in use (arrowpack.Implementation: avx2, neon or
generic) and the arrow-go version.
`

func runVersion(e *env, args []string) error {
	pos, err := parseArgs(newFlagSet("version"), args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	fmt.Fprintf(e.stdout, "arrowpack %s\n%s %s/%s, kernels %s, arrow-go %s\n",
		moduleVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, arrowpack.Implementation(), arrowGoVersion())
	return nil
}

// moduleVersion returns the arrowpack module's version as the build
// records it: a release tag, a pseudo-version, or "(devel)" with the VCS
// revision when built from a checkout.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" && (v == "(devel)" || v == "") {
		v += fmt.Sprintf(" (%.12s%s)", rev, dirty)
	}
	return v
}
