# The repository of the gate scripts: base -> head1 -> fix on main, and
# side, a commit on another branch that main does not contain.
set -e
git init -q repo
cd repo
printf 'package main\n' > main.go
printf 'rule one\nrule two\n' > AGENTS.md
printf 'AC-1 works\n' > criteria.md
git add . && git commit -qm base && git tag base
printf 'package main\n\nfunc f() {}\n' > main.go
mkdir checks && printf 'a\nb\n' > checks/t.sh
git add . && git commit -qm head1 && git tag head1
git checkout -q -b other
printf 'y\n' >> main.go
git commit -qam side && git tag side
git checkout -q main
printf 'x\n' >> main.go
git commit -qam fix && git tag fix
