# spar — build, test, install, bench, demo.
GO      ?= go
BIN     ?= bin
PREFIX  ?= $(HOME)/.local
BINDIR  ?= $(PREFIX)/bin
FUZZTIME ?= 30s
# TESTTIMEOUT bounds each test binary of make test: a fresh clone on a busy
# 2-core machine, with a second make test beside it, stays well inside it
# (Go's default of 10 minutes does not: e2e/script took 22 minutes on 2
# cores at a load average of 15).
TESTTIMEOUT ?= 45m

.PHONY: all build test vet install bench fuzz demo clean deps clis lint-ci

all: build

# deps fetches every module a fresh machine needs (CI runs it through test).
deps:
	$(GO) mod download

build: deps
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./...
	cp spar $(BIN)/spar
	chmod +x $(BIN)/spar

vet: deps
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# clis installs the pinned reviewer CLIs that the real-CLI tests drive
# (e2e/realcli) into ~/.cache/spar/cli/<package>@<version> with npm, reused
# when present. Without node or npm, or when an install fails, it says so
# and the tests that need it skip; SPAR_REAL_CLI=require (.ci/run sets it)
# makes either a failure.
clis:
	@sh scripts/install-clis

# lint-ci lints the GitHub workflow and the action it uses (action.yml) with
# the pinned actionlint that make clis installs (the e2e script
# transport/github_action.txtar also shows it refusing a bad workflow).
# Without it: one line, or a failure with SPAR_REAL_CLI=require (.ci/run).
CLICACHE ?= $(or $(SPAR_CLI_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/spar/cli)
ACTIONLINT = $(CLICACHE)/actionlint@v1.7.12/actionlint

lint-ci: clis
	@if [ -x "$(ACTIONLINT)" ]; then \
	  "$(ACTIONLINT)" && echo "actionlint: .github/workflows and action.yml pass"; \
	elif [ "$${SPAR_REAL_CLI:-}" = require ]; then \
	  echo "actionlint is not installed in $(ACTIONLINT) (make clis)" >&2; exit 1; \
	else echo "actionlint is not installed: make clis installs it; the workflow is not linted"; fi

test: vet clis lint-ci
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) ./...

install: build
	@mkdir -p $(BINDIR)
	cp $(BIN)/spar $(BIN)/spar-* $(BINDIR)/
	@echo "installed spar and its stages in $(BINDIR)"

# bench runs every benchmark once (7 to 12 minutes on 2 cores), keeps the
# raw output in $(BIN)/bench.txt and prints one table of the figures the
# docs set targets for, each a ratio from this run (scripts/benchtable),
# then the CI install step's cold and warm build (scripts/install-time):
# shown, never failing the target (a slow or failed build is a line).
bench: deps
	@mkdir -p $(BIN)
	@echo "$(GO) test -run '^\$$' -bench . -benchmem -count=1 ./... > $(BIN)/bench.txt"
	@$(GO) test -run '^$$' -bench . -benchmem -count=1 ./... > $(BIN)/bench.txt 2>&1 || { cat $(BIN)/bench.txt; exit 1; }
	@sh scripts/benchtable $(BIN)/bench.txt
	@echo "raw output: $(BIN)/bench.txt"
	@GO=$(GO) sh scripts/install-time || echo "install-time: no figures (see above)"

fuzz: deps
	@for p in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$p/*_test.go | sed 's/func //'); do \
	    echo "fuzz $$p $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
	  done; done

demo: build
	PATH="$(CURDIR)/$(BIN):$$PATH" sh testdata/demo/run.sh

clean:
	rm -rf $(BIN)
