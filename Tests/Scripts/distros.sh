#!/usr/bin/env bash
# The suite on each current Debian's FFmpeg: Debian 13 "trixie" (FFmpeg 7.1) and Debian's
# development branch "sid" (FFmpeg 9), each in a debootstrap chroot kept in ROOT/SUITE (a few
# minutes and about 1.5 GB the first time), with the host's Swift toolchain and package copies
# bound in read-only and this checkout bound at /src. In each: install-deps.sh, the release
# build (which must print no deprecation warning), then the unit and cli tiers (--full: every
# tier). Debian 12 (FFmpeg 5.1) is the host itself: test.sh.
#
#   distros.sh [--full] [--build-only] [--ci] [--fresh] [--suite bookworm|trixie|sid]... [--root DIR]
#
# --ci (what .ci/run does, before the host's own run): install-deps, the debug build
# with the tests (no deprecation warning either), and the unit tier on the fixtures the host made.
#
# --fresh: the README on the smallest Debian (a new minbase chroot each time, ROOT/SUITE-fresh,
# what the official container image holds, plus what swift.org's toolchain needs to run): a
# clone of this checkout's HEAD, then the README's two set-up commands as written, the demo
# played for 2 s on a pty (`demo.sh --length=2`) and the unit tier (`test.sh --fast`). Nothing
# is made outside: the release's own ffmpeg makes the demo clip and every fixture.
#
# Each suite builds in /src/.build-SUITE. Prints one line per step and suite; exits non-zero
# when any step failed. Leaves nothing mounted or running. Needs root and Debian's mirror.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
root=/var/cache/aether-tui
suites=()
tiers=(unit cli)
build_only=no
ci=no
fresh=no
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) ci=yes; shift ;;
        --fresh) fresh=yes; shift ;;
        --full) tiers=(unit cli realtime network terminals); shift ;;
        --build-only) build_only=yes; shift ;;
        --suite) suites+=("$2"); shift 2 ;;
        --root) root="$2"; shift 2 ;;
        *) echo "distros.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ ${#suites[@]} -gt 0 ] || suites=(trixie sid)
[ "$(id -u)" = 0 ] || { echo "distros.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
# shellcheck source=debian-chroot.sh
source "$repo/Tests/Scripts/debian-chroot.sh"
trap chroot_unmount_all EXIT

# What swift.org's toolchain runs on (its list for Debian, without the versioned gcc packages:
# gcc and g++ bring the release's own), and what install-deps.sh needs to start. libxml2 is
# libxml2.so.2, which the toolchain links: sid's libxml2-dev is libxml2.so.16.
toolchain=(binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libpython3-dev libsqlite3-0
           libxml2 libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev gcc g++ ca-certificates
           python3 python3-pip procps)

failed=0
for suite in "${suites[@]}"; do
    dir="$root/$suite-build"
    if [ "$fresh" = yes ]; then
        # A new chroot every time: nothing of an earlier run (chroot_make refuses a tree with
        # anything mounted under it, and never crosses into another file system).
        dir="$root/$suite-fresh"
        if grep -q " $dir/" /proc/mounts; then echo "distros: $dir has file systems mounted under it" >&2; exit 1; fi
        rm -rf --one-file-system "$dir"
    fi
    chroot_make "$suite" "$dir"
    chroot_mount "$dir"
    chroot_install "$dir" "${toolchain[@]}"
    chroot_toolchain "$dir"
    if [ "$fresh" = yes ]; then
        chroot_bind "$dir" "$repo" /origin ro
        workdir=/root/aether-tui
    else
        chroot_bind "$dir" "$repo" /src
        workdir=/src
    fi
    step() {
        local name="$1"
        shift
        local start=$SECONDS log="$root/$suite-$name.log" ffmpeg_version ok=yes
        chroot_run "$dir" bash -c "cd ${workdir:-/src} && $*" > "$log" 2>&1 || ok=no
        # Read after the step: a fresh chroot has no libavcodec until install-deps has run.
        ffmpeg_version="$(chroot_run "$dir" sh -c 'pkg-config --modversion libavcodec 2>/dev/null || echo none' || echo none)"
        if [ "$ok" = yes ]; then
            echo "distros: $suite (libavcodec $ffmpeg_version): $name passed in $((SECONDS - start)) s"
        else
            echo "distros: $suite (libavcodec $ffmpeg_version): $name FAILED in $((SECONDS - start)) s; from $log:"
            { grep -m 20 -E 'error:|deprecated|is unavailable|✘ Test .*recorded an issue' "$log" || tail -n 25 "$log"; } | cut -c1-300 | sed 's/^/    /'
            failed=1
            return 1
        fi
    }
    scratch="/src/.build-$suite"
    # The build's output must name no deprecated or unavailable declaration.
    clean="2>&1 | tee /tmp/aether-build.log; [ \${PIPESTATUS[0]} = 0 ] && ! grep -E 'deprecated|is unavailable' /tmp/aether-build.log"
    if [ "$fresh" = yes ]; then
        # The README's words: a clone, then its two commands (the demo on a pty, for 2 s).
        workdir=/root
        if step clone "git clone -q /origin aether-tui"; then
            workdir=/root/aether-tui
            if step demo "TERM=xterm-256color script -qec 'bash Tests/Scripts/demo.sh --length=2' /dev/null"; then
                step unit "bash Tests/Scripts/test.sh --fast" || true
            fi
            # Both builds (the demo's release, the suite's debug) name no deprecated declaration.
            if grep -hE "(warning|error): .*(deprecated|is unavailable)" "$root/$suite-demo.log" "$root/$suite-unit.log" 2>/dev/null | head -n 5 | grep .; then
                echo "distros: $suite: the builds named deprecated or unavailable declarations: FAILED"
                failed=1
            fi
        fi
    elif [ "$ci" = yes ]; then
        if step install-deps "bash Tests/Scripts/install-deps.sh" \
            && step build "swift build --build-tests --scratch-path $scratch $clean"; then
            step unit "AETHER_SCRATCH_PATH=$scratch bash Tests/Scripts/test.sh --fast" || true
        fi
    elif step install-deps "bash Tests/Scripts/install-deps.sh" \
        && step build "swift build -c release --scratch-path $scratch $clean"; then
        if [ "$build_only" = no ]; then
            for tier in "${tiers[@]}"; do
                step "$tier" "AETHER_SCRATCH_PATH=$scratch bash Tests/Scripts/test.sh --tier $tier" || true
            done
        fi
    fi
    chroot_unmount_all
done
exit $failed
