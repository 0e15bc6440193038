package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/disposition"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/fixcheck"
	"github.com/jaekit/spar/lib/round"
)

// Verified fix claims (docs/review-gate.md "Verified fix claims"). A fixed
// line of a code round may carry the check spar ran (round.FixCheck: the
// command failed twice at the round's head with the check files of the fix
// commit, and passed twice at the fix commit). The gate believes no part of
// that record: it re-derives it from the round's files and the commits
// (checkRecords, reason 8v), and with verify_fixes = "required" in the
// project configuration of the gate's head a fixed line of a code-round
// defect closes it only with a check that re-derives and ran with the
// network closed (verifiedFixes, reason 10v). Without it, every fix claim
// that no check verified is a note, and the record lists every claim
// (fix_claims).

// fixState is what the gate made of one fixed line's check.
type fixState struct {
	// problem is why the check record does not re-derive ("" when it
	// does, or when the line has no check).
	problem string
	// verified: a check that re-derives and ran with the network closed.
	verified bool
	// why is why it is not verified ("" when it is).
	why string
	// rerun is why the gate's own run of the check did not verify the
	// fix again (--rerun-checks; "" when it did or did not run).
	rerun string
	// reran: the gate ran it again and it verified the fix.
	reran bool
}

// checkOf re-derives the check of the ledger line e of round r, once per
// line.
func (g *gate) checkOf(r *roundData, e *round.LedgerEntry) fixState {
	if st, ok := g.fixStates[e]; ok {
		return st
	}
	var st fixState
	switch c := e.Check; {
	case c == nil:
		st.why = "no check verified it"
	default:
		st.problem = fixcheck.Rederive(r.abs, r.rec.Head, e, func(commit string) (func(string) string, error) {
			tree, err := g.loadTree(r.rec.Repo, commit)
			if err != nil {
				return nil, err
			}
			return func(p string) string {
				if b, ok := tree.Blob(p); ok {
					return b.ID
				}
				return ""
			}, nil
		})
		switch {
		case st.problem != "":
			st.why = "its check record does not re-derive: " + st.problem
		case !strings.HasPrefix(c.Network, "closed"):
			st.why = fmt.Sprintf("its check ran with the network open (%s)", c.Network)
		default:
			st.verified = true
		}
		if st.problem == "" && g.opts.RerunChecks {
			g.rerunCheck(r, e, &st)
		}
	}
	if g.fixStates == nil {
		g.fixStates = map[*round.LedgerEntry]fixState{}
	}
	g.fixStates[e] = st
	return st
}

// rerunCheck runs the check of a line again, as spar triage ran it
// (--rerun-checks): on the round's head with the fix's check files and on
// the fix, in this job's sandbox. An outcome that does not verify the fix
// (or a network that was not closed here) is reason 10r, and the claim is
// not verified.
func (g *gate) rerunCheck(r *roundData, e *round.LedgerEntry, st *fixState) {
	c := e.Check
	allowed := ""
	if c.Regression != nil {
		allowed = c.Regression.Allowed
	}
	ctx := g.opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := fixcheck.Run(ctx, fixcheck.Request{Repo: r.rec.Repo, Head: c.Head, Fix: c.Fix, Command: c.Command,
		AllowRegression: allowed, Environ: os.Environ(), Progress: g.opts.Progress})
	switch {
	case err != nil:
		st.rerun = "it could not run: " + oneLine(err.Error())
	case res.Refusal != "":
		why, _, _ := strings.Cut(res.Refusal, "\n")
		st.rerun = why
	case !strings.HasPrefix(res.Check.Network, "closed"):
		st.rerun = fmt.Sprintf("it ran with the network open here (%s)", res.Check.Network)
	default:
		st.reran = true
		return
	}
	st.verified = false
	st.why = "the gate ran its check again and it does not verify the fix: " + st.rerun
}

// checkRecords: reason 8v. Every ledger line with a check, in every gated
// round of the series, whatever verify_fixes says, is re-derived
// (CheckProblem).
func (g *gate) checkRecords(s *seriesData) {
	for _, l := range s.listed {
		r := l.gated()
		if r == nil || r.pending || s.lacking(r) {
			continue
		}
		for i := range r.ledger {
			e := &r.ledger[i]
			if e.Check == nil {
				continue
			}
			st := g.checkOf(r, e)
			if st.rerun != "" {
				g.reason("10r", "%s: round %s: %s's check %q did not verify the fix when the gate ran it again: %s; to clear: fix the check or the code, commit, and verify the fix again: %s",
					s.display, r.name, e.Finding, e.Check.Command, st.rerun, checkHint(s.dirOf(r), e.Finding, "REV", e.Check.Command))
			}
			if st.problem == "" {
				continue
			}
			clear := "restore the round's check outputs and its ledger line as spar wrote them"
			if r.last[e.Finding] == e {
				clear += ", or verify the fix again: " + checkHint(s.dirOf(r), e.Finding, e.Commit, e.Check.Command)
			}
			g.reason("8v", "%s: round %s: %s's check record says %s: the record or its outputs were edited after spar wrote them; to clear: %s",
				s.display, r.name, e.Finding, st.problem, clear)
		}
	}
}

// checkHint is the spar triage that verifies a fix claim: the line's
// commit and the check's command when they are known.
func checkHint(dir, id, commit, command string) string {
	c := "REV"
	if strings.TrimSpace(commit) != "" {
		c = shellQuote(strings.TrimSpace(commit))
	}
	cmd := "'CMD'"
	if strings.TrimSpace(command) != "" {
		cmd = shellQuote(command)
	}
	return "spar triage " + shellQuote(dir) + " " + shellQuote(id) + " --as fixed --commit " + c + " --check " + cmd
}

// verifyRequired reads verify_fixes from the project configuration of the
// gate's head commit (the latest round's head when the gate's does not
// resolve; those reasons block already). A configuration that does not
// read holds fixes to "required" (fail closed) and says why.
func (g *gate) verifyRequired(s *seriesData) (required bool, why string) {
	head := s.head
	if head == "" {
		head = s.latest.rec.Head
	}
	fc, err := g.fixChecksAt(s.repo, head)
	if err != nil {
		return true, fmt.Sprintf("the head commit's %s does not read (%s), so fixes are held as with verify_fixes = %q", config.ProjectFile, oneLine(err.Error()), config.VerifyRequired)
	}
	return fc.Verify == config.VerifyRequired, ""
}

// fixChecksAt is the verified-fix keys of the project configuration that
// commit holds (the defaults when it holds none).
func (g *gate) fixChecksAt(repo, commit string) (config.FixChecks, error) {
	tree, err := g.loadTree(repo, commit)
	if err != nil {
		return config.FixChecks{}, err
	}
	b, ok := tree.Blob(config.ProjectFile)
	if !ok {
		return config.ProjectFixChecks(config.ProjectFile, nil)
	}
	if !b.IsRegular() {
		return config.FixChecks{}, fmt.Errorf("%s is not a regular file", config.ProjectFile)
	}
	blobs, err := g.blobs(repo, []string{b.ID})
	if err != nil {
		return config.FixChecks{}, err
	}
	data := blobs[b.ID]
	if data == nil {
		data = []byte{}
	}
	return config.ProjectFixChecks(config.ProjectFile, data)
}

// verifiedFixes: reason 10v, the fix_claims of the record and the notes.
// Each gated code round's defect whose deciding line is a fixed line the
// rules table accepts is a fix claim, verified or not (checkOf). With verify_fixes = "required" at the
// gate's head, every defect the gate closed through an unverified claim
// (its own line, or the end of its duplicate chain) is open: 10v, or only
// 8v when the claim's check record does not re-derive (that reason names
// it and what clears it).
func (g *gate) verifiedFixes(s *seriesData) {
	if s.latest == nil {
		return
	}
	type claim struct {
		r *roundData
		e *round.LedgerEntry
	}
	var claims []claim
	for _, l := range s.listed {
		r := l.gated()
		if r == nil || r.rec.Stage != "code" {
			continue
		}
		for i := range r.finds {
			f := &r.finds[i]
			if f.Class != envelope.ClassDefect {
				continue
			}
			// A fixed line the rules table does not accept closes
			// nothing (9 says why): no claim.
			if e := r.last[f.ID]; e != nil && e.Disposition == disposition.Fixed {
				if ok, _ := disposition.Closing(f.Class, r.rec.Stage, e); ok {
					claims = append(claims, claim{r, e})
				}
			}
		}
	}
	if len(claims) == 0 {
		return
	}
	if !g.tallyOnly {
		for _, c := range claims {
			st := g.checkOf(c.r, c.e)
			fc := FixClaim{Series: s.display, Round: c.r.name, Finding: c.e.Finding, Commit: strings.TrimSpace(c.e.Commit), Verified: st.verified, Why: st.why, Rerun: st.rerun, r: c.r}
			if st.reran {
				fc.Rerun = "verified"
			}
			if c.e.Check != nil {
				fc.Command, fc.Network = c.e.Check.Command, c.e.Check.Network
			}
			g.rec.FixClaims = append(g.rec.FixClaims, fc)
		}
	}
	required, why := g.verifyRequired(s)
	if !required {
		return
	}
	cfg := fmt.Sprintf("the head commit's %s says verify_fixes = %q", config.ProjectFile, config.VerifyRequired)
	if why != "" {
		cfg = why
	}
	for _, l := range s.listed {
		r := l.gated()
		if r == nil {
			continue
		}
		for i := range r.finds {
			f := &r.finds[i]
			if f.Class != envelope.ClassDefect {
				continue
			}
			if _, open := g.open[r][f.ID]; open {
				continue
			}
			if _, ok := s.repeatTarget(r, f); ok {
				continue
			}
			v := s.judge(target{r, f})
			if !v.closed || v.commit == "" || v.end.r == nil || v.end.r.rec.Stage != "code" {
				continue
			}
			end := v.end.r.last[v.end.f.ID]
			st := g.checkOf(v.end.r, end)
			if st.verified {
				continue
			}
			c := g.count(f.Class)
			c.Closed--
			c.Open++
			g.state(r, f.ID, false)
			claimWords := "fixed by the commit " + v.commit
			if len(v.dups) > 0 {
				claimWords = "duplicate chain " + v.chain + " ends in fixed by the commit " + v.commit
			}
			hint := ""
			if !g.tallyOnly {
				cmd := ""
				if end.Check != nil {
					cmd = end.Check.Command
				}
				hint = checkHint(s.dirOf(v.end.r), v.end.f.ID, v.commit, cmd)
			}
			g.judge(r, f.ID, claimWords+", but "+st.why+", and "+cfg, hint, true)
			if st.problem != "" {
				continue // 8v names it and what clears it
			}
			g.reason("10v", "%s: round %s: defect %s is open (%s, but %s: %s, and %s); to clear: verify the fix with a check that fails before it and passes after it: %s",
				s.display, r.name, f.ID, claimWords, unverifiedWords(end), st.why, cfg, hint)
		}
	}
}

// fixClaimNotes are the notes of the fix claims no check verified whose
// findings the gate counts closed, when the gate does not require verified
// fixes (where it does, such a claim is a reason: 10v, or 8v).
func (g *gate) fixClaimNotes(s *seriesData) []string {
	if s.latest == nil {
		return nil
	}
	if required, _ := g.verifyRequired(s); required {
		return nil
	}
	var out []string
	for _, c := range g.rec.FixClaims {
		if c.Series != s.display || c.Verified || (c.Rerun != "" && c.Rerun != "verified") {
			// A rerun that did not verify is reason 10r, which names it.
			continue
		}
		if _, open := g.open[c.r][c.Finding]; open || c.r == nil {
			// Open all the same: its reason says why, and a claim that
			// closes nothing needs no note.
			continue
		}
		words := "is the agent's words"
		if c.Command != "" {
			words = "is not verified by its check"
		}
		out = append(out, fmt.Sprintf("%s: round %s: fixed %s by %s %s: %s (%s)",
			s.display, c.Round, c.Finding, c.Commit, words, c.Why, checkHint(filepath.Join(s.display, c.Round), c.Finding, c.Commit, c.Command)))
	}
	return out
}

// unverifiedWords says what an unverified fix claim is (10v): the agent's
// words when its line has no check, else a check that verifies nothing.
func unverifiedWords(e *round.LedgerEntry) string {
	if e == nil || e.Check == nil {
		return "that claim is the agent's words"
	}
	return "its check verifies nothing"
}
