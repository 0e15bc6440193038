package config

import (
	"strings"
	"testing"
)

func TestFixChecks_Keys(t *testing.T) {
	fc, err := ProjectFixChecks("f", nil)
	if err != nil || fc.TimeoutSeconds != DefaultCheckTimeout || fc.Verify != VerifyOptional || fc.Command != "" {
		t.Fatalf("defaults: %+v %v", fc, err)
	}
	fc, err = ProjectFixChecks("f", []byte("check_command = \"go test ./...\"\ncheck_timeout_seconds = 60\nverify_fixes = \"required\"\n"))
	if err != nil || fc.Command != "go test ./..." || fc.TimeoutSeconds != 60 || fc.Verify != VerifyRequired {
		t.Fatalf("set: %+v %v", fc, err)
	}
	for src, want := range map[string]string{
		"check_command = \"  \"\n":         "f:1: check_command: want a shell command line",
		"check_command = 3\n":              "f:1: check_command: want a shell command line (a string that is not blank), got the integer 3",
		"check_timeout_seconds = 0\n":      "f:1: check_timeout_seconds: want an integer from 1 to 3600, got 0",
		"check_timeout_seconds = 3601\n":   "got 3601",
		"check_timeout_seconds = \"60\"\n": "got \"60\"",
		"verify_fixes = \"always\"\n":      "f:1: verify_fixes: want \"required\" or \"optional\", got \"always\"",
		"\nverify_fixes = true\n":          "f:2: verify_fixes",
	} {
		_, err := ProjectFixChecks("f", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
		// spar-config checks them in the working tree's file too.
		if _, err := parseProject("f", t.TempDir(), []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseProject %q: %v, want %q", src, err, want)
		}
	}
	if _, err := parseProject("f", t.TempDir(), []byte("check_command = \"make check\"\nverify_fixes = \"optional\"\n")); err != nil {
		t.Fatal(err)
	}
}
