package spar_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

func init() {
	scriptCmds["sarif-valid"] = cmdSarifValid
}

// sarif-valid FILE: FILE validates against the SARIF 2.1.0 JSON Schema
// shipped in testdata/sarif (with !: it does not).
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
}
