package version

import (
	"runtime/debug"
	"testing"
)

func TestVersion_FromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "33c1b82abcdef0123456789"}}
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201094300-33c1b82abcde+dirty"}}, "0.0.0-20261201094300-33c1b82abcde+dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "0.0.0-devel+33c1b82abcde"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "0.0.0-devel+33c1b82abcde.dirty"},
		{debug.BuildInfo{}, "0.0.0-devel"},
	} {
		if got := versionOf(&c.bi); got != c.want {
			t.Errorf("versionOf(%+v) = %q, want %q", c.bi.Main, got, c.want)
		}
	}
}
