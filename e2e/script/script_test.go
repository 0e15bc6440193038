package script

// The command-line behaviour of every stage and of the driver, as testscript
// transcripts under testdata/<group>/*.txtar (README.md: the groups, the
// environment and the custom commands). Every script runs the binaries
// TestMain installed, from PATH.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jaekit/spar/e2e/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// helpersGroup is the folder of testdata/ that holds the shell helpers and
// files several groups share ($SCRIPTDATA/helpers/…), not a group.
const helpersGroup = "helpers"

// TestScripts runs every group folder under testdata as a subtest:
// `go test -run TestScripts/g30 ./e2e/script/` runs one group,
// `-run TestScripts/g30/g30_rejected` one script.
func TestScripts(t *testing.T) {
	groups, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if !g.IsDir() || g.Name() == helpersGroup {
			continue
		}
		t.Run(g.Name(), func(t *testing.T) {
			t.Parallel()
			testscript.Run(t, Params(filepath.Join("testdata", g.Name())))
		})
	}
}

// Params is the testscript setup shared by every script group.
func Params(dir string) testscript.Params {
	testdata := filepath.Join(repoRoot, "testdata")
	scriptdata, _ := filepath.Abs("testdata")
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("TESTDATA", testdata)
			env.Setenv("SCRIPTDATA", scriptdata)
			env.Setenv("FAKEBIN", filepath.Join(testdata, "fake"))
			// The fakes' credentials: without one spar run does not
			// start codex or claude (docs/review-round.md "A CLI without
			// credentials"); a script that tests that sets it empty.
			env.Setenv("CODEX_API_KEY", fakeCodexKey)
			env.Setenv("ANTHROPIC_API_KEY", fakeClaudeKey)
			if g := filepath.Base(dir); g != "sandbox" && g != "fixcheck" {
				// The fakes of these groups log their arguments and read
				// their results in $WORK, which holds the round: only the
				// sandbox group runs reviewers in the sandbox
				// (docs/sandbox.md), and the fixcheck group its fix
				// checks; the others as before.
				env.Setenv("SPAR_SANDBOX", "off")
			}
			// Outside $WORK, which scripts often make a repository.
			cache, err := os.MkdirTemp(cacheDir, "script-")
			if err != nil {
				return err
			}
			env.Setenv("XDG_CACHE_HOME", cache)
			// Go's own caches stay the user's, not $WORK's (HOME) or the
			// script's cache folder: a fix check reads them (fixcheck).
			for k, v := range goCacheEnv() {
				env.Setenv(k, v)
			}
			return scripttest.GitEnv(env, filepath.Join(env.WorkDir, ".gitconfig"))
		},
		Cmds:      scriptCmds(),
		Condition: sandboxCondition(true),
	}
}

// goCacheEnv is GOCACHE and GOMODCACHE as go names them for this test
// process, asked once.
var goCacheEnv = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		return nil
	}
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(ls) != 2 {
		return nil
	}
	return map[string]string{"GOCACHE": ls[0], "GOMODCACHE": ls[1]}
})
