package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/filekind"
)

// Source kinds of the applied record's source.kind (docs/pipeline.md "User source").
const (
	KindSparConfig  = "SPAR_CONFIG"
	KindXDG         = "XDG_CONFIG_HOME"
	KindHome        = "HOME"
	KindCleanReview = "clean-review"
	KindDefault     = "default"
)

// candidate is one path of the user source order.
type candidate struct {
	kind, path string
}

// userCandidates lists spar's own user sources in order (docs/pipeline.md "User source"). An
// empty environment variable is absent (G16): it gives no candidate.
func userCandidates(getenv func(string) string) []candidate {
	var c []candidate
	if p := getenv("SPAR_CONFIG"); p != "" {
		c = append(c, candidate{KindSparConfig, p})
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		c = append(c, candidate{KindXDG, filepath.Join(x, "jaekit", "spar.toml")})
	}
	if h := getenv("HOME"); h != "" {
		c = append(c, candidate{KindHome, filepath.Join(h, ".config", "jaekit", "spar.toml")})
	}
	return c
}

// cleanReviewPath chooses clean-review's config.json as clean-review does
// (docs/pipeline.md "User source"): CLEAN_REVIEW_CONFIG, else $XDG_CONFIG_HOME/clean-review,
// else ~/.config/clean-review. Only the chosen path is looked at.
func cleanReviewPath(getenv func(string) string) (string, bool) {
	if p := getenv("CLEAN_REVIEW_CONFIG"); p != "" {
		return p, true
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "clean-review", "config.json"), true
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "clean-review", "config.json"), true
	}
	return "", false
}

// readSource reads a configuration file by G16. A missing path, a broken
// symbolic link and a symbolic link loop are absent (ok false, no error).
// An existing path must be, or resolve to, a regular file; anything else,
// and a stat or read that fails for another reason, is a configuration
// error naming the path.
func readSource(path string) (data []byte, ok bool, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		if absent(err) {
			return nil, false, nil
		}
		return nil, false, pathErr(path, "cannot stat the configuration file: %v", unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, false, pathErr(path, "the configuration file is not a regular file (%s)", filekind.Of(fi.Mode()))
	}
	// Never more than one byte past MaxFileSize: the parse refuses the
	// file then, and a file of gigabytes is not read whole first.
	f, err := os.Open(path)
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
		f.Close()
	}
	if err != nil {
		return nil, false, pathErr(path, "cannot read the configuration file: %v", unwrapPath(err))
	}
	return data, true, nil
}

// absent reports whether a stat error means the path does not exist: no
// entry, a broken symbolic link (ENOENT through the link), a loop (ELOOP),
// or a path component that is a file (ENOTDIR: nothing can exist below it).
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR)
}

func fileRecord(path string, data []byte) envelope.ConfigFile {
	sum := sha256.Sum256(data)
	return envelope.ConfigFile{Path: path, SHA256: hex.EncodeToString(sum[:])}
}

// absPath makes path absolute (against the working directory) without
// resolving symbolic links: the path as spar opened it.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// EditFile is the user configuration file to edit for the source src
// (setup help: spar config --check): the file the reviewers came from when
// it is spar's own, else the first of spar's sources (SPAR_CONFIG,
// $XDG_CONFIG_HOME/jaekit/spar.toml, ~/.config/jaekit/spar.toml) that
// getenv allows: the one a new file there would be read from (said so when
// it is a missing file SPAR_CONFIG names).
func EditFile(src envelope.Source, getenv func(string) string) string {
	switch src.Kind {
	case KindSparConfig, KindXDG, KindHome:
		if src.Path != "" {
			return src.Path
		}
	}
	if c := userCandidates(getenv); len(c) > 0 {
		if c[0].kind == KindSparConfig {
			if p := MissingSparConfig(src, getenv); p != "" {
				// Never advise editing a file as if it existed.
				return p + " (SPAR_CONFIG names it, and it does not exist: correct SPAR_CONFIG or create the file)"
			}
		}
		return c[0].path
	}
	return "~/.config/jaekit/spar.toml"
}

// DescribeSource says in a few words where the applied reviewers came from:
// "the default list (no user configuration file)", "SPAR_CONFIG
// /path/spar.toml", with "; --reviewers a,b" when that chose them.
func DescribeSource(c *envelope.Config) string {
	s := c.Source.Kind
	if c.Source.Kind == KindDefault {
		s = "the default list (no user configuration file)"
	} else if c.Source.Path != "" {
		s += " " + c.Source.Path
	}
	if c.Override != nil {
		s += "; " + c.Override.Kind + " " + strings.Join(c.Override.Names, ",")
	}
	return s
}
