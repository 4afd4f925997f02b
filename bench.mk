# Benchmarks: bench/ (a module of its own) and the end-to-end latency benchmark in test/e2e.
# Included by the Makefile; results are described in docs/benchmarks.md.

GO          ?= go
E2E_TIMEOUT ?= 20m
BENCH_RESULTS := $(CURDIR)/bench/results
# Creates per variant in the end-to-end latency benchmark.
BENCH_CREATES ?= 2000

.PHONY: bench bench-latency bench-smoke

## bench: the full comparisons on this machine (about 6 minutes): write latency through a real
## kube-apiserver, then the serving and dispatcher harness, which rewrites the generated parts of
## docs/benchmarks.md, the charts and bench/results/results.json; CPU profiles go to
## bench/results/tmp/profiles (not committed).
bench: bench-latency
	cd bench && $(GO) run ./cmd/admitbench -results $(BENCH_RESULTS) -docs ../docs/benchmarks.md \
		-latency $(BENCH_RESULTS)/e2e-latency.txt -profiles $(BENCH_RESULTS)/tmp/profiles

## bench-latency: only the end-to-end latency benchmark; its raw output is kept for the report.
bench-latency: tools
	@mkdir -p $(BENCH_RESULTS)
	$(GO) test -tags e2e -run '^$$' -bench WebhookLatency -benchtime $(BENCH_CREATES)x -count 1 -timeout $(E2E_TIMEOUT) \
		./test/e2e/ > $(BENCH_RESULTS)/e2e-latency.txt; \
		status=$$?; cat $(BENCH_RESULTS)/e2e-latency.txt; exit $$status

## bench-smoke: the benchmarks' tests, then every phase of the harness for a moment, its report
## rendered into a temporary copy of the docs page. Checks that everything works, never how fast.
bench-smoke:
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) test -race -count=1 ./loadgen ./usage ./chart
	@tmp="$$(mktemp -d)"; \
		(cd bench && $(GO) run ./cmd/admitbench -smoke -results "$$tmp" -docs ../docs/benchmarks.md -docs-out "$$tmp/benchmarks.md"); \
		status=$$?; rm -rf "$$tmp"; exit $$status
