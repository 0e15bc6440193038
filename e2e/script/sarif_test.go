package script

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jaekit/spar/lib/sarif/multitool"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// sarif-valid FILE: FILE validates against the SARIF 2.1.0 JSON Schema
// shipped in testdata/sarif (with !: it does not), and Microsoft's SARIF
// Multitool reports no error or warning on it with GitHub's ingestion rules
// (lib/sarif/multitool). Without the Multitool installed (make clis) that
// second check is left out with one line in the log; SPAR_REAL_CLI=require
// makes its absence a failure.
func cmdSarifValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sarif-valid FILE")
	}
	schema, err := os.ReadFile(filepath.Join(ts.Getenv("TESTDATA"), "sarif", "sarif-schema-2.1.0.json"))
	ts.Check(err)
	c := jsonschema.NewCompiler()
	ts.Check(c.AddResource("sarif.json", bytes.NewReader(schema)))
	sch, err := c.Compile("sarif.json")
	ts.Check(err)
	var doc any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc))
	err = sch.Validate(doc)
	if (err == nil) == neg {
		ts.Fatalf("sarif-valid %s: %v", args[0], err)
	}
	if neg {
		return
	}
	exe, why := multitool.Exe()
	if exe == "" {
		if os.Getenv("SPAR_REAL_CLI") == "require" {
			ts.Fatalf("sarif-valid: %s, and SPAR_REAL_CLI=require", why)
		}
		ts.Logf("sarif-valid: SARIF Multitool check left out: %s", why)
		return
	}
	probs, err := multitool.Validate(exe, ts.MkAbs(args[0]))
	ts.Check(err)
	if b := multitool.Blocking(probs); len(b) > 0 {
		var lines []string
		for _, p := range b {
			lines = append(lines, p.String())
		}
		ts.Fatalf("sarif-valid %s: the SARIF Multitool reports:\n%s", args[0], strings.Join(lines, "\n"))
	}
}

// TestSARIF_MultitoolOnScripts runs again every script that mentions SARIF
// (the demo, the gate's SARIF export, the guide's loop, the QA cases) and,
// at the end of each, has Microsoft's SARIF Multitool check every *.sarif
// file under its work folder with GitHub's ingestion rules (rule kinds Gh,
// Ghas, Sarif; lib/sarif/multitool): no result of level error or warning
// (docs/pipeline.md "SARIF export"). Without the Multitool (make clis) the
// test skips with one line saying why; SPAR_REAL_CLI=require fails it.
func TestSARIF_MultitoolOnScripts(t *testing.T) {
	exe := multitool.Need(t)
	all, err := filepath.Glob(filepath.Join("testdata", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), []byte("sarif")) {
			files = append(files, f)
		}
	}
	var mu sync.Mutex
	checked := map[string]int{}
	p := Params("")
	p.Files = files
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Defer(func() {
			tb := env.T().(testing.TB)
			var logs []string
			_ = filepath.WalkDir(env.WorkDir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".sarif") {
					logs = append(logs, path)
				}
				return nil
			})
			probs, err := multitool.Validate(exe, logs...)
			if err != nil {
				tb.Errorf("SARIF Multitool: %v", err)
			}
			for _, pr := range multitool.Blocking(probs) {
				tb.Errorf("SARIF Multitool: %s", pr)
			}
			mu.Lock()
			for _, l := range logs {
				rel, _ := filepath.Rel(env.WorkDir, l)
				checked[rel]++
			}
			mu.Unlock()
		})
		return nil
	}
	t.Run("scripts", func(t *testing.T) { testscript.Run(t, p) })
	// The check must have had something to check: the demo's log and the
	// gate script's.
	for _, want := range []string{"demo/loginlink/reviews/login-link.sarif", "build/spar.sarif"} {
		if checked[want] == 0 {
			t.Errorf("no script wrote %s; checked: %v", want, checked)
		}
	}
	t.Logf("SARIF files checked: %v", checked)
}
