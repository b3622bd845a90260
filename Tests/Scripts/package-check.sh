#!/usr/bin/env bash
# Installs a package made by package.sh into a clean chroot of its release (debootstrap minbase
# with man-db only: no Swift toolchain, no build packages; kept in ROOT/SUITE-clean) and checks
# what a user gets: `aether-tui --version`, `man -w aether-tui`, `aether-tui probe` and a
# headless play of a generated clip work, the completions and themes are where the shells and
# the theme loader look, and `apt-get purge` leaves none of the package's files behind.
# With --other SUITE it also checks that the package refuses to install on that release with
# apt's own dependency message. First, on the host: lintian on the package and on its -dbgsym
# beside it (0 errors, 0 warnings: `--fail-on error,warning`), and the debug file named by the
# stripped binary's build ID in the -dbgsym.
#
#   package-check.sh DEB [--other SUITE] [--root DIR]
#
# The release is read from the package's version (VERSION~SUITE). Prints one line per check;
# exits non-zero when one failed. Leaves nothing mounted. Needs root and Debian's mirror.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
deb="$(readlink -f "${1:?package-check.sh: which .deb?}")"
shift
other=
root=/var/cache/aether-tui
while [ $# -gt 0 ]; do
    case "$1" in
        --other) other="$2"; shift 2 ;;
        --root) root="$2"; shift 2 ;;
        *) echo "package-check.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "package-check.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
command -v lintian >/dev/null || apt-get install -y -qq lintian >/dev/null
version="$(dpkg-deb -f "$deb" Version)"
suite="${version##*~}"
dbgdeb="$(dirname "$deb")/$(basename "$deb" | sed 's/^aether-tui_/aether-tui-dbgsym_/')"
# shellcheck source=debian-chroot.sh
source "$repo/Tests/Scripts/debian-chroot.sh"
trap chroot_unmount_all EXIT

clip="$(mktemp -d)/clip.mkv"
ffmpeg -hide_banner -nostdin -loglevel error -f lavfi -i testsrc2=s=320x180:r=24:d=2 -f lavfi -i sine=d=2 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$clip"

check_label="package-check: $suite"
# shellcheck source=checks.sh
source "$repo/Tests/Scripts/checks.sh"

# Debian's own checker, on both packages.
check "lintian: 0 errors, 0 warnings" lintian --fail-on error,warning --tag-display-limit 0 "$deb" "$dbgdeb"
# The symbols of the stripped binary are in the -dbgsym, where addr2line looks by build ID.
unpacked="$(mktemp -d)"
dpkg-deb -x "$deb" "$unpacked"
build_id="$(readelf -n "$unpacked/usr/bin/aether-tui" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')"
check "the binary is stripped" sh -c "! readelf -S '$unpacked/usr/bin/aether-tui' | grep -q '\.debug_info\|\.symtab'"
check "its debug file by build ID in the -dbgsym" sh -c "dpkg-deb -c '$dbgdeb' | grep -q './usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug'"
rm -rf "$unpacked"

dir="$root/$suite-clean"
chroot_make "$suite" "$dir"
chroot_mount "$dir"
chroot_install "$dir" man-db
cp "$deb" "$clip" "$dir/tmp/"
name="$(basename "$deb")"
check "apt-get install ./$name" chroot_run "$dir" apt-get install -y -qq "/tmp/$name"
check "--version names FFmpeg's libraries" chroot_run "$dir" sh -c 'aether-tui --version | grep -q "^  libavcodec "'
check "--version names the package's version (${version%~*})" chroot_run "$dir" sh -c "aether-tui --version | head -n 1 | grep -qx 'aether-tui ${version%~*}'"
check "man -w aether-tui" chroot_run "$dir" sh -c 'mandb -q 2>/dev/null; man -w aether-tui'
check "probe a clip" chroot_run "$dir" aether-tui probe /tmp/clip.mkv
check "play it headless" chroot_run "$dir" aether-tui /tmp/clip.mkv --vo=null --ao=null
check "themes where the loader looks" chroot_run "$dir" sh -c 'ls /usr/share/aether-tui/themes/*.theme >/dev/null && aether-tui /tmp/clip.mkv --vo=null --ao=null --length=0.2 --theme=light'
check "bash, zsh and fish completions" chroot_run "$dir" sh -c 'test -s /usr/share/bash-completion/completions/aether-tui && test -s /usr/share/zsh/vendor-completions/_aether-tui && test -s /usr/share/fish/vendor_completions.d/aether-tui.fish'
# Each shell finds the installed script where it looks (fish without --no-config, which skips
# the vendor directory), and it completes (ShellCompletionTests
# holds the scripts to every case; these are the same bytes, made by the packaged binary).
chroot_install "$dir" bash-completion zsh fish
check "bash-completion loads it: --vo <Tab> offers sixel" chroot_run "$dir" bash -c \
    'source /usr/share/bash-completion/bash_completion; _completion_loader aether-tui
     COMP_WORDS=(aether-tui --vo ""); COMP_CWORD=2; _aether_tui; [[ " ${COMPREPLY[*]} " == *" sixel "* ]]'
check "fish loads it: --vo <Tab> offers sixel" chroot_run "$dir" sh -c 'HOME=/tmp fish -c "complete -C \"aether-tui --vo \"" | grep -qx "sixel.*"'
check "zsh's compinit finds it" chroot_run "$dir" zsh -fc 'autoload -U compinit; compinit -u -D; [[ $_comps[aether-tui] == _aether-tui ]]'
check "no Swift toolchain in the chroot" chroot_run "$dir" sh -c '! command -v swift && ! ls /usr/lib/swift 2>/dev/null'
files="$(chroot_run "$dir" dpkg -L aether-tui)"
check "apt-get purge" chroot_run "$dir" apt-get purge -y -qq aether-tui
left=()
while read -r f; do
    [ -n "$f" ] && [ -f "$dir$f" -o -L "$dir$f" ] && left+=("$f")
done <<<"$files"
[ -d "$dir/usr/share/aether-tui" ] && left+=(/usr/share/aether-tui)
if ((${#left[@]})); then
    echo "package-check: $suite: purge left ${left[*]}"
    failed=1
else
    echo "package-check: $suite: purge leaves no file behind: ok"
fi
chroot_unmount_all
rm -f "$dir/tmp/$name" "$dir/tmp/clip.mkv"
rm -rf "$(dirname "$clip")"

if [ -n "$other" ]; then
    odir="$root/$other-clean"
    chroot_make "$other" "$odir"
    chroot_mount "$odir"
    cp "$deb" "$odir/tmp/"
    # apt 2 says "Depends: libavcodec59 …", apt 3 "aether-tui:amd64 Depends libavcodec59 …".
    refused "the package on $other, by apt's dependency message" "Depends:? lib" chroot_run "$odir" apt-get install -y "/tmp/$name"
    chroot_run "$odir" apt-get purge -y -qq aether-tui >/dev/null 2>&1 || true
    rm -f "$odir/tmp/$name"
fi
exit $failed
