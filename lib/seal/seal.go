// Package seal is a CI job's mark on the rounds it recorded: an HMAC-SHA256,
// under a key only the job holds (SPAR_SEAL_KEY, a secret of the CI
// system), of every file of the round that is fixed once the round is
// recorded. Review in CI reuses a reviewer's earlier completed review of
// the same input only from a round that carries the job's seal: a round
// the agent under review forged and published before the job ran carries
// none, so the job reviews the input itself (docs/trust.md "Records in git
// and the gate in CI").
//
// The seal is no signature anyone else can check: only a holder of the key
// can tell a sealed round from a forged one, and only the job uses it.
package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jaekit/spar/lib/atomic"
	"github.com/jaekit/spar/lib/round"
)

// EnvVar names the key. Set, spar run seals every round it records and
// reuses a reviewer's earlier review only from a round sealed with it.
const EnvVar = "SPAR_SEAL_KEY"

// File is the seal in a round folder. It starts with a dot, which no
// reviewer name does (G20), so it never meets a reviewer's folder.
const File = ".seal.json"

// Schema is the seal's schema name; it is also the first line of what the
// MAC is taken over, so a MAC of anything else never verifies.
const Schema = "spar-seal/v1"

// MinKey is the shortest key taken: a key a person could guess is no key.
const MinKey = 16

// maxFiles bounds the files a round folder may hold for a seal: a round of
// 100 reviewers holds a few hundred.
const maxFiles = 10_000

// unsealed are the files of a round folder that change after it was
// recorded (triage, waivers, the summary they rewrite), the seal itself,
// the workspace link and a recording being staged: what the seal leaves
// out. Anything else, reviewer
// folders included, is sealed.
var unsealed = map[string]bool{
	round.LedgerFile: true, round.WaiversFile: true, round.SummaryFile: true,
	File: true, round.WorkspaceDir: true, round.RecordingDir: true,
}

type document struct {
	Schema string `json:"schema"`
	MAC    string `json:"mac"`
}

// Key is the key in the environment getenv reads: "" when it is not set,
// an error when it is set but shorter than MinKey bytes.
func Key(getenv func(string) string) (string, error) {
	k := getenv(EnvVar)
	if k == "" {
		return "", nil
	}
	if len(k) < MinKey {
		return "", fmt.Errorf("%s holds %d bytes: a seal key is at least %d (a random secret of the CI system)", EnvVar, len(k), MinKey)
	}
	return k, nil
}

// manifest is the sealed files of the round folder dir, one line each,
// "<sha256 hex>  <path with />" ("-  <path>/" for a folder), in path
// order, after the schema line. A
// file that is no regular file (a link, a FIFO), or more than maxFiles, is
// an error: a recorded round holds none.
func manifest(dir string) ([]byte, error) {
	type line struct{ path, sum string }
	var lines []line
	// The round folder itself is a folder, not a link to one: WalkDir walks
	// nothing of a link, and a seal of nothing would verify anything.
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, errors.New("the round folder is no folder (a link?)")
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		// A staged file (NAME.tmp) is left out only as a file: a reviewer
		// may be named "r.tmp" (G20 reserves spar's own names with .tmp
		// appended, no more), and its folder is raw output.
		if !strings.Contains(rel, "/") && (unsealed[rel] || (strings.HasSuffix(rel, ".tmp") && d.Type().IsRegular())) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if len(lines) == maxFiles {
			return fmt.Errorf("more than %d files", maxFiles)
		}
		if d.IsDir() {
			// A folder is a line of its own, so that an empty one added
			// breaks the seal too.
			lines = append(lines, line{rel + "/", "-"})
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file: a recorded round holds none", rel)
		}
		b, err := round.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, line{rel, hex.EncodeToString(sum[:])})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(lines, func(a, b int) bool { return lines[a].path < lines[b].path })
	var b strings.Builder
	b.WriteString(Schema + "\n")
	for _, l := range lines {
		// A path holds no newline (spar's names do not): quoted all the
		// same, so that no path can pass for two lines.
		fmt.Fprintf(&b, "%s  %q\n", l.sum, l.path)
	}
	return []byte(b.String()), nil
}

func mac(key string, m []byte) []byte {
	h := hmac.New(sha256.New, []byte(key))
	h.Write(m)
	return h.Sum(nil)
}

// Sign writes the seal of the round folder dir under key, atomically.
func Sign(key, dir string) error {
	m, err := manifest(dir)
	if err != nil {
		return fmt.Errorf("seal %s: %w", dir, err)
	}
	b, _ := json.Marshal(document{Schema: Schema, MAC: hex.EncodeToString(mac(key, m))})
	return atomic.WriteFile(filepath.Join(dir, File), append(b, '\n'), 0o644)
}

// ErrNoSeal is a round folder without a seal.
var ErrNoSeal = errors.New("no seal")

// Verify checks the seal of the round folder dir under key: nil when it is
// the seal of the folder's sealed files as they are now; ErrNoSeal without
// one; another error for a seal that does not match (a file edited, added
// or removed since, another key) or cannot be read.
func Verify(key, dir string) error {
	b, err := round.ReadFile(filepath.Join(dir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNoSeal
	}
	if err != nil {
		return err
	}
	var d document
	if err := json.Unmarshal(b, &d); err != nil || d.Schema != Schema {
		return fmt.Errorf("%s is no %s seal", File, Schema)
	}
	got, err := hex.DecodeString(d.MAC)
	if err != nil {
		return fmt.Errorf("%s: the mac is not hexadecimal", File)
	}
	m, err := manifest(dir)
	if err != nil {
		return err
	}
	if !hmac.Equal(got, mac(key, m)) {
		return errors.New("the seal does not match the round's files under this key")
	}
	return nil
}

// Unset removes the key from this process's environment once it was read,
// so that nothing this process starts (a reviewer, git) can read it.
func Unset() { os.Unsetenv(EnvVar) }
