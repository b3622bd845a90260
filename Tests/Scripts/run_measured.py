#!/usr/bin/env python3
"""Runs a command and reports its peak resident memory, optionally on a pseudo-terminal.

   run_measured.py [--pty OUTFILE] [--timeout S] -- ARGV...

Without --pty the command's stdin is /dev/null and its stdout/stderr are this script's. With
--pty OUTFILE its stdin, stdout and stderr are one 120x40 pseudo-terminal (TERM=xterm-256color)
and every byte it writes there goes to OUTFILE. Past --timeout seconds (default 60) its process
group is killed. The last line on stdout is
   run_measured: exit=N signal=S peak_rss_kib=K timed_out=0|1 cpu_ms=C (user + system)
(peak RSS from wait4's ru_maxrss, which counts the command alone, not this script).
"""
import fcntl, os, select, signal, struct, sys, termios, time

args = sys.argv[1:]
pty_out, timeout = None, 60.0
while args and args[0] != "--":
    if args[0] == "--pty":
        pty_out, args = args[1], args[2:]
    elif args[0] == "--timeout":
        timeout, args = float(args[1]), args[2:]
    else:
        sys.exit("usage: run_measured.py [--pty OUTFILE] [--timeout S] -- ARGV...")
argv = args[1:]
if not argv:
    sys.exit("usage: run_measured.py [--pty OUTFILE] [--timeout S] -- ARGV...")

master = slave = None
if pty_out:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    os.setsid()
    if slave is not None:
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.environ["TERM"] = "xterm-256color"
    else:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
    os.closerange(3, 4096)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
if slave is not None:
    os.close(slave)
output = bytearray()
deadline = time.monotonic() + timeout
timed_out = False
result = None
while result is None:
    if master is not None:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                output += os.read(master, 65536)
            except OSError:
                pass
    else:
        time.sleep(0.05)
    got, status, usage = os.wait4(pid, os.WNOHANG)
    if got == pid:
        result = (status, usage)
    elif time.monotonic() > deadline:
        timed_out = True
        os.killpg(pid, signal.SIGKILL)
        result = os.wait4(pid, 0)[1:]
if master is not None:
    while True:
        ready, _, _ = select.select([master], [], [], 0.1)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(master)
    with open(pty_out, "wb") as f:
        f.write(output)
status, usage = result
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
print("run_measured: exit=%d signal=%d peak_rss_kib=%d timed_out=%d cpu_ms=%d" % (code, sig, usage.ru_maxrss, int(timed_out),
      int((usage.ru_utime + usage.ru_stime) * 1000)), flush=True)
