package sparrecord

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jaekit/spar/lib/escape"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/lock"
	"github.com/jaekit/spar/lib/publog"
	"github.com/jaekit/spar/lib/recordpath"
	"github.com/jaekit/spar/lib/seriesref"
)

const pushUsage = `usage: spar push SERIES... [--remote NAME] [--timeout SECONDS]

Publishes each series folder as a commit on refs/spar/series/<folder name>
of the reviewed repository (outside every branch: the records stay out of
the working tree), then pushes that ref to the remote. Each publish is a new
commit whose parent is the previous one, so the ref is the series' audit
trail; its tree is the series folder's files (never its lock, temporary
files or a round's workspace link). Nothing changed since the last publish:
nothing new is made. The commits the records name (each round's base and
head, each fix commit) are kept reachable on refs/spar/commits/<name>,
pushed in the same git push: a rebase and force-push of the branch does not
lose them. A ref that someone else moved on the remote is
refused with the command that shows theirs; spar never force-pushes.
  --remote NAME  the remote to push to (default: the current branch's
                 upstream remote, else origin; with no remote the series is
                 published locally and spar says so)
  --timeout SECONDS
                 the most each git push to the remote may take (default
                 600): git is stopped past it and nothing is published
Exit codes: 0 published, 64 usage error, 65 refused (nothing pushed),
74 I/O or git error.

Example:
  spar push reviews/login
`

// runPush is `spar-record push SERIES... [--remote NAME] [--timeout SECONDS]`.
func runPush(args []string, stdout, stderr io.Writer) error {
	p, err := parseArgs("push", args, []string{"remote", "timeout"})
	if p.help {
		fmt.Fprint(stdout, pushUsage)
		return nil
	}
	if err != nil {
		return usageError(err.Error(), pushUsage)
	}
	if len(p.pos) == 0 {
		return usageError("push: one or more series folders are needed", pushUsage)
	}
	timeout, err := timeoutFlag("push", p)
	if err != nil {
		return usageError(err.Error(), pushUsage)
	}
	for _, dir := range p.pos {
		if err := pushOne(dir, p.vals["remote"], timeout, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

func pushOne(dir, remoteGiven string, timeout time.Duration, stdout, stderr io.Writer) error {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return exitcode.New(exitcode.Config, fmt.Sprintf("push: %q is no series folder (no such folder)", dir))
	}
	abs, err := recordpath.Resolve(dir)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("push: %q: %v", dir, err))
	}
	repo, err := gitx.TopLevel(abs)
	if err != nil {
		return exitcode.New(exitcode.Config, fmt.Sprintf("push: %q is not inside a git repository: a series is published in the repository it reviews", dir))
	}
	name := filepath.Base(abs)
	sn, err := seriesref.CheckName(name)
	if err != nil {
		return exitcode.New(exitcode.Config, "push: "+err.Error())
	}
	remote, err := seriesref.Remote(repo, remoteGiven)
	if err != nil {
		return exitcode.New(exitcode.Config, "push: "+err.Error())
	}
	moved := func(err error) error {
		var m *seriesref.MovedError
		if errors.As(err, &m) {
			return exitcode.New(exitcode.Config, fmt.Sprintf("push: %v; nothing was published or pushed (spar never force-pushes). See what was published there: spar fetch %s --out DIR --remote %s", err, escape.Shell(name), escape.Shell(remote)))
		}
		return exitcode.New(exitcode.IO, "push: "+err.Error()+slowRemote(err))
	}
	// The series lock: no round is published while a write of the series
	// is under way, and an interrupted recording is finished first.
	l, err := lock.Series(abs, stderr)
	if err != nil {
		return exitcode.New(exitcode.IO, "push: "+err.Error())
	}
	// A series only grows (docs/trust.md): a folder that lost or rewrote
	// what its last publish held is not published.
	if err := holdsLastPublish(repo, abs, sn); err != nil {
		l.Release()
		return err
	}
	pub, err := seriesref.Prepare(repo, abs, sn)
	if err != nil {
		l.Release()
		return exitcode.New(exitcode.Config, "push: "+err.Error())
	}
	// The commits the records name travel with the series (its keep ref,
	// refs/spar/commits/<name>): a rebase and force-push of the branch
	// leaves them on no branch, and CI must still read them.
	named, err := seriesref.Named(abs)
	if err != nil {
		l.Release()
		return exitcode.New(exitcode.Config, "push: "+err.Error())
	}
	kept, err := seriesref.Keep(repo, sn, named)
	l.Release()
	if err != nil {
		return exitcode.New(exitcode.IO, "push: "+err.Error())
	}
	for _, c := range kept.Missing {
		fmt.Fprintf(stderr, "spar: push: %s: the commit %s its records name is not in the repository: not kept on %s\n", dir, c, seriesref.KeptRef(name))
	}
	for _, left := range pub.Left {
		if left != ".lock: the series lock" && !strings.HasSuffix(left, ": a round's workspace") {
			fmt.Fprintf(stderr, "spar: push: %s: left out (%s)\n", dir, left)
		}
	}
	what := "published"
	if !pub.Changed {
		what = "unchanged since the last publish"
	}
	// The remote takes the commit first; the local ref moves after it, so
	// that a refused push leaves it as it was.
	if remote != "" {
		if err := seriesref.PushSeries(repo, remote, sn, pub.Commit, kept.Commit, timeout); err != nil {
			return moved(err)
		}
	}
	if err := seriesref.Advance(repo, sn, pub); err != nil {
		return exitcode.New(exitcode.IO, "push: "+err.Error())
	}
	if err := seriesref.AdvanceKept(repo, sn, kept); err != nil {
		return exitcode.New(exitcode.IO, "push: "+err.Error())
	}
	if remote == "" {
		fmt.Fprintf(stdout, "%s: %s as %s at %s (%d files); the repository has no remote: published locally only\n", dir, what, seriesref.Ref(name), pub.Commit, pub.Files)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %s as %s at %s (%d files), pushed to %s\n", dir, what, seriesref.Ref(name), pub.Commit, pub.Files, remote)
	return nil
}

// holdsLastPublish refuses a series folder that does not hold every file of
// the series' last publish in this repository (publog.Holds): removed, cut
// or rewritten records are never published over what was published.
func holdsLastPublish(repo, abs string, sn seriesref.Name) error {
	last, err := seriesref.Head(repo, sn)
	if err != nil {
		return exitcode.New(exitcode.Config, "push: "+err.Error())
	}
	if last == "" {
		return nil
	}
	err = publog.Holds(repo, last, abs)
	var v *publog.Violation
	if errors.As(err, &v) {
		return exitcode.New(exitcode.Config, fmt.Sprintf("push: %v; nothing was published (a series only grows: restore what its last publish holds, which spar fetch %s --out DIR writes)", err, escape.Shell(sn.String())))
	}
	if err != nil {
		return exitcode.New(exitcode.IO, "push: "+err.Error())
	}
	return nil
}
