#!/usr/bin/env bash
# Two builds of one commit give the same packages (#61 item 3). This commit is cloned and built
# from nothing with package.sh three times, each with its own scratch path and no cache shared:
#   1 and 2 in the same directory (the clone made again), 3 in a directory of another name.
# The binaries may differ in two named sections only: .swift_modhash (the Swift compiler's
# module hashes, one per object file, which change from build to build though the code does
# not) and .note.gnu.build-id (the hash the linker takes over the whole binary); so the packages
# differ only in the binary, its md5sum and, for the -dbgsym, the debug file's build-ID name.
# Where the binaries or the packages differ otherwise, that is named and the check fails.
#
#   repro-check.sh [COMMIT]        (default HEAD; for this machine's release)
#
# Prints one line per comparison; exits non-zero when one fails. Takes three release builds:
# not in CI (about 3 × 4 minutes on two cores).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
commit="$(git -C "$repo" rev-parse "${1:-HEAD}")"
# shellcheck source=needs.sh
source "$repo/Tests/Scripts/needs.sh"
needs repro-check.sh git=git dpkg-deb=dpkg cmp=diffutils objcopy=binutils
work="$(mktemp -d /tmp/aether-repro.XXXXXX)"
trap 'rm -rf "$work"' EXIT

build() {   # build NAME DIR: clones into DIR, builds, keeps the packages in $work/NAME/
    git clone -q --no-local "$repo" "$2"
    git -C "$2" checkout -q --detach "$commit"
    mkdir -p "$work/$1"
    bash "$2/Tests/Scripts/package.sh" | while read -r deb; do cp "$deb" "$work/$1/"; done
    cp "$2"/.build-package-*/release/aether-tui "$work/$1/unstripped"
    rm -rf "$2"
}
build one "$work/here/aether-tui"
build two "$work/here/aether-tui"
build three "$work/there/elsewhere"

failed=0
say() { echo "repro-check: $*"; }
sections() {   # sections A B: the ELF sections whose bytes differ between two binaries, and how many bytes
    local name
    for name in $(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' | grep -v '^NULL$'); do
        objcopy -O binary --only-section="$name" "$1" "$work/s1" 2>/dev/null || continue
        objcopy -O binary --only-section="$name" "$2" "$work/s2" 2>/dev/null || continue
        cmp -s "$work/s1" "$work/s2" || echo "$name $(cmp -l "$work/s1" "$work/s2" 2>/dev/null | wc -l)"
    done
}
members() {   # members A B: the files that differ between two packages' contents
    rm -rf "$work/x1" "$work/x2"
    dpkg-deb -R "$1" "$work/x1"
    dpkg-deb -R "$2" "$work/x2"
    diff -rq "$work/x1" "$work/x2" | sed "s|$work/x[12]||g" || true
}
# The named difference: Swift's module hashes (.swift_modhash, one per object file, which
# change from build to build though the code does not) and the build ID the linker takes over
# the whole binary. Anything else differing fails.
named=".note.gnu.build-id .swift_modhash"
for other in two three; do
    where=$([ "$other" = two ] && echo "built twice in one place" || echo "built in another place")
    differ="$(sections "$work/one/unstripped" "$work/$other/unstripped")"
    beyond="$(awk -v named=" $named " 'index(named, " " $1 " ") == 0' <<<"$differ")"
    if [ -z "$differ" ]; then
        say "$where: the binaries are identical"
    elif [ -z "$beyond" ]; then
        say "$where: the binaries differ in the named sections only: $(tr '\n' ' ' <<<"$differ" | sed 's/ $//; s/\([0-9]\) /\1 bytes, /g') bytes"
    else
        say "$where: the binaries DIFFER beyond the named sections:"; sed 's/^/    /' <<<"$beyond"; failed=1
    fi
    for deb in "$work"/one/*.deb; do
        name="$(basename "$deb")"
        if cmp -s "$deb" "$work/$other/$name"; then
            say "$where: $name identical ($(stat -c %s "$deb") bytes, sha256 $(sha256sum "$deb" | cut -c1-16))"
            continue
        fi
        files="$(members "$deb" "$work/$other/$name" | tr '\n' ';')"
        case "$name" in
        *-dbgsym_*) allowed="Files /DEBIAN/control and /DEBIAN/control differ;Files /DEBIAN/md5sums and /DEBIAN/md5sums differ;Only in /usr/lib/debug/.build-id:" ;;
        *) allowed="Files /DEBIAN/md5sums and /DEBIAN/md5sums differ;Files /usr/bin/aether-tui and /usr/bin/aether-tui differ;" ;;
        esac
        if [ "${files#"$allowed"}" != "$files" ]; then
            say "$where: $name differs where the binary's build ID and module hashes go ($(tr ';' ' ' <<<"$files" | cut -c1-160)…)"
        else
            say "$where: $name DIFFERS otherwise:"; tr ';' '\n' <<<"$files" | sed 's/^/    /'; failed=1
        fi
    done
done
exit $failed
