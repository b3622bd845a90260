"""The program under test in a pseudo-terminal: the pty scripts' one way to start it.

    pid, master = pty_child.spawn(cmd, cols, rows, cell=(8, 16), env={...}, unset=(...))

The terminal is `cols` × `rows` cells of `cell` pixels (TIOCSWINSZ, so the player's probe of
the window's pixels finds them); `env` is set and `unset` removed in the child only.
"""
import fcntl, os, pty, struct, termios


def spawn(cmd, cols, rows, cell=(8, 16), env=None, unset=()):
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, cols * cell[0], rows * cell[1]))
        for name in unset:
            os.environ.pop(name, None)
        os.environ.update(env or {})
        os.execvp(cmd[0], cmd)
    return pid, master
