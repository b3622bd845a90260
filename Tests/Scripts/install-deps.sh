#!/usr/bin/env bash
# Installs the Debian 12 packages aether-tui needs to build, run and test (run as root);
# `--bench` adds the players aether-bench compares with.
# Skips apt entirely when everything is already installed. The Swift 6 toolchain is expected
# on PATH (swift.org's Linux toolchain).
set -euo pipefail
packages=(
    # build: FFmpeg 5.1, ALSA, ncursesw
    pkg-config libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libdav1d-dev
    libswscale-dev libswresample-dev libasound2-dev libncursesw5-dev
    # ASS/SSA subtitles (CLibass); the subtitle fixtures are set in DejaVu Sans (extra: Bold, Oblique)
    libass-dev fonts-dejavu-extra
    # kitty frames deflated over SSH (CZlib)
    zlib1g-dev
    # MPRIS (media keys) through sd-bus
    libsystemd-dev
    # run: ALSA → PulseAudio bridge
    libasound2-plugins
    # tests: fixtures, audio, the TUI in tmux, man page lint, real sixel decoders and terminal
    ffmpeg tmux pulseaudio pulseaudio-utils mandoc python3 gcc
    libsixel-bin xvfb xterm x11-apps xdotool fonts-dejavu-core
    # the real-terminal matrix: mlterm, kitty (software GL through Mesa), foot inside weston's
    # X11 backend; the chrome glyph check reads DejaVu and Noto Sans Mono with fontconfig
    mlterm kitty libgl1-mesa-dri foot weston fonts-noto-mono fontconfig
    # MPRIS tests: a private session bus and playerctl
    dbus-daemon playerctl
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
)
# `--bench`: also the peers aether-bench measures against (mpv --vo=tct, timg, chafa).
[ "${1:-}" = "--bench" ] && packages+=(mpv timg chafa)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    echo "install-deps: installing ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The inspector's ISO BMFF tree is compared with pymp4's (PyPI; Debian does not package it).
# Debian 12's python3 is externally managed: pip refuses without --break-system-packages.
if ! python3 -c 'import pymp4' 2>/dev/null; then
    echo "install-deps: installing pymp4 (pip)" >&2
    python3 -m pip install --quiet pymp4 2>/dev/null || python3 -m pip install --quiet --break-system-packages pymp4
fi
command -v swift >/dev/null || { echo "install-deps: the Swift 6 toolchain is not on PATH" >&2; exit 1; }
