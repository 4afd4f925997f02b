# The release's archives, for a GitHub release: admit built as make release-binary builds it
# (static, stripped, -trimpath, the release's tags, the version stamped) for each platform the
# GitHub Action (action.yml) installs on, packed by hack/release-archive.sh under the names the
# action downloads.
#   make release-archives VERSION=v0.1.0   dist/v0.1.0/admit_v0.1.0_OS_ARCH.tar.gz for each
#                                          platform, and dist/v0.1.0/admit_v0.1.0_checksums.txt:
#                                          the files to attach to the release v0.1.0
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST ?= dist

.PHONY: release-archives

release-archives:
	@case "$(VERSION)" in v[0-9]*.[0-9]*.[0-9]*) ;; *) echo "release-archives: VERSION=$(VERSION) is not a release tag (vMAJOR.MINOR.PATCH)"; exit 1 ;; esac
	rm -rf $(DIST)/$(VERSION) && mkdir -p $(DIST)/$(VERSION)
	set -e; for platform in $(RELEASE_PLATFORMS); do \
		os=$${platform%/*}; arch=$${platform#*/}; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build $(RELEASE_GOFLAGS) \
			-ldflags "-s -w -X github.com/admitkit/admit/internal/cli.version=$(VERSION)" -o $(DIST)/$(VERSION)/$$os-$$arch/admit ./cmd/admit; \
		bash hack/release-archive.sh $(DIST)/$(VERSION)/$$os-$$arch/admit $(VERSION) $$os $$arch $(DIST)/$(VERSION); \
		rm -r $(DIST)/$(VERSION)/$$os-$$arch; \
	done
