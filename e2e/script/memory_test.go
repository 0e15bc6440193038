package script

// docs/pipeline.md "Memory" (docs/trust.md "Git, readers and bounded
// work"): a reviewer result of N
// bytes takes at most 4 N plus a constant of peak memory in every stage it
// passes. The stages run as the driver runs them (a file between stages),
// on a generated result of 40 MB and 60,000 findings, and each child's
// peak resident set (ru_maxrss) is read from its rusage.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// memResultBytes and memFindings are the figures of docs/pipeline.md "Memory".
const (
	memResultBytes = 40 << 20
	memFindings    = 60000
	memConstant    = 64 << 20
)

var memStages = []string{"exec", "check", "classify", "record"}

// memRound runs config | packet | exec | check | classify | record on a
// 40 MB result and returns the result's size and each stage's peak RSS.
func memRound(tb testing.TB) (int64, map[string]int64) {
	tb.Helper()
	if binDir == "" {
		tb.Skip("the stage binaries were not built")
	}
	dir := tb.TempDir()
	repo := filepath.Join(dir, "repo")
	script := `set -e
git init -q "$1"; cd "$1"
git config user.name m; git config user.email m@example.invalid
printf 'rule one\nrule two\n' > AGENTS.md; printf 'reviews/\n' > .gitignore; mkdir src
i=0; while [ $i -lt 100 ]; do seq 1 200 > src/f$i.go; i=$((i+1)); done
git add . && git commit -qm base && git tag base
i=0; while [ $i -lt 100 ]; do echo change >> src/f$i.go; i=$((i+1)); done
git commit -qam head && git tag head`
	if out, err := exec.Command("sh", "-c", script, "sh", repo).CombinedOutput(); err != nil {
		tb.Fatalf("%v %s", err, out)
	}
	head, err := exec.Command("git", "-C", repo, "rev-parse", "head").Output()
	if err != nil {
		tb.Fatal(err)
	}
	result := filepath.Join(dir, "result.json")
	n := writeBigResult(tb, result, strings.TrimSpace(string(head)))
	cfg := filepath.Join(dir, "u.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[[reviewers]]\nname = \"big\"\npreset = \"command\"\nargv = [\"/bin/cat\", %q]\n", result)), 0o644)
	os.MkdirAll(filepath.Join(dir, "home"), 0o755)
	os.MkdirAll(filepath.Join(repo, "reviews", "s"), 0o755)
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_CONFIG_HOME=",
		"CLEAN_REVIEW_CONFIG="+filepath.Join(dir, "none.json"), "SPAR_CONFIG="+cfg)
	out := filepath.Join(repo, "reviews", "s", "code-1")
	steps := []struct {
		stage string
		args  []string
	}{
		{"config", []string{"--repo", repo}},
		{"packet", []string{"--repo", repo, "--stage", "code", "--base", "base", "--head", "head", "--out", out}},
		{"exec", nil}, {"check", nil}, {"classify", nil}, {"record", nil},
	}
	rss := map[string]int64{}
	prev := ""
	for _, st := range steps {
		cmd := exec.Command(filepath.Join(binDir, "spar-"+st.stage), st.args...)
		cmd.Env = env
		if prev != "" {
			in, err := os.Open(prev)
			if err != nil {
				tb.Fatal(err)
			}
			defer in.Close()
			cmd.Stdin = in
		}
		next := filepath.Join(dir, st.stage+".json")
		o, err := os.Create(next)
		if err != nil {
			tb.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = o, &stderr
		err = cmd.Run()
		o.Close()
		if err != nil {
			tb.Fatalf("spar-%s: %v\n%s", st.stage, err, stderr.String())
		}
		rss[st.stage] = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
		prev = next
	}
	return n, rss
}

const memFinding = `{"id":"x%d","proposed_class":%q,"angle":%q,"location":"head/src/f%d.go:%d-%d","claim":"%s","failure_scenario":"%s","evidence":"%s","link_kind":"none","link":"","introduced_by_change":"yes","regression":"no","check_impact":"none","confidence":"high","smallest_fix":"add a check"}`

// writeBigResult writes a valid result of the head commit with memFindings
// findings and about memResultBytes bytes, text with quotes and newlines
// to escape; findings are defects, notes and requirement questions (a
// hardening finding would add one ledger line each).
func writeBigResult(tb testing.TB, path, head string) int64 {
	var b strings.Builder
	b.Grow(memResultBytes + 1<<20)
	angles := []string{"requirement-counterexample", "side-effects", "design", "premises", "check-validity"}
	classes := []string{"defect", "note", "requirement-question"}
	fmt.Fprintf(&b, `{"reviewed_head":%q,"verdict":"blocking_findings","angles_checked":[`, head)
	for i, a := range angles {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"angle":%q,"result":"ok"}`, a)
	}
	b.WriteString(`],"angles_unchecked":[],"findings":[`)
	// Each finding's three texts fill what its other members leave of
	// memResultBytes / memFindings.
	per := memResultBytes/memFindings - len(fmt.Sprintf(memFinding, 99999, "requirement-question", "requirement-counterexample", 99, 150, 152, "", "", "")) - 1
	claim := strings.Repeat(`the \"value\" can be nil here\n`, per/3/31+1)[:per/3]
	claim = strings.TrimRight(claim, `\`)
	scen := strings.Repeat("call f() with an empty map and see it crash; ", per/3/45+1)[:per/3]
	evid := strings.Repeat(`line 12: x := m[k] // no check\n`, per/3/32+1)[:per/3]
	evid = strings.TrimRight(evid, `\`)
	for i := 0; i < memFindings; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, memFinding, i, classes[i%3], angles[i%5], i%100, 1+i%150, 3+i%150, claim, scen, evid)
	}
	b.WriteString(`],"limits":""}`)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return int64(b.Len())
}

// TestTrust_Route15_PeakMemory: every stage a 40 MB result of 60,000
// findings passes, spar-record's staged recording included, peaks below
// 4 N + 64 MiB resident (the child's maxrss).
func TestTrust_Route15_PeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40 MB round (about a minute)")
	}
	n, rss := memRound(t)
	limit := 4*n + memConstant
	for _, st := range memStages {
		t.Logf("spar-%s: peak RSS %d MiB for a result of %d MiB (%.2f N)", st, rss[st]>>20, n>>20, float64(rss[st])/float64(n))
		if rss[st] > limit {
			t.Errorf("spar-%s: peak RSS %d MiB, more than 4 N + 64 MiB = %d MiB", st, rss[st]>>20, limit>>20)
		}
	}
}

// BenchmarkPeakMemory reports each stage's peak RSS over the result's size
// (N = 40 MB, 60,000 findings); the worst of them is worst-ratio.
func BenchmarkPeakMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		n, rss := memRound(b)
		worst := 0.0
		for _, st := range memStages {
			r := float64(rss[st]) / float64(n)
			b.ReportMetric(r, st+"-ratio")
			worst = max(worst, r)
		}
		b.ReportMetric(worst, "worst-ratio")
		b.ReportMetric(float64(n)/(1<<20), "MiB-result")
	}
}
