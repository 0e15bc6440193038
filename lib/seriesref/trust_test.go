package seriesref

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jaekit/spar/lib/round"
)

// rawTree writes a tree object of entries (mode, name, id) as given, in
// that order, with git hash-object --literally: names git mktree would
// refuse (.., a duplicate) included. It returns the tree's id.
func rawTree(t *testing.T, repo string, entries ...[3]string) string {
	t.Helper()
	var b bytes.Buffer
	for _, e := range entries {
		id, err := hex.DecodeString(e[2])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e[0] + " " + e[1] + "\x00")
		b.Write(id)
	}
	return git(t, repo, b.String(), "hash-object", "-t", "tree", "--literally", "-w", "--stdin")
}

// times is n entries of one object: names prefix0 … prefix<n-1>.
func times(n int, mode, prefix, id string) [][3]string {
	out := make([][3]string, n)
	for i := range out {
		out[i] = [3]string{mode, prefix + strings.Repeat("0", 5-len(itoa(i))) + itoa(i), id}
	}
	return out
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

func commitOf(t *testing.T, repo, tree string) string {
	t.Helper()
	return git(t, repo, "", "commit-tree", tree, "-m", "hostile")
}

// refused: WriteFolder refuses commit and makes no folder.
func refused(t *testing.T, repo, commit, want string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "s")
	n, err := WriteFolder(repo, commit, out)
	if err == nil {
		t.Fatalf("written: %d files", n)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to say %q", err, want)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Error("the folder was made")
	}
}

// A ref of a few kilobytes can name millions of files (one folder named a
// thousand times, a thousand times over) or nest empty folders a billion
// times (git ls-tree -r prints nothing for them, for as long as it walks):
// WriteFolder counts every entry, folders too, and refuses a tree over
// MaxEntries entries, MaxBytes bytes or MaxDepth levels before it writes
// anything, stopping git as soon as a bound is passed.
func TestTrust_FetchedTreeIsBounded(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	empty := git(t, repo, "", "hash-object", "-w", "--stdin")
	t.Run("files", func(t *testing.T) {
		t0 := rawTree(t, repo, times(1000, "100644", "f", empty)...)
		t1 := rawTree(t, repo, times(MaxEntries/1000+1, "40000", "d", t0)...)
		refused(t, repo, commitOf(t, repo, t1), "entries")
	})
	t.Run("empty folders", func(t *testing.T) {
		e := git(t, repo, "", "mktree")
		for i := 0; i < 3; i++ {
			e = rawTree(t, repo, times(1000, "40000", "d", e)...)
		}
		refused(t, repo, commitOf(t, repo, e), "entries")
	})
	t.Run("bytes", func(t *testing.T) {
		big := git(t, repo, strings.Repeat("x", 1<<20), "hash-object", "-w", "--stdin")
		t0 := rawTree(t, repo, times(64, "100644", "f", big)...)
		t1 := rawTree(t, repo, times(MaxBytes/(64<<20)+1, "40000", "d", t0)...)
		refused(t, repo, commitOf(t, repo, t1), "bytes")
	})
	t.Run("depth", func(t *testing.T) {
		tree := rawTree(t, repo, [3]string{"100644", "round.json", empty})
		for i := 0; i < MaxDepth; i++ {
			tree = rawTree(t, repo, [3]string{"40000", "d", tree})
		}
		refused(t, repo, commitOf(t, repo, tree), "levels")
	})
	t.Run("nothing", func(t *testing.T) {
		refused(t, repo, commitOf(t, repo, git(t, repo, "", "mktree")), "no file")
	})
}

// Names that are .git on some file system (NTFS drops trailing dots and
// spaces, knows git~1 and streams after ":", HFS+ ignores zero-width
// characters; both ignore case), and two names that are one file where case
// does not count: WriteFolder refuses them all, before it writes anything.
func TestTrust_FetchedNamesAreOneFileEach(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	blob := git(t, repo, "x\n", "hash-object", "-w", "--stdin")
	for _, name := range []string{".git", ".GIT", ".git.", ".git ", ".git. .", "git~1", "GIT~1", ".git::$INDEX_ALLOCATION", ".g\u200cit", "\ufeff.git", ".gi\u200dt"} {
		for _, mode := range []string{"100644", "40000"} {
			entry := [3]string{mode, name, blob}
			if mode == "40000" {
				entry[2] = rawTree(t, repo, [3]string{"100644", "config", blob})
			}
			t.Run(mode+" "+name, func(t *testing.T) {
				refused(t, repo, commitOf(t, repo, rawTree(t, repo, entry)), "not a path inside a series folder")
			})
		}
	}
	t.Run("case", func(t *testing.T) {
		a := rawTree(t, repo, [3]string{"100644", "round.json", blob})
		b := rawTree(t, repo, [3]string{"100644", "ROUND.json", blob})
		tree := rawTree(t, repo, [3]string{"40000", "CODE-1", a}, [3]string{"40000", "code-1", b})
		refused(t, repo, commitOf(t, repo, tree), "the same file")
	})
	t.Run("twice", func(t *testing.T) {
		tree := rawTree(t, repo, [3]string{"100644", "round.json", blob}, [3]string{"100644", "round.json", blob})
		refused(t, repo, commitOf(t, repo, tree), "the same file")
	})
}

// A ref that is no commit (a tree, a blob, an annotated tag) is no
// publish: Fetch refuses it and leaves this clone's ref as it was; Head
// refuses a local ref that is no commit.
func TestTrust_FetchedRefIsACommit(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	git(t, root, "", "init", "-q", "--bare", remote)
	blob := git(t, remote, "x\n", "hash-object", "-w", "--stdin")
	tree := rawTree(t, remote, [3]string{"100644", "round.json", blob})
	commit := commitOf(t, remote, tree)
	git(t, remote, "", "tag", "-a", "-m", "t", "t", commit)
	tag := git(t, remote, "", "rev-parse", "t")
	clone := filepath.Join(root, "clone")
	git(t, root, "", "init", "-q", clone)
	git(t, clone, "", "remote", "add", "origin", remote)
	for name, id := range map[string]string{"tree": tree, "blob": blob, "tag": tag} {
		t.Run(name, func(t *testing.T) {
			git(t, remote, "", "update-ref", Ref(name), id)
			n := checkName(t, clone, name)
			_, err := Fetch(clone, "origin", n, 0)
			if !errors.Is(err, ErrNoPublish) {
				t.Errorf("Fetch of a %s: %v, want ErrNoPublish", name, err)
			}
			if got, _ := Head(clone, n); got != "" {
				t.Errorf("this clone's ref moved to the %s %s", name, got)
			}
			git(t, clone, "", "update-ref", Ref(name), id)
			if got, err := Head(clone, n); !errors.Is(err, ErrNoPublish) {
				t.Errorf("Head of a local ref at a %s: %q, %v, want ErrNoPublish", name, got, err)
			}
		})
	}
}

// A remote's name is never read by git as an option: a remote configured
// under the name --upload-pack=<command> runs no command when it is given
// to Fetch, RemoteHead or PushCommit.
func TestTrust_RemoteNameIsNoOption(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	git(t, root, "", "init", "-q", "--bare", remote)
	clone := filepath.Join(root, "clone")
	git(t, root, "", "init", "-q", clone)
	mark := filepath.Join(root, "ran")
	name := "--upload-pack=touch " + mark + ";git-upload-pack"
	git(t, clone, "", "config", "remote."+name+".url", remote)
	pushName := "--receive-pack=touch " + mark + ";git-receive-pack"
	git(t, clone, "", "config", "remote."+pushName+".url", remote)
	n := checkName(t, clone, "s")
	if got, err := Remote(clone, name); err != nil || got != name {
		t.Fatalf("Remote: %q, %v", got, err)
	}
	Fetch(clone, name, n, 0)
	RemoteHead(clone, name, n, 0)
	blob := git(t, clone, "x\n", "hash-object", "-w", "--stdin")
	commit := commitOf(t, clone, rawTree(t, clone, [3]string{"100644", "round.json", blob}))
	PushCommit(clone, pushName, n, commit, 0)
	if _, err := os.Stat(mark); err == nil {
		t.Error("a remote's name ran a command")
	}
}

// What spar push publishes, spar fetch takes: a series folder that holds
// more than a fetch takes (a file over a record's size, two names that are
// one file where case does not count, a name that is .git on another file
// system) is refused by Prepare, and nothing is published.
func TestTrust_PublishHoldsWhatFetchTakes(t *testing.T) {
	for name, make := range map[string]func(dir string) error{
		"a file over a record's size": func(dir string) error {
			f, err := os.Create(filepath.Join(dir, "code-1", "codex", "stdout"))
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(round.MaxRecord + 1) // sparse: nothing is read
		},
		"one file where case does not count": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "code-1", "ROUND.json"), []byte("{}"), 0o644)
		},
		"a name that is .git on NTFS": func(dir string) error {
			return os.MkdirAll(filepath.Join(dir, ".git.", "hooks"), 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			git(t, repo, "", "init", "-q")
			dir := filepath.Join(repo, "reviews", "s")
			os.MkdirAll(filepath.Join(dir, "code-1", "codex"), 0o755)
			os.WriteFile(filepath.Join(dir, "code-1", "round.json"), []byte("{}"), 0o644)
			if err := make(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := publish(repo, dir, checkName(t, repo, "s")); err == nil || !strings.Contains(err.Error(), "spar fetch would refuse it") {
				t.Fatalf("published, or refused for another reason: %v", err)
			}
			if got := git(t, repo, "", "for-each-ref", Ref("s")); got != "" {
				t.Errorf("the ref was written: %s", got)
			}
		})
	}
}

// WriteFolder removes the folder it made when it fails after making it, and
// never a folder it did not make (spar fetch removed --out on any error,
// so a folder made there by someone else between spar fetch's check and
// WriteFolder was deleted).
func TestTrust_FetchRemovesOnlyItsOwnFolder(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	blob := git(t, repo, "hello\n", "hash-object", "-w", "--stdin")
	commit := commitOf(t, repo, rawTree(t, repo, [3]string{"100644", "round.json", blob}))

	t.Run("someone else's folder", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "s")
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, "theirs"), []byte("x"), 0o644)
		if _, err := WriteFolder(repo, commit, out); err == nil {
			t.Fatal("written into a folder that exists")
		}
		if _, err := os.Stat(filepath.Join(out, "theirs")); err != nil {
			t.Errorf("their file is gone: %v", err)
		}
	})
	t.Run("its own folder", func(t *testing.T) {
		// The blob's loose object cut short: its header (and so ls-tree's
		// size) reads, its content does not, so cat-file fails after the
		// folder was made.
		obj := filepath.Join(repo, ".git", "objects", blob[:2], blob[2:])
		raw, err := os.ReadFile(obj)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(obj, 0o644)
		if err := os.WriteFile(obj, raw[:len(raw)-8], 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "s")
		if _, err := WriteFolder(repo, commit, out); err == nil {
			t.Fatal("a corrupt object was written")
		}
		if _, err := os.Lstat(out); err == nil {
			t.Error("the folder WriteFolder made is left behind")
		}
	})
}

// A fetch writes each file new: never through a link or over a file that
// is already in the folder. A link planted at a path of the ref (someone
// writing into the new folder) fails the fetch and its target keeps its
// content; two entries that one file system takes for one file (é
// composed and decomposed on macOS, which folderCheck cannot tell apart on
// Linux: here the same path twice) fail it too, instead of the second
// file's content replacing the first's.
func TestTrust_FetchWritesEachFileNew(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "", "init", "-q")
	a := git(t, repo, "first\n", "hash-object", "-w", "--stdin")
	b := git(t, repo, "second\n", "hash-object", "-w", "--stdin")
	t.Run("a planted link", func(t *testing.T) {
		target := filepath.Join(t.TempDir(), "bashrc")
		os.WriteFile(target, []byte("mine\n"), 0o644)
		out := filepath.Join(t.TempDir(), "s")
		os.Mkdir(out, 0o755)
		os.Symlink(target, filepath.Join(out, "round.json"))
		_, err := writeEntries(repo, []entry{{path: "round.json", id: a, size: 6}}, out)
		if err == nil || !strings.Contains(err.Error(), "already written") {
			t.Errorf("written through a link: %v", err)
		}
		if got, _ := os.ReadFile(target); string(got) != "mine\n" {
			t.Errorf("the link's target now holds %q", got)
		}
	})
	t.Run("one file twice", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "s")
		os.Mkdir(out, 0o755)
		_, err := writeEntries(repo, []entry{{path: "é.json", id: a, size: 6}, {path: "é.json", id: b, size: 7}}, out)
		if err == nil || !strings.Contains(err.Error(), "two paths of the ref are one file") {
			t.Errorf("a second file of one name: %v", err)
		}
	})
}

// A remote that never answers holds spar no longer than its time limit:
// git fetch, ls-remote and push are stopped (ErrTimeout), with what they
// started (here the ssh command, which never ends by itself) still
// running, and nothing moves: no ref of the series, fetched or not.
func TestTrust_HangingRemote(t *testing.T) {
	root := t.TempDir()
	// The "ssh" git starts: it writes its pid and never answers.
	pids := fakeSSH(t, root, "echo $$ >> \"$PIDS\"\nexec sleep 600\n")
	clone := filepath.Join(root, "clone")
	git(t, root, "", "init", "-q", clone)
	git(t, clone, "", "remote", "add", "origin", "ssh://hang.invalid/x.git")
	n := checkName(t, clone, "s")
	blob := git(t, clone, "x\n", "hash-object", "-w", "--stdin")
	commit := commitOf(t, clone, rawTree(t, clone, [3]string{"100644", "round.json", blob}))
	for name, call := range map[string]func() error{
		"fetch":     func() error { _, err := Fetch(clone, "origin", n, time.Second); return err },
		"ls-remote": func() error { _, err := RemoteHead(clone, "origin", n, time.Second); return err },
		"push":      func() error { return PushCommit(clone, "origin", n, commit, time.Second) },
	} {
		t0 := time.Now()
		err := call()
		t.Logf("%s: %v after %s", name, err, time.Since(t0).Round(time.Millisecond))
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no end after 1s") {
			t.Errorf("%s from a remote that never answers: %v, want ErrTimeout", name, err)
		}
	}
	if refs := git(t, clone, "", "for-each-ref", "refs/spar/"); refs != "" {
		t.Errorf("refs after the stopped transfers: %q", refs)
	}
	if b, _ := os.ReadFile(pids); len(strings.Fields(string(b))) != 3 {
		t.Errorf("the fake ssh ran %d times, want 3 (one per call): %q", len(strings.Fields(string(b))), b)
	}
}

// A process git leaves behind holding its pipes (an ssh master kept for
// later connections) does not fail a transfer that went well: spar waits
// for it no longer than pipeGrace and takes git's answer.
func TestRemoteGit_ChildHoldsThePipes(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	git(t, root, "", "init", "-q", "--bare", remote)
	// "ssh": leaves a sleeper with its stderr, then runs the real command.
	fakeSSH(t, root, "(sleep 30 </dev/null >/dev/null & echo $! >> \"$PIDS\")\nwhile [ \"$1\" != host ]; do shift; done\nshift\nexec sh -c \"$*\"\n")
	clone := filepath.Join(root, "clone")
	git(t, root, "", "init", "-q", clone)
	git(t, clone, "", "remote", "add", "origin", "ssh://host"+remote)
	n := checkName(t, clone, "s")
	blob := git(t, clone, "x\n", "hash-object", "-w", "--stdin")
	commit := commitOf(t, clone, rawTree(t, clone, [3]string{"100644", "round.json", blob}))
	t0 := time.Now()
	if err := PushCommit(clone, "origin", n, commit, time.Minute); err != nil {
		t.Fatalf("push: %v", err)
	}
	t.Logf("push: %s", time.Since(t0).Round(time.Millisecond))
	if got, err := RemoteHead(clone, "origin", n, time.Minute); err != nil || got != commit {
		t.Errorf("ls-remote: %q, %v; want %s", got, err, commit)
	}
}

// fakeSSH makes the ssh git runs (GIT_SSH_COMMAND) the shell script body,
// in which $PIDS names a file to write the process IDs to kill at the
// test's end into; it returns that file.
func fakeSSH(t *testing.T, root, body string) string {
	t.Helper()
	pids, ssh := filepath.Join(root, "pids"), filepath.Join(root, "ssh")
	if err := os.WriteFile(ssh, []byte("#!/bin/sh\nPIDS='"+pids+"'\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(pids)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	t.Setenv("GIT_SSH_COMMAND", ssh)
	return pids
}
