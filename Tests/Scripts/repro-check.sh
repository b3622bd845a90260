#!/usr/bin/env bash
# Two builds of one commit give the same packages (#61 item 3): this commit is cloned into two
# directories of different names, each is built from nothing with package.sh (its own scratch
# path, no cache shared), and the two aether-tui and aether-tui-dbgsym packages are compared
# byte for byte. Where they differ, the files inside that differ are named.
#
#   repro-check.sh [COMMIT]        (default HEAD; for this machine's release)
#
# Prints one line per package; exits non-zero when one differs. Takes two release builds: not in
# CI (about 2 × 9 minutes on two cores).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
commit="$(git -C "$repo" rev-parse "${1:-HEAD}")"
# shellcheck source=needs.sh
source "$repo/Tests/Scripts/needs.sh"
needs repro-check.sh git=git dpkg-deb=dpkg cmp=diffutils
work="$(mktemp -d /tmp/aether-repro.XXXXXX)"
trap 'rm -rf "$work"' EXIT

for place in first/aether-tui second/elsewhere; do
    git clone -q --no-local "$repo" "$work/$place"
    git -C "$work/$place" checkout -q --detach "$commit"
    bash "$work/$place/Tests/Scripts/package.sh" > "$work/${place%%/*}.list"
done

failed=0
while read -r one; do
    name="$(basename "$one")"
    two="$(grep -F "/$name" "$work/second.list" || true)"
    if [ -z "$two" ]; then
        echo "repro-check: $name: the second build made no such package"; failed=1; continue
    fi
    if cmp -s "$one" "$two"; then
        echo "repro-check: $name: identical ($(stat -c %s "$one") bytes, sha256 $(sha256sum "$one" | cut -c1-16))"
        continue
    fi
    failed=1
    echo "repro-check: $name: DIFFERS"
    mkdir -p "$work/x1" "$work/x2"
    rm -rf "${work:?}/x1/"* "${work:?}/x2/"*
    dpkg-deb -R "$one" "$work/x1"
    dpkg-deb -R "$two" "$work/x2"
    diff -rq "$work/x1" "$work/x2" | sed "s|$work/x[12]||g; s/^/    /" || true
done < "$work/first.list"
exit $failed
