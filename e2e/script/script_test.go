package script

// The command-line behaviour of every stage and of the driver, as testscript
// transcripts under testdata/<group>/*.txtar (README.md: the groups, the
// environment and the custom commands). Every script runs the binaries
// TestMain installed, from PATH.

import (
	"os"
	"path/filepath"
	"testing"

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
			if filepath.Base(dir) != "sandbox" {
				// The fakes of these groups log their arguments and read
				// their results in $WORK, which holds the round: only the
				// sandbox group runs reviewers in the sandbox
				// (docs/sandbox.md), the others as before.
				env.Setenv("SPAR_SANDBOX", "off")
			}
			env.Setenv("GIT_AUTHOR_NAME", "spar test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
			env.Setenv("GIT_COMMITTER_NAME", "spar test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
			env.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(env.WorkDir, ".gitconfig"))
			// Outside $WORK, which scripts often make a repository.
			cache, err := os.MkdirTemp(cacheDir, "script-")
			if err != nil {
				return err
			}
			env.Setenv("XDG_CACHE_HOME", cache)
			return os.WriteFile(filepath.Join(env.WorkDir, ".gitconfig"),
				[]byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = spar test\n\temail = test@example.invalid\n"), 0o644)
		},
		Cmds:      scriptCmds(),
		Condition: sandboxCondition(true),
	}
}
