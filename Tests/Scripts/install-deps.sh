#!/usr/bin/env bash
# Installs the Debian packages aether-tui needs to build, run and test (run as root), on
# Debian 12 "bookworm" (FFmpeg 5.1), 13 "trixie" (FFmpeg 7.1) and the development branch
# "sid" (FFmpeg 9); `--bench` adds the players aether-bench compares with.
# Skips apt entirely when everything is already installed. An entry `a|b` is the first of
# those the release offers (libncurses-dev replaces libncursesw5-dev in Debian 13). A package
# the build needs and the release lacks is an error; a test-only one it lacks is left out with
# one line saying which tests skip. The Swift 6 toolchain is expected on PATH (swift.org's
# Linux toolchain: Debian 13's swiftlang 6.0.3 is too old for tools-version 6.1).
set -euo pipefail
build=(
    # build: FFmpeg 5.1 to 9, ALSA, ncursesw
    pkg-config libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libdav1d-dev
    libswscale-dev libswresample-dev libasound2-dev "libncurses-dev|libncursesw5-dev"
    # ASS/SSA subtitles (CLibass); the subtitle fixtures are set in DejaVu Sans (extra: Bold, Oblique)
    libass-dev fonts-dejavu-extra
    # kitty frames deflated over SSH (CZlib)
    zlib1g-dev
    # MPRIS (media keys) through sd-bus
    libsystemd-dev
    # every remote byte through libcurl (OpenSSL flavour, as the curl command; HTTP/2 by nghttp2);
    # OpenSSL's own header for its set-up without the clean-up at exit (CCurl)
    libcurl4-openssl-dev libssl-dev
    # run: the system's certificate authorities, which https servers are checked against
    ca-certificates
    # run: ALSA → PulseAudio bridge
    libasound2-plugins
)
tests=(
    # tests: fixtures, audio, the TUI in tmux, man page lint, real sixel decoders and terminal
    ffmpeg tmux pulseaudio pulseaudio-utils mandoc python3 gcc
    libsixel-bin xvfb xterm x11-apps xdotool fonts-dejavu-core
    # the real-terminal matrix: mlterm, kitty (software GL through Mesa), foot inside weston's
    # X11 backend; the chrome glyph check reads DejaVu and Noto Sans Mono with fontconfig
    mlterm kitty libgl1-mesa-dri foot weston fonts-noto-mono fontconfig
    # MPRIS tests: a private session bus and playerctl
    dbus-daemon playerctl
    # completion tests: the three shells the package completes in, and bash's loader
    zsh fish bash-completion
    # network tests: pkill ends the live stream writer
    procps
    # download tests: openssl encrypts the sequence-number-IV fixture and checks av_aes
    # (script(1), for the progress bar on a pty, is in bsdutils, which Debian always has)
    openssl
    # page URLs (--ytdl): yt-dlp's generic extractor against a loopback page
    yt-dlp
    # inspector tests: pip, for pymp4 (below)
    python3-pip
    # bench: `aether-bench graphics` compiles Tests/Scripts/libsixel-bench.c against libsixel
    libsixel-dev
    # inspector: mkvinfo is the reference EBML tree; mkvmerge writes the HDR Matroska fixture
    mkvtoolnix
    # disc fixtures: dvdauthor writes a DVD-Video folder, genisoimage its ISO 9660 image
    dvdauthor genisoimage
    # internet radio: Icecast on loopback, fed by ffmpeg (RadioTests); setpriv runs it as nobody
    icecast2 util-linux
    # HTTP/2: nghttpd, a real h2 server on loopback (TLSTests, h2_server.py)
    nghttp2-server
)
# `--bench`: also the peers aether-bench measures against (mpv --vo=tct, timg, chafa);
# `--build-only`: what the build needs, no test packages (package.sh in a chroot).
[ "${1:-}" = "--bench" ] && tests+=(mpv timg chafa)
[ "${1:-}" = "--build-only" ] && tests=()
# What a test-only package's absence costs: the tests that then report themselves skipped.
declare -A skips=(
    [mlterm]="the soak tier's mlterm case of the terminal matrix (soak.sh)"
    [kitty]="the kitty terminal tests and the matrix's kitty case"
    [dvdauthor]="the DVD tests (DiscTests, DiscPlaybackTests: no disc fixtures)"
    [genisoimage]="the DVD tests (DiscTests, DiscPlaybackTests: no disc fixtures)"
    [foot]="the matrix's foot case"
    [weston]="the matrix's foot case (foot runs inside weston)"
    [mkvtoolnix]="the inspector's EBML comparison with mkvinfo and the HDR Matroska fixture"
    [yt-dlp]="the page-URL (--ytdl) tests"
    [icecast2]="the internet radio tests against Icecast (RadioTests)"
    [nghttp2-server]="the HTTP/2 test (TLSTests.anHTTP2ServerGetsTheRequestsAsStreamsOfOneConnection)"
    [mpv]="aether-bench's mpv columns"
    [timg]="aether-bench's timg columns"
    [chafa]="aether-bench's chafa columns"
)
# (Outputs are read whole: `grep -q` under pipefail fails a pipeline whose writer it cut short.)
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
# The entries not yet installed (an entry is installed when any of its alternatives is).
missing=()
for entry in "${build[@]}" "${tests[@]}"; do
    ok=no
    IFS='|' read -ra alternatives <<<"$entry"
    for p in "${alternatives[@]}"; do installed "$p" && ok=yes && break; done
    [ "$ok" = yes ] || missing+=("$entry")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    has_candidate() {
        local policy
        policy="$(apt-cache policy "$1" 2>/dev/null)"
        [[ $policy == *"Candidate: "* && $policy != *"Candidate: (none)"* ]]
    }
    is_build() { local b; for b in "${build[@]}"; do [ "$b" = "$1" ] && return 0; done; return 1; }
    chosen=()
    for entry in "${missing[@]}"; do
        pick=
        IFS='|' read -ra alternatives <<<"$entry"
        for p in "${alternatives[@]}"; do has_candidate "$p" && pick="$p" && break; done
        if [ -n "$pick" ]; then
            chosen+=("$pick")
        elif is_build "$entry"; then
            echo "install-deps: this release has no '$entry', which the build needs" >&2
            exit 1
        else
            echo "install-deps: this release has no '$entry': ${skips[$entry]:-tests that need it} will be skipped" >&2
        fi
    done
    if ((${#chosen[@]})); then
        echo "install-deps: installing ${chosen[*]}" >&2
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${chosen[@]}" >/dev/null
    fi
fi
[ "${1:-}" = "--build-only" ] && exit 0
# The inspector's ISO BMFF tree is compared with pymp4's (PyPI; Debian does not package it).
# Debian 12's python3 is externally managed: pip refuses without --break-system-packages.
if ! python3 -c 'import pymp4' 2>/dev/null; then
    echo "install-deps: installing pymp4 (pip)" >&2
    python3 -m pip install --quiet pymp4 2>/dev/null || python3 -m pip install --quiet --break-system-packages pymp4
fi
command -v swift >/dev/null || { echo "install-deps: the Swift 6 toolchain is not on PATH" >&2; exit 1; }
