# The container image, built without Docker (internal/image, go-containerregistry).
#   make image                  bin/image/layout (OCI layout) and bin/image/admit.tar
#   make image VERSION=v0.1.0   the tag deploy/base/kustomization.yaml names
#   make release-binary         bin/linux/admit alone, as the image ships it
IMAGE   ?= ghcr.io/admitkit/admit
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
ARCH    ?= $(shell $(GO) env GOARCH)
# The release binary's budget, stripped, in bytes (docs/benchmarks.md, "Binary size").
RELEASE_MAX_BYTES ?= 80000000

# grpcnotrace: gRPC (linked through etcd's client and OpenTelemetry, never serving here) would
# otherwise import golang.org/x/net/trace, whose html/template looks methods up by name through
# reflection. One such call anywhere in the program makes the linker keep every exported method
# of every type it links: about 30 MB of this binary.
RELEASE_TAGS ?= grpcnotrace
# How the release is built, static and stripped besides: make test's test-binaries builds admit
# the same way, so that release-size checks the size of what ships, and the suites run it.
# RELEASE_TAGS are comma-separated.
RELEASE_GOFLAGS = -trimpath -tags=$(RELEASE_TAGS)

.PHONY: image release-binary

release-binary:
	@mkdir -p $(BIN)/linux
	CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build $(RELEASE_GOFLAGS) \
		-ldflags "-s -w -X github.com/admitkit/admit/internal/cli.version=$(VERSION)" -o $(BIN)/linux/admit ./cmd/admit

image: release-binary
	@size=$$(wc -c < $(BIN)/linux/admit); echo "$(BIN)/linux/admit: $$size bytes (budget $(RELEASE_MAX_BYTES))"; \
		if [ "$$size" -gt $(RELEASE_MAX_BYTES) ]; then \
			echo "image: the release binary is over its budget. Look for a reflect Method or MethodByName call the linker cannot resolve: text/template and html/template, go-cmp (go build -ldflags=-dumpdep ./cmd/admit 2>&1 | grep ReflectMethod); docs/benchmarks.md, Binary size."; \
			exit 1; \
		fi
	$(GO) run ./hack/image -binary $(BIN)/linux/admit -out $(BIN)/image -tag $(IMAGE):$(VERSION) \
		-version $(VERSION) -revision "$$(git rev-parse HEAD 2>/dev/null)" -arch $(ARCH)
