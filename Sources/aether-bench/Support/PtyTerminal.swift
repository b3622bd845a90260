import AetherLoopback
import AetherBase
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal that plays a terminal's part for one child process: it reads everything
/// the child writes as fast as it can, counts it, notes when the first picture byte arrived,
/// and answers the capability probe the way xterm `-ti vt340` does (DA1 with sixel, 256 colour
/// registers, the cell and window size in pixels, DSR) — or stays silent, like `script` into
/// /dev/null, which makes the player wait out its probe budget.
///
/// The child gets the slave side as its controlling terminal (a new session), with the window
/// size set in cells and pixels.
struct PtyTerminal {
    var columns = 160
    var rows = 48
    var cellWidth = 8
    var cellHeight = 16
    /// Answer the probe (a terminal) or not (a pipe pretending to be one).
    var answers = true
    /// Also play kitty's part: answer its graphics queries (`a=q`; the `t=s` one by reading and
    /// unlinking the shared memory object, as kitty does) and unlink every shared memory object
    /// a `t=s` transmission names (the player leaves them to the terminal).
    var kitty = false
    /// Extra environment for the child (TERM and COLORTERM are set here).
    var environment: [String: String] = [:]
    /// A slow terminal: reads throttled to this many bytes a second (nil: as fast as it can).
    var bytesPerSecond: Double?
    /// Answers XTVERSION (`CSI > q`) with this name, e.g. `kitty(0.35.2)` (nil: no answer).
    var version: String?
    /// The DA1 answer (xterm -ti vt340's: level 63 with sixel, 4).
    var attributes = "\u{1B}[?63;1;2;4;6;9;15;22c"

    struct Result {
        var status: Int32
        var cpuSeconds: Double
        var wallSeconds: Double
        /// Peak resident set of the child (wait4), KiB.
        var maxRSSKiB: Int
        var bytes: Int
        /// Seconds from spawn to the first byte of a picture (a sixel DCS, a kitty APC, or a
        /// `▀` cell), nil if none came.
        var firstPictureSeconds: Double?
        /// DA1 queries read (each answered when read, so in order with what came before it:
        /// the capability probe sends one, `--vo=auto`'s trial one a frame).
        var attributeQueries = 0
    }

    /// glibc's `POSIX_SPAWN_SETSID` (not imported into Swift).
    static let spawnSetSID: Int16 = 0x80
    /// Linux's `TIOCSPTLCK` and `TIOCGPTN`.
    static let setPtyLock: UInt = 0x4004_5431
    static let getPtyNumber: UInt = 0x8004_5430

    enum Failure: Error, CustomStringConvertible {
        case pty(String)
        var description: String { switch self { case .pty(let s): "pseudo-terminal: \(s)" } }
    }

    func run(_ argv: [String]) throws -> Result {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var number: UInt32 = 0
        var unlock: Int32 = 0
        // unlockpt and ptsname, which Glibc's Swift module does not import: TIOCSPTLCK, TIOCGPTN.
        guard master >= 0, ioctl(master, Self.setPtyLock, &unlock) == 0,
              ioctl(master, Self.getPtyNumber, &number) == 0 else {
            throw Failure.pty(String(cString: strerror(errno)))
        }
        defer { close(master) }
        let slavePath = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns),
                           ws_xpixel: UInt16(columns * cellWidth), ws_ypixel: UInt16(rows * cellHeight))
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Self.spawnSetSID)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid, opening the tty without O_NOCTTY makes it the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        posix_spawn_file_actions_addclose(&actions, master)

        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm-256color"
        env["COLORTERM"] = "truecolor"
        env.removeValue(forKey: "TMUX")
        for (k, v) in environment { env[k] = v }
        var cenv = env.map { strdup("\($0.key)=\($0.value)") }
        cenv.append(nil)
        var cargs = argv.map { strdup($0) }
        cargs.append(nil)
        defer {
            for p in cargs { free(p) }
            for p in cenv { free(p) }
        }
        let start = MonotonicTime.now()
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cargs, cenv)
        guard rc == 0 else { throw Failure.pty("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }

        var bytes = 0, paidUntil = 0.0
        var first: Double?
        var scanner = ReplyScanner(answers: answers, columns: columns, rows: rows,
                                   cellWidth: cellWidth, cellHeight: cellHeight, version: version, attributes: self.attributes)
        var kittyScanner = KittyScanner()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var status: Int32 = 0
        var usage = rusage()
        var exited = false
        while !exited {
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, 20) > 0 {
                // Throttled: small reads, each no sooner than the rate allows.
                let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, bytesPerSecond == nil ? $0.count : 4096) }
                if n > 0 {
                    bytes += n
                    if let rate = bytesPerSecond {
                        // No credit for time spent idle: each read is paid for from now on.
                        paidUntil = max(paidUntil, MonotonicTime.now()) + Double(n) / rate
                        let due = paidUntil - MonotonicTime.now()
                        if due > 0 { usleep(UInt32(min(due, 1) * 1e6)) }   // measurement window: the slow terminal's pace
                    }
                    let chunk = buffer[0..<n]
                    if first == nil, Self.containsPicture(chunk) { first = MonotonicTime.now() - start }
                    var reply = scanner.feed(chunk)
                    if kitty, answers { reply += kittyScanner.feed(chunk) }
                    if !reply.isEmpty { _ = reply.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }
                } else if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) {
                    // EIO: every slave descriptor closed; the child is exiting.
                    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                    exited = true
                }
            }
            if !exited, wait4(pid, &status, WNOHANG, &usage) == pid { exited = true }
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return Result(status: status, cpuSeconds: cpu, wallSeconds: MonotonicTime.now() - start,
                      maxRSSKiB: Int(usage.ru_maxrss), bytes: bytes, firstPictureSeconds: first,
                      attributeQueries: scanner.attributeQueries)
    }

    /// A sixel DCS (`ESC P q` with parameters), a kitty APC (`ESC _ G`), or a block character
    /// of the cell outputs (`▀`…`▟` E2 96 80–9F, sextants F0 9F AC, octants F0 9C B4–B7).
    static func containsPicture(_ chunk: ArraySlice<UInt8>) -> Bool {
        var i = chunk.startIndex
        while i < chunk.endIndex - 2 {
            let b = chunk[i]
            if b == 0x1B, chunk[i + 1] == UInt8(ascii: "_"), chunk[i + 2] == UInt8(ascii: "G") { return true }
            if b == 0xE2, chunk[i + 1] == 0x96, (0x80...0x9F).contains(chunk[i + 2]) { return true }
            if b == 0xF0, chunk[i + 1] == 0x9F, chunk[i + 2] == 0xAC { return true }
            if b == 0xF0, chunk[i + 1] == 0x9C, (0xB4...0xB7).contains(chunk[i + 2]) { return true }
            if b == 0x1B, chunk[i + 1] == UInt8(ascii: "P") {
                var j = i + 2
                while j < chunk.endIndex, (0x30...0x3B).contains(chunk[j]) { j += 1 }
                if j < chunk.endIndex, chunk[j] == UInt8(ascii: "q") { return true }
            }
            i += 1
        }
        return false
    }
}

/// Finds the probe's queries in the child's output and makes xterm -ti vt340's replies.
private struct ReplyScanner {
    let answers: Bool
    let columns, rows, cellWidth, cellHeight: Int
    let version: String?
    /// The tail of the previous chunk, so a query split across reads is still seen.
    private var tail: [UInt8] = []
    /// Each query is answered once (the tail overlap could otherwise show it twice); DA1 every time.
    private var answered: Set<String> = []
    private(set) var attributeQueries = 0
    /// How far into `ESC [ c` the stream is (DA1 counted across reads).
    private var matched = 0
    static let attributes: [UInt8] = Array("\u{1B}[c".utf8)
    let attributesReply: String

    init(answers: Bool, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, version: String? = nil,
         attributes: String = "\u{1B}[?63;1;2;4;6;9;15;22c") {
        attributesReply = attributes
        self.answers = answers
        self.columns = columns
        self.rows = rows
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        self.version = version
    }

    mutating func feed(_ chunk: ArraySlice<UInt8>) -> [UInt8] {
        guard answers else { return [] }
        // DA1 anywhere in the stream, each answered as it is read (the trial's follow its frames).
        var reply = ""
        for b in chunk {
            matched = b == Self.attributes[matched] ? matched + 1 : (b == 0x1B ? 1 : 0)
            if matched == Self.attributes.count {
                matched = 0
                attributeQueries += 1
                reply += attributesReply
            }
        }
        // Queries are short and come before any picture; only the start of the output matters,
        // but scanning a little of every chunk is cheap.
        let window = tail + chunk.prefix(4096)
        tail = Array(chunk.suffix(16))
        let text = String(decoding: window, as: UTF8.self)
        var table: [(String, String)] = [
            ("\u{1B}[?1;1;0S", "\u{1B}[?1;0;256S"),
            ("\u{1B}[?2;1;0S", "\u{1B}[?2;0;\(columns * cellWidth);\(rows * cellHeight)S"),
            ("\u{1B}[16t", "\u{1B}[6;\(cellHeight);\(cellWidth)t"),
            ("\u{1B}[14t", "\u{1B}[4;\(rows * cellHeight);\(columns * cellWidth)t"),
            ("\u{1B}[18t", "\u{1B}[8;\(rows);\(columns)t"),
            ("\u{1B}[?2026$p", "\u{1B}[?2026;0$y"),
            ("\u{1B}[5n", "\u{1B}[0n"),
        ]
        if let version { table.append(("\u{1B}[>0q", "\u{1B}P>|\(version)\u{1B}\\")) }
        for (query, answer) in table where !answered.contains(query) && text.contains(query) {
            reply += answer
            answered.insert(query)
        }
        return Array(reply.utf8)
    }
}

/// kitty's graphics commands in the child's output, as kitty acts on them for the benchmark:
/// short APC `G` strings (queries, `t=s` transmissions, deletes) are read whole; long ones (direct
/// transmissions) are skipped. `a=q` is answered `OK` (the `t=s` query only when its shared memory
/// object exists, which is then unlinked); a `t=s` transmission's object is unlinked.
private struct KittyScanner {
    private enum State { case ground, escape, apcStart, body, skip, skipEscape, bodyEscape }
    private var state = State.ground
    private var body: [UInt8] = []
    /// Longer APC strings are direct transmissions: not kept.
    static let maxBody = 512
    private(set) var sharedFramesTaken = 0

    mutating func feed(_ chunk: ArraySlice<UInt8>) -> [UInt8] {
        var reply: [UInt8] = []
        for b in chunk {
            switch state {
            case .ground: if b == 0x1B { state = .escape }
            case .escape: state = b == UInt8(ascii: "_") ? .apcStart : (b == 0x1B ? .escape : .ground)
            case .apcStart:
                if b == UInt8(ascii: "G") {
                    state = .body
                    body.removeAll(keepingCapacity: true)
                } else {
                    state = .ground
                }
            case .body:
                if b == 0x1B { state = .bodyEscape } else if body.count < Self.maxBody { body.append(b) } else { state = .skip }
            case .bodyEscape:
                if b == UInt8(ascii: "\\") {
                    reply += handle(body)
                    state = .ground
                } else {
                    state = .body
                    body.append(0x1B)
                    body.append(b)
                }
            case .skip: if b == 0x1B { state = .skipEscape }
            case .skipEscape: state = b == UInt8(ascii: "\\") ? .ground : .skip
            }
        }
        return reply
    }

    private mutating func handle(_ body: [UInt8]) -> [UInt8] {
        let text = String(decoding: body, as: UTF8.self)
        let parts = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        var keys: [String: String] = [:]
        for pair in parts[0].split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { keys[String(kv[0])] = String(kv[1]) }
        }
        let payload = parts.count > 1 ? String(parts[1]) : ""
        var taken = false
        if keys["t"] == "s", let data = Data(base64Encoded: payload), let name = String(data: data, encoding: .utf8) {
            taken = shm_unlink("/" + name) == 0
            if taken, keys["a"] != "q" { sharedFramesTaken += 1 }
        }
        guard keys["a"] == "q" else { return [] }
        let ok = keys["t"] != "s" || taken
        return Array("\u{1B}_Gi=\(keys["i"] ?? "0");\(ok ? "OK" : "EBADF")\u{1B}\\".utf8)
    }
}
