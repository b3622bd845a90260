#!/usr/bin/env python3
"""The text doors of aether-tui under hostile input (issue 19): aether-tui.conf, input.conf,
playlists and directories, watch-later entries, IPC clients. Each case generates its files in a
temporary directory, runs BINARY headless on CLIP with a deadline, and reports the wall time to
start (or to exit), the peak RSS and PASS/FAIL. Python 3 standard library only.

  python3 Tests/Scripts/hostile_doors.py BINARY CLIP [--deadline S] [--only REGEX] [--json OUT]
  (also run by hostile-run.sh --doors)

FAIL: a crash (death by a signal we did not send), a hang (past the deadline), a non-zero exit
where 0 is expected, a missing one-line warning, the IPC commands lost. Exit status: 0 no FAIL,
1 any FAIL, 2 usage.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import time


def run(argv, env, deadline, stats=None, until_summaries=None):
    """Runs argv; returns (status or None when killed, wall s, peak RSS MiB, stderr, t_first)."""
    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 0)
        os.dup2(fd, 1)
        os.dup2(err.fileno(), 2)
        os.execve(argv[0], argv, env)
    status, rss, first = None, 0.0, None
    while True:
        wpid, st, usage = os.wait4(pid, os.WNOHANG)
        now = time.monotonic() - t0
        if wpid == pid:
            status = os.waitstatus_to_exitcode(st)
            rss = usage.ru_maxrss / 1024
            break
        if stats and until_summaries and first is None and os.path.exists(stats):
            with open(stats, "rb") as f:
                if f.read().count(b'"summary"') >= until_summaries:
                    first = now
        if now > deadline or first is not None:
            os.killpg(pid, signal.SIGKILL)
            _, st, usage = os.wait4(pid, 0)
            rss = usage.ru_maxrss / 1024
            break
        time.sleep(0.01)
    wall = time.monotonic() - t0
    err.seek(0)
    return status, wall, rss, err.read().decode("utf-8", "replace"), first


def ipc_client(path, payload, timeout=10, read=False):
    deadline = time.monotonic() + timeout
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    try:
        s.sendall(payload)
    except OSError:
        pass
    out = b""
    if read:
        s.settimeout(5)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except OSError:
            pass
    s.close()
    return out


def request(path, obj):
    """One request on a fresh connection; the first reply line as a dict (None: none)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(5)
    s.sendall(json.dumps(obj).encode() + b"\n")
    buf = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
            for line in buf.split(b"\n")[:-1]:
                d = json.loads(line)
                if "error" in d:
                    s.close()
                    return d
    except OSError:
        pass
    s.close()
    return None


class Case:
    def __init__(self, name, build, check, args=(), until_summaries=None, ipc=None, deadline=None):
        self.name, self.build, self.check, self.args = name, build, check, list(args)
        self.until_summaries, self.ipc, self.deadline = until_summaries, ipc, deadline


def config(text):
    def build(d):
        os.makedirs(d + "/aether-tui", exist_ok=True)
        with open(d + "/aether-tui/aether-tui.conf", "wb") as f:
            f.write(text() if callable(text) else text)
        return []
    return build


def fanout():
    t = "".join(f"[p{i}]\nvolume={40 + i}\nprofile=" + ",".join([f"p{i + 1}"] * 10) + "\n" for i in range(8))
    return (t + "[p8]\nmute\n").encode()


def huge_name():
    return b"volume=40\n" + b"v" * (50 << 20) + b"=1\n"


def lines20k():
    return "".join("volume=%d\n" % (i % 100) if i % 2 == 0 else "sub-delay=0.%d\n" % i for i in range(20000)).encode()


def input_conf(d):
    os.makedirs(d + "/aether-tui", exist_ok=True)
    with open(d + "/aether-tui/input.conf", "wb") as f:
        f.write(b"RIGHT seek 10\n" + b"x" * (50 << 20) + b" seek 1\nBADKEY quit\n")
    return []


def self_m3u(clip):
    def build(d):
        with open(d + "/self.m3u", "w") as f:
            f.write("self.m3u\n" * 10 + clip + "\n")
        return [d + "/self.m3u"]
    return build


def link_dir(clip):
    def build(d):
        os.makedirs(d + "/tree")
        shutil.copy(clip, d + "/tree/a.mkv")
        for i in range(10):
            os.symlink(d + "/tree", f"{d}/tree/l{i}")
        return [d + "/tree"]
    return build


def million_pls(clip, missing):
    def build(d):
        shutil.copy(clip, d + "/a")   # short entries: the list stays under the 16 MiB a playlist may have
        with open(d + "/big.pls", "w") as f:
            f.write("[playlist]\nFile1=a\n")
            for i in range(2, 1_000_001):
                f.write(f"File{i}={'m' if missing else 'a'}\n")
        return [d + "/big.pls"]
    return build


def watch_later(clip):
    def build(d):
        wl = d + "/state/aether-tui/watch_later"
        os.makedirs(wl)
        key = hashlib.md5(os.path.abspath(clip).encode()).hexdigest().upper()
        with open(f"{wl}/{key}", "w") as f:
            f.write("start=1e300\nvolume=1e300\naid=99999999999999999999\n")
        return []
    return build


def ipc_two_then_close(sock):
    ipc_client(sock, b'{"command":["set_property","volume",37]}\n{"command":["set_property","speed",1.5]}\n')
    time.sleep(0.5)
    r = request(sock, {"command": ["get_property", "speed"]})
    ok = r is not None and r.get("data") == 1.5
    request(sock, {"command": ["quit"]})
    return ok, f"speed after the closed client: {r and r.get('data')}"


def ipc_long_line(sock):
    out = ipc_client(sock, b"x" * ((2 << 20) + 10), read=True)
    ok = b"line too long" in out
    r = request(sock, {"command": ["get_property", "volume"]})
    request(sock, {"command": ["quit"]})
    return ok and r is not None, f"reply {out[:60]!r}, server alive: {r is not None}"


def ipc_hostile(payload, what):
    def client(sock):
        ipc_client(sock, payload)
        time.sleep(0.5)
        r = request(sock, {"command": ["get_property", "volume"]})
        request(sock, {"command": ["quit"]})
        return r is not None, f"player alive after {what}: {r is not None}"
    return client


def cases(clip):
    warn = lambda pattern: (lambda st, err: (st == 0 and re.search(pattern, err) is not None,
                                             f"exit {st}, stderr {err.strip()[:100]!r}"))
    zero = lambda st, err: (st == 0, f"exit {st}, stderr {err.strip()[:100]!r}")
    return [
        Case("config: profiles fanning out 10^8", config(fanout), zero, ["--profile=p0"]),
        Case("config: 20,000 lines", config(lines20k), zero),
        Case("config: a 50 MB option name", config(huge_name), warn(r"larger than 1 MiB")),
        Case("config: 5,000 unknown options", config(("".join(f"bad{i}=1\n" for i in range(5000))).encode()),
             warn(r"and 4980 more warnings")),
        Case("input.conf: a 50 MB line", input_conf, warn(r"input.conf")),
        Case("playlist: .m3u naming itself 10 times", self_m3u(clip), warn(r"already expanded")),
        Case("directory: 10 links to itself", link_dir(clip), warn(r"already expanded")),
        Case("playlist: .pls of a million entries (start-up)", million_pls(clip, False),
             lambda st, err: (re.search(r"100000", err) is not None, f"stderr {err.strip()[:100]!r}"), until_summaries=1),
        Case("playlist: .pls of a million missing entries (to the end)", million_pls(clip, True),
             lambda st, err: (st in (2, 3), f"exit {st}, {err.count(chr(10))} stderr lines"), deadline=60),
        Case("watch-later: start=1e300", watch_later(clip), zero),
        Case("ipc: two commands, then close", lambda d: [], None, ["--pause"], ipc=ipc_two_then_close),
        Case("ipc: a 2 MiB line", lambda d: [], None, ["--pause"], ipc=ipc_long_line),
        Case("ipc: hostile JSON", lambda d: [], None, ["--pause"],
             ipc=ipc_hostile(b"[" * 200000 + b"\n" + b'{"a":"\\ud800"}\n' + b"9" * 100000 + b"\n\xc0\xaf\n",
                             "deep nesting, a lone surrogate, a huge number, bad UTF-8")),
        Case("ipc: seek 1e308", lambda d: [], None, ["--pause"],
             ipc=ipc_hostile(b'{"command":["seek","1e308","absolute"]}\n', "seek 1e308")),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("clip")
    ap.add_argument("--deadline", type=float, default=15, help="seconds before a case counts as a hang (default 15)")
    ap.add_argument("--only", metavar="REGEX")
    ap.add_argument("--json", metavar="OUT")
    opts = ap.parse_args()
    binary, clip = os.path.abspath(opts.binary), os.path.abspath(opts.clip)
    results = []
    for case in cases(clip):
        if opts.only and not re.search(opts.only, case.name):
            continue
        d = tempfile.mkdtemp(prefix="aether-doors-")
        try:
            items = case.build(d) or [clip]
            stats = d + "/stats.jsonl"
            env = dict(os.environ, XDG_CONFIG_HOME=d, XDG_STATE_HOME=d + "/state", XDG_RUNTIME_DIR=d)
            argv = [binary] + items + ["--vo=null", "--ao=null", "--length=0.1", "--stats-file", stats] + case.args
            deadline = case.deadline or opts.deadline
            if case.ipc:
                sock = d + "/mpv.sock"
                argv.append("--input-ipc-server=" + sock)
                pid = os.fork()
                if pid == 0:   # the client, beside the player
                    try:
                        ok, note = case.ipc(sock)
                    except Exception as e:
                        ok, note = False, f"client: {e}"
                    with open(d + "/ipc.json", "w") as f:
                        json.dump([ok, note], f)
                    os._exit(0)
                status, wall, rss, err, first = run(argv, env, deadline)
                os.waitpid(pid, 0)
                try:
                    ok, note = json.load(open(d + "/ipc.json"))
                except (OSError, ValueError):
                    ok, note = False, "client gave no result"
                ok = ok and status == 0
                note = f"exit {status}; {note}"
            else:
                status, wall, rss, err, first = run(argv, env, deadline, stats, case.until_summaries)
                if case.until_summaries:
                    ok, note = case.check(status, err)
                    ok = ok and first is not None
                    if first is not None:
                        wall = first
                    note = f"first item done at {wall:.2f} s; " + note
                elif status is None:
                    ok, note = False, f"HANG: killed after {deadline:.0f} s"
                elif status < 0:
                    ok, note = False, f"CRASH: signal {-status}"
                else:
                    ok, note = case.check(status, err)
            results.append(dict(case=case.name, ok=ok, wall=round(wall, 2), rss_mb=round(rss, 1), note=note))
            print(f"{'PASS' if ok else 'FAIL'}  {wall:7.2f} s  {rss:7.1f} MiB  {case.name}: {note}", flush=True)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    failed = sum(not r["ok"] for r in results)
    print(f"doors: {len(results)} cases, {len(results) - failed} pass, {failed} fail")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
