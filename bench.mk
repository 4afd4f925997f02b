# Benchmarks: bench/ (a module of its own), the end-to-end latency benchmark in test/e2e, the review
# throughput benchmark in review/ and the release binary's size.
# Included by the Makefile; results are described in docs/benchmarks.md.

GO          ?= go
E2E_TIMEOUT ?= 20m
BENCH_RESULTS := $(CURDIR)/bench/results
# Creates per variant in the end-to-end latency benchmark, and its runs (the report takes medians).
BENCH_CREATES ?= 2000
BENCH_LATENCY_RUNS ?= 3
# Rounds of the review throughput benchmark: every size and variant once per round.
BENCH_REVIEW_ROUNDS ?= 3
# The review benchmark's runs, each in a process of its own (anchored: 1000 would match 10000).
BENCH_REVIEW_RUNS := 'objects=1000$$/webhook=none' 'objects=1000$$/webhook=one' 'objects=10000$$/webhook=none' 'objects=10000$$/webhook=one'

.PHONY: bench bench-latency bench-review bench-size bench-smoke

## bench: the full comparisons on this machine (about 20 minutes): write latency through a real
## kube-apiserver, review throughput, the release binary's size, then the serving and dispatcher
## harness, which rewrites the generated parts of docs/benchmarks.md, the charts and
## bench/results/results.json; CPU profiles go to bench/results/tmp/profiles (not committed).
bench: bench-latency bench-review bench-size
	cd bench && $(GO) run ./cmd/admitbench -results $(BENCH_RESULTS) -docs ../docs/benchmarks.md \
		-latency $(BENCH_RESULTS)/e2e-latency.txt -review $(BENCH_RESULTS)/review-throughput.txt \
		-binary $(CURDIR)/$(BIN)/linux/admit -symbols $(BENCH_RESULTS)/tmp/admit-symbols -dumpdep $(BENCH_RESULTS)/tmp/admit-dumpdep.txt \
		-profiles $(BENCH_RESULTS)/tmp/profiles

## bench-latency: only the end-to-end latency benchmark; its raw output is kept for the report.
bench-latency: tools
	@mkdir -p $(BENCH_RESULTS)
	$(GO) test -tags e2e -run '^$$' -bench WebhookLatency -benchtime $(BENCH_CREATES)x -count $(BENCH_LATENCY_RUNS) -timeout $(E2E_TIMEOUT) \
		./test/e2e/ > $(BENCH_RESULTS)/e2e-latency.txt; \
		status=$$?; cat $(BENCH_RESULTS)/e2e-latency.txt; exit $$status

## bench-review: only the review throughput benchmark (review/bench_test.go), its test binary
## built once, each size and variant run in a process of its own so that the peak RSS it reports
## is its own, BENCH_REVIEW_ROUNDS rounds; then a CPU profile of each 10,000-object variant.
bench-review:
	@mkdir -p $(BENCH_RESULTS)/tmp/profiles
	$(GO) test -c -o $(BENCH_RESULTS)/tmp/review.test ./review
	@out=$(BENCH_RESULTS)/review-throughput.txt; : > $$out; \
	for round in $$(seq $(BENCH_REVIEW_ROUNDS)); do \
		for run in $(BENCH_REVIEW_RUNS); do \
			$(BENCH_RESULTS)/tmp/review.test -test.run '^$$' -test.bench "ReviewThroughput/$$run" -test.benchtime 1x >> $$out || exit 1; \
		done; \
	done; \
	for hooks in none one; do \
		$(BENCH_RESULTS)/tmp/review.test -test.run '^$$' -test.bench "ReviewThroughput/objects=10000\$$/webhook=$$hooks" -test.benchtime 1x \
			-test.cpuprofile $(BENCH_RESULTS)/tmp/profiles/review-$$hooks.pprof > /dev/null || exit 1; \
	done; \
	grep '^Benchmark' $$out

## bench-size: the release binary (make release-binary), and a build of the same configuration
## left unstripped, with the linker's dependency dump: what the report says links what.
bench-size: release-binary
	@mkdir -p $(BENCH_RESULTS)/tmp
	CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build $(RELEASE_GOFLAGS) -ldflags=-dumpdep \
		-o $(BENCH_RESULTS)/tmp/admit-symbols ./cmd/admit 2> $(BENCH_RESULTS)/tmp/admit-dumpdep.txt || \
		{ tail -20 $(BENCH_RESULTS)/tmp/admit-dumpdep.txt; exit 1; }

## bench-smoke: the benchmarks' tests, then every phase of the harness for a moment, its report
## rendered into a temporary copy of the docs page. Checks that everything works, never how fast.
bench-smoke:
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) test -race -count=1 ./loadgen ./usage ./chart
	@tmp="$$(mktemp -d)"; \
		(cd bench && $(GO) run ./cmd/admitbench -smoke -results "$$tmp" -docs ../docs/benchmarks.md -docs-out "$$tmp/benchmarks.md"); \
		status=$$?; rm -rf "$$tmp"; exit $$status
