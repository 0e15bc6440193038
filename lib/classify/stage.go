package classify

import (
	_ "embed"
	"errors"
	"fmt"
	"io"

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
// "spar-classify: stdin: <where>: <what>" and nothing written.
func Stage(r io.Reader, w io.Writer) error {
	env, err := pipe.Read("classify", r, EnvelopeSchema)
	if err != nil {
		return err
	}
	var run envelope.Run
	var results []envelope.Result
	if err := env.Get("run", &run); err != nil {
		return stdinErr("/run", err.Error())
	}
	if err := env.Get("results", &results); err != nil {
		return stdinErr("/results", err.Error())
	}
	findings, err := Classify(&run, results)
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
	return exitcode.New(exitcode.Config, fmt.Sprintf("spar-classify: stdin: %s: %s", where, what))
}
