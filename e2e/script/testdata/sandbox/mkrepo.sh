# The sandbox group's setting (docs/sandbox.md): $WORK/repo with a base and a
# head commit, $WORK/tools with the reviewers (their install folder: the
# sandbox lets them read it, and nothing else of $WORK), a home folder with a
# secret, and a secret outside the workspace. spar.toml comes from each
# script's spar.toml.in (@WORK@ replaced).
set -e
mkdir -p repo/app repo/.jaekit home/.ssh tools reviews
printf 'BEGIN OPENSSH PRIVATE KEY sandbox-home-secret\n' > home/.ssh/id_rsa
printf 'sandbox-outside-secret\n' > secret.txt
cd repo
git init -q
printf 'Check every divisor before dividing.\n' > AGENTS.md
printf 'reviews/\n' > .gitignore
printf 'rules = ["AGENTS.md"]\n' > .jaekit/spar.toml
printf 'package app\n\nfunc Ratio(a, b int) int { return 0 }\n' > app/main.go
git add -A && git commit -q -m base
git tag base
git rev-parse HEAD > ../base
printf 'package app\n\nfunc Ratio(a, b int) int { return a / b }\n' > app/main.go
git commit -q -am divide
git tag head
git rev-parse HEAD > ../head
git rev-parse --short=7 HEAD > ../tools/head7
cd ..
# finder: a reviewer that reports one defect.
cat > tools/finder <<'SH'
#!/bin/sh
printf '{"reviewed_head":"%s","verdict":"blocking_findings","angles_checked":[{"angle":"requirement-counterexample","result":"ok"},{"angle":"side-effects","result":"ok"},{"angle":"design","result":"ok"},{"angle":"premises","result":"ok"},{"angle":"check-validity","result":"ok"}],"angles_unchecked":[],"findings":[{"id":"d1","proposed_class":"defect","angle":"side-effects","location":"head/app/main.go:3","claim":"Ratio divides by b unchecked","failure_scenario":"Ratio(1, 0) panics","evidence":"return a / b","link_kind":"rule","link":"AGENTS.md:1","introduced_by_change":"yes","regression":"no","check_impact":"none","confidence":"high","smallest_fix":"return 0 when b is 0"}],"limits":""}\n' "$(cat "$(dirname "$0")/head7")"
SH
# clean: the result of a reviewer that found nothing, printed by the others.
cat > tools/clean <<'SH'
printf '{"reviewed_head":"%s","verdict":"no_blocking_findings","angles_checked":[{"angle":"requirement-counterexample","result":"ok"},{"angle":"side-effects","result":"ok"},{"angle":"design","result":"ok"},{"angle":"premises","result":"ok"},{"angle":"check-validity","result":"ok"}],"angles_unchecked":[],"findings":[],"limits":""}\n' "$(cat "$tools/head7")"
SH
chmod 755 tools/finder
# claude: the fake claude CLI in the tools folder, its result the finder's
# (FAKE_RESULT_FILE=$WORK/tools/claude-result.json): a verified reviewer's
# defect, which blocks the gate.
cp -r "$FAKEBIN/claude" "$FAKEBIN/lib.sh" "$FAKEBIN/streams" tools/
tools/finder > tools/claude-result.json
for f in *.in; do
	[ -f "$f" ] || continue
	sed "s|@WORK@|$WORK|g" "$f" > "${f%.in}"
done
for f in tools.*; do
	[ -f "$f" ] || continue
	cp "$f" "tools/${f#tools.}"
	chmod 755 "tools/${f#tools.}"
done
