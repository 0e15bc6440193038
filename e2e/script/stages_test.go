package script

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/jaekit/spar/stage"
)

// stageCommands are the stages as testscript commands: each runs the
// stage's Main in this process with the process's arguments and streams
// (stage.Mains), as its spar-*/main.go does.
func stageCommands() map[string]func() {
	cmds := make(map[string]func(), len(stage.Mains))
	for name, main := range stage.Mains {
		cmds[name] = func() { os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
	}
	return cmds
}

// installStages puts every spar stage, the driver and the example reviewer
// into dir: the same install `make install` does. It is the only place that
// knows where they come from; TestMain, the scripts (PATH) and the Go tests
// (binDir) only use dir.
//
// The stages are this test binary (stageCommands): testscript.Main has put
// a copy of it named after each stage on PATH, and dir links to those. The
// driver is the repository's spar script. The example reviewer is no stage
// but a program of its own, written as one outside spar would be
// (examples/spar-example-reviewer): it is built.
func installStages(dir string) error {
	for name := range stage.Mains {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("stage %s: not on PATH (testscript.Main puts it there): %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	examples, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "spar-*"))
	for _, m := range examples {
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
			return fmt.Errorf("%s did not build: %v", rel, err)
		}
	}
	drv, err := os.ReadFile(filepath.Join(repoRoot, "spar"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "spar"), drv, 0o755)
}
