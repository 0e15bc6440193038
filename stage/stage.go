// Package stage names the command layer of every spar-* stage binary
// (docs/pipeline.md §10): each stage/sparX package's Main is that binary's
// whole behaviour, and spar-X/main.go only calls it. Stages never import
// each other.
package stage

import (
	"io"

	"github.com/jaekit/spar/stage/sparcheck"
	"github.com/jaekit/spar/stage/sparclassify"
	"github.com/jaekit/spar/stage/sparconfig"
	"github.com/jaekit/spar/stage/sparexec"
	"github.com/jaekit/spar/stage/spargate"
	"github.com/jaekit/spar/stage/sparpacket"
	"github.com/jaekit/spar/stage/sparrecord"
)

// Mains are the stages' Main functions by binary name, for a test runner
// that runs them in its own binary (testscript.Main). Such a binary must
// call sandbox.Main first in its TestMain, as spar-exec's and spar-config's
// mains do: the reviewer sandbox's launcher is the running binary started
// again (docs/sandbox.md).
var Mains = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"spar-config":   sparconfig.Main,
	"spar-packet":   sparpacket.Main,
	"spar-exec":     sparexec.Main,
	"spar-check":    sparcheck.Main,
	"spar-classify": sparclassify.Main,
	"spar-record":   sparrecord.Main,
	"spar-gate":     spargate.Main,
}
