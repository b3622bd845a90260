#if canImport(Glibc)
import Glibc
#endif

extension Terminal {
    /// Output post-processing (`OPOST`) that changes no byte is turned off. After `nonl()` the
    /// terminal's output flags usually translate nothing (no `ONLCR`, tabs kept), yet with
    /// `OPOST` on the kernel still walks every byte written (`n_tty_write`, tracking the
    /// column), and a picture is megabytes a second: 3 % of the player's samples on 1080p grain
    /// in sixel (perf). Left on where it translates something (a line feed into CR LF, tabs
    /// into spaces…), since ncurses relies on those. The saved modes go back at exit.
    static func leaveOutputUnprocessed(_ fd: Int32) {
        var modes = termios()
        guard tcgetattr(fd, &modes) == 0, let unprocessed = withoutIdentityProcessing(modes.c_oflag) else { return }
        modes.c_oflag = unprocessed
        _ = tcsetattr(fd, TCSANOW, &modes)
    }

    /// `oflag` without `OPOST` when with it no output byte would change; nil otherwise (or
    /// when it is already off).
    static func withoutIdentityProcessing(_ oflag: tcflag_t) -> tcflag_t? {
        let translating = tcflag_t(OLCUC | ONLCR | OCRNL | ONOCR | ONLRET | OFILL)
        guard oflag & tcflag_t(OPOST) != 0, oflag & translating == 0,
              oflag & tcflag_t(TABDLY) != tcflag_t(TAB3) else { return nil }
        return oflag & ~tcflag_t(OPOST)
    }
}
