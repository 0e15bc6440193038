package fixcheck

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jaekit/spar/lib/proctree"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/sandbox"
	"github.com/jaekit/spar/lib/workspace"
)

func TestMain(m *testing.M) {
	Main()
	sandbox.Main()
	// The user's build cache, named before a test moves XDG_CACHE_HOME
	// (spar's own cache) away: a check reads it through its cache program.
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	}
	if err := proctree.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		os.Exit(1)
	}
	code := m.Run()
	if benchTmpRm != "" {
		workspace.MakeWritable(benchTmpRm)
		os.RemoveAll(benchTmpRm)
	}
	os.Exit(code)
}

// repo makes a repository whose head has a bug (ratio.sh prints 1 for
// 1/0) and whose fix commit corrects it and adds a check file
// checks/ratio_test.sh; it returns the repository, the head and the fix.
func repo(t *testing.T, spar string) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write(".jaekit/spar.toml", spar)
	write("ratio.sh", "if [ \"$2\" = 0 ]; then echo 1; else echo $(($1 / $2)); fi\n")
	git("add", "-A")
	git("commit", "-qm", "head")
	head := git("rev-parse", "HEAD")
	write("ratio.sh", "if [ \"$2\" = 0 ]; then echo 0; else echo $(($1 / $2)); fi\n")
	write("checks/ratio_test.sh", "test \"$(sh ratio.sh 1 0)\" = 0 || { echo 'ratio 1 0 is not 0'; exit 1; }\necho ok\n")
	git("add", "-A")
	git("commit", "-qm", "fix")
	return dir, head, git("rev-parse", "HEAD")
}

func run(t *testing.T, dir, head, fix, command string) Result {
	t.Helper()
	res, err := Run(context.Background(), Request{Repo: dir, Head: head, Fix: fix, Command: command, Environ: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestVerifiedFix_FailsBeforePassesAfter(t *testing.T) {
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	res := run(t, dir, head, fix, "sh checks/ratio_test.sh")
	if res.Refusal != "" {
		t.Fatalf("refused: %s", res.Refusal)
	}
	c := res.Check
	if len(c.Before) != 2 || len(c.After) != 2 || c.Before[0].Exit != 1 || c.After[1].Exit != 0 {
		t.Fatalf("runs: %+v / %+v", c.Before, c.After)
	}
	if len(c.Files) != 1 || c.Files[0].Path != "checks/ratio_test.sh" || c.Files[0].AtHead != "" || c.Files[0].AtFix == "" {
		t.Fatalf("files: %+v", c.Files)
	}
	if got := string(res.Outputs[c.Before[0].Output]); !strings.Contains(got, "ratio 1 0 is not 0") {
		t.Fatalf("before output %q", got)
	}
	if c.Before[0].SHA256 == "" || c.After[0].SHA256 == "" {
		t.Fatal("no digests")
	}
	t.Logf("sandbox %s; network %s", c.Sandbox, c.Network)
}

func TestVerifiedFix_NoCheckPathsPassesBefore(t *testing.T) {
	// Without check_paths the test file is not taken into the head's
	// tree: the check cannot run there, which fails, so check a command
	// that passes without the file.
	dir, head, fix := repo(t, "")
	res := run(t, dir, head, fix, "test ! -f checks/ratio_test.sh || sh checks/ratio_test.sh")
	if !strings.Contains(res.Refusal, "passed before the fix") || !strings.Contains(res.Refusal, "lists no check_paths") {
		t.Fatalf("refusal %q", res.Refusal)
	}
}

func TestVerifiedFix_FailsAfter(t *testing.T) {
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	res := run(t, dir, head, fix, "false")
	if !strings.Contains(res.Refusal, "failed after the fix") || len(res.Check.After) != 1 {
		t.Fatalf("refusal %q, after %+v", res.Refusal, res.Check.After)
	}
}

func TestJudge_Flaky(t *testing.T) {
	// Two runs of one tree that disagree: flaky, whichever side.
	for _, c := range []round.FixCheck{
		{Command: "x", Before: []round.CheckRun{{Exit: 1}, {Exit: 1}}, After: []round.CheckRun{{Exit: 0}, {Exit: 1}}},
		{Command: "x", Before: []round.CheckRun{{Exit: 1}, {Exit: 0}}, After: []round.CheckRun{{Exit: 0}, {Exit: 0}}},
	} {
		if got := Judge(c); !strings.Contains(got, "flaky") {
			t.Fatalf("Judge = %q", got)
		}
	}
	ok := round.FixCheck{Command: "x", Before: []round.CheckRun{{Exit: 1}, {Exit: 2}}, After: []round.CheckRun{{Exit: 0}, {Exit: 0}}}
	if got := Judge(ok); got != "" {
		t.Fatalf("Judge = %q", got)
	}
}

func TestVerifiedFix_NoStateBetweenRuns(t *testing.T) {
	// A check that fails the first time it sees a mark and passes once
	// the mark exists would verify anything if the runs shared a folder:
	// HOME, TMPDIR and the tree are each run's own or read-only.
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	res := run(t, dir, head, fix, `for d in "$HOME" "$TMPDIR" .; do test -f "$d/mark" && exit 0; touch "$d/mark" 2>/dev/null; done; exit 1`)
	if !strings.Contains(res.Refusal, "failed after the fix") {
		t.Fatalf("refusal %q", res.Refusal)
	}
}

func TestVerifiedFix_NetworkClosed(t *testing.T) {
	if !sandbox.Confines() {
		t.Skip("no sandbox here")
	}
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	// Only the loopback: no other interface is up in the check's namespace.
	res := run(t, dir, head, fix, `cat /proc/net/dev; n=$(tail -n +3 /proc/net/dev | wc -l); test "$n" = 1 && grep -q '^ *lo:' /proc/net/dev || exit 3; sh checks/ratio_test.sh`)
	if res.Refusal != "" {
		t.Fatalf("refused: %s", res.Refusal)
	}
	if !strings.HasPrefix(res.Check.Network, "closed") {
		t.Fatalf("network %q", res.Check.Network)
	}
}

func TestVerifiedFix_TimeLimit(t *testing.T) {
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\ncheck_timeout_seconds = 1\n")
	res := run(t, dir, head, fix, "sleep 30")
	if !strings.Contains(res.Refusal, "time limit of 1 s") || !res.Check.Before[0].TimedOut {
		t.Fatalf("refusal %q", res.Refusal)
	}
}

func TestVerifiedFix_Regression(t *testing.T) {
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\ncheck_command = \"test \\\"$(sh ratio.sh 1 0)\\\" = 1\"\n")
	res := run(t, dir, head, fix, "sh checks/ratio_test.sh")
	if !strings.Contains(res.Refusal, "check_command") || !Regressed(res.Check) {
		t.Fatalf("refusal %q", res.Refusal)
	}
	c := res.Check
	c.Regression.Allowed = "the user: ratio 1/0 is 0 now"
	if got := Judge(c); got != "" {
		t.Fatalf("allowed: %q", got)
	}
}

func TestVerifiedFix_NetworkFailsClosed(t *testing.T) {
	if !sandbox.Confines() {
		t.Skip("no sandbox here")
	}
	// A listener of this test on the machine's loopback: a check in a
	// network namespace of its own cannot reach it (its 127.0.0.1 is
	// another), so a check that needs it fails on both sides.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	res := run(t, dir, head, fix, fmt.Sprintf(`python3 -c 'import socket; socket.create_connection(("127.0.0.1", %d), 2)' && sh checks/ratio_test.sh`, port))
	if !strings.Contains(res.Refusal, "failed after the fix") {
		t.Fatalf("refusal %q", res.Refusal)
	}
	if out := string(res.Outputs[res.Check.After[0].Output]); !strings.Contains(out, "Connection refused") {
		t.Fatalf("after output %q", out)
	}
	select {
	case <-accepted:
		t.Fatal("the check reached the machine's loopback")
	default:
	}
}

func TestVerifiedFix_GoTestWithTheReadOnlyBuildCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	dir, head, fix := repo(t, "check_paths = [\"**/*_test.go\"]\n")
	write := func(p, s string) {
		os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("checkout", "-q", head)
	write("go.mod", "module example.com/r\n\ngo 1.22\n")
	write("r.go", "package r\n\nfunc Ratio(a, b int) int { return a / b }\n")
	git("add", "-A")
	git("commit", "-qm", "go head")
	head = strings.TrimSpace(func() string {
		out, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		return string(out)
	}())
	write("r.go", "package r\n\nfunc Ratio(a, b int) int {\n\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n}\n")
	write("r_test.go", "package r\n\nimport \"testing\"\n\nfunc TestRatio(t *testing.T) {\n\tif Ratio(1, 0) != 0 {\n\t\tt.Fatal(\"x\")\n\t}\n}\n")
	git("add", "-A")
	git("commit", "-qm", "go fix")
	fix = strings.TrimSpace(func() string {
		out, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		return string(out)
	}())
	res := run(t, dir, head, fix, "go test -count=1 ./...")
	if res.Refusal != "" {
		t.Fatalf("refused: %s", res.Refusal)
	}
	if !strings.Contains(string(res.Outputs[res.Check.Before[0].Output]), "integer divide by zero") {
		t.Fatalf("before: %s", res.Outputs[res.Check.Before[0].Output])
	}
	for _, r := range append(res.Check.Before, res.Check.After...) {
		t.Logf("run: exit %d in %d ms", r.Exit, r.DurationMS)
	}
}

func TestTrust_CheckCannotWriteTheBuildCache(t *testing.T) {
	if !sandbox.Confines() || os.Getenv("GOCACHE") == "" {
		t.Skip("no sandbox, or no build cache here")
	}
	// The check learns where the user's build cache is (its cache
	// program's command line names it) and tries to plant a file there
	// for the next run: read only.
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\n")
	seed := os.Getenv("GOCACHE")
	plant := filepath.Join(seed, "planted-by-a-check")
	defer os.Remove(plant)
	res := run(t, dir, head, fix, `set -- $GOCACHEPROG; echo "seed $3"; touch "$3/planted-by-a-check" && exit 0; sh checks/ratio_test.sh`)
	if res.Refusal != "" {
		t.Fatalf("refused: %s", res.Refusal)
	}
	if _, err := os.Lstat(plant); err == nil {
		t.Fatal("the check wrote into the user's build cache")
	}
	if out := string(res.Outputs[res.Check.Before[0].Output]); !strings.Contains(out, "seed "+seed) {
		t.Fatalf("output %q", out)
	}
}

// gitRepo runs the script sh in a new repository and returns it and the
// commits tagged head and fix.
func gitRepo(t *testing.T, script string) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cmd := exec.Command("sh", "-ec", "git init -q -b main\n"+script+"\ngit rev-parse head fix")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ids := strings.Fields(string(out))
	return dir, ids[len(ids)-2], ids[len(ids)-1]
}

// Each side sees its commit's files: the head's versions of the changed,
// deleted and added files before the fix (the check files aside), the
// fix's after; the same whether one tree is swapped in place or, where a
// file of one commit is a folder of the other, two trees are built.
func TestVerifiedFix_EachSideSeesItsCommit(t *testing.T) {
	for name, extra := range map[string]string{
		"one tree swapped": "",
		"two trees":        "rm p && mkdir p && echo q > p/q && git add -A",
	} {
		t.Run(name, func(t *testing.T) {
			dir, head, fix := gitRepo(t, `mkdir -p .jaekit d && echo 'check_paths = ["checks/**"]' > .jaekit/spar.toml
echo head > a.txt && echo old > old.txt && echo p > p && echo same > d/same.txt && ln -s a.txt link
git add -A && git commit -qm head && git tag head
echo fix > a.txt && rm old.txt && echo new > new.txt && ln -sf new.txt link
mkdir checks && printf 'cat a.txt; test -f old.txt && echo old; test -f new.txt && echo new; cat link; cat d/same.txt; test "$(cat a.txt)" = fix\n' > checks/t.sh
`+extra+`
git add -A && git commit -qm fix && git tag fix`)
			res := run(t, dir, head, fix, "sh checks/t.sh")
			if res.Refusal != "" {
				t.Fatalf("refused: %s", res.Refusal)
			}
			for i := 0; i < 2; i++ {
				if got := string(res.Outputs[res.Check.Before[i].Output]); got != "head\nold\nhead\nsame\n" {
					t.Errorf("before run %d: %q", i+1, got)
				}
				if got := string(res.Outputs[res.Check.After[i].Output]); got != "fix\nnew\nnew\nsame\n" {
					t.Errorf("after run %d: %q", i+1, got)
				}
			}
		})
	}
}

func TestVerifiedFix_RequiredRefusesAnOpenNetwork(t *testing.T) {
	t.Setenv("SPAR_SANDBOX", "off")
	dir, head, fix := repo(t, "check_paths = [\"checks/**\"]\nverify_fixes = \"required\"\n")
	res := run(t, dir, head, fix, "sh checks/ratio_test.sh")
	if !strings.HasPrefix(res.Check.Network, "open") || !strings.Contains(res.Refusal, `it ran with the network open (open: no sandbox (none: turned off by SPAR_SANDBOX=off)), and the fix commit's .jaekit/spar.toml says verify_fixes = "required"`) {
		t.Fatalf("network %q, refusal %q", res.Check.Network, res.Refusal)
	}
	// optional: the record says so, and the triage goes on.
	dir, head, fix = repo(t, "check_paths = [\"checks/**\"]\n")
	if res := run(t, dir, head, fix, "sh checks/ratio_test.sh"); res.Refusal != "" {
		t.Fatalf("refused: %s", res.Refusal)
	}
}
