package sparexec

// An interrupted spar run (docs/review-round.md "Interrupted"): the round
// it made is removed, with its workspace, unless spar-record began to
// record it. spar-exec removes what it made when it gets SIGINT, SIGTERM or
// SIGHUP (the terminal's process group, or the driver passing on a signal
// it got alone); the driver asks `spar-exec __spar-discard ROUND` for a
// round spar-exec finished when spar-check, spar-classify or spar-record
// was interrupted.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/round"
	"github.com/jaekit/spar/lib/runner"
	"github.com/jaekit/spar/lib/workspace"
	"github.com/jaekit/spar/stage/cli"
)

// discardArg is the driver's subcommand: spar-exec __spar-discard ROUND.
const discardArg = "__spar-discard"

// stopper watches for SIGINT, SIGTERM and SIGHUP from the start of a round
// to its envelope. Its handler takes mu and never gives it back: the
// process ends there. The steps that write the round folder hold mu, so
// that the handler never removes a folder while it is being written, and
// a step that comes after the signal never starts.
type stopper struct {
	mu      sync.Mutex
	sigs    chan os.Signal
	stderr  io.Writer
	ended   bool   // the round went on to its envelope: nothing to stop
	dir     string // the round folder this run made ("" before it)
	ws      string // its workspace ("" before it, or in a dry run)
	running bool   // reviewers may be running
}

// watch starts watching: a signal from now on stops the round.
func watch(stderr io.Writer) *stopper {
	st := &stopper{sigs: make(chan os.Signal, 1), stderr: stderr}
	signal.Notify(st.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go st.handle()
	return st
}

// hold runs f under mu: f is not interrupted halfway, and does not run once
// a signal came.
func (st *stopper) hold(f func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f()
}

// end stops watching once the round is done with (whatever run returns).
// A signal being handled holds mu: end waits for the handler, which ends
// the process.
func (st *stopper) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
	signal.Stop(st.sigs)
	close(st.sigs)
}

func (st *stopper) handle() {
	s, ok := <-st.sigs
	if !ok {
		return
	}
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return
	}
	// mu stays held: nothing more is written.
	who := cli.Command(name)
	if st.running {
		fmt.Fprintf(st.stderr, "%s: %v: stopping the reviewers\n", who, s)
		runner.StopAll()
	}
	if st.ws != "" {
		removeWorkspace(st.ws)
	}
	if st.dir != "" {
		if err := removeRound(st.dir); err != nil {
			fmt.Fprintf(st.stderr, "%s: %v: round %s not recorded; its folder could not be removed: %v\n", who, s, st.dir, err)
		} else {
			fmt.Fprintf(st.stderr, "%s: %v: round not recorded: %s and its workspace are removed\n", who, s, st.dir)
		}
	} else {
		fmt.Fprintf(st.stderr, "%s: %v: stopped before the round folder was made; nothing was written\n", who, s)
	}
	os.Exit(128 + int(s.(syscall.Signal)))
}

// removeWorkspace removes a workspace that a build may still be writing:
// a few tries.
func removeWorkspace(ws string) {
	for i := 0; i < 5; i++ {
		if workspace.Remove(ws) == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// removeRound removes a round folder this run made; a reviewer may have
// taken the rights of its folders away (chmod 0).
func removeRound(dir string) error {
	var err error
	for i := 0; i < 5; i++ {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(path, 0o755)
			}
			return nil
		})
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// discard is `spar-exec __spar-discard ROUND`, which the driver runs when
// it was interrupted after spar-exec made ROUND: ROUND is removed with its
// workspace when spar-record has not begun to record it (round.json
// without finished_at and without recording); a round being recorded is
// finished by the next writer of its series, a recorded one stays.
func discard(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		return cli.Exit(stderr, name, exitcode.New(exitcode.Usage, "usage: spar-exec "+discardArg+" ROUND"))
	}
	dir, err := filepath.Abs(args[0])
	if err != nil {
		return cli.Exit(stderr, name, err)
	}
	rec, err := round.ReadRecord(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return exitcode.OK // spar-exec removed it already
	}
	if err != nil {
		return cli.Exit(stderr, name, exitcode.New(exitcode.Config, fmt.Sprintf("round %s: %v; left as it is", dir, err)))
	}
	if rec.FinishedAt != nil || rec.Recording != nil {
		return exitcode.OK
	}
	if _, err := workspace.RemoveFor(dir, rec.Workspace); err != nil {
		return cli.Exit(stderr, name, exitcode.New(exitcode.IO, "workspace: "+err.Error()))
	}
	if err := removeRound(dir); err != nil {
		return cli.Exit(stderr, name, exitcode.New(exitcode.IO, err.Error()))
	}
	fmt.Fprintf(stderr, "%s: interrupted: round not recorded: %s and its workspace are removed\n", cli.Command(name), dir)
	return exitcode.OK
}
