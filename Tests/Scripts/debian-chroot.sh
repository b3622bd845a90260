# Sourced, not run: the one home of a Debian chroot for this project's scripts (distros.sh, the
# package tests). Needs root, debootstrap and Debian's mirror.
#
#   chroot_make SUITE ROOT                debootstrap (minbase) SUITE into ROOT unless it is there,
#                                         and give it the host's way to the registries (apt's
#                                         settings, the CA certificates, pip's configuration)
#   chroot_mount ROOT                     /proc, /dev, /dev/pts bound in; undone by chroot_unmount_all
#   chroot_install ROOT PACKAGE...        the packages not yet installed, with apt (after
#                                         chroot_mount; debootstrap's own --include resolves
#                                         dependencies too simply for -dev packages)
#   chroot_bind ROOT SRC DEST [ro]        SRC bound at ROOT/DEST
#   chroot_toolchain ROOT                 the host's Swift toolchain (/opt/swift) and package copies
#                                         (/opt/swift-packages) bound in read-only, with git's
#                                         rules that read the packages' GitHub addresses from them
#   chroot_unmount_all                    every mount made through these, newest first
#   chroot_run ROOT COMMAND...            COMMAND in the chroot, with a clean environment
chroot_mounts=()

chroot_make() {
    local suite="$1" root="$2"
    # Anything mounted under ROOT (a /dev bound in by an earlier run that died) would be
    # emptied on the host by a removal: refuse, and never cross into another file system.
    if grep -q " $root/" /proc/mounts; then
        echo "chroot: $root has file systems mounted under it; unmount them first (umount -R $root/…)" >&2
        return 1
    fi
    if [ ! -x "$root/usr/bin/apt-get" ] || [ ! -f "$root/.aether-chroot" ]; then
        rm -rf --one-file-system "$root"
        mkdir -p "$root"
        echo "chroot: debootstrap $suite into $root (a few minutes the first time)" >&2
        debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >/dev/null
        touch "$root/.aether-chroot"
    fi
    # The host's way to the package registries: apt's settings (its validity rules for a mirror
    # snapshot), the certificate store (a proxy's CA among them) and pip's configuration.
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    echo "deb http://deb.debian.org/debian $suite main" > "$root/etc/apt/sources.list"
    for f in /etc/apt/apt.conf.d/99*; do [ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"; done
    echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/99aether-chroot"
    if [ -d /usr/local/share/ca-certificates ]; then
        mkdir -p "$root/usr/local/share/ca-certificates"
        cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
    fi
    mkdir -p "$root/etc/ssl/certs"
    [ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
    [ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
    return 0
}

chroot_install() {
    local root="$1" missing=() p
    shift
    for p in "$@"; do
        chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "chroot: installing ${missing[*]} in $root" >&2
        chroot_run "$root" sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null' sh "${missing[@]}"
    fi
}

chroot_mount() {
    local root="$1" d
    for d in proc dev dev/pts; do
        mount --bind "/$d" "$root/$d"
        chroot_mounts+=("$root/$d")
    done
}

chroot_bind() {
    local root="$1" src="$2" dest="$3"
    mkdir -p "$root$dest"
    mount --bind "$src" "$root$dest"
    chroot_mounts+=("$root$dest")
    if [ "${4:-}" = ro ]; then mount -o remount,bind,ro "$root$dest"; fi
}

chroot_unmount_all() {
    local i
    for ((i = ${#chroot_mounts[@]} - 1; i >= 0; i--)); do umount -l "${chroot_mounts[$i]}" 2>/dev/null || true; done
    chroot_mounts=()
}

chroot_run() {
    local root="$1"
    shift
    chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
        PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

chroot_toolchain() {
    local root="$1" swift_dir
    swift_dir="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
    chroot_bind "$root" "$swift_dir" /opt/swift ro
    [ -d /opt/swift-packages ] && chroot_bind "$root" /opt/swift-packages /opt/swift-packages ro
    # The host's url.*.insteadOf rules, whatever their scope (system, global), as the chroot's own.
    git config --get-regexp '^url\..*\.insteadof$' > "$root/tmp/aether-insteadof" 2>/dev/null || true
    chroot_run "$root" sh -c 'git config --global --unset-all safe.directory; git config --global --add safe.directory "*";
        while read -r key value; do git config --global --unset-all "$key" "^$value\$"; git config --global --add "$key" "$value"; done < /tmp/aether-insteadof' || true
    rm -f "$root/tmp/aether-insteadof"
}
