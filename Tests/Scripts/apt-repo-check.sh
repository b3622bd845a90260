#!/usr/bin/env bash
# The signed apt repository end to end, on a release (#61 item 4): this commit's package is
# published with apt-repo.sh and served on loopback; a clean chroot of the release adds the
# repository with `signed-by=` and installs aether-tui with apt; then the next version is built
# (a commit of this one with the release's version raised, so its changelog entry and version
# are new), published to the same repository, and `apt-get upgrade` installs it: the user's
# config file is untouched and `--version` names the new version and commit. Last, the same
# chroot refuses a repository signed by another key, with apt's message.
#
#   apt-repo-check.sh SUITE [--root DIR]
#
# Builds with package.sh (in distros.sh's chroot of SUITE unless it is this machine's release).
# Prints one line per check; exits non-zero when one failed. Leaves nothing running or mounted.
# Needs root, Debian's mirror and the Swift toolchain. Not in CI: two release builds a release.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
suite="${1:?usage: apt-repo-check.sh SUITE [--root DIR]}"
shift
root=/var/cache/aether-tui
[ "${1:-}" = --root ] && root="$2"
[ "$(id -u)" = 0 ] || { echo "apt-repo-check.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
# shellcheck source=needs.sh
source "$repo/Tests/Scripts/needs.sh"
needs apt-repo-check.sh git=git python3=python3 gpg=gnupg apt-ftparchive=apt-utils
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
# shellcheck source=debian-chroot.sh
source "$repo/Tests/Scripts/debian-chroot.sh"

work="$(mktemp -d /tmp/aether-apt-repo.XXXXXX)"
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    chroot_unmount_all
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC1091
host_suite="$(. /etc/os-release; echo "${VERSION_CODENAME:-}")"
build() {   # build CHECKOUT: the package's path
    if [ "$suite" = "$host_suite" ]; then bash "$1/Tests/Scripts/package.sh" | sed -n 1p
    else bash "$1/Tests/Scripts/package.sh" --in-chroot "$suite" | sed -n 1p; fi
}

check_label="apt-repo-check: $suite"
# shellcheck source=checks.sh
source "$repo/Tests/Scripts/checks.sh"

# This commit's package, and the next version's: a commit on a clone of this one that raises the
# release's patch number (a clone, not a worktree: its .git is whole inside a build chroot too).
first="$(build "$repo")"
git clone -q --no-local "$repo" "$work/next"
git -C "$work/next" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"
current="$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$work/next/Sources/AetherControl/PlayerIdentity.swift")"
raised="${current%.*}.$(( ${current##*.} + 1 ))"
sed -i "s/static let version = \"$current\"/static let version = \"$raised\"/" "$work/next/Sources/AetherControl/PlayerIdentity.swift"
git -C "$work/next" -c user.name=aether-tui -c user.email=aether-tui@users.noreply.invalid \
    commit -q -am "The next version, $raised (apt-repo-check.sh)"
next="$(build "$work/next")"
next_commit="$(git -C "$work/next" rev-parse --short=12 HEAD)"
cp "$next" "$work/"
next="$work/$(basename "$next")"
echo "apt-repo-check: $suite: built $(basename "$first") and $(basename "$next")"

# The repository, signed by a key of this test's own; served on loopback.
export AETHER_ARCHIVE_KEY="$work/archive-key.asc"
bash "$repo/Tests/Scripts/apt-repo.sh" "$work/repo" "$first" >/dev/null
# The server binds a free port and prints it once it listens: the port read back is the sign
# it is ready (no port chosen apart and bound again, no polling).
exec {served}< <(exec python3 -u -c 'import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()' "$work/repo" 2>/dev/null)
server=$!
read -r -t 30 port <&"$served" || { echo "apt-repo-check.sh: the loopback server did not start" >&2; exit 1; }

dir="$root/$suite-clean"
chroot_make "$suite" "$dir"
chroot_mount "$dir"
chroot_run "$dir" sh -c 'apt-get purge -y -qq aether-tui >/dev/null 2>&1; rm -f /etc/apt/sources.list.d/aether-tui.list; true'
cp "$work/repo/aether-tui-archive-keyring.gpg" "$dir/usr/share/keyrings/"
echo "deb [signed-by=/usr/share/keyrings/aether-tui-archive-keyring.gpg] http://127.0.0.1:$port $suite main" \
    > "$dir/etc/apt/sources.list.d/aether-tui.list"
check "apt-get install aether-tui from the signed repository" \
    chroot_run "$dir" sh -c 'apt-get update -qq && apt-get install -y -qq aether-tui'
first_version="$(dpkg-deb -f "$first" Version)"
check "installed $first_version" chroot_run "$dir" sh -c "dpkg-query -W -f='\${Version}' aether-tui | grep -qx '$first_version'"
mkdir -p "$dir/root/.config/aether-tui"
printf '# the user'"'"'s own\nvolume=70\n' > "$dir/root/.config/aether-tui/aether-tui.conf"
cp "$dir/root/.config/aether-tui/aether-tui.conf" "$work/config.before"

bash "$repo/Tests/Scripts/apt-repo.sh" "$work/repo" "$next" >/dev/null
next_version="$(dpkg-deb -f "$next" Version)"
check "apt-get upgrade to $next_version" chroot_run "$dir" sh -c 'apt-get update -qq && apt-get upgrade -y -qq'
check "installed $next_version" chroot_run "$dir" sh -c "dpkg-query -W -f='\${Version}' aether-tui | grep -qx '$next_version'"
check "--version names ${next_version%~*} and commit $next_commit" \
    chroot_run "$dir" sh -c "aether-tui --version | head -n 2 | tr '\n' ' ' | grep -qx 'aether-tui ${next_version%~*} git commit $next_commit '"
check "the user's config file untouched" cmp "$work/config.before" "$dir/root/.config/aether-tui/aether-tui.conf"

# A repository signed by another key: refused.
AETHER_ARCHIVE_KEY="$work/other-key.asc" bash "$repo/Tests/Scripts/apt-repo.sh" "$work/repo-other" "$next" >/dev/null
cp -r "$work/repo-other/dists/." "$work/repo/dists/"
cp -r "$work/repo-other/pool/." "$work/repo/pool/"
# apt-get update says so (Debian 12: NO_PUBKEY; 13, through sqv: Missing key) and keeps the last
# good index; alone it counts that a warning and exits 0, so the check asks it to fail on any
# error (--error-on=any: exit 100).
refused "a repository signed by another key" "NO_PUBKEY|signatures couldn't be verified|is not signed|Missing key [0-9A-F]+, which is needed to verify signature" \
    chroot_run "$dir" apt-get update --error-on=any
chroot_run "$dir" sh -c 'apt-get purge -y -qq aether-tui >/dev/null; rm -f /etc/apt/sources.list.d/aether-tui.list /usr/share/keyrings/aether-tui-archive-keyring.gpg; rm -rf /root/.config/aether-tui' || true
exit $failed
