package seriesref

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// publish is spar push without a remote: Prepare, then Advance.
func publish(repo, dir string, n Name) (Published, error) {
	p, err := Prepare(repo, dir, n)
	if err != nil {
		return p, err
	}
	return p, Advance(repo, n, p)
}

// A publish holds the series folder's regular files and nothing else:
// not the lock, a temporary file, a staged recording, a workspace link.
func TestPublish_HoldsTheRecordsOnly(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	dir := filepath.Join(repo, "reviews", "s")
	for p, text := range map[string]string{
		"code-1/round.json":               "{}",
		"code-1/findings.json":            "{}",
		"code-1/codex/result.json":        "{}",
		"extensions.jsonl":                "",
		".lock":                           "",
		"code-1/round.json.123.tmp":       "x",
		"code-1/.recording/findings.json": "x",
		"code-2/summary.md.tmp-1-2":       "x",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	os.Symlink("/nowhere", filepath.Join(dir, "code-1", "workspace"))
	pub, err := publish(repo, dir, checkName(t, repo, "s"))
	if err != nil {
		t.Fatal(err)
	}
	got := git(t, repo, "", "ls-tree", "-r", "--name-only", Ref("s"))
	want := "code-1/codex/result.json\ncode-1/findings.json\ncode-1/round.json\nextensions.jsonl"
	if got != want {
		t.Errorf("the ref holds:\n%s\nwant:\n%s\nleft out: %v", got, want, pub.Left)
	}
	again, err := publish(repo, dir, checkName(t, repo, "s"))
	if err != nil || again.Changed || again.Commit != pub.Commit {
		t.Errorf("a publish of an unchanged folder: %+v, %v", again, err)
	}
	os.WriteFile(filepath.Join(dir, "code-1", "ledger.jsonl"), []byte("{}\n"), 0o644)
	next, err := publish(repo, dir, checkName(t, repo, "s"))
	if err != nil || !next.Changed || next.Parent != pub.Commit {
		t.Errorf("the next publish: %+v, %v: want a child of %s", next, err, pub.Commit)
	}
}

// A fetched ref is a remote's, whoever could push it: WriteFolder writes
// only regular files at plain paths inside the folder.
func TestWriteFolder_RefusesWhatIsNoRecord(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	blob := git(t, repo, "x\n", "hash-object", "-w", "--stdin")
	for name, entry := range map[string][3]string{
		"symlink": {"120000", "link", blob},
		"dot git": {"100644", ".git", blob},
		"gitlink": {"160000", "sub", blob},
		"dot dot": {"100755", "..", blob},
		"dot":     {"100644", ".", blob},
		"slash":   {"100644", "a/../../x", blob},
	} {
		t.Run(name, func(t *testing.T) {
			commit := git(t, repo, "", "commit-tree", rawTree(t, repo, entry), "-m", "hostile")
			out := filepath.Join(t.TempDir(), "s")
			if _, err := WriteFolder(repo, commit, out); err == nil {
				t.Fatalf("%v written", entry)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Error("the folder was made")
			}
		})
	}
}

// PushCommit never forces: a remote whose ref moved elsewhere (someone
// else published the series there) rejects the push, which then says whose
// publish is there (*MovedError); the remote keeps theirs, and this clone's
// ref, which moves only after a push went through, stays.
func TestPushCommit_RemoteMovedMeanwhile(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	git(t, root, "", "init", "-q", "--bare", remote)
	prepare := func(repo, text string) Published {
		dir := filepath.Join(repo, "reviews", "s")
		os.MkdirAll(filepath.Join(dir, "code-1"), 0o755)
		os.WriteFile(filepath.Join(dir, "code-1", "round.json"), []byte(text), 0o644)
		p, err := Prepare(repo, dir, checkName(t, repo, "s"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ours, theirs := filepath.Join(root, "ours"), filepath.Join(root, "theirs")
	for _, r := range []string{ours, theirs} {
		git(t, root, "", "init", "-q", r)
		git(t, r, "", "remote", "add", "origin", remote)
	}
	first := prepare(ours, "{}")
	if err := Advance(ours, checkName(t, ours, "s"), first); err != nil {
		t.Fatal(err)
	}
	// Someone else publishes the series there first.
	other := prepare(theirs, `{"theirs":true}`)
	if err := PushCommit(theirs, "origin", checkName(t, theirs, "s"), other.Commit, 0); err != nil {
		t.Fatal(err)
	}
	next := prepare(ours, `{"next":true}`)
	err := PushCommit(ours, "origin", checkName(t, ours, "s"), next.Commit, 0)
	var moved *MovedError
	if !errors.As(err, &moved) || moved.Theirs != other.Commit || moved.Ours != first.Commit {
		t.Fatalf("push over a moved ref: %v", err)
	}
	if got := git(t, remote, "", "rev-parse", Ref("s")); got != other.Commit {
		t.Errorf("the remote's ref is %s, want theirs %s", got, other.Commit)
	}
	if got := git(t, ours, "", "rev-parse", Ref("s")); got != first.Commit {
		t.Errorf("this clone's ref moved to %s, want %s", got, first.Commit)
	}
}

// What a publish puts on the ref, WriteFolder writes back byte for byte:
// many files in nested folders (written by several writers at once), an
// empty file, a file larger than the writers' budget, names with a space,
// a quote, a backslash, control characters and UTF-8.
func TestWriteFolder_WritesWhatWasPublished(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	dir := filepath.Join(repo, "reviews", "s")
	want := map[string]string{"extensions.jsonl": "", "big/round.json": strings.Repeat("0123456789abcdef", writeBudget/16+1),
		// names fast-import reads only quoted
		"sp ace/q\"uote.json": "1", "tab\tname": "2", "nl\nname": "3", "back\\slash": "4", "\"lead": "5", "ünï/é.md": "6", "del\x7f": "7"}
	for i := 0; i < 60; i++ {
		want[filepath.ToSlash(filepath.Join("code-"+strconv.Itoa(i%7), "r"+strconv.Itoa(i%3), "f"+strconv.Itoa(i)+".json"))] = strings.Repeat("x", i*37)
	}
	for p, text := range want {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	pub, err := publish(repo, dir, checkName(t, repo, "s"))
	if err != nil || pub.Files != len(want) {
		t.Fatalf("%+v %v", pub, err)
	}
	out := filepath.Join(t.TempDir(), "s")
	n, err := WriteFolder(repo, pub.Commit, out)
	if err != nil || n != len(want) {
		t.Fatalf("WriteFolder: %d files, %v", n, err)
	}
	got := 0
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		b, _ := os.ReadFile(p)
		if w, ok := want[filepath.ToSlash(rel)]; !ok || string(b) != w {
			t.Errorf("%s: %d bytes, want %d (listed %v)", rel, len(b), len(w), ok)
		}
		got++
		return nil
	})
	if got != len(want) {
		t.Errorf("%d files written, want %d", got, len(want))
	}
}

func checkName(t *testing.T, repo, name string) Name {
	t.Helper()
	n, err := CheckName(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A Name is one CheckName gave: the zero Name reaches no ref.
func TestName_UncheckedIsRefused(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	if _, err := Prepare(repo, repo, Name{}); err == nil {
		t.Error("Prepare took an unchecked name")
	}
	if err := Advance(repo, Name{}, Published{}); err == nil {
		t.Error("Advance took an unchecked name")
	}
	if _, err := Fetch(repo, "origin", Name{}, 0); err == nil {
		t.Error("Fetch took an unchecked name")
	}
	for _, bad := range []string{"", "a/b", "a..b", "a:b", "a b", ".a", "a.lock", "a~1", "a^", "a*"} {
		if _, err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted it", bad)
		}
	}
}

// CheckName takes exactly the names git takes as the last component of
// refs/spar/series/<name>: git check-ref-format itself is asked about each
// name (and a name with / or \ is no series folder name at all).
func TestCheckName_AgreesWithGit(t *testing.T) {
	names := []string{
		"login", "login-2", "a.b", "a_b", "@", "a@b", "a@", "@a", "ümlaut", "a#b", "a!b", "a{b}", "a]", "a%", "a'b", `a"b`, "a=b", "a,b", "a+b", "a;b",
		"", ".a", "a.", "a..b", "a.lock", "a.lock.b", "lock", ".lock", "a@{b", "a@{", "@{", "{a",
		"a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\tb", "a\x01b", "a\x7fb", "a\nb",
		"..", ".", "a...", "-a", "a-", "HEAD", "refs", "a.loc", "A.LOCK",
	}
	for _, c := range "!\"#$%&'()*+,-.:;<=>?@[]^_`{|}~ " {
		names = append(names, "a"+string(c)+"b", string(c)+"a", "a"+string(c))
	}
	for _, name := range names {
		_, err := CheckName(name)
		cmd := exec.Command("git", "check-ref-format", Ref(name))
		gitTakes := cmd.Run() == nil
		if (err == nil) != gitTakes {
			t.Errorf("CheckName(%q): %v; git check-ref-format %s: takes it %v", name, err, Ref(name), gitTakes)
		}
	}
}

// FuzzCheckName: on any name without / or \, CheckName agrees with git.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"login", "a..b", "a.lock", "a@{b", ".a", "a b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsAny(name, "/\\\x00") {
			return // no series folder name; NUL cannot reach git's argv
		}
		_, err := CheckName(name)
		gitTakes := exec.Command("git", "check-ref-format", Ref(name)).Run() == nil
		if (err == nil) != gitTakes {
			t.Errorf("CheckName(%q): %v; git takes it: %v", name, err, gitTakes)
		}
	})
}

// Remote: the one given, else the current branch's upstream remote, else
// origin, else none; a remote is one with a URL.
func TestRemote_Choice(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q", "-b", "main")
	git(t, repo, "", "commit", "-q", "--allow-empty", "-m", "one")
	check := func(given, want string, wantErr bool) {
		t.Helper()
		got, err := Remote(repo, given)
		if (err != nil) != wantErr || got != want {
			t.Errorf("Remote(%q) = %q, %v; want %q (error %v)", given, got, err, want, wantErr)
		}
	}
	check("", "", false)
	check("origin", "", true)
	git(t, repo, "", "remote", "add", "origin", "/nowhere/origin.git")
	check("", "origin", false)
	git(t, repo, "", "remote", "add", "up.stream", "/nowhere/up.git")
	git(t, repo, "", "config", "branch.other.remote", "up.stream")
	check("", "origin", false) // another branch's upstream
	git(t, repo, "", "config", "branch.main.remote", "up.stream")
	check("", "up.stream", false)
	check("origin", "origin", false)
	check("gone", "", true)
	git(t, repo, "", "config", "branch.main.remote", "gone")
	check("", "origin", false) // an upstream that is no remote
	git(t, repo, "", "config", "branch.main.remote", "up.stream")
	git(t, repo, "", "checkout", "-q", "--detach")
	check("", "origin", false) // no current branch
	// A remote without a URL is none.
	git(t, repo, "", "config", "remote.nourl.fetch", "+refs/heads/*:refs/remotes/nourl/*")
	check("nourl", "", true)
}

// TestCause: a failed git call says git's own cause, hint: lines dropped,
// bounded and on one line (docs/usage.md §7.1).
func TestCause(t *testing.T) {
	hints := "hint: Support for <GIT_DIR>/info/grafts is deprecated\nhint: and will be removed\nhint: \n"
	for name, c := range map[string]struct{ stderr, want string }{
		"rejected": {hints + "remote: no spar refs        \nremote:     \nTo ../r.git\n ! [remote rejected] HEAD -> refs/spar/series/x (pre-receive hook declined)\nerror: failed to push some refs to '../r.git'\n",
			"remote: no spar refs; ! [remote rejected] HEAD -> refs/spar/series/x (pre-receive hook declined); error: failed to push some refs to '../r.git'"},
		"fatal":       {hints + "fatal: couldn't find remote ref refs/spar/series/x\n", "fatal: couldn't find remote ref refs/spar/series/x"},
		"other line":  {hints + "ssh: connect to host h port 22: Connection refused\nmore\n", "ssh: connect to host h port 22: Connection refused"},
		"only hints":  {hints, "exit status 1"},
		"escaped":     {"remote: \x1b[31mred\n", `remote: \x1b[31mred`},
		"many lines":  {strings.Repeat("remote: x\n", 20), strings.Repeat("remote: x; ", 7) + "(13 more lines)"},
		"a long line": {"error: " + strings.Repeat("y", 400), "error: " + strings.Repeat("y", 293) + "…"},
	} {
		if got := cause(c.stderr, errors.New("exit status 1")); got != c.want {
			t.Errorf("%s: cause = %q, want %q", name, got, c.want)
		}
	}
}
