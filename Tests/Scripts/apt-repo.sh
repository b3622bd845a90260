#!/usr/bin/env bash
# Makes (or adds to) a signed apt repository of the packages package.sh built, with Debian's
# own tools (apt-ftparchive, gpg):
#
#   apt-repo.sh OUT DEB... [--key FILE]
#
#   OUT/pool/SUITE/main/a/aether-tui/*.deb    every package given (and those published before),
#                                             by the release its version names (~SUITE)
#   OUT/dists/SUITE/main/binary-ARCH/Packages(.gz), OUT/dists/SUITE/Release, InRelease (clear-
#                                             signed) and Release.gpg (detached), for each release
#                                             among the packages (their version's ~SUITE)
#   OUT/aether-tui-archive-keyring.gpg        the public key, for apt's `signed-by=`
#
# Signed by the secret key in FILE (an exported OpenPGP secret key), else by the project's key at
# $AETHER_ARCHIVE_KEY (default ~/.local/share/aether-tui/archive-signing-key.asc), made there the
# first time: one key for every later publish, so apt's users keep trusting the repository.
# A user adds it with (URL is where OUT is served):
#   curl -o /usr/share/keyrings/aether-tui-archive-keyring.gpg URL/aether-tui-archive-keyring.gpg
#   echo "deb [signed-by=/usr/share/keyrings/aether-tui-archive-keyring.gpg] URL SUITE main" \
#       > /etc/apt/sources.list.d/aether-tui.list
#   apt-get update && apt-get install aether-tui
# Exits non-zero, naming the package to install, when gpg or apt-ftparchive is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=needs.sh
source "$here/needs.sh"
needs apt-repo.sh gpg=gnupg apt-ftparchive=apt-utils dpkg-deb=dpkg

out="${1:?usage: apt-repo.sh OUT DEB... [--key FILE]}"
shift
debs=()
key="${AETHER_ARCHIVE_KEY:-${HOME:-/root}/.local/share/aether-tui/archive-signing-key.asc}"
given_key=no
while [ $# -gt 0 ]; do
    case "$1" in
        --key) key="$2"; given_key=yes; shift 2 ;;
        *) debs+=("$1"); shift ;;
    esac
done
[ ${#debs[@]} -gt 0 ] || { echo "apt-repo.sh: no package given" >&2; exit 2; }

for deb in "${debs[@]}"; do
    version="$(dpkg-deb -f "$deb" Version)" || { echo "apt-repo.sh: '$deb' is not a Debian package" >&2; exit 1; }
    [[ "$version" == *~* ]] || { echo "apt-repo.sh: '$deb' names no release (VERSION~SUITE)" >&2; exit 1; }
    mkdir -p "$out/pool/${version##*~}/main/a/aether-tui"
    cp "$deb" "$out/pool/${version##*~}/main/a/aether-tui/"
done

# The key: given, kept from an earlier publish, or made now (and kept).
gnupg="$(mktemp -d)"
trap 'rm -rf "$gnupg"' EXIT
gpg_() { gpg --homedir "$gnupg" --batch --quiet --pinentry-mode loopback --passphrase '' "$@"; }
if [ -f "$key" ]; then
    gpg_ --import "$key" 2>/dev/null
elif [ "$given_key" = yes ]; then
    echo "apt-repo.sh: no key at '$key'" >&2
    exit 1
else
    mkdir -p "$(dirname "$key")"
    gpg_ --quick-generate-key "aether-tui archive signing key" rsa3072 sign never
    (umask 077 && gpg_ --armor --export-secret-keys > "$key")
    echo "apt-repo.sh: made the archive's signing key, kept in $key" >&2
fi
fingerprint="$(gpg_ --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')"
[ -n "$fingerprint" ] || { echo "apt-repo.sh: '$key' holds no secret key" >&2; exit 1; }
gpg_ --export "$fingerprint" > "$out/aether-tui-archive-keyring.gpg"

# Each release among everything in the pool: its index, its Release, signed both ways.
for suite in $(ls "$out/pool"); do
    mapfile -t archs < <(for deb in "$out/pool/$suite"/main/a/aether-tui/*.deb; do dpkg-deb -f "$deb" Architecture; done | sort -u)
    for arch in "${archs[@]}"; do
        index="$out/dists/$suite/main/binary-$arch"
        mkdir -p "$index"
        # The pool's paths are relative to OUT, as apt asks for them.
        (cd "$out" && apt-ftparchive --arch "$arch" packages "pool/$suite") > "$index/Packages"
        gzip -9n < "$index/Packages" > "$index/Packages.gz"
    done
    (cd "$out/dists/$suite" && apt-ftparchive \
        -o APT::FTPArchive::Release::Origin=aether-tui -o APT::FTPArchive::Release::Label=aether-tui \
        -o APT::FTPArchive::Release::Suite="$suite" -o APT::FTPArchive::Release::Codename="$suite" \
        -o APT::FTPArchive::Release::Architectures="${archs[*]}" -o APT::FTPArchive::Release::Components=main \
        release . > Release.new && mv Release.new Release)
    rm -f "$out/dists/$suite/InRelease" "$out/dists/$suite/Release.gpg"
    gpg_ --local-user "$fingerprint" --clearsign --digest-algo SHA512 -o "$out/dists/$suite/InRelease" "$out/dists/$suite/Release"
    gpg_ --local-user "$fingerprint" --detach-sign --armor --digest-algo SHA512 -o "$out/dists/$suite/Release.gpg" "$out/dists/$suite/Release"
    echo "apt-repo.sh: $suite: $(grep -c '^Package:' "$out/dists/$suite/main/binary-"*/Packages | awk -F: '{ s += $NF } END { print s }') packages, signed by $fingerprint"
done
