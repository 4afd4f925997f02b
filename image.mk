# The container image, built without Docker (internal/image, go-containerregistry).
#   make image                  bin/image/layout (OCI layout) and bin/image/admit.tar
#   make image VERSION=v0.1.0   the tag deploy/base/kustomization.yaml names
IMAGE   ?= ghcr.io/admitkit/admit
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
ARCH    ?= $(shell $(GO) env GOARCH)

.PHONY: image

image:
	@mkdir -p $(BIN)/linux
	CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build -trimpath \
		-ldflags "-s -w -X github.com/admitkit/admit/internal/cli.version=$(VERSION)" -o $(BIN)/linux/admit ./cmd/admit
	$(GO) run ./hack/image -binary $(BIN)/linux/admit -out $(BIN)/image -tag $(IMAGE):$(VERSION) \
		-version $(VERSION) -revision "$$(git rev-parse HEAD 2>/dev/null)" -arch $(ARCH)
