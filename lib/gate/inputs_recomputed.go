package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/config"
	"github.com/jaekit/spar/lib/document"
	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/gitx"
	"github.com/jaekit/spar/lib/packet"
)

// recomputed is what the gate recomputes of a round's inputs instead of
// believing round.json (docs/trust.md "The gate"): the check paths the head
// commit's configuration lists, the criteria IDs of the criteria documents,
// and the inputs that differed from the head commit.
type recomputed struct {
	committed   []string
	criteriaIDs []string
	dirty       []envelope.DirtyInput
}

// recomputeInputs recomputes r's inputs from its head commit and its
// documents' own lines, with the rule spar-packet records them by
// (packet.HeadInputs, packet.CriteriaIDs), and says what round.json states
// otherwise. Each document's sha256 must be that of its lines; the
// configuration's rules must be the head commit's when the configuration
// was not dirty. The dirty inputs found are blocked on (agentInputs) with
// those round.json records.
func (g *gate) recomputeInputs(r *roundData) (recomputed, string) {
	rec := r.rec
	var out recomputed
	docs := make([]envelope.Document, len(rec.Documents))
	for i, d := range rec.Documents {
		sum := sha256.Sum256([]byte(document.Text(d)))
		if hex.EncodeToString(sum[:]) != d.SHA256 {
			return out, fmt.Sprintf("round.json's %s document %s is not the text its sha256 names (its lines were edited)", d.Role, d.Name)
		}
		docs[i] = d
	}
	out.criteriaIDs = packet.CriteriaIDs(docs)
	if !slices.Equal(out.criteriaIDs, rec.Links.CriteriaIDs) {
		return out, fmt.Sprintf("round.json's criteria IDs (%s) are not those of its criteria documents (%s)", strings.Join(rec.Links.CriteriaIDs, ", "), strings.Join(out.criteriaIDs, ", "))
	}
	tree, err := g.loadTree(rec.Repo, rec.Head)
	if err != nil {
		return out, fmt.Sprintf("its head commit's tree cannot be read (%s)", oneLine(err.Error()))
	}
	cfgSum := ""
	for _, f := range rec.Config.Files {
		if strings.HasSuffix(f.Path, "/"+config.ProjectFile) {
			cfgSum = f.SHA256
		}
	}
	recorded := map[string]bool{}
	for _, d := range rec.DirtyInputs {
		recorded[d.Path] = true
	}
	committed, dirty, err := packet.HeadInputs(packet.HeadInputsOf{
		Repo: rec.Repo, Tree: tree, ConfigSHA256: cfgSum, Documents: docs,
		// Whether an argument document the head lacks was tracked when
		// the round read it is the index's of that moment: what
		// round.json recorded ("not in the head commit") stands.
		Tracked: func(paths []string) (map[string]bool, error) {
			t := map[string]bool{}
			for _, p := range paths {
				t[p] = recorded[p]
			}
			return t, nil
		},
		Blobs: func(ids []string) (map[string][]byte, error) { return g.blobs(rec.Repo, ids) },
	})
	if err != nil {
		return out, fmt.Sprintf("its inputs cannot be compared with its head commit (%s)", oneLine(err.Error()))
	}
	out.committed, out.dirty = committed, dirty
	if !slices.Equal(committed, rec.CommittedCheckPaths) {
		return out, fmt.Sprintf("round.json's committed_check_paths [%s] are not the check_paths the head commit's %s lists [%s]",
			strings.Join(rec.CommittedCheckPaths, ", "), config.ProjectFile, strings.Join(committed, ", "))
	}
	configDirty := false
	for _, d := range dirty {
		configDirty = configDirty || d.Role == "config"
	}
	if !configDirty {
		// The applied rules, angles and exclude globs are the head
		// commit's configuration's (absent: none, all five, none); an
		// edit of them in the envelope between stages, with the digest
		// recomputed, is one (docs/trust.md "Follow-up rounds and
		// repeats": the packet is rebuilt from config as it stands).
		var cfgBytes []byte
		if b, ok := tree.Blob(config.ProjectFile); ok && b.IsRegular() {
			blobs, err := g.blobs(rec.Repo, []string{b.ID})
			if err != nil {
				return out, fmt.Sprintf("its head commit's %s cannot be read (%s)", config.ProjectFile, oneLine(err.Error()))
			}
			cfgBytes = blobs[b.ID]
		}
		for _, key := range []struct {
			name     string
			recorded []string
			read     func(string, []byte) ([]string, error)
		}{
			{"rules", rec.Config.Rules, config.ProjectRules},
			{"angles", rec.Config.Angles, config.ProjectAngles},
			{"exclude", rec.Config.Exclude, config.ProjectExclude},
		} {
			// A head commit's configuration that does not read is
			// judged elsewhere (it is the project's to fix).
			want, err := key.read(config.ProjectFile, cfgBytes)
			if err != nil || slices.Equal(want, key.recorded) || len(want) == 0 && len(key.recorded) == 0 {
				continue
			}
			return out, fmt.Sprintf("round.json's %s [%s] are not the %s the head commit's %s lists [%s]",
				key.name, strings.Join(key.recorded, ", "), key.name, config.ProjectFile, strings.Join(want, ", "))
		}
	}
	return out, ""
}

// blobs reads blobs of repo by id, each once per gate.
func (g *gate) blobs(repo string, ids []string) (map[string][]byte, error) {
	g.blobsMu.Lock()
	defer g.blobsMu.Unlock()
	if g.blobCache == nil {
		g.blobCache = map[string][]byte{}
	}
	out := map[string][]byte{}
	var missing []string
	for _, id := range ids {
		if b, ok := g.blobCache[repo+"\x00"+id]; ok {
			out[id] = b
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		got, err := gitx.ReadBlobs(repo, missing)
		if err != nil {
			return nil, err
		}
		for id, b := range got {
			g.blobCache[repo+"\x00"+id] = b
			out[id] = b
		}
	}
	return out, nil
}
