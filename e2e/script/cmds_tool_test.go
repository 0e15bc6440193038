package script

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/jaekit/spar/lib/sarif/multitool"
	"github.com/rogpeppe/go-internal/testscript"
)

// pinnedTools are the code-host tools scripts/install-clis builds (make
// clis), by name: their pinned version.
var pinnedTools = map[string]string{
	"reviewdog":       "v0.21.0",
	"actionlint":      "v1.7.12",
	"gitlab-ci-local": "4.60.1",
}

// toolNeeds are programs a pinned tool needs on PATH: gitlab-ci-local
// copies a job's project with rsync.
var toolNeeds = map[string][]string{"gitlab-ci-local": {"rsync"}}

// toolDir is the folder of the pinned tool name, and whether it holds the
// executable.
func toolDir(name string) (string, bool, error) {
	v, ok := pinnedTools[name]
	if !ok {
		return "", false, fmt.Errorf("%s is not a pinned tool", name)
	}
	dir := filepath.Join(multitool.CacheDir(), name+"@"+v)
	fi, err := os.Stat(filepath.Join(dir, name))
	for _, need := range toolNeeds[name] {
		if _, lerr := exec.LookPath(need); lerr != nil {
			return dir, false, nil
		}
	}
	return dir, err == nil && fi.Mode()&0o111 != 0, nil
}

// toolMissing answers [tool-missing:NAME]: the pinned tool is not installed
// and SPAR_REAL_CLI is not require, so the script may skip
// ([tool-missing:reviewdog] skip '…'); under require the tool command then
// fails instead.
func toolMissing(name string) (bool, error) {
	_, ok, err := toolDir(name)
	return !ok && os.Getenv("SPAR_REAL_CLI") != "require", err
}

// cmdTool puts each pinned tool NAME (make clis:
// <SPAR_CLI_CACHE>/<name>@<version>/<name>) first on the script's PATH, and
// fails when one is not installed.
func cmdTool(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: tool NAME...")
	}
	for _, name := range args {
		dir, ok, err := toolDir(name)
		if err != nil {
			ts.Fatalf("tool: %v", err)
		}
		if !ok {
			ts.Fatalf("tool: %s is not installed in %s, or what it needs (%v) is not on PATH (make clis installs them)", name, dir, toolNeeds[name])
		}
		ts.Setenv("PATH", dir+string(os.PathListSeparator)+ts.Getenv("PATH"))
	}
}
