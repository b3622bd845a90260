import Foundation

/// Runs a command in a detached tmux session of fixed size on a private server, to drive the
/// real binary as a user would (send-keys) and read the screen (capture-pane).
///
/// Each session has its own server (a unique `-L` socket), and the server and everything it
/// started end with the session: ``close()`` (also run by `deinit`) kills the server, then
/// SIGKILLs whatever of the server and the panes' process groups is still alive, so a test leaves
/// no tmux server, shell or player behind, whether it passes, fails or throws.
public final class TmuxSession: @unchecked Sendable {  // used from one test at a time
    public let socket: String
    public let name = "t"
    private var closed = false

    /// - Parameters:
    ///   - command: argv; after it exits the pane prints `EXIT=<status>` and stays open.
    ///   - environment: extra variables for the command.
    ///   - stdin: a file to redirect the command's input from (`/dev/tty`: the pane's terminal,
    ///     opened read-only).
    ///   - afterExit: shell commands run in the pane after `EXIT=` is printed (`stty -a`).
    ///   - options: global options set before the session starts (`allow-passthrough`: `on`).
    public init(_ command: [String], columns: Int = 100, rows: Int = 30, environment: [String: String] = [:],
                stdin: String? = nil, afterExit: String? = nil, options: [String: String] = [:]) throws {
        socket = "aether-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let quoted = command.map(quote).joined(separator: " ") + (stdin.map { " < " + quote($0) } ?? "")
        let env = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let shell = "\(env) \(quoted); echo EXIT=$?; \(afterExit.map { $0 + "; " } ?? "")sleep 600"
        // One client command: the server starts, takes the options, then makes the session.
        let settings = options.sorted { $0.key < $1.key }.flatMap { ["set-option", "-g", $0.key, $0.value, ";"] }
        let start = settings.isEmpty ? [] : ["start-server", ";"] + settings
        let r = Process.run(["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + start + ["new-session", "-d", "-s", name,
                             "-x", "\(columns)", "-y", "\(rows)", shell], timeout: 10, capture: false)
        guard r.status == 0 else { throw TmuxError(message: "tmux new-session failed (\(r.status))") }
        tmux(["set-option", "-g", "status", "off"])
    }

    deinit { close() }

    /// Ends the server and every process in its panes. Safe to call more than once.
    public func close() {
        guard !closed else { return }
        closed = true
        let server = Int32(tmux(["display-message", "-p", "#{pid}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        // Each pane's shell leads its own process group (tmux calls setsid for it).
        let groups = tmux(["list-panes", "-a", "-F", "#{pane_pid}"]).stdout
            .split(separator: "\n").compactMap { Int32($0) }.filter { $0 > 1 }
        let processes = [server].compactMap { $0 } + paneProcesses
        tmux(["kill-server"])
        func waitUntilGone(_ seconds: Double) {
            _ = waitUntil(seconds, interval: 0.02) { !processes.contains(where: TmuxSession.isRunning) }
        }
        waitUntilGone(2)
        // Whatever ignored the hangup (or had it blocked) is killed, with its process group.
        for group in groups { kill(-group, SIGKILL) }
        for pid in processes where TmuxSession.isRunning(pid) { kill(pid, SIGKILL) }
        waitUntilGone(2)
    }

    /// Whether `pid` exists and is not a zombie (an exited process its new parent has yet to reap).
    public static func isRunning(_ pid: Int32) -> Bool {
        guard pid > 1, kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).first else { return true }
        return state != "Z" && state != "X"
    }

    /// The pids of the processes running in the pane: the shell (`pane_pid`) and its descendants.
    public var paneProcesses: [Int32] {
        guard let shell = Int32(display("#{pane_pid}")), shell > 1 else { return [] }
        var result: [Int32] = [shell]
        var frontier = [shell]
        while let parent = frontier.popLast() {
            let children = Process.run(["/usr/bin/pgrep", "-P", "\(parent)"], timeout: 5).stdout
                .split(separator: "\n").compactMap { Int32($0) }
            result += children
            frontier += children
        }
        return result
    }

    @discardableResult
    public func tmux(_ args: [String]) -> ProcessResult {
        Process.run(["/usr/bin/tmux", "-L", socket] + args, timeout: 10)
    }

    public func send(_ keys: String...) { tmux(["send-keys", "-t", name] + keys) }

    /// Writes `bytes` to the pane's terminal as they are (`send-keys -H`), as if the terminal
    /// itself sent them: for replies and escape sequences.
    public func sendBytes(_ bytes: [UInt8]) {
        tmux(["send-keys", "-t", name, "-H"] + bytes.map { String($0, radix: 16) })
    }

    /// The pid of the first process named `name` running in the pane (the shell's descendants).
    public func pid(of command: String) -> Int32? {
        paneProcesses.dropFirst().first { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == command
        }
    }

    /// The screen as text (`colours`: with SGR escapes, `capture-pane -e`; `wholeRows`: the
    /// spaces at the end of each row kept, `-N`, where a picture's one-colour cells are).
    public func screen(colours: Bool = false, wholeRows: Bool = false) -> String {
        tmux(["capture-pane", "-p", "-t", name] + (colours ? ["-e"] : []) + (wholeRows ? ["-N"] : [])).stdout
    }

    public func lines() -> [String] { screen().components(separatedBy: "\n") }

    /// Polls the screen (`colours`: with SGR escapes) every 50 ms until `predicate` holds
    /// (returns true) or `timeout` passes.
    @discardableResult
    public func waitFor(_ timeout: Double = 5, colours: Bool = false, _ predicate: (String) -> Bool) -> Bool {
        waitUntil(timeout, interval: 0.05) { predicate(screen(colours: colours)) }
    }

    /// Waits until two captures `gap` seconds apart are the same, with `predicate` holding for
    /// them: the player has drawn what it draws and stopped (a paused picture, a box's last
    /// frame, a message gone). The settled screen, or nil when it never settled in `timeout`.
    public func waitForStill(_ timeout: Double = 5, gap: Double = 0.25, colours: Bool = false,
                             _ predicate: (String) -> Bool = { _ in true }) -> String? {
        var last: String?
        var settled: String?
        _ = waitUntil(timeout, interval: gap) {
            let now = screen(colours: colours)
            defer { last = now }
            guard now == last, predicate(now) else { return false }
            settled = now
            return true
        }
        return settled
    }

    /// Waits until the player shows itself paused (`‖` in the transport bar: the start and any
    /// `--start` seek are over; `»` while seeking) and the screen (`colours`: with SGR escapes)
    /// has stopped changing; that screen, or nil after `timeout`.
    public func waitForPausedPicture(_ timeout: Double = 8, colours: Bool = true) -> String? {
        waitForStill(timeout, colours: colours) { $0.contains("‖") }
    }

    public func display(_ format: String) -> String {
        tmux(["display-message", "-p", "-t", name, format]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public var panePID: Int32 { Int32(display("#{pane_pid}")) ?? 0 }
}

public struct TmuxError: Error { public let message: String }

/// A pane read back cell by cell from `capture-pane -e -N`: each cell's background colour as
/// the terminal holds it. tmux writes an SGR only where the attributes change, also across the
/// ends of lines, so the colours carry from one line to the next.
public struct PaneColours: Sendable {
    public struct RGB: Sendable, Equatable {
        public var r: Int, g: Int, b: Int
        public init(_ r: Int, _ g: Int, _ b: Int) { self.r = r; self.g = g; self.b = b }
    }
    /// Row by row, each cell's 24-bit background (nil: the default or a palette colour).
    public let rows: [[RGB?]]
    /// Row by row, each cell's character.
    public let characters: [[Unicode.Scalar]]

    public init(captured: String) {
        var background: RGB?
        var rows: [[RGB?]] = []
        var characters: [[Unicode.Scalar]] = []
        for line in captured.split(separator: "\n", omittingEmptySubsequences: false) {
            var cells: [RGB?] = []
            var scalarsOfRow: [Unicode.Scalar] = []
            var scalars = line.unicodeScalars[...]
            while let c = scalars.first {
                if c == "\u{1B}", scalars.dropFirst().first == "[" {
                    let body = scalars.dropFirst(2).prefix { !("@"..."~").contains($0) }
                    scalars = scalars.dropFirst(2 + body.count + 1)
                    let ps = String(String.UnicodeScalarView(body)).split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                    var i = 0
                    while i < ps.count {
                        switch ps[i] {
                        case 0, 49: background = nil
                        case 48 where i + 4 < ps.count && ps[i + 1] == 2:
                            background = RGB(ps[i + 2], ps[i + 3], ps[i + 4]); i += 4
                        case 48 where i + 2 < ps.count && ps[i + 1] == 5: background = nil; i += 2
                        case 38 where i + 4 < ps.count && ps[i + 1] == 2: i += 4
                        case 38 where i + 2 < ps.count && ps[i + 1] == 5: i += 2
                        case 40...47, 100...107: background = nil
                        default: break
                        }
                        i += 1
                    }
                    continue
                }
                cells.append(background)
                scalarsOfRow.append(c)
                scalars = scalars.dropFirst()
            }
            rows.append(cells)
            characters.append(scalarsOfRow)
        }
        self.rows = rows
        self.characters = characters
    }

    /// Cells in `rows` × `columns` that are blank (a space) yet have a 24-bit background: what a
    /// picture left behind where text or nothing should be. As (row, column).
    public func colouredBlanks(rows wanted: Range<Int>, columns: Range<Int>) -> [(Int, Int)] {
        var out: [(Int, Int)] = []
        for row in wanted where row < rows.count {
            for column in columns where column < rows[row].count && rows[row][column] != nil && characters[row][column] == " " {
                out.append((row, column))
            }
        }
        return out
    }

    /// The cells whose background `matches`: how many rows have any, and the most in one row.
    public func extent(where matches: (RGB) -> Bool) -> (columns: Int, rows: Int) {
        let counts = rows.map { $0.filter { $0.map(matches) ?? false }.count }
        return (counts.max() ?? 0, counts.filter { $0 > 0 }.count)
    }
}

extension TmuxSession {
    /// The pane's cells and their background colours.
    public func colours() -> PaneColours { PaneColours(captured: screen(colours: true, wholeRows: true)) }
}
