#!/usr/bin/env python3
"""Plays the hostile corpus (hostile-corpus.sh) through aether-tui and judges every run.

Run through Tests/Scripts/hostile-run.sh. Python 3 standard library only.

Passes (each run is one "case"):
  probe     BINARY probe FILE                       (every file)
  headless  BINARY FILE --vo=null --ao=null --length=L --speed=S --stats-file=…  (every file,
            plus variants with --start, and runtime file-name cases)
  remote    (unless --no-remote; --only-remote alone) each misbehaviour of hostile_http.py played
            headless (and in the pty): must exit non-zero with one line naming the cause (WARN
            otherwise) and stay under 300 MB of peak RSS (FAIL otherwise)
  pty       with --pty: BINARY FILE --vo=halfblock --ao=null --length=L --speed=S --stats-file=…
            in a pseudo-terminal of 120×40, TERM=xterm-256color (every file, the variants, the
            runtime file-name cases, keys/signals sent at start-up, hostile terminal replies)

FAIL (exit status 1): death by a signal (crash; except by the signal an interrupt case sends),
hang (still running after length × 2 + 10 s; for interrupt cases 2 s after the interrupt;
killed with SIGKILL), a non-zero exit with nothing said (stderr empty; in the pty: nothing
left on the terminal after the screen closed; exit 4 after our interrupt is fine), raw
control bytes from the file (ESC ]0;PWNED, PWNED BEL, ESC ]2;PWNED, ESC ]52;, U+202E) in the
output, and in the pty the terminal left in raw mode (ECHO or ICANON cleared) or in the
alternate screen (the last ESC[?1049h not followed by ESC[?1049l) once it ended by itself or
by a signal (not judged after the runner's SIGKILL).
WARN (exit status 1 only with --strict): the file's expected behaviour not met (exit status,
media seconds played, message), invisible/format characters from the file on the terminal
(U+200B, U+2060, U+FEFF, U+2028, U+2029, tag characters), mouse reporting or a hidden cursor
left on, slow quit, peak RSS or CPU above the limits, late terminal replies read as keys, the
subtitles of another file shown.
"""
import argparse
import atexit
import errno
import fcntl
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

# ---------------------------------------------------------------------------------------------
# What each corpus file is expected to do (WARN when not). exit: allowed exit statuses; played:
# minimum media seconds in the stats summary; frames: minimum frames presented; message: regex
# the error output must match; text: shown on the terminal (pty). (Today's player reports its
# --length as media seconds even when it presented nothing: frames is the telling figure.)

PLAYS = {"exit": {0}, "played": 2.5, "frames": 48}
REJECTED = {"exit_nonzero": True}

FILES = {
    "control.mkv": dict(expect=dict(PLAYS, text="REAL-SUBTITLE"), args=["--sid=1"]),
    "decoy.mkv": dict(expect=PLAYS),
    "ts-offset-3600.ts": dict(expect=PLAYS),
    "ts-pts-wrap.ts": dict(length=8, expect={"exit": {0}, "played": 7.5, "frames": 150}),
    "ts-video-late.ts": dict(expect=dict(PLAYS, frames=30)),
    "mkv-offset-chapters.mkv": dict(expect=PLAYS),
    "damaged-frame.mkv": dict(expect=PLAYS),
    "damaged-slice.mkv": dict(expect=PLAYS),
    "vp9-invalid.webm": dict(expect={"exit": {0}, "played": 2.5, "message": r"(?i)vp9|video"}),
    "h264-bad-nal.ts": dict(expect=PLAYS),
    "no-keyframe-start.ts": dict(expect=dict(PLAYS, frames=30)),
    "fmp4-huge-duration.mp4": dict(length=8, expect={"exit": {0}, "played": 5.5, "frames": 120}),
    "truncated.mkv": dict(length=8, expect={"exit": {0, 2}}),
    "zero-bytes.mkv": dict(expect=REJECTED),
    "garbage.mkv": dict(expect=REJECTED),
    "cenc.mp4": dict(expect={"exit_nonzero": True, "message": r"(?i)encrypt"}),
    "cenc-frag.mp4": dict(expect={"exit_nonzero": True, "message": r"(?i)encrypt"}),
    "interlaced-switch.ts": dict(length=9, expect={"exit": {0}, "played": 8.5, "frames": 170}),
    "interlaced-switch-mpeg2.ts": dict(length=9, expect={"exit": {0}, "played": 8.5, "frames": 170}),
    "nut-chapter-9e18.nut": dict(expect=PLAYS),
    "mkv-huge-ts.mkv": dict(),
    "wav-huge-rate.wav": dict(),
    "many-cues.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "pgs-huge-canvas.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "pgs-huge-corners.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "long-cue.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "latin1.mkv": dict(expect=dict(PLAYS, text="Café"), args=["--sid=1"]),
    "latin1-embedded.mkv": dict(expect=dict(PLAYS, text="Café"), args=["--sid=1"]),
    "sub-outlasts.mkv": dict(length=12, expect={"exit": {0}, "played": 4.5, "frames": 100}, args=["--sid=1"]),
    "odd-size-1x1.mkv": dict(expect=PLAYS),
    "odd-size-4097x3.mkv": dict(expect=PLAYS),
    "hostile-tags.mkv": dict(expect=PLAYS, args=["--sid=1"], keys=[(0.5, b"i")]),
    "mkv-no-duration.mkv": dict(expect=PLAYS),
    # --large
    "many-cues-200k.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "long-cue-4m.mkv": dict(expect=PLAYS, args=["--sid=1"]),
    "ts-offset-3600-60s.ts": dict(expect=PLAYS),
    "ts-pts-wrap-60s.ts": dict(length=34, expect={"exit": {0}, "played": 33.5, "frames": 750}),
    "mkv-offset-chapters-60s.mkv": dict(expect=PLAYS),
    "damaged-frame-60s.mkv": dict(expect=PLAYS),
    "interlaced-switch-36s.ts": dict(length=36, expect={"exit": {0}, "played": 35, "frames": 750}),
}

# Extra runs of corpus files with other arguments (headless and pty): (file, label, args, expect).
VARIANTS = [
    ("ts-offset-3600.ts", "start=5", ["--start=5"], PLAYS),
    ("mkv-offset-chapters.mkv", "start=5", ["--start=5"], PLAYS),
    ("ts-pts-wrap.ts", "start=4", ["--start=4"], PLAYS),
    ("mkv-no-duration.mkv", "start=50%", ["--start=50%"], None),
    ("fmp4-huge-duration.mp4", "start=50%", ["--start=50%"], None),
    ("mkv-huge-ts.mkv", "start=50%", ["--start=50%"], None),
    ("nut-chapter-9e18.nut", "start=50%", ["--start=50%"], None),
    ("many-cues.mkv", "start=2", ["--start=2", "--sid=1"], {"exit": {0}, "played": 1.5, "frames": 30}),
]

# Markers of raw control sequences from the file reaching the terminal (FAIL) and of invisible
# characters from it (WARN). The corpus marks its escapes with PWNED.
RAW_MARKERS = [b"\x1b]0;PWNED", b"PWNED\x07", b"\x1b]2;PWNED", b"\x1b]52;", "\u202e".encode()]
INVISIBLE_MARKERS = {"U+200B": "\u200b", "U+2060": "\u2060", "U+FEFF": "\ufeff", "U+2028": "\u2028",
                     "U+2029": "\u2029", "U+E0041": "\U000E0041"}

# Terminal replies for the hostile-terminal cases: query → reply (a "terminal" with sixel and
# absurd 1024×1024-pixel cells, 120×40 cells of 122880×40960 pixels).
REPLIES = [
    (b"\x1b[c", b"\x1b[?62;4;22c"),
    (b"\x1b[?1;1;0S", b"\x1b[?1;0;256S"),
    (b"\x1b[?2;1;0S", b"\x1b[?2;0;122880;40960S"),
    (b"\x1b[16t", b"\x1b[6;1024;1024t"),
    (b"\x1b[14t", b"\x1b[4;40960;122880t"),
    (b"\x1b[18t", b"\x1b[8;40;120t"),
    (b"\x1b[?2026$p", b"\x1b[?2026;2$y"),
    (b"\x1b[5n", b"\x1b[0n"),
]

ROWS, COLS = 40, 120
RUNNING = set()          # pids (= process groups) of the children alive


def kill_all():
    for pid in list(RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
        RUNNING.discard(pid)


def on_signal(signum, _frame):
    kill_all()
    sys.stderr.write("hostile-run: interrupted\n")
    os._exit(128 + signum)


# ---------------------------------------------------------------------------------------------
# running one case


class Case:
    def __init__(self, name, mode, path, args, length, expect=None, keys=(), cwd=None,
                 interrupt=None, allow_signal=None, replies=None, vo="halfblock", extra_checks=None,
                 winsize_pixels=(0, 0), quit_case=False, rss_fail_mb=None):
        self.name, self.mode, self.path, self.args = name, mode, path, list(args)
        self.length, self.expect, self.keys = length, expect, list(keys)
        self.cwd = cwd
        self.interrupt = interrupt            # (seconds, signal number) sent to the child
        self.allow_signal = allow_signal      # a death by this signal is not a crash
        self.replies = replies                # None, or seconds of delay for REPLIES
        self.vo = vo
        self.extra_checks = extra_checks or []
        self.winsize_pixels = winsize_pixels
        self.quit_case = quit_case            # keys/interrupt end it: judge how fast
        self.rss_fail_mb = rss_fail_mb        # peak RSS above this is a FAIL (remote doors)


def spawn(argv, cwd, stdin_fd, stdout_fd, stderr_fd, env, ctty=False):
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if ctty:
                fcntl.ioctl(stdin_fd, termios.TIOCSCTTY, 0)
            os.dup2(stdin_fd, 0)
            os.dup2(stdout_fd, 1)
            os.dup2(stderr_fd, 2)
            os.closerange(3, 4096)
            os.chdir(cwd)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.execve(argv[0], argv, env)
        except BaseException as e:
            try:
                os.write(2, ("hostile-run: cannot start %s: %s\n" % (argv[0], e)).encode())
            finally:
                os._exit(127)
    RUNNING.add(pid)
    return pid


def reap(pid, block):
    try:
        got, status, usage = os.wait4(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        return None
    if got == 0:
        return None
    RUNNING.discard(pid)
    try:                                   # anything it left behind in its group
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    return status, usage


def run_case(case, binary, workdir, opts):
    """Runs one case; returns a result dict."""
    tmp = tempfile.mkdtemp(prefix="case.", dir=workdir)
    stats = os.path.join(tmp, "stats.jsonl")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "STY", "COLUMNS", "LINES", "NO_COLOR")}
    env.update(TERM="xterm-256color", LC_ALL="C.UTF-8")
    if case.mode == "probe":
        argv = [binary, "probe", case.path]
    else:
        vo = "null" if case.mode == "headless" else case.vo
        argv = [binary, case.path, "--vo=%s" % vo, "--ao=null", "--length=%g" % case.length,
                "--speed=%g" % opts.speed, "--stats-file=%s" % stats] + case.args
    limit = case.length * 2 + 10
    out_path, err_path = os.path.join(tmp, "out"), os.path.join(tmp, "err")
    devnull = os.open(os.devnull, os.O_RDONLY)
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    master = slave = None
    termios_before = None
    output = bytearray()
    try:
        if case.mode == "pty":
            master, slave = os.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ,
                        struct.pack("HHHH", ROWS, COLS, case.winsize_pixels[0], case.winsize_pixels[1]))
            attrs = termios.tcgetattr(slave)
            attrs[3] |= termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            termios_before = termios.tcgetattr(slave)
            t0 = time.monotonic()
            pid = spawn(argv, case.cwd or tmp, slave, slave, slave, env, ctty=True)
        else:
            t0 = time.monotonic()
            pid = spawn(argv, case.cwd or tmp, devnull, out_fd, err_fd, env)
    finally:
        os.close(devnull)
        os.close(out_fd)
        os.close(err_fd)

    hang = False
    result = None
    deadline = t0 + limit
    keys = sorted(case.keys)
    interrupt = case.interrupt
    interrupt_at = None
    pending_replies = []          # (time, bytes)
    scanned = 0
    while True:
        now = time.monotonic()
        if master is not None:
            r, _, _ = select.select([master], [], [], 0.02)
            if r:
                try:
                    chunk = os.read(master, 65536)
                    output += chunk
                except OSError as e:
                    if e.errno != errno.EIO:
                        raise
            if case.replies is not None:
                # Answer the queries seen so far (each occurrence once).
                while True:
                    hits = [(output.find(q, scanned), q, a) for q, a in REPLIES]
                    hits = [h for h in hits if h[0] >= 0]
                    if not hits:
                        # keep the last few bytes: a query may be split between reads
                        scanned = max(scanned, len(output) - 16)
                        break
                    pos, q, a = min(hits)
                    pending_replies.append((now + case.replies, a))
                    scanned = pos + len(q)
            for item in [p for p in pending_replies if p[0] <= now]:
                pending_replies.remove(item)
                try:
                    os.write(master, item[1])
                except OSError:
                    pass
            while keys and now - t0 >= keys[0][0]:
                try:
                    os.write(master, keys.pop(0)[1])
                except OSError:
                    keys.clear()
                if not keys and case.quit_case and interrupt_at is None:
                    interrupt_at = now
        else:
            time.sleep(0.02)
        if interrupt and now - t0 >= interrupt[0]:
            try:
                os.kill(pid, interrupt[1])
            except OSError:
                pass
            interrupt_at = now
            interrupt = None
        result = reap(pid, block=False)
        if result:
            break
        if interrupt_at is not None and case.quit_case and now > interrupt_at + opts.quit_limit:
            hang = "still running %.1f s after the interrupt" % opts.quit_limit
        if now > deadline:
            hang = "still running after %.0f s (length × 2 + 10)" % limit
        if hang:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            result = reap(pid, block=True)
            break
    wall = time.monotonic() - t0
    status, usage = result if result else (0, None)
    if master is not None:
        end = time.monotonic() + 0.3           # drain what is left
        while time.monotonic() < end:
            r, _, _ = select.select([master], [], [], 0.05)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        termios_after = termios.tcgetattr(slave)
        os.close(master)
        os.close(slave)
    else:
        termios_after = None
    if master is not None:
        with open(out_path, "wb") as f:      # the terminal's bytes (kept with --keep)
            f.write(output)
    with open(out_path, "rb") as f:
        stdout = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read()
    res = judge(case, argv, status, usage, wall, hang, bytes(output), stdout, stderr, stats,
                termios_before, termios_after, interrupt_at and (interrupt_at - t0), opts)
    if opts.keep:
        res["kept"] = tmp
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return res


# ---------------------------------------------------------------------------------------------
# judging


ANSI = re.compile(rb"\x1b(\[[0-9;?<=>!$ ]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|P[^\x1b]*\x1b\\|[()][0-9A-Za-z]|[=>78DEHMc])")


def visible_text(b):
    """Terminal output with escape sequences removed, decoded leniently."""
    return ANSI.sub(b"", b).replace(b"\r", b"").decode("utf-8", "replace")


def printable(s, limit=100):
    out = []
    for ch in s:
        o = ord(ch)
        if o < 32 or o == 127 or 0x80 <= o < 0xA0 or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069" \
                or ch in "\u200b\u200c\u200d\u2060\ufeff\u2028\u2029" or 0xE0000 <= o <= 0xE007F:
            out.append("\\x%02x" % o if o < 256 else "\\u%04x" % o if o < 0x10000 else "\\U%08x" % o)
        else:
            out.append(ch)
    s = "".join(out)
    return s if len(s) <= limit else s[:limit - 1] + "…"


def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def read_stats(path):
    summary, telemetry = None, []
    try:
        with open(path, "rb") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if "summary" in obj:
                    summary = obj["summary"]
                elif "telemetry" in obj:
                    telemetry.append(obj["telemetry"])
    except OSError:
        pass
    return summary, telemetry


def judge(case, argv, status, usage, wall, hang, output, stdout, stderr, stats, tbefore, tafter, interrupted_at, opts):
    fails, warns = [], []
    exit_code = sig = None
    if hang:
        fails.append("HANG: %s, killed" % hang)
    elif os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != case.allow_signal:
            fails.append("CRASH: %s%s" % (signal.Signals(sig).name, " (core)" if os.WCOREDUMP(status) else ""))
    else:
        exit_code = os.WEXITSTATUS(status)

    # What the user was told: stderr (headless, probe), or what is left on the terminal after
    # the screen closed (pty, where stderr is the terminal too).
    if case.mode == "pty":
        tail = output
        i = output.rfind(b"\x1b[?1049l")
        if i >= 0:
            tail = output[i + 8:]
        said = visible_text(tail)
    else:
        said = (stderr if stderr.strip() else stdout).decode("utf-8", "replace")
    message = last_line(said)
    stopped = interrupted_at is not None      # we sent the key/signal that ended it
    if exit_code not in (None, 0) and not message and not hang and not (stopped and exit_code in (4, 130, 143, 129)):
        fails.append("SILENT: exit %d with nothing said" % exit_code)
    if exit_code == 127 and b"hostile-run: cannot start" in stderr:
        fails.append("RUNNER: could not start the binary")

    streams = {"terminal" if case.mode == "pty" else "stdout": output if case.mode == "pty" else stdout,
               "stderr": stderr}
    for where, data in streams.items():
        raw = [m for m in RAW_MARKERS if m in data]
        if raw:
            fails.append("RAW-BYTES on %s: %s" % (where, ", ".join(printable(m.decode("utf-8", "replace")) for m in raw)))
        inv = [k for k, v in INVISIBLE_MARKERS.items() if v.encode() in data]
        if inv:
            warns.append("invisible characters on %s: %s" % (where, " ".join(inv)))

    if case.mode == "pty" and tafter is not None and hang:
        warns.append("terminal state not judged (killed by the runner)")
    elif case.mode == "pty" and tafter is not None:
        lost = [n for n, flag in (("ECHO", termios.ECHO), ("ICANON", termios.ICANON), ("ISIG", termios.ISIG))
                if tbefore[3] & flag and not tafter[3] & flag]
        if lost:
            (fails if set(lost) & {"ECHO", "ICANON"} else warns).append("RAW-MODE: terminal left without %s" % "/".join(lost))
        on = output.rfind(b"\x1b[?1049h")
        if on >= 0 and output.rfind(b"\x1b[?1049l") < on:
            fails.append("ALT-SCREEN: left in the alternate screen")
        for mode, what in ((b"1000", "mouse"), (b"1002", "mouse"), (b"1003", "mouse"), (b"1006", "mouse SGR"),
                           (b"2004", "bracketed paste"), (b"25", "cursor")):
            h, l = b"\x1b[?" + mode + b"h", b"\x1b[?" + mode + b"l"
            if mode == b"25":   # hidden cursor: ?25l not followed by ?25h
                if output.rfind(l) > output.rfind(h):
                    warns.append("cursor left hidden")
            elif output.rfind(h) > output.rfind(l):
                warns.append("%s mode (?%sh) left on" % (what, mode.decode()))

    summary, telemetry = read_stats(stats)
    played = summary.get("mediaSeconds") if summary else None
    frames = summary.get("framesPresented") if summary else None
    e = case.expect
    if e and not hang and sig is None:
        if "exit" in e and exit_code not in e["exit"]:
            warns.append("expected exit %s, got %s" % ("/".join(map(str, sorted(e["exit"]))), exit_code))
        if e.get("exit_nonzero") and exit_code == 0:
            warns.append("expected a refusal (non-zero exit), got exit 0")
        if "played" in e and (played is None or played < e["played"]):
            warns.append("played %s s, expected ≥ %g" % ("?" if played is None else "%.2f" % played, e["played"]))
        if "frames" in e and (frames is None or frames < e["frames"]):
            warns.append("%s frames presented, expected ≥ %d" % ("?" if frames is None else frames, e["frames"]))
        if "message" in e and not re.search(e["message"], said):
            warns.append("message does not match /%s/" % e["message"])
        if "text" in e and case.mode == "pty" and e["text"] not in visible_text(output):
            warns.append("'%s' never shown" % e["text"])
    for check in case.extra_checks:
        w = check(output=output, telemetry=telemetry, summary=summary, opts=opts)
        if w:
            warns.append(w)
    if interrupted_at is not None and case.quit_case and not hang:
        took = wall - interrupted_at
        if took > 1.0:
            warns.append("slow quit: %.2f s after the key/signal" % took)
    rss = usage.ru_maxrss / 1024 if usage else None
    cpu = usage.ru_utime + usage.ru_stime if usage else None
    if rss is not None and case.rss_fail_mb and rss > case.rss_fail_mb:
        fails.append("RSS: peak %.0f MB over %d MB" % (rss, case.rss_fail_mb))
    elif rss is not None and rss > opts.rss_warn_mb:
        warns.append("peak RSS %.0f MB" % rss)
    if cpu is not None and cpu > opts.cpu_warn:
        warns.append("CPU %.1f s" % cpu)
    return {
        "case": case.name, "mode": case.mode, "argv": [printable(a, 400) for a in argv],
        "result": "FAIL" if fails else "WARN" if warns else "PASS",
        "fail": fails, "warn": warns,
        "exit": exit_code, "signal": signal.Signals(sig).name if sig else None, "hang": bool(hang),
        "wall": round(wall, 2), "cpu": None if cpu is None else round(cpu, 2),
        "rss_mb": None if rss is None else round(rss, 1),
        "played": played, "frames": frames,
        "last_line": printable(message, 300),
    }


# ---------------------------------------------------------------------------------------------
# cases


def late_keys_check(output, telemetry, summary, opts):
    bad = [t for t in telemetry if abs(t.get("rate", opts.speed) - opts.speed) > 1e-6 or t.get("volume", 100) != 100]
    if bad:
        return "late terminal replies read as keys (rate %s, volume %s)" % (bad[-1].get("rate"), bad[-1].get("volume"))
    return None


def decoy_check(output, telemetry, summary, opts):
    if b"DECOY-SUBTITLE" in output:
        return "showed the subtitles of 'tab name.mkv' (the sanitised name), not its own"
    return None


def build_cases(corpus, opts, names_dir):
    files = sorted(f for f in os.listdir(corpus)
                   if not f.startswith(".") and not f.endswith(".srt") and os.path.isfile(os.path.join(corpus, f)))
    if opts.only:
        files = [f for f in files if any(re.search(p, f) for p in opts.only)]
    modes = ["probe", "headless"] + (["pty"] if opts.pty else [])
    if opts.no_probe:
        modes.remove("probe")
    cases = []
    for mode in modes:
        for f in files:
            cfg = FILES.get(f, {})
            length = cfg.get("length", opts.length)
            cases.append(Case(f, mode, os.path.join(corpus, f), cfg.get("args", []), length,
                              expect=None if mode == "probe" else cfg.get("expect"),
                              keys=cfg.get("keys", []) if mode == "pty" else []))
        if mode == "probe":
            continue
        for f, label, args, expect in VARIANTS:
            if f in files:
                length = opts.length
                cases.append(Case("%s [%s]" % (f, label), mode, os.path.join(corpus, f), args, length, expect=expect))
    if opts.no_names:
        return cases

    # Runtime file-name cases (made here, not stored): they need control.mkv and decoy.mkv.
    control, decoy = os.path.join(corpus, "control.mkv"), os.path.join(corpus, "decoy.mkv")
    if not (os.path.isfile(control) and os.path.isfile(decoy)):
        print("hostile-run: control.mkv/decoy.mkv missing: no file-name cases", file=sys.stderr)
        return cases
    garbage = os.path.join(corpus, "garbage.mkv")

    def place(sub, name, src=None, fifo=False):
        d = os.path.join(names_dir, sub)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, name)
        if fifo:
            os.mkfifo(p)
        else:
            shutil.copyfile(src, p)
        return p

    fifo_movie = place("fifo", "fifo-sidecar.mkv", control)
    place("fifo", "fifo-sidecar.srt", fifo=True)
    tab_movie = place("tab", "tab\tname.mkv", control)
    place("tab", "tab name.mkv", decoy)
    esc_name = "esc-\x1b]0;PWNED\x07-\u202eevil-name"
    esc_movie = place("esc", esc_name + ".mkv", control)
    esc_bad = place("esc-bad", esc_name + "-garbage.mkv", garbage) if os.path.isfile(garbage) else None
    label_movie = place("label", "label.mkv", control)
    with open(os.path.join(names_dir, "label", "label.\x1b]0;PWNED\x07\u202eeng.srt"), "w", encoding="utf-8") as f:
        f.write("1\n00:00:00,200 --> 00:00:03,800\nsidecar with a hostile label\n\n")

    name_modes = ["headless"] + (["pty"] if opts.pty else [])
    L = opts.length
    for mode in name_modes:
        keys = [(0.5, b"i")] if mode == "pty" else []
        cases += [
            Case("name: fifo-sidecar.mkv + FIFO .srt", mode, fifo_movie, [], L, expect=PLAYS),
            Case("name: tab<TAB>name.mkv --start=1", mode, tab_movie, ["--start=1", "--sid=1"], L, expect=PLAYS,
                 extra_checks=[decoy_check]),
            Case("name: ESC]0;PWNED + U+202E .mkv", mode, esc_movie, ["--sid=1"], L, expect=PLAYS, keys=keys),
            Case("name: label.<ESC/U+202E>eng.srt sidecar", mode, label_movie, ["--sid=2"], L, expect=PLAYS, keys=keys),
        ]
        if esc_bad:
            cases.append(Case("name: ESC]0;PWNED + U+202E garbage", mode, esc_bad, [], L, expect=REJECTED))
    if opts.no_interrupts:
        return cases
    # Interrupts from the first moment (SIGINT in the first 0.3 s, also while a FIFO blocks),
    # q/Ctrl-C/Ctrl-\ in the terminal, hostile terminal replies.
    cases += [
        Case("interrupt: SIGINT at 0.3 s", "headless", control, [], 30,
             interrupt=(0.3, signal.SIGINT), quit_case=True, allow_signal=signal.SIGINT),
        Case("interrupt: SIGTERM at 0.3 s", "headless", control, [], 30,
             interrupt=(0.3, signal.SIGTERM), quit_case=True, allow_signal=signal.SIGTERM),
        Case("interrupt: SIGINT at 0.5 s, FIFO sidecar", "headless", fifo_movie, [], 30,
             interrupt=(0.5, signal.SIGINT), quit_case=True, allow_signal=signal.SIGINT),
    ]
    if opts.pty:
        long_cue = os.path.join(corpus, "long-cue.mkv")
        cases += [
            Case("interrupt: Ctrl-C at 0.2 s", "pty", control, [], 30, keys=[(0.2, b"\x03")], quit_case=True,
                 allow_signal=signal.SIGINT),
            Case("interrupt: q at 1.5 s", "pty", control, [], 30, keys=[(1.5, b"q")], quit_case=True,
                 expect={"exit": {0}}),
            Case("interrupt: Ctrl-\\ (SIGQUIT) at 1.5 s", "pty", control, [], 30, keys=[(1.5, b"\x1c")],
                 quit_case=True, allow_signal=signal.SIGQUIT),
            Case("interrupt: SIGHUP at 1.5 s", "pty", control, [], 30, interrupt=(1.5, signal.SIGHUP),
                 quit_case=True, allow_signal=signal.SIGHUP),
            Case("interrupt: Ctrl-C at 0.5 s, FIFO sidecar", "pty", fifo_movie, [], 30,
                 keys=[(0.5, b"\x03")], quit_case=True, allow_signal=signal.SIGINT),
        ]
        if os.path.isfile(long_cue):
            cases.append(Case("interrupt: q at 1.5 s, 512 KiB cue", "pty", long_cue, ["--sid=1"], 30,
                              keys=[(1.5, b"q")], quit_case=True, expect={"exit": {0}}))
        cases += [
            Case("terminal: 1024x1024-px cells, sixel", "pty", control, ["--sid=1"], L, replies=0.0, vo="auto",
                 winsize_pixels=(65535, 65535), expect=PLAYS),
            Case("terminal: replies 0.6 s late", "pty", control, ["--sid=1"], 6, replies=0.6, vo="auto",
                 expect={"exit": {0}, "played": 3.9}, extra_checks=[late_keys_check]),
        ]
    return cases


# ---------------------------------------------------------------------------------------------
# remote doors: hostile_http.py's misbehaving server (endless bodies, compression bombs, slow
# drips, redirect chains, entity expansion, broken manifests with escapes, endless headers).
# Each must end by itself with a non-zero exit, one line naming the cause, and at most 300 MB.

REMOTE = [  # (path, message regex, extra arguments)
    ("endless-media.m3u8", r"playlist larger than 16 MiB refused", []),
    ("endless-master.m3u8", r"playlist larger than 16 MiB refused", []),
    ("gzip-bomb.m3u8", r"playlist larger than 16 MiB refused", []),
    ("gzip-master.m3u8", r"playlist larger than 16 MiB refused", []),
    ("endless.mpd", r"manifest larger than 16 MiB refused", []),
    ("gzip-bomb.mpd", r"manifest larger than 16 MiB refused", []),
    ("entities.mpd", r"DOCTYPE or declares XML entities", []),
    ("parse-error.mpd", r"not well-formed XML", []),
    ("redirect-loop", r"redirect loop after 10 hops", []),
    ("redirect-file", r"redirect to a local file refused", []),
    ("stall", r"stalled: no data for 2 s", ["--network-timeout=2", "--network-retries=1"]),
    ("drip.m3u8", r"': the playlist did not arrive within 15 s", []),
    ("huge-headers", r"the response's header is longer than 64 KiB \(the header budget\)", []),
]


def start_remote_server():
    """Starts hostile_http.py; returns (process, port)."""
    import subprocess
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_http.py")
    proc = subprocess.Popen([sys.executable, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    port = int(proc.stdout.readline())

    def stop():
        proc.kill()
        proc.wait()
    atexit.register(stop)
    return proc, port


def remote_cases(opts, port):
    modes = ["headless"] + (["pty"] if opts.pty else [])
    return [Case("remote: " + path, mode, "http://127.0.0.1:%d/%s" % (port, path), extra, 12,
                 expect={"exit_nonzero": True, "message": message}, rss_fail_mb=300)
            for mode in modes for path, message, extra in REMOTE]


def main():
    ap = argparse.ArgumentParser(prog="hostile-run.sh", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("corpus")
    ap.add_argument("--pty", action="store_true", help="also play each file in a 120x40 pseudo-terminal")
    ap.add_argument("--json", metavar="REPORT", help="write every result as JSON")
    ap.add_argument("--length", type=float, default=3, help="--length of each run (default 3; some files need more)")
    ap.add_argument("--speed", type=float, default=2, help="--speed of each run (default 2)")
    ap.add_argument("--only", action="append", metavar="REGEX", help="only the corpus files whose name matches (repeatable; the name and interrupt cases always run unless --no-names/--no-interrupts)")
    ap.add_argument("--strict", action="store_true", help="WARN fails too")
    ap.add_argument("--no-probe", action="store_true", help="skip the probe pass")
    ap.add_argument("--no-names", action="store_true", help="skip the runtime file-name cases")
    ap.add_argument("--no-interrupts", action="store_true", help="skip the signal/key/terminal-reply cases")
    ap.add_argument("--quit-limit", type=float, default=2.0, help="seconds a case may take to end after its interrupt (HANG past it)")
    ap.add_argument("--rss-warn-mb", type=float, default=512)
    ap.add_argument("--cpu-warn", type=float, default=8.0, help="CPU seconds per run above which to warn")
    ap.add_argument("--keep", action="store_true", help="keep each case's output, stderr and stats files")
    ap.add_argument("--no-remote", action="store_true", help="skip the remote-door cases (hostile_http.py)")
    ap.add_argument("--only-remote", action="store_true", help="run the remote-door cases alone")
    ap.add_argument("--doors", metavar="CLIP", help="also the text doors (config, input.conf, playlists, watch-later, IPC) with CLIP: hostile_doors.py")
    opts = ap.parse_args()
    binary = os.path.abspath(opts.binary)
    if not os.access(binary, os.X_OK):
        ap.error("%s is not an executable" % opts.binary)
    corpus = os.path.abspath(opts.corpus)
    if not os.path.isdir(corpus):
        ap.error("%s is not a directory" % opts.corpus)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    atexit.register(kill_all)
    workdir = tempfile.mkdtemp(prefix="hostile-run.")
    if not opts.keep:
        atexit.register(shutil.rmtree, workdir, True)
    names_dir = os.path.join(workdir, "names")
    os.makedirs(names_dir)
    cases = [] if opts.only_remote else build_cases(corpus, opts, names_dir)
    if not opts.no_remote:
        cases += remote_cases(opts, start_remote_server()[1])
    print("hostile-run: %d runs of %s (work dir %s)" % (len(cases), binary, workdir), flush=True)

    results = []
    for i, case in enumerate(cases, 1):
        res = run_case(case, binary, workdir, opts)
        results.append(res)
        exit_s = "sig %s" % res["signal"] if res["signal"] else "HANG" if res["hang"] else str(res["exit"])
        print("%-4s %3d/%d %-8s %-44s %-8s %5.1fs  %s" % (
            res["result"], i, len(cases), case.mode, printable(case.name, 44), exit_s, res["wall"],
            "; ".join(res["fail"] + res["warn"]) or res["last_line"][:80]), flush=True)

    print()
    print_table(results)
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, ensure_ascii=True)
    fails = sum(r["result"] == "FAIL" for r in results)
    warns = sum(r["result"] == "WARN" for r in results)
    doors_failed = False
    if opts.doors:   # the doors' own section (it prints its cases and a count line)
        print("\nhostile-run: the doors", flush=True)
        doors = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile_doors.py")
        doors_failed = subprocess.call([sys.executable, doors, binary, os.path.abspath(opts.doors)]) != 0
    print("\nhostile-run: %d runs: %d PASS, %d WARN, %d FAIL" % (len(results), len(results) - fails - warns, warns, fails))
    kill_all()
    return 1 if fails or doors_failed or (opts.strict and warns) else 0


def print_table(results):
    head = ("RESULT", "MODE", "CASE", "EXIT", "WALL", "CPU", "RSS MB", "PLAYED", "WHY / LAST LINE")
    rows = []
    for r in results:
        exit_s = "sig " + r["signal"] if r["signal"] else "HANG" if r["hang"] else str(r["exit"])
        why = "; ".join(r["fail"] + r["warn"])
        if r["last_line"]:
            why = (why + " | " if why else "") + r["last_line"]
        rows.append((r["result"], r["mode"], printable(r["case"], 44), exit_s, "%.1f" % r["wall"],
                     "" if r["cpu"] is None else "%.1f" % r["cpu"], "" if r["rss_mb"] is None else "%.0f" % r["rss_mb"],
                     "" if r["played"] is None else "%.1f" % r["played"], printable(why, 150)))
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head[:-1])]
    fmt = "  ".join("%%-%ds" % w for w in widths) + "  %s"
    print(fmt % head)
    for row in rows:
        print(fmt % row)


if __name__ == "__main__":
    sys.exit(main())
