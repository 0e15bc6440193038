package script

// Script commands about the workspace's place (registered in cmds_test.go;
// docs/review-round.md "The workspace").

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tidwall/gjson"
)

// wsenv NAME ROUND
//
// ROUND/workspace is a symbolic link to a folder of
// $XDG_CACHE_HOME/jaekit/spar/workspaces/, the path ROUND/round.json
// records as workspace; NAME is set to it. The folder itself may be gone
// (removed after recording: the link dangles).
func cmdWsEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: wsenv NAME ROUND")
	}
	round := ts.MkAbs(args[1])
	target, err := os.Readlink(filepath.Join(round, "workspace"))
	if err != nil {
		ts.Fatalf("%s/workspace is not a symbolic link: %v", args[1], err)
	}
	cache, err := filepath.EvalSymlinks(ts.Getenv("XDG_CACHE_HOME"))
	if err != nil {
		ts.Fatalf("XDG_CACHE_HOME: %v", err)
	}
	if filepath.Dir(target) != filepath.Join(cache, "jaekit", "spar", "workspaces") {
		ts.Fatalf("%s/workspace links to %s, not to a folder of %s/jaekit/spar/workspaces", args[1], target, cache)
	}
	b, err := os.ReadFile(filepath.Join(round, "round.json"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if got := gjson.GetBytes(b, "workspace").String(); got != target {
		ts.Fatalf("round.json workspace %q, the link names %q", got, target)
	}
	ts.Setenv(args[0], target)
}

// rmrf-unprivileged DIR
//
// `rm -rf DIR` succeeds for a user without privileges and DIR is gone.
// Run as root (the tests' usual case), DIR is moved into a new folder of
// the temporary folder, given (with everything in it) to the user nobody
// (65534), and rm runs as nobody through setpriv; as any other user, rm
// runs as that user in place. Either way rm must empty every folder under
// DIR, which it cannot do for a read-only one (the old workspace's).
func cmdRmUnprivileged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: rmrf-unprivileged DIR")
	}
	dir := ts.MkAbs(args[0])
	var cmd *exec.Cmd
	if os.Getuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			ts.Fatalf("running as root without setpriv: cannot run rm as an unprivileged user")
		}
		// Every folder above DIR must let nobody through: /tmp does.
		parent, err := os.MkdirTemp("", "spar-rm-")
		if err != nil {
			ts.Fatalf("%v", err)
		}
		defer os.RemoveAll(parent)
		moved := filepath.Join(parent, filepath.Base(dir))
		if err := os.Rename(dir, moved); err != nil {
			ts.Fatalf("%v", err)
		}
		dir = moved
		os.Chmod(parent, 0o755)
		filepath.WalkDir(parent, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				os.Lchown(p, 65534, 65534)
			}
			return nil
		})
		cmd = exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "rm", "-rf", dir)
	} else {
		cmd = exec.Command("rm", "-rf", dir)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		ts.Fatalf("rm -rf %s as an unprivileged user: %v\n%s", args[0], err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Lstat(dir); err == nil {
		ts.Fatalf("%s is still there", args[0])
	}
}
