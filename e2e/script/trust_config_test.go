package script

// Route 11 of docs/trust.md ("Git, readers and bounded work"): a
// configuration file nested deep or grown large, planted in the working
// tree's .jaekit/spar.toml or named by SPAR_CONFIG, is refused before it
// is parsed: exit 65, "<file>:<line>: …", and little memory. (The committed
// file: lib/config TestTrust_Route11_TOMLNesting.)

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestTrust_Route11_TOMLNesting(t *testing.T) {
	if binDir == "" {
		t.Skip("the stage binaries were not built")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if out, err := exec.Command("sh", "-c", `set -e
git init -q "$1"; cd "$1"
git config user.name m; git config user.email m@example.invalid
echo a > a.txt; git add . && git commit -qm base`, "sh", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	// 40 KB of nested inline tables: 1.85 GB of memory before the bounds.
	bomb := "check_paths = [\"t/**\"]\n" + strings.Repeat("a = {b = ", 5000) + "1" + strings.Repeat("}", 5000) + "\n"
	big := strings.Repeat("# a comment line of the configuration\n", 7000)
	none := filepath.Join(dir, "none.toml")
	// spar runs the stages from this test binary: a child's peak resident
	// set counts this process's pages at its exec too. The bound is over
	// the same command on no configuration at all, measured the same way.
	run := func(project, user string) (*exec.Cmd, []byte) {
		os.RemoveAll(filepath.Join(repo, ".jaekit"))
		if project != "" {
			os.MkdirAll(filepath.Join(repo, ".jaekit"), 0o755)
			os.WriteFile(filepath.Join(repo, ".jaekit", "spar.toml"), []byte(project), 0o644)
		}
		u := none
		if user != "" {
			u = filepath.Join(dir, "u.toml")
			os.WriteFile(u, []byte(user), 0o644)
		}
		cmd := exec.Command(filepath.Join(binDir, "spar"), "config", "--repo", repo)
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME=", "SPAR_CONFIG="+u,
			"CLEAN_REVIEW_CONFIG="+filepath.Join(dir, "none.json"))
		out, _ := cmd.CombinedOutput()
		return cmd, out
	}
	rss := func(cmd *exec.Cmd) int64 { return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 }
	base, out := run("", "")
	if base.ProcessState.ExitCode() != 0 {
		t.Fatalf("spar config without a configuration: %s", out)
	}
	for _, c := range []struct {
		name, project, user, want string
	}{
		{"worktree", bomb, "", ".jaekit/spar.toml:2: arrays and tables nest deeper than spar reads (at most 32 levels): refused before parsing"},
		{"SPAR_CONFIG", "", bomb, "u.toml:2: arrays and tables nest deeper than spar reads (at most 32 levels): refused before parsing"},
		{"SPAR_CONFIG size", "", big, "u.toml:6899: the configuration file is larger than 262144 bytes, the most spar reads: refused before parsing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, out := run(c.project, c.user)
			if code := cmd.ProcessState.ExitCode(); code != 65 || !strings.Contains(string(out), c.want) {
				t.Errorf("exit %d, want 65 and %q:\n%s", code, c.want, out)
			}
			if extra := rss(cmd) - rss(base); extra > 100<<20 {
				t.Errorf("peak memory %d MB over spar config without a configuration", extra>>20)
			}
		})
	}
}
