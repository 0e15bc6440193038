package sign

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// roundDir is a recorded round as spar-record leaves it: its records, a
// reviewer's folder, and the workspace link.
func roundDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "code-1")
	for name, text := range map[string]string{
		"round.json":         `{"name":"code-1"}`,
		"packet.md":          "# packet\n",
		"findings.json":      `{"findings":[]}`,
		"ledger.jsonl":       "",
		"summary.md":         "# summary\n",
		"codex/stdout":       `{"type":"item.completed"}` + "\n",
		"codex/result.json":  `{"verdict":"clean"}`,
		"codex/prompt.md":    "review\n",
		"claude/stream.json": "{}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(t.TempDir(), filepath.Join(dir, "workspace"))
	return dir
}

// newKey is a throwaway Ed25519 key as ssh-keygen writes it, and the
// allowed_signers line that trusts it.
func newKey(t *testing.T, principal string) (*Key, []byte, string) {
	t.Helper()
	k, text, line, err := NewKey(principal)
	if err != nil {
		t.Fatal(err)
	}
	return k, text, line
}

func signers(t *testing.T, lines ...string) *Signers {
	t.Helper()
	s, err := ParseSigners([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSign_SignVerify(t *testing.T) {
	k, _, line := newKey(t, "spar-ci@example.org")
	trusted := signers(t, "# the CI job's key", line)
	dir := roundDir(t)
	if _, err := Verify(trusted, dir, "s", "code-1"); !errors.Is(err, ErrUnsigned) {
		t.Fatalf("unsigned: %v, want ErrUnsigned", err)
	}
	if err := Sign(k, dir, "s", "code-1"); err != nil {
		t.Fatal(err)
	}
	got, err := Verify(trusted, dir, "s", "code-1")
	if err != nil || got.Principal != "spar-ci@example.org" || !strings.HasPrefix(got.Fingerprint, "SHA256:") {
		t.Fatalf("signed: %+v %v", got, err)
	}
	// What changes after recording is not signed: triage, waivers, the
	// summary they rewrite, a staged file.
	for _, f := range []string{"ledger.jsonl", "waivers.jsonl", "summary.md", "findings.json.tmp"} {
		os.WriteFile(filepath.Join(dir, f), []byte(`{"finding":"codex-F1","disposition":"rejected"}`+"\n"), 0o644)
	}
	if _, err := Verify(trusted, dir, "s", "code-1"); err != nil {
		t.Errorf("after triage: %v", err)
	}
	// Another key signed it: untrusted, never a failure to verify.
	_, _, other := newKey(t, "someone")
	var ue *UntrustedError
	if _, err := Verify(signers(t, other), dir, "s", "code-1"); !errors.As(err, &ue) {
		t.Errorf("another key's signers: %v, want UntrustedError", err)
	}
	if _, err := Verify(nil, dir, "s", "code-1"); !errors.As(err, &ue) {
		t.Errorf("no signers: %v, want UntrustedError", err)
	}
}

// TestSign_SSHKeygenVerifies: a round's signature is OpenSSH's own format:
// the real `ssh-keygen -Y verify` accepts what spar signed (and refuses it
// for another namespace), and spar accepts what `ssh-keygen -Y sign`
// signed.
func TestSign_SSHKeygenVerifies(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		// .ci/run sets SPAR_REAL_CLI=require: there the real check is
		// never skipped (openssh-client ships ssh-keygen).
		if os.Getenv("SPAR_REAL_CLI") == "require" {
			t.Fatal("no ssh-keygen on PATH, and SPAR_REAL_CLI=require: install openssh-client")
		}
		t.Skip("no ssh-keygen on PATH")
	}
	k, pem, line := newKey(t, "spar-ci")
	work := t.TempDir()
	allowed := filepath.Join(work, "allowed_signers")
	os.WriteFile(allowed, []byte(line+"\n"), 0o644)
	dir := roundDir(t)
	if err := Sign(k, dir, "s", "code-1"); err != nil {
		t.Fatal(err)
	}
	verify := func(ns string) ([]byte, error) {
		cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", "spar-ci", "-n", ns, "-s", filepath.Join(dir, SignatureFile))
		m, _ := os.Open(filepath.Join(dir, ManifestFile))
		defer m.Close()
		cmd.Stdin = m
		return cmd.CombinedOutput()
	}
	if out, err := verify(Namespace); err != nil || !bytes.Contains(out, []byte(`Good "spar" signature for spar-ci`)) {
		t.Fatalf("ssh-keygen -Y verify: %v: %s", err, out)
	}
	if out, err := verify("git"); err == nil {
		t.Errorf("ssh-keygen verified spar's signature for the namespace git: %s", out)
	}
	// ssh-keygen signs the manifest spar would sign: spar verifies it.
	keyFile := filepath.Join(work, "id_ed25519")
	os.WriteFile(keyFile, pem, 0o600)
	os.Remove(filepath.Join(dir, SignatureFile))
	cmd := exec.Command(keygen, "-Y", "sign", "-f", keyFile, "-n", Namespace, filepath.Join(dir, ManifestFile))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v: %s", err, out)
	}
	if got, err := Verify(signers(t, line), dir, "s", "code-1"); err != nil || got.Principal != "spar-ci" {
		t.Fatalf("spar's check of ssh-keygen's signature: %+v %v", got, err)
	}
}

// TestTrust_SignedRoundEdited: every file fixed at recording is signed, the
// reviewer's raw output first of all: an edit, an added file or a removed
// one breaks the signature, and so do a signature copied from another
// round and a round given another name or series.
func TestTrust_SignedRoundEdited(t *testing.T) {
	k, _, line := newKey(t, "ci")
	trusted := signers(t, line)
	for name, edit := range map[string]func(dir string) error{
		"raw output edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "codex", "stdout"), []byte(`{"type":"item.completed","x":1}`+"\n"), 0o644)
		},
		"result edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "codex", "result.json"), []byte(`{}`), 0o644)
		},
		"round.json": func(d string) error {
			return os.WriteFile(filepath.Join(d, "round.json"), []byte(`{"name":"code-2"}`), 0o644)
		},
		"findings.json":  func(d string) error { return os.WriteFile(filepath.Join(d, "findings.json"), []byte(`{}`), 0o644) },
		"a file added":   func(d string) error { return os.WriteFile(filepath.Join(d, "codex", "extra"), nil, 0o644) },
		"a file removed": func(d string) error { return os.Remove(filepath.Join(d, "claude", "stream.json")) },
		"a file renamed": func(d string) error {
			return os.Rename(filepath.Join(d, "codex", "prompt.md"), filepath.Join(d, "codex", "prompt2.md"))
		},
		"a link for a file": func(d string) error {
			p := filepath.Join(d, "packet.md")
			os.Remove(p)
			return os.Symlink("/etc/hostname", p)
		},
		"the manifest rewritten to match": func(d string) error {
			os.WriteFile(filepath.Join(d, "codex", "result.json"), []byte(`{}`), 0o644)
			m, err := Manifest(d, "s", "code-1")
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(d, ManifestFile), m, 0o644)
		},
		"the signature copied from another round": func(d string) error {
			other := roundDir(t)
			os.WriteFile(filepath.Join(other, "round.json"), []byte(`{"name":"other"}`), 0o644)
			if err := Sign(k, other, "s", "code-1"); err != nil {
				return err
			}
			for _, f := range []string{ManifestFile, SignatureFile} {
				b, _ := os.ReadFile(filepath.Join(other, f))
				os.WriteFile(filepath.Join(d, f), b, 0o644)
			}
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := roundDir(t)
			if err := Sign(k, dir, "s", "code-1"); err != nil {
				t.Fatal(err)
			}
			if err := edit(dir); err != nil {
				t.Fatal(err)
			}
			var ue *UntrustedError
			if _, err := Verify(trusted, dir, "s", "code-1"); err == nil || errors.Is(err, ErrUnsigned) || errors.As(err, &ue) {
				t.Errorf("after %s: %v, want a signature that does not cover the round", name, err)
			}
		})
	}
	t.Run("another name or series", func(t *testing.T) {
		dir := roundDir(t)
		if err := Sign(k, dir, "s", "code-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(trusted, dir, "s", "code-3"); err == nil {
			t.Error("a round signed as code-1 verified as code-3")
		}
		if _, err := Verify(trusted, dir, "other", "code-1"); err == nil {
			t.Error("a round signed in the series s verified in another series")
		}
	})
	t.Run("an empty folder, which git does not carry", func(t *testing.T) {
		// A reviewer that kept an earlier review has an empty folder;
		// published and fetched, the folder is gone: still signed.
		dir := roundDir(t)
		os.Mkdir(filepath.Join(dir, "gemini"), 0o755)
		if err := Sign(k, dir, "s", "code-1"); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, "gemini"))
		if _, err := Verify(trusted, dir, "s", "code-1"); err != nil {
			t.Errorf("the empty folder gone: %v", err)
		}
	})
	t.Run("a reviewer named r.tmp", func(t *testing.T) {
		// G20 reserves only spar's own names with .tmp appended: a
		// reviewer's folder r.tmp is raw output, signed like any other.
		dir := roundDir(t)
		os.MkdirAll(filepath.Join(dir, "r.tmp"), 0o755)
		os.WriteFile(filepath.Join(dir, "r.tmp", "stdout"), []byte("{}\n"), 0o644)
		if err := Sign(k, dir, "s", "code-1"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "r.tmp", "stdout"), []byte(`{"forged":1}`+"\n"), 0o644)
		if _, err := Verify(trusted, dir, "s", "code-1"); err == nil {
			t.Error("an edited .tmp reviewer's output verified")
		}
	})
	t.Run("the round folder a link", func(t *testing.T) {
		dir := roundDir(t)
		link := filepath.Join(t.TempDir(), "code-2")
		os.Symlink(dir, link)
		if err := Sign(k, link, "s", "code-2"); err == nil {
			t.Error("signed a round folder that is a link")
		}
	})
}

func TestSign_Signers(t *testing.T) {
	_, _, a := newKey(t, "a")
	k, _, b := newKey(t, "b")
	keyOnly := strings.TrimPrefix(b, `b namespaces="spar" `)
	for _, tc := range []struct {
		name  string
		lines []string
		trust bool
		err   string
	}{
		{"namespaces spar", []string{a, b}, true, ""},
		{"no namespaces option", []string{"b,c@x " + keyOnly}, true, ""},
		{"quoted principals", []string{`"b@x,c@y" ` + keyOnly}, true, ""},
		{"another namespace", []string{`b namespaces="git" ` + keyOnly}, false, ""},
		{"a certificate authority", []string{`b cert-authority ` + keyOnly}, false, ""},
		{"valid before the past", []string{`b valid-before="20200101" ` + keyOnly}, false, ""},
		{"valid after the future", []string{`b valid-after="29990101Z" ` + keyOnly}, false, ""},
		{"valid now", []string{`b valid-after="20200101",valid-before="29990101" ` + keyOnly}, true, ""},
		{"no key", []string{"b"}, false, "want principals, then a key"},
		{"a bad key", []string{"b ssh-ed25519 AAAA"}, false, "the key does not read"},
		{"an unknown option", []string{`b no-pty ` + keyOnly}, false, `the option "no-pty"`},
		{"a bad time", []string{`b valid-after="yesterday" ` + keyOnly}, false, "is not YYYYMMDD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSigners([]byte(strings.Join(tc.lines, "\n")))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := s.find(k.Public(), Namespace); ok != tc.trust {
				t.Errorf("trusted: %v, want %v", ok, tc.trust)
			}
		})
	}
	if _, err := ParseSigners(bytes.Repeat([]byte("#"), maxSigners+1)); err == nil {
		t.Error("a signers file over 1 MiB was read")
	}
}

func TestSign_KeyFromEnv(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if k, err := KeyFromEnv(env("")); k != nil || err != nil {
		t.Errorf("unset: %v %v", k, err)
	}
	for text, want := range map[string]string{
		"not a key":                 "is no OpenSSH private key",
		strings.Repeat("x", 20_000): "no Ed25519 private key is that long",
	} {
		if _, err := KeyFromEnv(env(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.20q: %v, want %q", text, err, want)
		}
	}
	_, pem, _ := newKey(t, "x")
	if k, err := KeyFromEnv(env(string(pem))); err != nil || k == nil {
		t.Errorf("a key: %v", err)
	}
}
