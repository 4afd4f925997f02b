#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time: the targets are listed, not named, so a
# new one anywhere is run without editing this file. Each package's instrumented test binary is
# built once and runs each of its targets in turn (go test -fuzz would build and link it once per
# target). Every target runs even when an earlier one failed; the run fails at the end.
#
# Go 1.26's fuzzing engine can fail a target with a bare "context deadline exceeded" when
# -fuzztime ends while a worker is mid-input (golang/go#75804, fixed in Go 1.27). A real finding
# always writes its input ("Failing input written to"); a failure that wrote none and says only
# that is run again once, and the second run's result stands.
#
#   FUZZ_BUDGET       fuzzing seconds shared by all targets (default 60)
#   FUZZ_MIN_SECONDS  the least each target gets (default 3)
set -euo pipefail
GO="${GO:-go}"
budget="${FUZZ_BUDGET:-60}"
min="${FUZZ_MIN_SECONDS:-3}"

list="$("$GO" test -list '^Fuzz' ./...)" || { echo "$list"; exit 1; }
# go test -list prints a package's targets, then "ok <package> ...".
targets="$(printf '%s\n' "$list" | awk '/^Fuzz/ { name[n++] = $1; next } /^ok / { for (i = 0; i < n; i++) print $2, name[i]; n = 0 }')"
count=$(printf '%s\n' "$targets" | grep -c . || true)
if [ "$count" -eq 0 ]; then echo "fuzz-smoke: no fuzz target found"; exit 1; fi
seconds=$(( budget / count ))
if [ "$seconds" -lt "$min" ]; then seconds=$min; fi
echo "fuzz-smoke: $count fuzz targets, ${seconds}s each"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# deadline_race says whether a failed run's log shows only the engine's deadline race: the
# deadline message, and no failing input, panic or test failure of the target's own.
deadline_race() {
  grep -q 'context deadline exceeded' "$1" &&
    ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$1"
}
cache="$("$GO" env GOCACHE)/fuzz"
failed=""
for pkg in $(printf '%s\n' "$targets" | awk '{ print $1 }' | uniq); do
  binary="$work/$(printf '%s' "$pkg" | tr '/' '_').test"
  if ! "$GO" test -c -fuzz=. -o "$binary" "$pkg"; then
    failed="$failed $pkg(build)"
    continue
  fi
  dir="$("$GO" list -f '{{.Dir}}' "$pkg")"
  for target in $(printf '%s\n' "$targets" | awk -v p="$pkg" '$1 == p { print $2 }'); do
    echo "fuzz-smoke: $target ($pkg)"
    # A test binary runs in its package's directory (testdata/fuzz holds the seed corpus); the
    # cache directory is the one go test -fuzz uses, so what one run finds the next one starts from.
    log="$binary.$target.log"
    for attempt in 1 2; do
      if (cd "$dir" && "$binary" -test.run='^$' -test.fuzz="^$target\$" -test.fuzztime="${seconds}s" -test.fuzzcachedir="$cache/$pkg") > "$log" 2>&1; then
        cat "$log"
        break
      fi
      cat "$log"
      if [ "$attempt" -eq 1 ] && deadline_race "$log"; then
        echo "fuzz-smoke: $target: the engine's deadline race (golang/go#75804), no failing input: running it again"
        continue
      fi
      failed="$failed $target"
      break
    done
  done
done
if [ -n "$failed" ]; then echo "fuzz-smoke: failed:$failed"; exit 1; fi
