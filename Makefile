# admit — build and test entry points. `make test` is what CI runs; it installs what it needs.
GO        ?= go
BIN       ?= bin
CACHE     ?= $(CURDIR)/.cache
export ADMIT_CACHE_DIR := $(CACHE)
# Tests find the cached binaries through these.
export ADMIT_KUBE_APISERVER ?= $(CACHE)/bin/kube-apiserver
# The programs the reliability and e2e suites run as processes, built by test-binaries before
# either suite starts (internal/testbin): no test's deadline includes a compilation.
export ADMIT_BINARY ?= $(CACHE)/bin/admit
export ADMIT_CONTRIB_LABELLER ?= $(CACHE)/bin/labeller
E2E_TIMEOUT ?= 20m

.PHONY: all build test tools tools-background test-binaries release-size vet unit unit-packages unit-reliability e2e contrib fmt-check clean

include bench.mk
include reliability.mk
include image.mk
include release.mk
include linteval.mk

all: build

# The version a built admit reports (admit version): the checkout's, as git describes it. The build
# info's vcs settings would say the same, but GOFLAGS=-buildvcs=false, common on CI machines,
# leaves them out.
ADMIT_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
VERSION_LDFLAGS := -X github.com/admitkit/admit/internal/cli.version=$(ADMIT_VERSION)

build:
	$(GO) build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/admit ./cmd/admit

## test: everything CI runs — formatting, vet, the release binary's size (release-size), unit tests
## with -race, the e2e suite on a real kube-apiserver + etcd (built/installed on first use), and a
## seconds-long run of the benchmark
## harness (no timing assertions), and every fuzz target for a short budget (fuzz-smoke).
## The e2e tools (kube-apiserver, built once into .cache) build in the background while the unit
## tests run; the reliability suite, which measures timing, waits for that build to end.
test: tools-background fmt-check vet test-binaries release-size unit-packages tools unit-reliability e2e bench-smoke contrib fuzz-smoke

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./test/...
	$(GO) vet -tags reliability ./test/reliability/...

# The reliability suite measures timing (a drain, deadlines): it runs after the other packages, so
# that it never shares the machine with their compilation (Kubernetes' code under -race).
unit: unit-packages unit-reliability

# hack/ holds tools (the lint evaluation, generators): their tests run without the race detector,
# which would rebuild kustomize's library and the rest of their dependencies instrumented.
unit-packages:
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v -e '/test/reliability$$' -e '/hack/')
	$(GO) test -count=1 ./hack/...

unit-reliability: test-binaries
	$(GO) test -race -count=1 ./test/reliability

tools:
	bash hack/ensure-tools.sh

# admit as the release is built (image.mk: static, the release tags, stripped), for this
# machine's platform, but for -trimpath: that flag changes the compilation of every package, so
# it would compile Kubernetes' packages a second time on a fresh machine, for file paths that
# change the binary's size by a few hundred kB of 77 MB. go build relinks only what changed. It
# runs before the unit tests: test/consumer builds a module of its own with the same flags
# (ADMIT_RELEASE_GOFLAGS), and so finds Kubernetes' packages compiled.
TEST_BINARY_GOFLAGS = -tags=$(RELEASE_TAGS)
export ADMIT_RELEASE_GOFLAGS = $(TEST_BINARY_GOFLAGS)
test-binaries:
	@mkdir -p $(dir $(ADMIT_BINARY)) $(dir $(ADMIT_CONTRIB_LABELLER))
	CGO_ENABLED=0 $(GO) build $(TEST_BINARY_GOFLAGS) -ldflags "-s -w $(VERSION_LDFLAGS)" -o $(ADMIT_BINARY) ./cmd/admit
	cd contrib/controllerruntime && $(GO) build -o $(ADMIT_CONTRIB_LABELLER) ./example/labeller

# release-size: the admit test-binaries built, the release's build on this platform, within the
# size goal (RELEASE_MAX_BYTES, image.mk); over it, bench/cmd/binsize builds an unstripped twin
# and prints what the linker kept. The goal is the Linux binary's: elsewhere nothing is checked.
release-size: test-binaries
	@if [ "$$($(GO) env GOOS)" != linux ]; then echo "release-size: not checked: the goal is the Linux binary's"; exit 0; fi; \
		cd bench && $(GO) run ./cmd/binsize -binary $(ADMIT_BINARY) -max-bytes $(RELEASE_MAX_BYTES) -tags '$(RELEASE_TAGS)' -dir $(CURDIR)

# ensure-tools.sh runs one at a time, so `tools` waits for this one; its output is in the log.
tools-background:
	@mkdir -p $(CACHE) && { bash hack/ensure-tools.sh > $(CACHE)/ensure-tools.log 2>&1 & }

# The reliability packages ran in unit, alone: here they would share the machine with e2e.
e2e: tools test-binaries
	$(GO) test -race -count=1 -tags e2e -timeout $(E2E_TIMEOUT) $$($(GO) list -tags e2e ./test/... | grep -v '/test/reliability')

# contrib/ holds modules of their own (adapters to other frameworks), so that admit does not
# depend on those frameworks.
contrib:
	cd contrib/controllerruntime && $(GO) vet ./... && $(GO) test -race -count=1 ./...

clean:
	rm -rf $(BIN)
