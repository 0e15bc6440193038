package round

import "github.com/jaekit/spar/lib/envelope"

// New is round.json's round-level fields, the same for spar-exec's first
// write (without finished_at) and spar-record's publication: what the run,
// the packet, the configuration and the round decided. Reviewers, counts and
// the publication fields are the caller's. Lists are never null ("Only
// standpoints: [] is added to round.json" without standpoints).
func New(run *envelope.Run, pkt *envelope.Packet, cfg envelope.Config, r envelope.Round) *Record {
	rec := &Record{
		Schema:               Schema,
		Name:                 r.Name,
		Series:               r.Series,
		Repo:                 run.Repo,
		Stage:                run.Stage,
		Base:                 run.Base,
		Head:                 run.Head,
		DryRun:               r.DryRun,
		Workspace:            r.Workspace,
		StartedAt:            r.StartedAt,
		PacketSHA256:         pkt.SHA256,
		SchemaSHA256:         SHA256([]byte(pkt.Schema)),
		Cap:                  r.Cap,
		Config:               cfg,
		CheckPaths:           orEmpty(run.CheckPaths),
		Documents:            orEmpty(run.Documents),
		Links:                Links{Rules: []RuleLink{}, CriteriaIDs: orEmpty(run.CriteriaIDs)},
		CriteriaDigest:       run.CriteriaDigest,
		Decisions:            orEmpty(run.Decisions),
		Standpoints:          orEmpty(run.Standpoints),
		StandpointsUncovered: []string{},
		Changes:              orEmpty(run.Changes),
		Excluded:             run.Excluded,
		Reviewers:            []Reviewer{},
		// docs/trust.md "Inputs the agent can edit". Committed check paths
		// stay null when the run has none recorded (a round.json written
		// before them, loaded again by spar record).
		CommittedCheckPaths: run.CommittedCheckPaths,
		DirtyInputs:         orEmpty(run.DirtyInputs),
		FollowUp:            run.FollowUp,
	}
	// G8: links.rules keeps each rule document's names (its G26 name and its
	// real absolute path when that differs), file_name and line count.
	for _, d := range run.Documents {
		if d.Role != "rule" {
			continue
		}
		names := []string{d.Name}
		if d.Path != "" && d.Path != d.Name {
			names = append(names, d.Path)
		}
		rec.Links.Rules = append(rec.Links.Rules, RuleLink{Names: names, FileName: d.FileName, Lines: d.LineCount})
	}
	return rec
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
