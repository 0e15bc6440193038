// Package version says which spar this is, from the build's module
// information: one answer for `spar --version` and the SARIF spar writes.
package version

import (
	"runtime/debug"
	"strings"
)

// String is spar's version (spar --version, SARIF's tool.driver.version), from
// the build's module information: the module version when the binary was
// built at a version (go install …@v1.2.3, or go build in a git checkout,
// which stamps a pseudo-version such as v0.0.0-20260102030405-abcdef012345,
// "+dirty" when the tree had changes); otherwise "devel", with the VCS
// revision the build recorded when there is one (0.0.0-devel+abcdef012345,
// 0.0.0-devel+abcdef012345.dirty). The Multitool's SARIF2005 wants a
// version that starts with a digit, so the module version's leading "v" is
// dropped and the fallback is 0.0.0-devel.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return devel
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return devel
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		return devel + "+" + rev + ".dirty"
	}
	return devel + "+" + rev
}

const devel = "0.0.0-devel"
