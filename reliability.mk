# Reliability targets, included by the Makefile (which defines GO).
#   make reliability  the full scenarios of docs/reliability.md: 1,000 requests/s for 60 s, etc.
#   make fuzz-smoke   every fuzz target of the module, a few seconds each, as make test runs them

# RELIABILITY_TIMEOUT bounds each half of the full run (together about three minutes).
RELIABILITY_TIMEOUT ?= 20m
# FUZZ_BUDGET is the fuzzing time, in seconds, shared by all fuzz targets; each gets at least
# FUZZ_MIN_SECONDS. Building the instrumented test binaries comes on top (cached after a run).
FUZZ_BUDGET      ?= 60
FUZZ_MIN_SECONDS ?= 3

.PHONY: reliability fuzz-smoke

# RELIABILITY_RESULTS receives each half's results; docs/reliability.md is rewritten from them.
RELIABILITY_RESULTS ?= $(CURDIR)/test/reliability/results

# The serving side loads admit serve, a separate process, at 1,000 requests/s: the load generator
# runs without the race detector so that it is not the bottleneck. The calling side runs dispatch
# and extension in the test process, with -race. Both halves run even when the first fails, and
# the page is rewritten either way: a failed scenario shows as failing there.
reliability:
	@status=0; \
	ADMIT_RELIABILITY_RESULTS=$(RELIABILITY_RESULTS) $(GO) test -count=1 -tags reliability -timeout $(RELIABILITY_TIMEOUT) -v -run '^TestReliability$$/^serving$$' ./test/reliability/ || status=1; \
	ADMIT_RELIABILITY_RESULTS=$(RELIABILITY_RESULTS) $(GO) test -race -count=1 -tags reliability -timeout $(RELIABILITY_TIMEOUT) -v -run '^TestReliability$$/^calling$$' ./test/reliability/ || status=1; \
	$(GO) run ./test/reliability/report/cmd/reliabilityreport -results $(RELIABILITY_RESULTS) -docs docs/reliability.md || status=1; \
	exit $$status

# Every fuzz target of the module, FUZZ_BUDGET seconds shared between them (hack/fuzz-smoke.sh).
fuzz-smoke:
	GO=$(GO) FUZZ_BUDGET=$(FUZZ_BUDGET) FUZZ_MIN_SECONDS=$(FUZZ_MIN_SECONDS) bash hack/fuzz-smoke.sh
