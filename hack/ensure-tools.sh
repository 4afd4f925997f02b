#!/usr/bin/env bash
# Installs or builds what the e2e suite needs, cached under .cache/ (gitignored):
#   - etcd from Debian's etcd-server package (when no etcd is on PATH),
#   - kube-apiserver v1.36.3 built from the Go module proxy,
#   - chromium from Debian's package (when none is on PATH), for the tests that render admit
#     audit's HTML report in a real headless browser,
#   - on demand only (ensure-tools.sh pre-commit), pre-commit from Debian's package (when none is
#     on PATH), for test/cifit's run of the repository's hooks under pre-commit itself.
# Prints nothing but progress; idempotent; safe to run from `make test` on a fresh machine.
# Each tool is ensured one invocation at a time: a second invocation waits for the one already
# installing or building that tool (make test starts one in the background while the unit tests
# run; the e2e suite's, or a test that needs chromium, waits for it), then finds it there. The
# locks are per tool, so that a test waiting for chromium does not wait for kube-apiserver's build.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${ADMIT_CACHE_DIR:-$root/.cache}"
bin="$cache/bin"
mkdir -p "$bin"

# locked NAME COMMAND... runs COMMAND holding NAME's lock.
locked() {
  local name="$1"
  shift
  (
    exec 9>"$cache/ensure-tools-$name.lock"
    flock 9
    "$@"
  )
}

# apt_install PACKAGE... installs Debian packages, one invocation at a time (dpkg and apt's lists
# take one user at a time: two tools installed at once would fail on their locks).
apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  (
    exec 8>"$cache/ensure-tools-apt.lock"
    flock 8
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
  )
}

ensure_etcd() {
  if command -v etcd >/dev/null 2>&1; then return; fi
  echo "ensure-tools: installing etcd (Debian etcd-server)" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt_install etcd-server
  # The package starts a system etcd on :2379; tests run their own on free ports.
  if command -v systemctl >/dev/null 2>&1; then $sudo systemctl disable --now etcd >/dev/null 2>&1 || true; fi
  command -v etcd >/dev/null
}

ensure_chromium() {
  if command -v chromium >/dev/null 2>&1; then return; fi
  echo "ensure-tools: installing chromium (Debian chromium)" >&2
  # Without its recommended packages: a headless browser needs no desktop integration, and its
  # pages' text renders in the DejaVu fonts that fontconfig, which it depends on, brings.
  apt_install --no-install-recommends chromium
  command -v chromium >/dev/null
}

ensure_precommit() {
  if command -v pre-commit >/dev/null 2>&1; then return; fi
  echo "ensure-tools: installing pre-commit (Debian pre-commit)" >&2
  apt_install --no-install-recommends pre-commit
  command -v pre-commit >/dev/null
}

ensure_apiserver() {
  local want="$bin/kube-apiserver-$KUBE_VERSION"
  if [ -x "$want" ]; then ln -sf "$(basename "$want")" "$bin/kube-apiserver"; return; fi
  echo "ensure-tools: building kube-apiserver $KUBE_VERSION from the Go module proxy (a few minutes, once)" >&2
  local work="$cache/build/kube-apiserver-$KUBE_VERSION"
  rm -rf "$work" && mkdir -p "$work"
  local staging="v0${KUBE_VERSION#v1}"
  (
    cd "$work"
    go mod init admit.local/kube-apiserver-build >/dev/null 2>&1
    # k8s.io/kubernetes replaces its staging repositories with local paths; a consumer module must
    # replace each of them with the published v0.x tag. Read the list from its own go.mod.
    local modfile
    modfile="$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    local args=(-require="k8s.io/kubernetes@$KUBE_VERSION")
    for m in $(sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9.-]*\) => ./staging/.*#\1#p' "$modfile"); do
      args+=(-replace="$m=$m@$staging")
    done
    go mod edit "${args[@]}"
    cat > tools.go <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
    go mod tidy >/dev/null 2>&1 || true
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
      -o "$want.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "$want.tmp" "$want"
  ln -sf "$(basename "$want")" "$bin/kube-apiserver"
}

case "${1:-all}" in
  etcd) locked etcd ensure_etcd ;;
  kube-apiserver) locked kube-apiserver ensure_apiserver ;;
  chromium) locked chromium ensure_chromium ;;
  pre-commit) locked pre-commit ensure_precommit ;;
  all) locked etcd ensure_etcd; locked chromium ensure_chromium; locked kube-apiserver ensure_apiserver ;;
esac
