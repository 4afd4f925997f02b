# The evaluation of admit lint on real projects' webhook manifests: hack/linteval. Included by
# the Makefile; not part of `make test`, since it fetches the projects' files from GitHub.

GO ?= go
# e.g. LINTEVAL_FLAGS=--check, or --print-unjudged; go run ./hack/linteval -h lists them.
LINTEVAL_FLAGS ?=

.PHONY: lint-eval

## lint-eval: lint each project of hack/linteval/corpus.yaml at its pinned commit, join the
## findings with hack/linteval/judgments.yaml and rewrite docs/lint-evaluation.md.
lint-eval:
	$(GO) run ./hack/linteval $(LINTEVAL_FLAGS)
