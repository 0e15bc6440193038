# config_repo.sh: the repository the audit scripts review, $WORK/repo, with
# the commits tagged base and head, and an empty $WORK/home.
set -e
mkdir -p "$WORK/home"
git init -q "$WORK/repo"
cd "$WORK/repo"
printf 'rule one\nrule two\n' > AGENTS.md
printf 'AC-1 works\n' > criteria.md
printf 'package main\n' > main.go
git add . && git commit -qm base && git tag base
mkdir checks && printf 'a\nb\n' > checks/t.sh
printf 'package main\n\nfunc f() {}\n' > main.go
git add . && git commit -qm head && git tag head
