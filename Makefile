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

.PHONY: record-histories
record-histories: ## record today's envelope workflow histories under workflows/testdata (replayed by make test)
	@bash scripts/record-histories.sh

.PHONY: bench
bench: ## run the benchmarks against a real PostgreSQL and Temporal; prints figures and ratios
	@bash scripts/bench.sh

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
