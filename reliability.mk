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

# The serving side loads admit serve, a separate process, at 1,000 requests/s: the load generator
# runs without the race detector so that it is not the bottleneck. The calling side runs dispatch
# and extension in the test process, with -race. Both halves run even when the first fails.
reliability:
	@status=0; \
	$(GO) test -count=1 -tags reliability -timeout $(RELIABILITY_TIMEOUT) -v -run '^TestReliability$$/^serving$$' ./test/reliability/ || status=1; \
	$(GO) test -race -count=1 -tags reliability -timeout $(RELIABILITY_TIMEOUT) -v -run '^TestReliability$$/^calling$$' ./test/reliability/ || status=1; \
	exit $$status

# The targets are listed, not named: a new fuzz target anywhere in the module is run without
# editing this file. Each target runs even when an earlier one failed; the run fails at the end.
fuzz-smoke:
	@list="$$($(GO) test -list '^Fuzz' ./...)" || { echo "$$list"; exit 1; }; \
	targets="$$(printf '%s\n' "$$list" | awk '/^Fuzz/ { name[n++] = $$1; next } /^ok / { for (i = 0; i < n; i++) print $$2, name[i]; n = 0 }')"; \
	count=$$(printf '%s\n' "$$targets" | grep -c .); \
	if [ "$$count" -eq 0 ]; then echo "fuzz-smoke: no fuzz target found"; exit 1; fi; \
	seconds=$$(( $(FUZZ_BUDGET) / count )); \
	if [ "$$seconds" -lt $(FUZZ_MIN_SECONDS) ]; then seconds=$(FUZZ_MIN_SECONDS); fi; \
	echo "fuzz-smoke: $$count fuzz targets, $${seconds}s each"; \
	printf '%s\n' "$$targets" | { \
		failed=""; \
		while read -r pkg target; do \
			echo "fuzz-smoke: $$target ($$pkg)"; \
			$(GO) test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$${seconds}s "$$pkg" || failed="$$failed $$target"; \
		done; \
		if [ -n "$$failed" ]; then echo "fuzz-smoke: failed:$$failed"; exit 1; fi; \
	}
