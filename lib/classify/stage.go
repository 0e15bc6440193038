package classify

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jaekit/spar/lib/envelope"
	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/pipe"
)

// EnvelopeSchema is what spar-classify reads from the spar-pipe/v1
// envelope: run (repo, base, head, check_paths, documents, criteria_ids)
// and results.
//
//go:embed envelope.schema.json
var EnvelopeSchema []byte

// Stage is spar-classify's work: read the envelope from r, classify the
// findings of the completed reviewers, and write the envelope with
// "findings" added to w. A fault of the envelope is exit 65 with
// "stdin: <where>: <what>" (spar-classify names itself before it) and
// nothing written.
func Stage(r io.Reader, w io.Writer) error {
	env, err := pipe.Read("classify", r, EnvelopeSchema)
	if err != nil {
		return err
	}
	var run envelope.Run
	if err := env.Get("run", &run); err != nil {
		return stdinErr("/run", err.Error())
	}
	// The findings are read one at a time from where they lie
	// (docs/pipeline.md "Memory"); any envelope the fast reading does not
	// take as spar-check writes it is read whole, for the exact message.
	var findings []envelope.Finding
	items, ok := streamEntries(env)
	if ok {
		ix, ierr := NewIndex(&run)
		err = ierr
		if err == nil {
			findings, err = ix.classify(items)
		}
	} else {
		var results []envelope.Result
		if err := env.Get("results", &results); err != nil {
			return stdinErr("/results", err.Error())
		}
		findings, err = Classify(&run, results)
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return stdinErr(ie.Where, ie.What)
	}
	if err != nil {
		return err
	}
	if err := env.Set("findings", findings); err != nil {
		return err
	}
	return env.Write(w)
}

func stdinErr(where, what string) error {
	return exitcode.New(exitcode.Config, fmt.Sprintf("stdin: %s: %s", where, what))
}

// streamEntries is decode(results) read from the envelope a finding at a
// time, never holding a result object whole. ok is false for anything but
// the plain form spar-check writes (a key in another case, a value of
// another type, a finding decode refuses): the caller then decodes the
// results whole, as before, and gives that decode's message.
func streamEntries(env *pipe.Envelope) (out []entry, ok bool) {
	val, has := env.Value("results")
	if !has || val.Kind() != '[' {
		return nil, false
	}
	els, err := val.Elements()
	if err != nil {
		return nil, false
	}
	// last returns the last member named key, refusing a member whose name
	// encoding/json would also match (another case).
	last := func(ms []pipe.Member, key string) (pipe.Value, bool, bool) {
		var v pipe.Value
		found := false
		for _, m := range ms {
			if m.Key == key {
				v, found = m.Value, true
			} else if strings.EqualFold(m.Key, key) {
				return v, false, false
			}
		}
		return v, found, true
	}
	seen := map[string]bool{}
	for _, el := range els {
		if el.Kind() != '{' {
			return nil, false
		}
		ms, err := el.Members()
		if err != nil {
			return nil, false
		}
		var reviewer, status string
		for _, k := range []struct {
			key string
			dst *string
		}{{"reviewer", &reviewer}, {"status", &status}} {
			v, found, plain := last(ms, k.key)
			if !plain || !found || v.Kind() != '"' {
				return nil, false
			}
			if err := v.Decode(k.dst); err != nil {
				return nil, false
			}
		}
		if seen[reviewer] {
			return nil, false
		}
		seen[reviewer] = true
		if status != envelope.StatusCompleted {
			continue
		}
		res, found, plain := last(ms, "result")
		if !plain || !found || res.Kind() != '{' {
			return nil, false
		}
		rms, err := res.Members()
		if err != nil {
			return nil, false
		}
		fs, found, plain := last(rms, "findings")
		if !plain || !found || fs.Kind() != '[' {
			return nil, false
		}
		items, err := fs.Elements()
		if err != nil {
			return nil, false
		}
		for fi, raw := range items {
			b, err := raw.Bytes()
			if err != nil {
				return nil, false
			}
			var it item
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&it); err != nil {
				return nil, false
			}
			for _, e := range enums {
				if !slices.Contains(e.values, e.get(&it)) {
					return nil, false
				}
			}
			out = append(out, entry{Reviewer: reviewer, N: fi + 1, item: it})
		}
	}
	return out, true
}
