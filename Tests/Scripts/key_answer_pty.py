#!/usr/bin/env python3
"""How fast the player's keys answer on a pseudo-terminal, measured from the key to the bytes
that show its effect (no multiplexer between: what a terminal would draw).

    key_answer_pty.py --ready TEXT [--ready-timeout 20] [--key K=TEXT ...] [--quit q]
                      [--cols 160 --rows 48] -- PLAYER ARGS...

Runs the player in a pty that is read all the time, waits until TEXT shows (the state under
test: "opening ", "buffering…", "reconnecting ("), then for each --key sends K and waits (up to
5 s) for TEXT in what the player writes after it; "Escape", "Right" and "Left" send those keys, an empty K sends
nothing and waits up to 20 s (what the player says on its own, such as a failure). Last, --quit is
sent and the time to the process's exit measured. The text searched is the output with its
escape sequences taken out (cursor moves, colours, pictures), so a run of ncurses' text is
found whole.

Prints one JSON object: "ready" (whether the state was seen, and after how many seconds),
"answers" ([{"key", "text", "ms"}], ms null when it never showed), "exit_ms", "status",
"screen_tail" (the last 400 characters of text, for a failure's message).
"""
import argparse, json, os, re, select, signal, time
import pty_child

ap = argparse.ArgumentParser()
ap.add_argument("--ready", required=True)
ap.add_argument("--ready-timeout", type=float, default=20.0)
ap.add_argument("--key", action="append", default=[])
ap.add_argument("--quit", default="q")
ap.add_argument("--cols", type=int, default=160)
ap.add_argument("--rows", type=int, default=48)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

pid, master = pty_child.spawn(cmd, a.cols, a.rows, env={"TERM": "xterm-256color", "COLORTERM": "truecolor"})

# ESC sequences: DCS/OSC/APC strings (pictures, titles), CSI, then any other two-byte escape.
ESCAPES = re.compile(rb"\x1b[P\]_^][\s\S]*?(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\s\S]")
NAMED = {"Escape": b"\x1b", "Right": b"\x1b[C", "Left": b"\x1b[D"}
out = bytearray()
alive = True

def text_since(start):
    return ESCAPES.sub(b"", bytes(out[start:])).decode("utf-8", "replace")

def read_until(predicate, seconds):
    """Reads the pty until predicate() or `seconds` pass; the time it took, or None."""
    global alive
    t0 = time.monotonic()
    while True:
        if predicate():
            return time.monotonic() - t0
        left = seconds - (time.monotonic() - t0)
        if left <= 0 or not alive:
            return None
        r, _, _ = select.select([master], [], [], min(left, 0.01))
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                alive = False
            out.extend(chunk)

ready = read_until(lambda: a.ready in text_since(0), a.ready_timeout)
answers = []
if ready is not None:
    for spec in a.key:
        key, _, expect = spec.partition("=")
        start = len(out)
        if key:
            os.write(master, NAMED.get(key, key.encode()))
        if expect:
            took = read_until(lambda: expect in text_since(start), 5 if key else 20)
            answers.append({"key": key, "text": expect, "ms": None if took is None else round(took * 1000, 1)})
        else:
            # No text to wait for (Esc closing a box): the redraw it causes, so that the next
            # key is not read with it as one (ESC then `o` would be Alt-o).
            read_until(lambda: len(out) > start, 5)
exit_ms = status = None
t0 = time.monotonic()
os.write(master, a.quit.encode())
while time.monotonic() - t0 < 10:
    read_until(lambda: False, 0.005)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        exit_ms = round((time.monotonic() - t0) * 1000, 1)
        status = os.waitstatus_to_exitcode(st)
        break
if status is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print(json.dumps({
    "ready": ready is not None,
    "ready_seconds": ready,
    "answers": answers,
    "exit_ms": exit_ms,
    "status": status,
    "screen_tail": text_since(max(0, len(out) - 4000))[-400:],
}))
