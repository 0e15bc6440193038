package multitool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log shaped like the validator's: a result with its level, one left to
// its rule's default, one left to SARIF's default (warning), one of kind
// pass, and a tool notification.
const sampleLog = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"SARIF Multitool","rules":[
 {"id":"GH2012","defaultConfiguration":{"level":"error"},"messageStrings":{"Error_MissingHelp":{"text":"{0}: This 'reportingDescriptor' object does not provide a 'help' object. This property is required by the {1} service."}}},
 {"id":"SARIF2005","messageStrings":{"Warning_ProvideToolVersion":{"text":"{0}: The tool '{1}' does not provide any of the version-related properties {2}."}}},
 {"id":"SARIF2010","defaultConfiguration":{"level":"note"}}]}},
 "invocations":[{"executionSuccessful":true,"toolExecutionNotifications":[{"message":{"text":"slow file"}}]}],
 "results":[
  {"ruleId":"GH2012","ruleIndex":0,"message":{"id":"Error_MissingHelp","arguments":["runs[0].tool.driver.rules[0]","GitHub Advanced Security"]},
   "locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///tmp/x.sarif"},"region":{"startLine":10,"startColumn":13}}}]},
  {"ruleId":"SARIF2005","ruleIndex":1,"message":{"id":"Warning_ProvideToolVersion","arguments":["runs[0].tool.driver","spar/rules","'version'"]}},
  {"ruleId":"SARIF2010","ruleIndex":2,"message":{"text":"no snippet"}},
  {"ruleId":"SARIF2010","ruleIndex":2,"level":"error","kind":"pass","message":{"text":"passed"}},
  {"ruleId":"SARIF2010","level":"warning","message":{"text":"by id"}}]}]}`

func TestParse_EffectiveLevelsAndMessages(t *testing.T) {
	probs, err := parse([]byte(sampleLog))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	want := []string{
		": warning notification: slow file",
		"/tmp/x.sarif:10:13: error GH2012: runs[0].tool.driver.rules[0]: This 'reportingDescriptor' object does not provide a 'help' object. This property is required by the GitHub Advanced Security service.",
		": warning SARIF2005: runs[0].tool.driver: The tool 'spar/rules' does not provide any of the version-related properties 'version'.",
		": note SARIF2010: no snippet",
		": none SARIF2010: passed",
		": warning SARIF2010: by id",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b := Blocking(probs); len(b) != 4 {
		t.Errorf("blocking = %v", b)
	}
}

func TestParse_FailedRuns(t *testing.T) {
	for name, log := range map[string]string{
		"not JSON":       `{`,
		"no run":         `{"runs":[]}`,
		"unsuccessful":   `{"runs":[{"invocations":[{"executionSuccessful":false}]}]}`,
		"error notified": `{"runs":[{"invocations":[{"executionSuccessful":true,"toolConfigurationNotifications":[{"level":"error","message":{"text":"bad rule kind"}}]}]}]}`,
	} {
		if _, err := parse([]byte(log)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The real validator, on a log with the two faults the SARIF export once
// had (rules without fullDescription and help, a driver without
// informationUri and version), reports them: the check can fail.
func TestValidate_ReportsGitHubRules(t *testing.T) {
	exe := Need(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sarif")
	log := `{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"spar/x",
"rules":[{"id":"defect/design","name":"defect (design)","shortDescription":{"text":"a defect."},"defaultConfiguration":{"level":"error"}}]}},
"results":[{"ruleId":"defect/design","ruleIndex":0,"level":"error","message":{"text":"It breaks."},
"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":1}}}],"partialFingerprints":{"k/v1":"1"}}]}]}`
	if err := os.WriteFile(bad, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, err := Validate(exe, bad)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range Blocking(probs) {
		seen[p.Level+" "+p.RuleID] = true
		if p.File != bad {
			t.Errorf("problem names %q, want %q", p.File, bad)
		}
	}
	if !seen["error GH2012"] || !seen["warning SARIF2005"] {
		t.Fatalf("validator did not report GH2012 and SARIF2005: %v", probs)
	}
	if _, err := Validate(exe, filepath.Join(dir, "missing.sarif")); err == nil {
		t.Error("a missing file validated")
	}
}
