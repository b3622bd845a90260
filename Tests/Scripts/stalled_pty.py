#!/usr/bin/env python3
"""Runs the player in a pseudo-terminal that stops reading: the terminal's output buffer fills
and every write to it blocks. Then a key (or a signal) is sent and the time until the player
exits is measured, and whether it put the terminal back (termios and the restore sequence).

    stalled_pty.py [--key q | --signal TERM] [--stall 5] [--cols 200 --rows 60]
                   [--before KEYS --before-wait S] -- PLAYER ARGS...

--before sends KEYS after the warm-up and keeps reading for S seconds before the stall (a `>`
that starts opening an item which never arrives, before the `q` that must still answer).

Prints one JSON object: exit status, seconds from the key to the exit, whether the output was
stalled (bytes stopped flowing), the termios after exit, and whether the restore sequence
(leave the alternate screen) arrived once the terminal read again.
"""
import argparse, fcntl, json, os, select, signal, struct, sys, termios, time
import pty_child

ap = argparse.ArgumentParser()
ap.add_argument("--key", default="q")
ap.add_argument("--signal", default=None)
ap.add_argument("--stall", type=float, default=5.0)
ap.add_argument("--warmup", type=float, default=2.0)
ap.add_argument("--cols", type=int, default=200)
ap.add_argument("--rows", type=int, default=60)
ap.add_argument("--before", default=None)
ap.add_argument("--before-wait", type=float, default=1.0)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

pid, master = pty_child.spawn(cmd, a.cols, a.rows, env={"TERM": "xterm-256color", "COLORTERM": "truecolor"})

out = bytearray()
def read_for(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        r, _, _ = select.select([master], [], [], 0.02)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            out.extend(chunk)
    return True

read_for(a.warmup)                       # playing, pictures flowing
if a.before:
    os.write(master, a.before.encode())
    read_for(a.before_wait)
before = len(out)
time.sleep(a.stall)                      # the terminal stops reading: its buffer fills
# Stalled: is the player still trying to write? (Bytes queued in the pty: FIONREAD.)
queued = struct.unpack("i", fcntl.ioctl(master, termios.FIONREAD, b"\0\0\0\0"))[0]
t0 = time.monotonic()
if a.signal:
    os.kill(pid, getattr(signal, "SIG" + a.signal))
else:
    os.write(master, a.key.encode())
status = None
exit_seconds = None
while time.monotonic() - t0 < 10:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        exit_seconds = time.monotonic() - t0
        status = os.waitstatus_to_exitcode(st)
        break
    time.sleep(0.01)
if status is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
# The terminal reads again: what the player left behind.
read_for(0.5)
tail = bytes(out[before:])
attrs = None
try:
    attrs = termios.tcgetattr(master)
except termios.error:
    pass
print(json.dumps({
    "status": status,
    "exit_seconds": exit_seconds,
    "queued_when_stalled": queued,
    "bytes_before_stall": before,
    "left_alternate_screen": b"\x1b[?1049l" in tail,
    "shows_cursor": b"\x1b[?25h" in tail,
    "canonical": bool(attrs and attrs[3] & termios.ICANON),
    "echo": bool(attrs and attrs[3] & termios.ECHO),
}))
