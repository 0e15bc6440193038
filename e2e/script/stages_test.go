package script

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// installStages puts every spar binary and the driver into dir: the same
// install `make install` does. It is the only place that knows how the
// stages are made; TestMain, the scripts (PATH) and the Go tests (binDir)
// only use dir.
//
// Today each stage (spar-*/ and examples/spar-*/ of the repository) is
// built with `go build`, each on its own so that one stage that does not
// compile fails only the scripts that use it (CI still fails: go vet in
// make test compiles everything).
//
// Once the stages are importable packages (stage.Mains: name → Main(args,
// stdin, stdout, stderr) int), this function is what changes: it copies
// this test binary (os.Executable) into dir once per name of stage.Mains
// instead of building, keeps the driver copy below, and TestMain starts
// with the dispatch testscript.Main does (os.Args[0]'s base name in
// stage.Mains: run that Main and exit), or hands m to testscript.Main with
// the same commands. Nothing else in this package needs to change.
func installStages(dir string) error {
	mains, err := filepath.Glob(filepath.Join(repoRoot, "spar-*"))
	if err != nil {
		return err
	}
	examples, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "spar-*"))
	mains = append(mains, examples...)
	var failed []string
	for _, m := range mains {
		if fi, err := os.Stat(m); err != nil || !fi.IsDir() {
			continue
		}
		rel, err := filepath.Rel(repoRoot, m)
		if err != nil {
			return err
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, filepath.Base(m)), "./"+filepath.ToSlash(rel))
		cmd.Dir = repoRoot
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			failed = append(failed, rel)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(os.Stderr, "script tests: these stages did not build: %s\n", strings.Join(failed, ", "))
	}
	drv, err := os.ReadFile(filepath.Join(repoRoot, "spar"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "spar"), drv, 0o755)
}
