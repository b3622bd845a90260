#!/usr/bin/env bash
# Builds the Debian packages for the release this runs on:
#   .build/dist/aether-tui_VERSION~SUITE_amd64.deb         the player, stripped
#   .build/dist/aether-tui-dbgsym_VERSION~SUITE_amd64.deb  its debug symbols (/usr/lib/debug/.build-id/…),
#                                                          which addr2line finds by the binary's build ID
# VERSION is the binary's own (`--version --json`: the release, and for a commit that is not its
# tag the snapshot's suffix, 0.1.0+git20261127.6f7bfa9). Every file's time is the commit's
# (SOURCE_DATE_EPOCH), owners are root, and the changelog is made from the version and the commit.
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
# Prints the packages' paths. Exits non-zero, with the package to install, when a tool is missing.
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
    # The packages' paths as the host sees them (the chroot has the checkout at /src).
    chroot_run "$root" bash -c "cd /src && bash Tests/Scripts/install-deps.sh --build-only && bash Tests/Scripts/package.sh" \
        | sed "s|^/src/|$repo/|"
    exit "${PIPESTATUS[0]}"
fi

# shellcheck source=needs.sh
source "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
needs package.sh dpkg-shlibdeps=dpkg-dev dpkg-deb=dpkg objcopy=binutils
command -v swift >/dev/null || { echo "package.sh: the Swift 6 toolchain is not on PATH (swift.org)" >&2; exit 1; }

# The release is the os-release codename.
# shellcheck disable=SC1091
suite="$(. /etc/os-release; echo "${VERSION_CODENAME:-}")"
[ -n "$suite" ] || suite="$(sed -n 's/.*\/\(.*\)$/\1/p' /etc/debian_version)"
[ -n "$suite" ] || suite=unknown
arch="$(dpkg --print-architecture)"

scratch="$repo/.build-package-$suite"
# Reproducible wherever the checkout is: the debug information names the sources under
# /usr/src/aether-tui, not this checkout's path (repro-check.sh builds in two places).
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch"
       -Xswiftc -debug-prefix-map -Xswiftc "$repo=/usr/src/aether-tui"
       -Xcc "-ffile-prefix-map=$repo=/usr/src/aether-tui")
"${build[@]}" --product aether-tui >&2
binary="$("${build[@]}" --show-bin-path)/aether-tui"
# The binary names the checkout's commit (GitCommitPlugin). An incremental build right after a
# commit was seen to link the commit before (a prebuild command's new output compiled a build
# late): build again then, and refuse a package that still names another.
head="$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || true)"
names_head() { [ -z "$head" ] || "$binary" --version --json | grep -q "\"commit\" *: *\"$head"; }
if ! names_head; then
    echo "package.sh: the build named another commit than $head: built again" >&2
    "${build[@]}" --product aether-tui >&2
    names_head || { echo "package.sh: the binary names another commit than $head ($("$binary" --version | sed -n 2p))" >&2; exit 1; }
fi
# The version's one home is PlayerIdentity (with the commit's suffix): the binary says it.
version="$("$binary" --version --json | sed -n 's/.*"version" *: *"\([^"]*\)".*/\1/p')"
[ -n "$version" ] || { echo "package.sh: the binary named no version" >&2; exit 1; }
debversion="$version~$suite"
commit="$("$binary" --version --json | sed -n 's/.*"commit" *: *"\([^"]*\)".*/\1/p')"
# Reproducible: every time in the package is the commit's.
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH
build_id="$(readelf -n "$binary" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')"
[ ${#build_id} -ge 8 ] || { echo "package.sh: the binary has no build ID" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/aether-tui"
dbgstage="$work/aether-tui-dbgsym"
install -D -m 0755 "$binary" "$stage/usr/bin/aether-tui"
# Stripped as Debian's dh_strip strips; the symbols go to the -dbgsym package, by build ID.
debugfile="$dbgstage/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
install -d "$(dirname "$debugfile")"
objcopy --only-keep-debug --compress-debug-sections "$binary" "$debugfile"
chmod 0644 "$debugfile"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$stage/usr/bin/aether-tui"
install -d "$stage/usr/share/man/man1"
gzip -9n < man/aether-tui.1 > "$stage/usr/share/man/man1/aether-tui.1.gz"
install -d "$stage/usr/share/aether-tui/themes"
install -m 0644 themes/*.theme "$stage/usr/share/aether-tui/themes/"
install -d "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d"
# The binary's own scripts (CompletionScript; bash-completion sources its scripts: no #! line).
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
Upstream-Contact: aether-tui developers <aether-tui@users.noreply.invalid>
Comment: Linked dynamically, each with its own copyright file in /usr/share/doc:
 FFmpeg's libavformat, libavcodec, libavfilter, libavutil, libswscale and
 libswresample (LGPL 2.1 or later; GPL where Debian builds them with GPL parts),
 alsa-lib (LGPL 2.1 or later), ncurses (MIT/X11), libass (ISC), zlib (zlib),
 libcurl (curl) with OpenSSL (Apache 2.0) and libsystemd (LGPL 2.1 or later).

Files: *
Copyright: 2025-2026 aether-tui developers
 2014-2026 Apple Inc. and the Swift project authors
License: aether-tui and Apache-2.0-with-Swift-exception
Comment: The Swift standard library, Foundation and swift-argument-parser are
 linked into /usr/bin/aether-tui (Apple Inc. and the Swift project authors).

License: aether-tui
 No licence has been chosen for aether-tui's own code yet; until its authors
 publish one with the source, they keep all rights to it.

License: Apache-2.0-with-Swift-exception
 Licensed under the Apache License, Version 2.0; on Debian systems its full text
 is in /usr/share/common-licenses/Apache-2.0.
 .
 Runtime Library Exception to the Apache 2.0 License: as an exception, if you use
 this Software to compile your source code and portions of this Software are
 embedded into the binary product as a result, you may redistribute such product
 without providing attribution as would otherwise be required by Sections 4(a),
 4(b) and 4(d) of the License.
EOF
# The changelog, in Debian's format: this version, from this commit, dated as the commit.
printf 'aether-tui (%s) %s; urgency=medium\n\n  * Built from commit %s.\n\n -- aether-tui developers <aether-tui@users.noreply.invalid>  %s\n' \
    "$debversion" "$suite" "$commit" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n > "$stage/usr/share/doc/aether-tui/changelog.gz"
# Depends from the binary's shared libraries (dpkg-shlibdeps reads debian/control beside it).
mkdir -p "$work/src/debian"
printf 'Source: aether-tui\n\nPackage: aether-tui\nArchitecture: any\n' > "$work/src/debian/control"
depends="$(cd "$work/src" && dpkg-shlibdeps -O -e"$stage/usr/bin/aether-tui" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || { echo "package.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size="$(du -sk "$stage/usr" | cut -f1)"
install -d "$stage/DEBIAN"
# The relations (README's Install says why): https servers are checked against the system's
# authorities; ALSA's default device reaches the desktop's sound server through its plugin
# (PipeWire's, or PulseAudio's in libasound2-plugins); --ytdl runs yt-dlp for web pages.
cat > "$stage/DEBIAN/control" <<EOF
Package: aether-tui
Version: $debversion
Architecture: $arch
Maintainer: aether-tui developers <aether-tui@users.noreply.invalid>
Installed-Size: $size
Depends: $depends
Recommends: ca-certificates, pipewire-alsa | libasound2-plugins
Suggests: yt-dlp
Section: video
Priority: optional
Description: terminal media player (kitty, sixel or character cells; ALSA)
 aether-tui plays films and music inside a terminal: the picture as kitty
 or sixel images or as half-block, quadrant, sextant or octant cells in
 24-bit colour, the sound through ALSA, with mpv's keys, an ncurses front
 end, subtitles, a pipeline inspector and HLS/DASH streams.
EOF
install -d "$dbgstage/DEBIAN" "$dbgstage/usr/share/doc"
ln -s aether-tui "$dbgstage/usr/share/doc/aether-tui-dbgsym"
cat > "$dbgstage/DEBIAN/control" <<EOF
Package: aether-tui-dbgsym
Source: aether-tui
Version: $debversion
Auto-Built-Package: debug-symbols
Architecture: $arch
Maintainer: aether-tui developers <aether-tui@users.noreply.invalid>
Installed-Size: $(du -sk "$dbgstage/usr" | cut -f1)
Depends: aether-tui (= $debversion)
Section: debug
Priority: optional
Description: debug symbols for aether-tui
Build-Ids: $build_id
EOF
# Each package's file sums (dpkg --verify, debsums).
for s in "$stage" "$dbgstage"; do
    (cd "$s" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum > DEBIAN/md5sums)
done
# Reproducible: the commit's time on every file, root's ownership (dpkg-deb sorts the members).
find "$stage" "$dbgstage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dist="$repo/.build/dist"
mkdir -p "$dist"
deb="$dist/aether-tui_${debversion}_$arch.deb"
dbgdeb="$dist/aether-tui-dbgsym_${debversion}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$dbgstage" "$dbgdeb" >/dev/null
echo "$deb"
echo "$dbgdeb"
