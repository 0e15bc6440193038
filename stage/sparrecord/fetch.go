package sparrecord

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/publog"
	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/seriesref"
)

const fetchUsage = `usage: spar fetch NAME --out DIR [--remote NAME] [--repo DIR] [--timeout SECONDS]

Fetches refs/spar/series/NAME, a series published with spar push, and
writes its files as the series folder DIR, to gate (spar gate DIR) or to
triage. DIR must not exist and must be ignored by every Git repository that
contains it, like any record folder (reviews/ in .gitignore). No published
series is an error, never an empty folder: "no review was published".
The commits the records name come with it (refs/spar/commits/NAME, which
spar push keeps: a rebased branch no longer holds them), and a shallow
clone is fetched whole (git fetch --unshallow): the gate asks git whether
the head holds each fix and where it meets --expect-base, which a history
cut short may answer wrongly.
  --out DIR      the series folder to write
  --remote NAME  the remote to fetch from (default: the current branch's
                 upstream remote, else origin)
  --repo DIR     the repository (default: the one of the current folder)
  --timeout SECONDS
                 the most the git fetch from the remote may take (default
                 600): git is stopped past it and nothing is written
Exit codes: 0 written, 64 usage error, 65 refused or nothing published,
74 I/O or git error.

Example:
  spar fetch login --out reviews/login
`

// runFetch is `spar-record fetch NAME --out DIR [--remote NAME] [--repo DIR] [--timeout SECONDS]`.
func runFetch(args []string, stdout, stderr io.Writer) error {
	p, err := parseArgs("fetch", args, []string{"out", "remote", "repo", "timeout"})
	if p.help {
		fmt.Fprint(stdout, fetchUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), fetchUsage)
	}
	if len(p.pos) != 1 {
		return usageError(fmt.Sprintf("fetch: want one series NAME, got %d arguments", len(p.pos)), fetchUsage)
	}
	if !p.given["out"] {
		return usageError("fetch: --out is required", fetchUsage)
	}
	timeout, err := timeoutFlag("fetch", p)
	if err != nil {
		return usageError(err.Error(), fetchUsage)
	}
	name, out := p.pos[0], p.vals["out"]
	where := "."
	if p.given["repo"] {
		where = p.vals["repo"]
	}
	repo, err := gitx.TopLevel(where)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("fetch: %q is not inside a git repository", where))
	}
	sn, err := seriesref.CheckName(name)
	if err != nil {
		return exitcode.New(exitcode.Config, "fetch: "+err.Error())
	}
	if err := recordpath.CheckNewFolder(out); err != nil {
		return exitcode.New(exitcode.Config, "fetch: --out "+err.Error())
	}
	remote, err := seriesref.Remote(repo, p.vals["remote"])
	if err != nil {
		return exitcode.New(exitcode.Config, "fetch: "+err.Error())
	}
	commit := ""
	if remote == "" {
		// No remote: the repository's own ref (a series published
		// locally).
		if commit, err = seriesref.Head(repo, sn); err == nil && commit == "" {
			err = seriesref.ErrNoRef
		}
	} else {
		commit, err = seriesref.Fetch(repo, remote, sn, timeout)
		if err == nil {
			// The commits the records name (refs/spar/commits/NAME),
			// and in a shallow clone the whole history.
			_, err = seriesref.FetchKept(repo, remote, sn, timeout)
		}
	}
	if errors.Is(err, seriesref.ErrNoRef) {
		from := "the repository"
		if remote != "" {
			from = "the remote " + remote
		}
		return exitcode.New(exitcode.Config, fmt.Sprintf("fetch: no review was published for this change: %s has no %s (publish one with spar push)", from, seriesref.Ref(name)))
	}
	if errors.Is(err, seriesref.ErrNoPublish) {
		return exitcode.New(exitcode.Config, "fetch: "+err.Error())
	}
	if err != nil {
		return exitcode.New(exitcode.IO, "fetch: "+err.Error()+slowRemote(err))
	}
	// A series only grows (docs/trust.md): a history with a publish that
	// removed or rewrote a record is refused before anything is written.
	if _, err := publog.Walk(repo, commit); err != nil {
		var v *publog.Violation
		if errors.As(err, &v) || errors.Is(err, publog.ErrTooLong) {
			return exitcode.New(exitcode.Config, fmt.Sprintf("fetch: %s: %v; nothing was written", seriesref.Ref(name), err))
		}
		return exitcode.New(exitcode.IO, "fetch: "+err.Error())
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return exitcode.New(exitcode.IO, "fetch: "+err.Error())
	}
	n, err := seriesref.WriteFolder(repo, commit, out)
	if err != nil {
		return exitcode.New(exitcode.Config, "fetch: "+err.Error())
	}
	fmt.Fprintf(stdout, "%s: %d files of %s at %s\n", out, n, seriesref.Ref(name), commit)
	return nil
}
