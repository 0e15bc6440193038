package spargate

import (
	"errors"
	"io"
	"os"

	"github.com/jaekit/spar/lib/exitcode"
	"github.com/jaekit/spar/lib/gate"
	"github.com/jaekit/spar/lib/pipe"
)

// runStatus is `spar-gate status [SERIES|ROUND]... [--format text|json]`
// (docs/status.md): where each series stands and the one command that
// moves it on. It only reads records, like the gate; exit 0 whatever the
// series' state, 65 when a folder is no series or round.
func runStatus(args []string, stdout io.Writer) error {
	pos, vals, err := parse(args, capFlags)
	if err != nil {
		return err
	}
	format, ok := vals["format"]
	if !ok {
		format = "text"
	}
	if format != "text" && format != "json" {
		return usageErr("status: --format %q is not text or json", format)
	}
	if len(pos) == 0 {
		cwd, err := os.Getwd()
		if err != nil {
			return exitcode.New(exitcode.Config, "status: "+err.Error())
		}
		if pos, err = gate.StatusFolders(cwd, cwd); err != nil {
			return refusal("status", err)
		}
	}
	st, err := gate.StatusOf(pos)
	if err != nil {
		return refusal("status", err)
	}
	if format == "json" {
		b, err := pipe.MarshalIndent(st)
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	_, err = io.WriteString(stdout, st.Text())
	return err
}

// refusal names the command on a gate.RefusalError (65).
func refusal(cmd string, err error) error {
	var r *gate.RefusalError
	if errors.As(err, &r) {
		return exitcode.New(exitcode.Config, cmd+": "+r.Msg)
	}
	return err
}
