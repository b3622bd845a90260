#!/usr/bin/env bash
# Two builds of one commit give the same packages (#61 item 3). This commit is cloned and built
# from nothing with package.sh three times, each with its own scratch path and no cache shared:
#   1 and 2 in the same directory (the clone made again): every package byte for byte the same;
#   3 in a directory of another name: the player's package differs only in its build ID (a
#     hash the linker takes over the whole binary, debug information included, which names
#     the build's directory and its clang modules' hashes of it), checked by comparing the two
#     binaries with that note taken out; the -dbgsym package differs in its debug information.
# Where packages differ otherwise, the files inside that differ are named.
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
        cmp -s "$work/s1" "$work/s2" || echo "    section $name: $(cmp -l "$work/s1" "$work/s2" 2>/dev/null | wc -l) bytes differ ($(stat -c %s "$work/s1") and $(stat -c %s "$work/s2") long)"
    done
}
members() {   # members A B: the files that differ between two packages' contents
    rm -rf "$work/x1" "$work/x2"
    dpkg-deb -R "$1" "$work/x1"
    dpkg-deb -R "$2" "$work/x2"
    diff -rq "$work/x1" "$work/x2" | sed "s|$work/x[12]||g" || true
}
for deb in "$work"/one/*.deb; do
    name="$(basename "$deb")"
    if cmp -s "$deb" "$work/two/$name"; then
        say "$name: built twice in one place: identical ($(stat -c %s "$deb") bytes, sha256 $(sha256sum "$deb" | cut -c1-16))"
    else
        say "$name: built twice in one place: DIFFERS"; failed=1
        members "$deb" "$work/two/$name" | sed 's/^/    /'
    fi
    other="$work/three/$name"
    if cmp -s "$deb" "$other"; then
        say "$name: built in another place: identical"
        continue
    fi
    case "$name" in
    *-dbgsym_*)
        say "$name: built in another place: differs, as named (its debug information):"
        members "$deb" "$other" | sed 's/^/    /' ;;
    *)
        differ="$(members "$deb" "$other")"
        if [ "$differ" != "$(printf 'Files /DEBIAN/md5sums and /DEBIAN/md5sums differ\nFiles /usr/bin/aether-tui and /usr/bin/aether-tui differ')" ]; then
            say "$name: built in another place: DIFFERS beyond the binary:"; echo "$differ" | sed 's/^/    /'; failed=1
            continue
        fi
        objcopy --remove-section .note.gnu.build-id "$work/x1/usr/bin/aether-tui" "$work/bin1"
        objcopy --remove-section .note.gnu.build-id "$work/x2/usr/bin/aether-tui" "$work/bin2"
        if cmp -s "$work/bin1" "$work/bin2"; then
            say "$name: built in another place: the binary differs only in its build ID ($(readelf -n "$work/x1/usr/bin/aether-tui" | sed -n 's/.*Build ID: //p' | cut -c1-12)… against $(readelf -n "$work/x2/usr/bin/aether-tui" | sed -n 's/.*Build ID: //p' | cut -c1-12)…)"
        else
            say "$name: built in another place: the binary DIFFERS beyond its build ID ($(cmp -l "$work/bin1" "$work/bin2" | wc -l) bytes)"; failed=1
        fi ;;
    esac
done
# What differs in the linked binaries (before stripping), section by section.
for other in two three; do
    if cmp -s "$work/one/unstripped" "$work/$other/unstripped"; then
        say "the unstripped binaries of builds one and $other: identical"
    else
        say "the unstripped binaries of builds one and $other differ:"
        sections "$work/one/unstripped" "$work/$other/unstripped"
    fi
done
exit $failed
