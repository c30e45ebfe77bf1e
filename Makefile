# Sobre: `make run` starts the whole system on this machine, `make test` runs the whole suite.
# Both build or install what they need on first use (Go modules, the Temporal CLI, mailpit,
# Debian's PostgreSQL when missing, the npm packages of the end-to-end tests).

SHELL := bash
.DEFAULT_GOAL := help
export GOTOOLCHAIN ?= local

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z][a-z-]*:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

.PHONY: run
run: ## start PostgreSQL, Temporal (with Web UI), mailpit, the API and the worker; Ctrl-C stops them
	@bash scripts/run.sh

.PHONY: test
test: ## run the whole suite (Go unit and integration tests, fuzz, deploy checks, end-to-end with the SDK)
	@bash scripts/test.sh

.PHONY: e2e
e2e: ## run only the end-to-end tests (E2E_TESTS=tests/seal.test.mjs picks files)
	@TEST_PARTS=e2e bash scripts/test.sh

.PHONY: faults
faults: ## the fault tests alone, at full size: 200 envelopes per fault, the mail relay down 10 minutes
	@SOBRE_FAULT_BATCH=200 SOBRE_FAULT_OUTAGE=60s SOBRE_FAULT_MAIL_OUTAGE=10m TEST_PARTS=faults bash scripts/test.sh

.PHONY: record-histories
record-histories: ## record today's envelope workflow histories under workflows/testdata (replayed by make test)
	@bash scripts/record-histories.sh

.PHONY: bench
bench: ## run the benchmarks against a real PostgreSQL and Temporal; prints figures and ratios
	@bash scripts/bench.sh

.PHONY: load load-pending load-sustained
load: ## life cycles through the public API, 1 then 2 API and worker processes; rates, ratio, checks (README, Load)
	@LOAD_MODES=lifecycle bash scripts/load.sh

load-pending: ## 10,000 envelopes pending at once: the processes' memory, then all signed (README, Load)
	@LOAD_MODES=pending bash scripts/load.sh

load-sustained: ## 5 minutes of mixed traffic (vegeta) at the highest rate with p99 < 100 ms (README, Load)
	@LOAD_MODES=sustained bash scripts/load.sh

.PHONY: bench-scale
bench-scale: ## seed a million envelopes (once), then time the reads at 20 clients and write their plans to docs/scale/
	@bash scripts/bench-scale.sh

.PHONY: build
build: ## build bin/sobre
	go build -o bin/sobre ./cmd/sobre

.PHONY: tools
tools: ## build bin/temporal and bin/mailpit (once)
	@bash scripts/build-temporal.sh
	@bash scripts/build-mailpit.sh

.PHONY: lint
lint: ## go vet, gofmt, the Temporal determinism check (workflowcheck) and staticcheck, both pinned in go.mod
	go vet ./...
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './e2e/*' -not -path './.data/*'))"; \
	  test -z "$$unformatted" || { echo "gofmt: not formatted:"; echo "$$unformatted"; exit 1; }
	go tool workflowcheck ./workflows/...
	go tool staticcheck ./...

.PHONY: clean
clean: ## remove built binaries and local state (.data, bin)
	rm -rf bin .data e2e/node_modules
