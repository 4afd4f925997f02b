# Benchmarks: bench/ (a module of its own), the end-to-end latency benchmark in test/e2e, the review
# throughput benchmark in review/, the audit of 100,000 objects in internal/cli, the audit of an
# audit log unsharded and in shards (bench/cmd/auditlogbench), admit review against kube-apiserver
# and kubectl-validate (test/e2e), the patch benchmarks of bench/ and the release binary's size.
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
# Rounds of the audit benchmark: each size once per round, in a process of its own (100,000
# objects take about two CPU-minutes; 1,000 show what memory does not grow with).
BENCH_AUDIT_ROUNDS ?= 3
BENCH_AUDIT_SIZES := 1000 100000
# The sizes of the memory benchmark, and its commands (BenchmarkCommandMemory in internal/cli):
# each command and size once, in a process of its own; peak memory varies little between runs.
BENCH_MEMORY_SIZES := 1000 10000 100000
BENCH_MEMORY_COMMANDS := review-text review-summary review-json review-yaml lint test
# Runs of the patch benchmarks: the whole suite each time, one run after the other.
BENCH_PATCH_RUNS ?= 5
# The audit-log benchmark: its logs' sizes in writes (comma-separated; the largest is what the
# goals and the projection are read at, the smallest what memory must not grow from), the shards
# the sharded audit runs in, and its rounds (each the unsharded audit and every shard, each in a
# process of its own; a million writes take about 20 CPU-minutes unsharded, so one round).
BENCH_AUDIT_LOG_SIZES ?= 100000,1000000
BENCH_AUDIT_LOG_SHARDS ?= 2
BENCH_AUDIT_LOG_ROUNDS ?= 1
# The anchors benchmark: the objects of its build, its rounds, and the offline schema checker it
# measures admit review against (built once from the Go module proxy into the cache).
BENCH_ANCHOR_OBJECTS ?= 5000
BENCH_ANCHOR_ROUNDS ?= 3
KUBECTL_VALIDATE_VERSION := v0.0.4
KUBECTL_VALIDATE := $(CACHE)/kubectl-validate-$(KUBECTL_VALIDATE_VERSION)/kubectl-validate

.PHONY: bench-anchors bench bench-latency bench-review bench-audit bench-memory bench-audit-log bench-patch bench-size bench-smoke

## bench: the full comparisons on this machine (about an hour and a half): write latency through a real
## kube-apiserver, review throughput, the audit of 100,000 objects, memory by input size, an audit
## log's audit unsharded and in shards (about half an hour of it), admit review against
## kube-apiserver's dry runs and kubectl-validate, patch generation, the release
## binary's size, then the serving and dispatcher harness, which rewrites the generated parts of
## docs/benchmarks.md from all of them, the charts and bench/results/results.json; CPU profiles go
## to bench/results/tmp/profiles (not committed).
bench: bench-latency bench-review bench-audit bench-memory bench-audit-log bench-anchors bench-patch bench-size
	cd bench && $(GO) run ./cmd/admitbench -results $(BENCH_RESULTS) -docs ../docs/benchmarks.md \
		-latency $(BENCH_RESULTS)/e2e-latency.txt -review $(BENCH_RESULTS)/review-throughput.txt \
		-audit $(BENCH_RESULTS)/audit-100k.txt -memory $(BENCH_RESULTS)/memory.txt -audit-log $(BENCH_RESULTS)/audit-log.txt \
		-anchors $(BENCH_RESULTS)/anchors.txt -patch $(BENCH_RESULTS)/patch.txt \
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

## bench-audit: only the audit benchmark (BenchmarkAudit100k in internal/cli): `admit audit` of a
## generated dump of 100,000 objects, and of 1,000; its test binary built once, each size run in a
## process of its own so that the peak RSS it reports is its own, BENCH_AUDIT_ROUNDS rounds; the
## raw output is kept in bench/results/audit-100k.txt for the report.
bench-audit:
	@mkdir -p $(BENCH_RESULTS)/tmp
	$(GO) test -c -o $(BENCH_RESULTS)/tmp/cli.test ./internal/cli
	@out=$(BENCH_RESULTS)/audit-100k.txt; : > $$out; \
	for round in $$(seq $(BENCH_AUDIT_ROUNDS)); do \
		for objects in $(BENCH_AUDIT_SIZES); do \
			ADMIT_AUDIT_OBJECTS=$$objects $(BENCH_RESULTS)/tmp/cli.test -test.run '^$$' -test.bench '^BenchmarkAudit100k$$' -test.benchtime 1x >> $$out || exit 1; \
		done; \
	done; \
	grep '^Benchmark' $$out

## bench-memory: only the memory benchmark: `admit review` in each output format, `admit lint` and
## `admit test` on 1,000, 10,000 and 100,000 generated objects, each command and size in a
## process of its own so that the peak RSS it reports is its own; the raw output is kept in
## bench/results/memory.txt for the report (about 15 minutes).
bench-memory:
	@mkdir -p $(BENCH_RESULTS)/tmp
	$(GO) test -c -o $(BENCH_RESULTS)/tmp/cli.test ./internal/cli
	@out=$(BENCH_RESULTS)/memory.txt; : > $$out; \
	for objects in $(BENCH_MEMORY_SIZES); do \
		for command in $(BENCH_MEMORY_COMMANDS); do \
			ADMIT_MEMORY_OBJECTS=$$objects $(BENCH_RESULTS)/tmp/cli.test -test.run '^$$' -test.bench "^BenchmarkCommandMemory/$$command\$$" \
				-test.benchtime 1x -test.timeout 30m >> $$out || exit 1; \
		done; \
	done; \
	grep '^Benchmark' $$out

## bench-audit-log: only the audit-log benchmark (bench/cmd/auditlogbench): an audit log of
## 100,000 writes and one of 1,000,000 generated (bench/auditlog) in bench/results/tmp/audit-log,
## each deleted once measured (a million writes are about 5 GB); BenchmarkLogShardPasses (audit/,
## its test binary built once) on each, the CPU every shard spends on each line whatever it owns;
## then `admit audit --audit-log` of each, unsharded and as each of BENCH_AUDIT_LOG_SHARDS shards,
## every audit a process of its own, one after the other, its CPU time and peak RSS from getrusage,
## the shards' counts checked to add up to the unsharded audit's. The output is kept in
## bench/results/audit-log.txt for the report (about half an hour on two cores).
bench-audit-log:
	@mkdir -p $(BENCH_RESULTS)/tmp/audit-log
	$(GO) build -o $(BENCH_RESULTS)/tmp/admit ./cmd/admit
	$(GO) test -c -o $(BENCH_RESULTS)/tmp/audit.test ./audit
	cd bench && $(GO) build -o $(BENCH_RESULTS)/tmp/auditlogbench ./cmd/auditlogbench
	$(BENCH_RESULTS)/tmp/auditlogbench -admit $(BENCH_RESULTS)/tmp/admit -passes-bench $(BENCH_RESULTS)/tmp/audit.test \
		-writes $(BENCH_AUDIT_LOG_SIZES) -shards $(BENCH_AUDIT_LOG_SHARDS) -rounds $(BENCH_AUDIT_LOG_ROUNDS) \
		-dir $(BENCH_RESULTS)/tmp/audit-log -o $(BENCH_RESULTS)/audit-log.txt

## bench-patch: only the patch benchmarks (bench/patch_test.go: patch.Diff, Lossless and Typed
## against the JSON Patch libraries), the whole suite BENCH_PATCH_RUNS times one run after the
## other, so that every library sees the same mix of load; the raw output is kept in
## bench/results/patch.txt for the report.
bench-patch:
	@mkdir -p $(BENCH_RESULTS)
	@out=$(BENCH_RESULTS)/patch.txt; : > $$out; \
	for run in $$(seq $(BENCH_PATCH_RUNS)); do \
		(cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 1 .) >> $$out || exit 1; \
	done; \
	grep -c '^Benchmark' $$out

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

## bench-anchors: admit review against what users would run instead, on the same objects
## (BenchmarkReviewAnchors in test/e2e): the build sent to the suite's real kube-apiserver as
## server-side dry-run creates (its CPU and etcd's per object), admit review --summary of it, and
## kubectl-validate of it, without and with one webhook, the answers compared;
## BENCH_ANCHOR_ROUNDS rounds, the raw output kept in bench/results/anchors.txt.
bench-anchors: tools test-binaries
	@mkdir -p $(BENCH_RESULTS)
	@test -x $(KUBECTL_VALIDATE) || GOBIN=$(dir $(KUBECTL_VALIDATE)) $(GO) install sigs.k8s.io/kubectl-validate@$(KUBECTL_VALIDATE_VERSION)
	@mkdir -p $(BENCH_RESULTS)/tmp
	KUBECTL_VALIDATE=$(KUBECTL_VALIDATE) ADMIT_ANCHOR_OBJECTS=$(BENCH_ANCHOR_OBJECTS) $(GO) test -tags e2e -run '^$$' -bench ReviewAnchors \
		-benchtime 1x -count $(BENCH_ANCHOR_ROUNDS) -timeout $(E2E_TIMEOUT) ./test/e2e/ > $(BENCH_RESULTS)/tmp/anchors-raw.txt; \
		status=$$?; grep -E '^(goos|goarch|pkg|cpu|Benchmark|--- FAIL|    anchors)' $(BENCH_RESULTS)/tmp/anchors-raw.txt > $(BENCH_RESULTS)/anchors.txt; \
		cat $(BENCH_RESULTS)/anchors.txt; exit $$status
