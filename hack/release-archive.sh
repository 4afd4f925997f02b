#!/usr/bin/env bash
# Packs one platform's admit binary as a release archive and lists it in the release's checksums:
#
#   hack/release-archive.sh BINARY VERSION OS ARCH DIR
#
# writes DIR/admit_VERSION_OS_ARCH.tar.gz, holding the binary alone, named admit, and sets its
# line in DIR/admit_VERSION_checksums.txt (sha256sum's format, sorted by name). These are the
# names the GitHub Action (action.yml) downloads for `version: VERSION`: make release-archives
# packs every platform with this script, and test/cifit packs a release with it to install from.
set -euo pipefail

if [ $# -ne 5 ]; then
  echo "usage: $0 BINARY VERSION OS ARCH DIR" >&2
  exit 2
fi
binary="$1" version="$2" os="$3" arch="$4" dir="$5"
name="admit_${version}_${os}_${arch}.tar.gz"
sums="$dir/admit_${version}_checksums.txt"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$binary" "$stage/admit"
chmod 0755 "$stage/admit"
mkdir -p "$dir"
tar -C "$stage" -czf "$dir/$name" admit

if command -v sha256sum >/dev/null; then
  line="$(cd "$dir" && sha256sum "$name")"
else
  line="$(cd "$dir" && shasum -a 256 "$name")"
fi
{
  if [ -f "$sums" ]; then awk -v f="$name" '$2 != f' "$sums"; fi
  echo "$line"
} | sort -k 2 > "$stage/sums"
mv "$stage/sums" "$sums"
