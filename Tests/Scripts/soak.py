#!/usr/bin/env python3
"""Memory under use: drives the real player in tmux with random keys, mouse clicks and terminal
resizes for a while and samples its resident memory; or (--straight) lets it play the same
files untouched, for the baseline. Not part of the suite (it runs for as long as it is told).

    soak.py [--straight] [--minutes 60] [--seed 1] [--csv rss.csv] [--cols 160 --rows 48]
            -- PLAYER ARGS...            (e.g. aether-tui --loop-playlist=inf a.mkv b.mkv c.mkv)

Prints one JSON object at the end: samples, the first/last/peak RSS (MiB), the median RSS of
the first and last half hours (or halves), the slope over the second half (MiB per 10 min),
how many keys/mouse events/resizes were sent, whether the player was alive at the end and
whether it quit cleanly on `q`. Every process and the tmux server it starts are ended.
"""
import argparse, json, os, random, shutil, signal, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--straight", action="store_true")
ap.add_argument("--minutes", type=float, default=60)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--csv", default=None)
ap.add_argument("--cols", type=int, default=160)
ap.add_argument("--rows", type=int, default=48)
ap.add_argument("--interval", type=float, default=10.0, help="seconds between RSS samples")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
if not cmd:
    ap.error("no player command")

rng = random.Random(a.seed)
sock = f"aether-soak-{os.getpid()}"
shots = tempfile.mkdtemp(prefix="aether-soak-shots-")
tmux = ["tmux", "-L", sock, "-f", "/dev/null"]


def t(*args, check=False):
    return subprocess.run(tmux + list(args), capture_output=True, text=True, check=check)


def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


env = f"TERM=xterm-256color COLORTERM=truecolor XDG_STATE_HOME={quote(shots)} XDG_CONFIG_HOME={quote(shots)}"
shell = f"{env} {' '.join(quote(c) for c in cmd)} --screenshot-directory={quote(shots)}; echo EXIT=$?; sleep 600"
t("new-session", "-d", "-s", "soak", "-x", str(a.cols), "-y", str(a.rows), shell, check=True)
t("set-option", "-g", "status", "off")


def player_pid():
    pane = t("display-message", "-p", "-t", "soak", "#{pane_pid}").stdout.strip()
    if not pane:
        return None
    out = subprocess.run(["pgrep", "-P", pane], capture_output=True, text=True).stdout.split()
    for pid in out:
        try:
            with open(f"/proc/{pid}/comm") as f:
                if "aether" in f.read():
                    return int(pid)
        except OSError:
            pass
    return None


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


# Keys a user presses (no quitting ones): transport, tracks, menus and their keys, panels,
# scrubbing and the filmstrip, screenshots, the renderer switch.
KEYS = ["space", "Left", "Right", "Up", "Down", "S-Left", "S-Right", "PageUp", "PageDown", "[", "]", "{", "}",
        "BSpace", "9", "0", "m", "#", "j", "J", "v", "z", "Z", "C-_", ".", ",", ">", "<", "F8", "a", "c", "i",
        "T", "d", "r", "o", "Home", "End", "b", "B", "Escape", "Enter", "s", "S", "_", "l", "x", "Tab"]

procs = []
try:
    deadline = time.monotonic() + 20
    pid = None
    while pid is None and time.monotonic() < deadline:
        time.sleep(0.2)
        pid = player_pid()
    if pid is None:
        print(json.dumps({"error": "the player did not start", "screen": t("capture-pane", "-p", "-t", "soak").stdout}))
        sys.exit(1)
    start = time.monotonic()
    end = start + a.minutes * 60
    samples = []
    sent = {"keys": 0, "mouse": 0, "resizes": 0}
    next_sample = start
    csv = open(a.csv, "w") if a.csv else None
    if csv:
        csv.write("seconds,rss_mib\n")
    size = (a.cols, a.rows)
    while time.monotonic() < end:
        now = time.monotonic()
        if now >= next_sample:
            r = rss_mib(pid)
            if r is None:
                break
            samples.append((now - start, r))
            if csv:
                csv.write(f"{now - start:.1f},{r:.1f}\n")
                csv.flush()
            next_sample += a.interval
        if a.straight:
            time.sleep(max(0.05, min(1.0, next_sample - time.monotonic())))
            continue
        roll = rng.random()
        if roll < 0.85:
            t("send-keys", "-t", "soak", rng.choice(KEYS))
            sent["keys"] += 1
        elif roll < 0.95:
            # An SGR mouse click (press and release) somewhere on the screen.
            x, y = rng.randint(1, size[0]), rng.randint(1, size[1])
            for final in ("M", "m"):
                seq = f"\x1b[<0;{x};{y}{final}".encode()
                t("send-keys", "-t", "soak", "-H", *[format(b, "x") for b in seq])
            sent["mouse"] += 1
        else:
            size = (rng.randint(60, 200), rng.randint(20, 60))
            t("resize-window", "-t", "soak", "-x", str(size[0]), "-y", str(size[1]))
            sent["resizes"] += 1
        time.sleep(rng.uniform(0.05, 0.4))
    alive = rss_mib(pid) is not None
    t("resize-window", "-t", "soak", "-x", str(a.cols), "-y", str(a.rows))
    for _ in range(3):
        t("send-keys", "-t", "soak", "Escape")
    time.sleep(0.5)
    t("send-keys", "-t", "soak", "q")
    quit_ok = False
    for _ in range(100):
        if "EXIT=" in t("capture-pane", "-p", "-t", "soak").stdout:
            quit_ok = True
            break
        time.sleep(0.1)
    exit_line = next((l for l in t("capture-pane", "-p", "-t", "soak").stdout.splitlines() if "EXIT=" in l), None)

    def median(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if xs else None

    total = samples[-1][0] if samples else 0
    half = total / 2
    first = [r for s, r in samples if s <= half]
    second = [(s, r) for s, r in samples if s > half]
    slope = None
    if len(second) >= 3:
        n = len(second)
        mx = sum(s for s, _ in second) / n
        my = sum(r for _, r in second) / n
        den = sum((s - mx) ** 2 for s, _ in second)
        slope = sum((s - mx) * (r - my) for s, r in second) / den * 600 if den else 0
    print(json.dumps({
        "mode": "straight" if a.straight else "storm",
        "minutes": round(total / 60, 1),
        "samples": len(samples),
        "rss_first_mib": round(samples[0][1], 1) if samples else None,
        "rss_last_mib": round(samples[-1][1], 1) if samples else None,
        "rss_peak_mib": round(max(r for _, r in samples), 1) if samples else None,
        "median_first_half_mib": round(median(first), 1) if first else None,
        "median_second_half_mib": round(median([r for _, r in second]), 1) if second else None,
        "slope_second_half_mib_per_10min": round(slope, 2) if slope is not None else None,
        "sent": sent,
        "alive_at_end": alive,
        "quit_cleanly": quit_ok,
        "exit": exit_line,
    }))
finally:
    t("kill-server")
    shutil.rmtree(shots, ignore_errors=True)
