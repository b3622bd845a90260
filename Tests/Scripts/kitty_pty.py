#!/usr/bin/env python3
"""A stand-in kitty terminal on a pseudo-terminal: runs a command in it, answers the queries a
terminal answers (DA1, DSR, cell size, kitty's a=q with OK; its t=s query by reading and unlinking
the shared memory object, as kitty does), reads every kitty graphics command the command sends
(a t=s transmission from its shared memory object, unlinked after), sends keys after a while, and reports what arrived as one JSON object.

    kitty_pty.py [--cols 100 --rows 30] [--keys-after 3] [--keys q] [--no-kitty] [--sync]
                 [--slow-after N --image-ms MS] [--drop-da1 N] -- COMMAND ARGS...

--slow-after makes a terminal that turns slow mid-film: from the N+1st image on it stops reading
for MS after each one, so the player's writes block (what the governor measures).

Run tmux as the command (tmux -L sock new-session PLAYER…) to test passthrough: the terminal
then sees what tmux forwards. The report: transmissions (keys of each first chunk, chunk
count, decoded byte count, mean RGB of the decoded picture, the cursor cell where it was
placed), deletes, whether any APC arrived inside a DCS (an unwrapped passthrough), exit status.

A t=s transmission whose object is gone is an error only if nothing supersedes it: a later
transmission or a delete of the same image makes it a frame the player reclaimed while this
terminal lagged (kitty, with q=2, silently shows the next one), counted as "shm_superseded".
"""
import argparse, base64, json, os, re, select, signal, sys, time
import pty_child

ap = argparse.ArgumentParser()
ap.add_argument("--cols", type=int, default=100)
ap.add_argument("--rows", type=int, default=30)
ap.add_argument("--keys-after", type=float, default=3.0)
ap.add_argument("--keys-when-quiet", type=float, default=None,
                help="send the keys sooner: once an image arrived and nothing more for this many seconds (0: off)")
ap.add_argument("--keys", default="q")
ap.add_argument("--key-gap", type=float, default=0.0, help="seconds between keys (0: all at once)")
ap.add_argument("--timeout", type=float, default=15.0)
ap.add_argument("--no-kitty", action="store_true", help="answer a=q with an error")
ap.add_argument("--no-shm", action="store_true", help="answer a=q,t=s with an error (as WezTerm and ghostty)")
ap.add_argument("--version", default=None, help="answer XTVERSION (CSI > 0 q) with this name, e.g. kitty(0.35.2)")
ap.add_argument("--dump", default=None, help="also write everything received to this file")
ap.add_argument("--sync", action="store_true", help="answer the synchronized-output query (DECRQM ?2026) as kitty does")
ap.add_argument("--slow-after", type=int, default=None, help="after this many images, take --image-ms to absorb each (reads throttled)")
ap.add_argument("--image-ms", type=float, default=400.0)
ap.add_argument("--drop-da1", type=int, default=0,
                help="leave the N-th DA1 query after the first image unanswered, as if tmux dropped it (0: none)")
ap.add_argument("--keys-after-drop", type=float, default=None,
                help="with --drop-da1: send the keys this many seconds after the DA1 was left unanswered, and not before (instead of --keys-after)")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

# (TERM: terminfo for xterm-kitty may be missing.)
pid, master = pty_child.spawn(cmd, a.cols, a.rows, cell=(10, 20), env={"TERM": "xterm-256color"}, unset=("TMUX", "TMUX_PANE"))

ESC = b"\x1b"
buf = bytearray()
report = {"transmissions": [], "deletes": [], "queries": 0, "shm_queries": 0, "status": None, "errors": [],
          "da1_answered": 0, "da1_dropped": 0, "shm_superseded": 0,
          "da1_times": []}
missing_shm = {}         # image id -> t=s transmissions of it whose object was gone, not yet superseded
open_chunks = []
da1_after_image = 0
cursor = [0, 0]          # row, column (0-based), as far as CUP/DECSC/DECRC go
saved = [0, 0]

def answer(data):
    os.write(master, data)

def read_shm(payload):
    """The POSIX shared memory object a t=s payload names, read and unlinked as kitty does; None
    when it does not exist."""
    try:
        name = base64.b64decode(payload).decode().lstrip("/")
    except Exception:
        return None
    if not name or "/" in name:
        return None
    path = "/dev/shm/" + name
    try:
        with open(path, "rb") as f:
            data = f.read()
        os.unlink(path)
        return data
    except OSError:
        return None

def handle_apc(body):
    # body: b"G<keys>;<payload>"
    if not body.startswith(b"G"):
        return
    keys_part, _, payload = body[1:].partition(b";")
    keys = dict(kv.split(b"=", 1) for kv in keys_part.split(b",") if b"=" in kv)
    keys = {k.decode(): v.decode() for k, v in keys.items()}
    if keys.get("a") == "q" and keys.get("t") == "s":
        report["shm_queries"] += 1
        ok = not a.no_kitty and not a.no_shm and read_shm(payload) is not None
        answer(b"\x1b_Gi=%s;%s\x1b\\" % (keys.get("i", "0").encode(), b"OK" if ok else b"EBADF:no shared memory here"))
        return
    if keys.get("a") == "q":
        report["queries"] += 1
        if a.no_kitty:
            answer(b"\x1b_Gi=%s;ENOTSUPPORTED:no graphics here\x1b\\" % keys.get("i", "0").encode())
        else:
            answer(b"\x1b_Gi=%s;OK\x1b\\" % keys.get("i", "0").encode())
        return
    if keys.get("a") == "d":
        report["deletes"].append(keys)
        report["shm_superseded"] += missing_shm.pop(keys.get("i", ""), 0) if keys.get("i") else sum(missing_shm.values())
        if not keys.get("i"):
            missing_shm.clear()
        return
    if keys.get("a", "t") in ("t", "T") and keys.get("i") in missing_shm:
        report["shm_superseded"] += missing_shm.pop(keys["i"])
    if keys.get("t") == "s" and not open_chunks:
        data = read_shm(payload)
        if data is None:
            missing_shm[keys.get("i", "")] = missing_shm.get(keys.get("i", ""), 0) + 1
            return
        bpp = int(keys.get("f", "32")) // 8
        n = len(data) // bpp
        mean = [round(sum(data[c::bpp]) / max(1, n), 1) for c in range(3)]
        report["transmissions"].append({"keys": keys, "chunks": 1, "bytes": len(data), "mean": mean,
                                        "at": list(cursor), "max_chunk": len(payload),
                                        "t": round(time.monotonic() - start, 3)})
        return
    open_chunks.append((keys, payload, list(cursor)))
    if keys.get("m", "0") == "0":
        first, _, at = open_chunks[0]
        data = base64.b64decode(b"".join(p for _, p, _ in open_chunks))
        bpp = int(first.get("f", "32")) // 8
        n = len(data) // bpp
        mean = [round(sum(data[c::bpp]) / max(1, n), 1) for c in range(3)]
        report["transmissions"].append({"keys": first, "chunks": len(open_chunks), "bytes": len(data),
                                        "mean": mean, "at": at,
                                        "max_chunk": max(len(p) for _, p, _ in open_chunks),
                                        "t": round(time.monotonic() - start, 3)})
        open_chunks.clear()
        if a.slow_after is not None and len(report["transmissions"]) > a.slow_after:
            time.sleep(a.image_ms / 1000)   # measurement window: the slow terminal absorbing an image

csi = re.compile(rb"\x1b\[([0-9;?>]*)([A-Za-z])")
decrqm = re.compile(rb"\x1b\[\?([0-9]+)\$p")

def scan():
    """Consumes complete sequences from buf; leaves an incomplete tail."""
    global buf, da1_after_image
    i = 0
    while True:
        j = buf.find(ESC, i)
        if j < 0 or j + 1 >= len(buf):
            buf = buf[j:] if j >= 0 else bytearray()
            return
        c = buf[j + 1:j + 2]
        if c in (b"_", b"P", b"]"):
            end = buf.find(b"\x1b\\", j + 2)
            if end < 0:
                buf = buf[j:]
                return
            body = bytes(buf[j + 2:end])
            if c == b"_":
                handle_apc(body)
            elif c == b"P" and b"\x1b_G" in body:
                report["errors"].append("an APC arrived inside a DCS string: %r ... %r" % (body[:160], body[-60:]))
            i = end + 2
            continue
        if c == b"7":
            saved[:] = cursor
            i = j + 2
            continue
        if c == b"8":
            cursor[:] = saved
            i = j + 2
            continue
        q = decrqm.match(buf, j)
        if q is not None:
            # Synchronized output (mode 2026) as kitty has it, with --sync; else no answer.
            if a.sync and q.group(1) == b"2026":
                answer(b"\x1b[?2026;2$y")
            i = q.end()
            continue
        m = csi.match(buf, j)
        if m is None:
            if len(buf) - j < 32 and c == b"[":
                buf = buf[j:]
                return
            i = j + 1
            continue
        params, final = m.group(1), m.group(2)
        if final == b"c" and params in (b"", b"0"):
            if report["transmissions"]:
                da1_after_image += 1
            if a.drop_da1 and da1_after_image == a.drop_da1:
                report["da1_dropped"] += 1
                if a.keys_after_drop is not None:
                    a.keys_after = time.monotonic() - start + a.keys_after_drop
            else:
                report["da1_answered"] += 1
                report["da1_times"].append(round(time.monotonic() - start, 3))
                answer(b"\x1b[?62;22c")
        elif final == b"c" and params in (b">", b">0"):
            answer(b"\x1b[>1;4000;21c")   # DA2, as kitty answers it (tmux asks at attach)
        elif final == b"q" and params in (b">", b">0") and a.version:
            answer(b"\x1bP>|" + a.version.encode() + b"\x1b\\")
        elif final == b"n" and params == b"5":
            answer(b"\x1b[0n")
        elif final == b"t" and params == b"16":
            answer(b"\x1b[6;20;10t")
        elif final == b"H":
            parts = [int(p) if p else 1 for p in params.split(b";")] + [1, 1]
            cursor[:] = [parts[0] - 1, parts[1] - 1]
        i = m.end()

start = time.monotonic()
if a.keys_after_drop is not None:
    a.keys_after = float("inf")   # set when the DA1 is dropped
keys_sent = False
last_read = time.monotonic()
keys_written = 0
status = None
while time.monotonic() - start < a.timeout:
    r, _, _ = select.select([master], [], [], 0.02)
    if r:
        try:
            chunk = os.read(master, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            break
        buf.extend(chunk)
        last_read = time.monotonic()
        if a.dump:
            with open(a.dump, "ab") as f:
                f.write(chunk)
        scan()
    quiet = (a.keys_when_quiet and a.keys_when_quiet > 0 and report["transmissions"]
             and time.monotonic() - last_read >= a.keys_when_quiet)
    if quiet and not keys_sent and keys_written == 0:
        a.keys_after = min(a.keys_after, time.monotonic() - start)
    if not keys_sent and time.monotonic() - start >= a.keys_after:
        elapsed = time.monotonic() - start - a.keys_after
        if a.key_gap <= 0:
            os.write(master, a.keys.encode())
            keys_sent = True
        else:
            due = min(len(a.keys), int(elapsed / a.key_gap) + 1)
            while keys_written < due:
                os.write(master, a.keys[keys_written].encode())
                keys_written += 1
            keys_sent = keys_written == len(a.keys)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
        # Drain what is left.
        while True:
            r, _, _ = select.select([master], [], [], 0.1)
            if not r:
                break
            try:
                chunk = os.read(master, 1 << 20)
            except OSError:
                break
            if not chunk:
                break
            buf.extend(chunk)
            scan()
        break
deadline = time.monotonic() + 3
while status is None and time.monotonic() < deadline:   # the pty closed: the command is ending
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
    else:
        time.sleep(0.02)
if status is None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
report["status"] = status
if missing_shm:
    report["errors"].append("%d t=s transmission(s) named no shared memory object and nothing superseded them" % sum(missing_shm.values()))
print(json.dumps(report))
