#!/usr/bin/env bash
# kitty pictures inside tmux, in a real kitty that has Unicode placeholders (0.28 or later).
# Debian 12's kitty is 0.26.5, so this takes kitty 0.41 and tmux 3.5a from Debian 13 in a
# chroot (debian-chroot.sh's; about a minute and 400 MB the first time; kept in ROOT for the next run)
# and runs our player there through the host's loader and libraries. Not in CI (it needs
# Debian's mirror); run it by hand after changing the kitty driver or the tmux path.
#
#   kitty-placeholders.sh [PLAYER] [--root DIR]
#
# PLAYER defaults to .build/release/aether-tui. It checks, under Xvfb:
#   1. --vo=auto picks kitty (shared memory) inside tmux, and `caps` says sixel is off (tmux
#      3.5a has sixel of its own but kitty shows none);
#   2. the pane holds placeholder cells (U+10EEEE) covering the picture's cells;
#   3. the red picture is on screen, gone while another tmux window shows, and back after
#      switching back, with the player paused (nothing new sent).
# Prints what it saw; exits non-zero when a check fails. Leaves nothing running or mounted.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
player="$repo/.build/release/aether-tui"
root=/var/cache/aether-tui/trixie
while [ $# -gt 0 ]; do
    case "$1" in
        --root) root="$2"; shift 2 ;;
        *) player="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; shift ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "kitty-placeholders.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
[ -x "$player" ] || { echo "kitty-placeholders.sh: no player at $player (swift build -c release)" >&2; exit 2; }
clip="$repo/Tests/Fixtures/out/solid-red.mkv"
[ -f "$clip" ] || bash "$repo/Tests/Fixtures/make-fixtures.sh" >/dev/null
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
command -v Xvfb >/dev/null || apt-get install -y -qq xvfb x11-apps >/dev/null
# shellcheck source=debian-chroot.sh
source "$repo/Tests/Scripts/debian-chroot.sh"

socket="aether-kitty-$$"
cleanup() {
    # The server's end ends kitty's client, and kitty with it; by its command line if not.
    chroot "$root" tmux -L "$socket" kill-server 2>/dev/null || true
    [ -n "${kitty:-}" ] && { kill "$kitty" 2>/dev/null; pkill -f "kitty --config NONE.*$socket" 2>/dev/null; } || true
    [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null || true
    [ -n "${state:-}" ] && rm -rf "$state"
    chroot_unmount_all
}
trap cleanup EXIT
chroot_make trixie "$root"
chroot_mount "$root"
chroot_install "$root" kitty tmux libgl1-mesa-dri libglx-mesa0 libegl-mesa0
chroot_bind "$root" /tmp /tmp
# The host's root, read-only, at /host in the chroot (not recursive: its own mounts stay out).
chroot_bind "$root" / /host ro

# Our player inside the chroot: the host's loader by its real path (/lib64's is a symlink into
# the chroot's own glibc), the host's libraries and locales.
cat > "$root/usr/local/bin/aether-tui" <<EOF
#!/bin/sh
H=/host
export LOCPATH=\$H/usr/lib/locale GCONV_PATH=\$H/usr/lib/x86_64-linux-gnu/gconv
exec \$H/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 --inhibit-cache \\
    --library-path \$H/usr/lib/x86_64-linux-gnu:\$H/opt/swift/usr/lib/swift/linux:\$H/usr/lib/x86_64-linux-gnu/pulseaudio \\
    \$H$player "\$@"
EOF
chmod +x "$root/usr/local/bin/aether-tui"
echo "kitty: $(chroot "$root" kitty --version 2>/dev/null | head -1); tmux: $(chroot "$root" tmux -V)"

state=$(mktemp -d /tmp/aether-kitty-state.XXXXXX)
# Xvfb picks a free display and writes its number once it takes clients (-displayfd).
mkfifo "$state/xready"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$state/xready" >/dev/null 2>&1 &
xvfb=$!
read -r -t 15 number <"$state/xready" || { echo "kitty-placeholders.sh: Xvfb did not start" >&2; exit 2; }
display=":$number"
# The session first (detached), announcing the attach of kitty's client on a tmux channel.
tmux_() { chroot "$root" tmux -L "$socket" "$@"; }
tmux_ -f /dev/null new-session -d -s k \; set -g allow-passthrough on \; set -g default-terminal tmux-256color \; \
    set -g status off \; set-hook -g client-attached 'wait-for -S attached'
chroot "$root" env -i DISPLAY="$display" LIBGL_ALWAYS_SOFTWARE=1 HOME=/root LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin \
    kitty --config NONE -o initial_window_width=120c -o initial_window_height=36c -o remember_window_size=no \
    -o enable_audio_bell=no tmux -L "$socket" attach -t k >/dev/null 2>&1 &
kitty=$!
timeout 30 chroot "$root" tmux -L "$socket" wait-for attached || { echo "kitty-placeholders.sh: kitty did not attach" >&2; exit 2; }

shot() {   # red pixels on the screen
    DISPLAY="$display" xwd -root -silent -out "$state/s.xwd"
    ffmpeg -v error -y -i "$state/s.xwd" -f rawvideo -pix_fmt rgb24 "$state/s.rgb"
    python3 -c "
d = open('$state/s.rgb', 'rb').read()
print(sum(1 for i in range(0, len(d), 3) if d[i] > 200 and d[i + 1] < 60 and d[i + 2] < 60))"
}
# The screen, looked at every 0.25 s until it shows what is waited for (kitty draws on its own
# schedule: there is no event to wait on).
wait_for() {   # wait_for SECONDS PYTHON-CONDITION-ON-n: the last count
    local deadline=$((SECONDS + $1)) n=0
    while [ $SECONDS -lt $deadline ]; do
        n=$(shot)
        python3 -c "import sys; n = $n; sys.exit(0 if ($2) else 1)" && break
        sleep 0.25
    done
    echo "$n"
}
failed=0
check() { if [ "$1" = ok ]; then echo "ok: $2"; else echo "FAILED: $2"; failed=1; fi; }

tmux_ send-keys -t k "aether-tui caps > $state/caps.txt 2>&1; tmux wait-for -S caps" Enter
timeout 60 chroot "$root" tmux -L "$socket" wait-for caps || true
grep -E '^(sixel|video output)' "$state/caps.txt" | sed 's/^/  caps: /'
grep -q '^video output (--vo=auto): kitty (shared memory)' "$state/caps.txt" && r=ok || r=no
check $r "--vo=auto picks kitty (shared memory) inside tmux"
grep -q '^sixel: no (tmux has sixel, but its terminal shows none)' "$state/caps.txt" && r=ok || r=no
check $r "sixel is off: tmux's own sixel is not shown by kitty"

tmux_ send-keys -t k "clear; XDG_STATE_HOME=$state aether-tui --ao=null --pause --log-file=$state/play.log '/host$clip'" Enter
red=$(wait_for 15 'n > 100000')
[ "$red" -gt 100000 ] && r=ok || r=no
check $r "the picture is on screen ($red red pixels)"
cells=$(tmux_ capture-pane -p -e -t k | python3 -c "
import sys
rows = [l for l in sys.stdin.read().split('\n') if '\U0010EEEE' in l]
print(len(rows), max((l.count('\U0010EEEE') for l in rows), default=0))")
read -r rows columns <<<"$cells"
[ "$rows" -ge 20 ] && [ "$columns" -ge 60 ] && r=ok || r=no
check $r "placeholder cells cover the picture in the pane ($rows rows, up to $columns cells a row)"
tmux_ new-window -t k
gone=$(wait_for 5 'n < 1000')
[ "$gone" -lt 1000 ] && r=ok || r=no
check $r "another window hides it ($gone red pixels)"
tmux_ select-window -t k:0
back=$(wait_for 5 'n > 100000')
[ "$back" -gt 100000 ] && r=ok || r=no
check $r "switching back shows it again ($back red pixels), paused"
tmux_ send-keys -t k:0 q
grep -E 'lost|first picture' "$state/play.log" | sed 's/^/  log: /' || true
exit $failed
