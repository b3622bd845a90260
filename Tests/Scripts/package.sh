#!/usr/bin/env bash
# Builds the Debian package for the release this runs on:
#   .build/dist/aether-tui_VERSION_SUITE_amd64.deb
# The binary is linked with the static Swift standard library and Foundation (no Swift toolchain
# is needed to run it); its Depends are computed from its shared libraries by dpkg-shlibdeps.
# It installs /usr/bin/aether-tui, the man page, the themes (/usr/share/aether-tui/themes, where
# the theme loader looks beside the binary), bash, zsh and fish completions (from the binary's
# own parser) and /usr/share/doc/aether-tui (README, copyright: the licences of what it links,
# examples/aether-tui.conf: the sample config).
#
#   package.sh                    for this machine's release (the host's Swift toolchain)
#   package.sh --in-chroot SUITE  for SUITE (trixie, sid, bookworm), built inside distros.sh's
#                                 chroot of it (made when missing; root and Debian's mirror)
# Prints the package's path. Exits non-zero, with the package to install, when a tool is missing.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"

if [ "${1:-}" = "--in-chroot" ]; then
    suite="${2:?package.sh: --in-chroot needs a suite (trixie, sid, bookworm)}"
    [ "$(id -u)" = 0 ] || { echo "package.sh: --in-chroot needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
    # shellcheck source=debian-chroot.sh
    source "$repo/Tests/Scripts/debian-chroot.sh"
    trap chroot_unmount_all EXIT
    root=/var/cache/aether-tui/$suite-build
    chroot_make "$suite" "$root"
    chroot_mount "$root"
    chroot_install "$root" binutils git libc6-dev libcurl4-openssl-dev libedit2 libpython3-dev libxml2 \
        libncurses-dev libz3-dev pkg-config tzdata zlib1g-dev gcc g++ ca-certificates dpkg-dev
    chroot_toolchain "$root"
    chroot_bind "$root" "$repo" /src
    chroot_run "$root" bash -c "cd /src && bash Tests/Scripts/install-deps.sh --build-only && bash Tests/Scripts/package.sh"
    exit
fi

need() { command -v "$1" >/dev/null || { echo "package.sh: $1 is missing: apt-get install $2" >&2; exit 1; }; }
need dpkg-shlibdeps dpkg-dev
need dpkg-deb dpkg
need objcopy binutils
command -v swift >/dev/null || { echo "package.sh: the Swift 6 toolchain is not on PATH (swift.org)" >&2; exit 1; }

# The version's one home is PlayerIdentity; the release is the os-release codename.
version="$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/AetherControl/PlayerIdentity.swift)"
[ -n "$version" ] || { echo "package.sh: no version in PlayerIdentity.swift" >&2; exit 1; }
# shellcheck disable=SC1091
suite="$(. /etc/os-release; echo "${VERSION_CODENAME:-}")"
[ -n "$suite" ] || suite="$(sed -n 's/.*\/\(.*\)$/\1/p' /etc/debian_version)"
[ -n "$suite" ] || suite=unknown
arch="$(dpkg --print-architecture)"

scratch="$repo/.build-package-$suite"
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product aether-tui >&2
binary="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/aether-tui"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/aether-tui"
install -D -m 0755 "$binary" "$stage/usr/bin/aether-tui"
objcopy --strip-debug "$stage/usr/bin/aether-tui"
install -d "$stage/usr/share/man/man1"
gzip -9n < man/aether-tui.1 > "$stage/usr/share/man/man1/aether-tui.1.gz"
install -d "$stage/usr/share/aether-tui/themes"
install -m 0644 themes/*.theme "$stage/usr/share/aether-tui/themes/"
install -d "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d"
"$stage/usr/bin/aether-tui" --generate-completion-script bash > "$stage/usr/share/bash-completion/completions/aether-tui"
"$stage/usr/bin/aether-tui" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_aether-tui"
"$stage/usr/bin/aether-tui" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/aether-tui.fish"
install -d "$stage/usr/share/doc/aether-tui"
gzip -9n < README.md > "$stage/usr/share/doc/aether-tui/README.md.gz"
install -d "$stage/usr/share/doc/aether-tui/examples"
install -m 0644 man/aether-tui.conf "$stage/usr/share/doc/aether-tui/examples/aether-tui.conf"
cat > "$stage/usr/share/doc/aether-tui/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: aether-tui

Files: *
Comment: The aether-tui program. Linked into the binary, with their own licences:
 the Swift standard library and Foundation (swift.org), Apache License 2.0 with the
 Runtime Library Exception; swift-argument-parser, Apache License 2.0.
 Linked dynamically (see each package's own copyright file in /usr/share/doc):
 FFmpeg's libavformat, libavcodec, libavutil, libswscale, libswresample (and libavfilter,
 loaded on first use), LGPL 2.1 or later (GPL where Debian builds them with GPL parts);
 alsa-lib, LGPL 2.1 or later; ncurses, MIT/X11; libass, ISC; zlib, zlib licence;
 libsystemd, LGPL 2.1 or later.
EOF
# Depends from the binary's shared libraries (dpkg-shlibdeps reads debian/control beside it).
mkdir -p "$work/src/debian"
printf 'Source: aether-tui\n\nPackage: aether-tui\nArchitecture: any\n' > "$work/src/debian/control"
depends="$(cd "$work/src" && dpkg-shlibdeps -O -e"$stage/usr/bin/aether-tui" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || { echo "package.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size="$(du -sk "$stage/usr" | cut -f1)"
install -d "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOF
Package: aether-tui
Version: $version~$suite
Architecture: $arch
Maintainer: aether-tui developers <aether-tui@users.noreply.invalid>
Installed-Size: $size
Depends: $depends
Recommends: libasound2-plugins, ca-certificates
Section: video
Priority: optional
Description: terminal media player (kitty, sixel or character cells; ALSA)
 aether-tui plays films and music inside a terminal: the picture as kitty or sixel
 images or as half-block, quadrant, sextant or octant cells in 24-bit colour, the sound
 through ALSA, with mpv's keys, an ncurses front end, subtitles, a pipeline inspector
 and HLS/DASH streams.
EOF
dist="$repo/.build/dist"
mkdir -p "$dist"
deb="$dist/aether-tui_${version}_${suite}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
