package packet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/document"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
)

// headInputs compares the inputs spar reads from the working tree (G16:
// the project configuration; G23, G26: the round documents) with the head
// commit's version of the same repository path, and reads the check paths
// the head commit's configuration lists (docs/trust.md "Inputs the agent
// can edit"). The agent under review can edit the working tree; only what
// the head commit holds is the project's.
//
// projectFiles are the working tree paths spar-config may have read the
// project configuration from; its sha256 is the one cfg.Files records (what was
// applied), so a later edit cannot make the comparison see other bytes.
func headInputs(repo string, projectFiles []string, cfg *envelope.Config, run *envelope.Run) (committed []string, dirty []envelope.DirtyInput, err error) {
	tree, err := gitx.LoadTree(repo, run.Head)
	if err != nil {
		return nil, nil, fmt.Errorf("head %s: %w", run.Head, err)
	}
	cfgSum := ""
	for _, f := range cfg.Files {
		if slices.Contains(projectFiles, f.Path) {
			cfgSum = f.SHA256
		}
	}
	return HeadInputs(HeadInputsOf{
		Repo: repo, Tree: tree, ConfigSHA256: cfgSum, Documents: run.Documents,
		Tracked: func(paths []string) (map[string]bool, error) { return trackedPaths(repo, paths) },
		Blobs:   func(ids []string) (map[string][]byte, error) { return gitx.ReadBlobs(repo, ids) },
	})
}

// HeadInputsOf is what HeadInputs compares: the inputs of one round as read
// (the project configuration's sha256, "" when none was read; the round
// documents, each with its sha256), the head commit's tree, and how to
// read its blobs and whether a path was tracked.
type HeadInputsOf struct {
	Repo         string // the working tree root, a real path
	Tree         *gitx.Tree
	ConfigSHA256 string
	Documents    []envelope.Document
	// Tracked reports which repository paths the index holds; asked only
	// for argument documents the head lacks.
	Tracked func(paths []string) (map[string]bool, error)
	// Blobs reads the head's blobs by id.
	Blobs func(ids []string) (map[string][]byte, error)
}

// HeadInputs is the one rule of which inputs differ from the head commit
// (spar-packet records it; the gate recomputes it from round.json's
// documents and the head commit instead of believing dirty_inputs and
// committed_check_paths). A document counts as a file of the repository
// when its real path lies in the working tree and the head commit or the
// index has that path; an argument document that git does not know
// (untracked) is the caller's, like one outside the repository. A project
// rule (config.rules) always counts. Absent from both the working tree and
// the head is no difference.
func HeadInputs(in HeadInputsOf) (committed []string, dirty []envelope.DirtyInput, err error) {
	type input struct {
		path, role string
		sum        string // sha256 of the working tree's bytes; "" when absent there
		known      bool   // a file of the repository even when the head lacks it
	}
	tree := in.Tree
	inputs := []input{{path: config.ProjectFile, role: "config", sum: in.ConfigSHA256, known: true}}
	var unknown []string // argument documents the head lacks: tracked?
	for _, d := range in.Documents {
		rel, ok := repoPath(in.Repo, d.Path)
		if !ok {
			continue
		}
		i := input{path: rel, role: d.Role, sum: d.SHA256, known: d.Origin == document.OriginConfig}
		if _, inHead := tree.Blob(rel); !inHead && !i.known {
			unknown = append(unknown, rel)
		}
		inputs = append(inputs, i)
	}
	tracked := map[string]bool{}
	if len(unknown) > 0 {
		if tracked, err = in.Tracked(unknown); err != nil {
			return nil, nil, err
		}
	}

	// One read for every regular head blob compared.
	var ids []string
	for _, i := range inputs {
		if b, ok := tree.Blob(i.path); ok && b.IsRegular() {
			ids = append(ids, b.ID)
		}
	}
	blobs := map[string][]byte{}
	if len(ids) > 0 {
		if blobs, err = in.Blobs(ids); err != nil {
			return nil, nil, err
		}
	}

	committed = []string{}
	if b, ok := tree.Blob(config.ProjectFile); ok && b.IsRegular() {
		// A committed configuration that does not parse commits no check
		// path; the working tree's (which spar-config accepted) then
		// differs from it, and the gate blocks the round for that.
		if cp, perr := config.ProjectCheckPaths(config.ProjectFile, blobs[b.ID]); perr == nil {
			committed = cp
		}
	}

	dirty = []envelope.DirtyInput{}
	seen := map[string]bool{}
	for _, i := range inputs {
		if seen[i.path] {
			continue // the same file in another role: compared once
		}
		seen[i.path] = true
		b, inHead := tree.Blob(i.path)
		change := ""
		switch {
		case !inHead && (i.sum == "" || !i.known && !tracked[i.path]):
			// absent from both; or an untracked argument document, which
			// is the caller's like one outside the repository
		case !inHead:
			change = "not in the head commit"
		case !b.IsRegular():
			change = "not a regular file in the head commit"
		case i.sum == "":
			change = "deleted"
		case sha(blobs[b.ID]) != i.sum:
			change = "modified"
		}
		if change != "" {
			dirty = append(dirty, envelope.DirtyInput{Path: i.path, Role: i.role, Change: change})
		}
	}
	return committed, dirty, nil
}

// repoPath is the repository path (with /) of the real absolute path p when
// it lies inside the working tree root repo (a real path too).
func repoPath(repo, p string) (string, bool) {
	rel, err := filepath.Rel(repo, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// trackedPaths reports which of the repository paths the index holds (one
// git ls-files call; literal pathspecs).
func trackedPaths(repo string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	args := []string{"ls-files", "-z", "--full-name", "--"}
	for _, p := range paths {
		args = append(args, ":(literal)"+p)
	}
	b, err := gitx.Git(repo, args...)
	if err != nil {
		return nil, err
	}
	for _, p := range gitx.SplitZ(b) {
		out[p] = true
	}
	return out, nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// WarnDirty tells on w which inputs of a dry run differ from the head
// commit (docs/trust.md): the dry round records them. A round that would
// start reviewers is refused instead (gate.DirtyInputsRefusal, spar-packet).
func WarnDirty(w io.Writer, dirty []envelope.DirtyInput) {
	for _, d := range dirty {
		what := "the " + d.Role + " document " + d.Path
		if d.Role == "config" {
			what = d.Path
		}
		fmt.Fprintf(w, "spar: %s differs from the head commit's version (%s): the round records it and the gate blocks on it; to clear: commit it and run a new round\n", what, d.Change)
	}
}
