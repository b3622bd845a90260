import AetherControl
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// A crash while playing (issue 49): the real binary in tmux gets a fatal signal. The terminal
/// comes back as it was, one line says where the report is, nothing asks for a key, the shell
/// sees death by the signal, and the report holds the signal, a backtrace, the version, the
/// command line's options and what was playing, but nothing of the config file and no path but
/// the item's name.
@Suite(.serialized) struct CrashReportTests {
    /// The backtracer settings under which the player lets the Swift runtime's backtracer run.
    static let settings = "interactive=no,color=no,output-to=stderr,registers=none,sanitize=yes"

    /// Where the Swift runtime the player runs on looks for its backtracer (beside the
    /// runtime library), read from the player's own mappings.
    static func backtracer(of pid: Int32) -> String? {
        let maps = (try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? ""
        guard let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
              let slash = line.firstIndex(of: "/") else { return nil }
        let runtime = URL(fileURLWithPath: String(line[slash...])).deletingLastPathComponent()
        return runtime.appendingPathComponent("../../../libexec/swift/linux/swift-backtrace").standardized.path
    }

    /// `backtracer`: the player's `SWIFT_BACKTRACE`. Ending with the settings the man page
    /// names, the Swift runtime's backtrace of every thread joins ours in the report; unset (the
    /// runtime's own settings, which would ask on the terminal) or `enable=no` (as the package's
    /// player, on the static runtime, runs where no toolchain is installed), the report is ours alone.
    @Test(arguments: [(SIGSEGV, Self.settings), (SIGABRT, Self.settings), (SIGSEGV, nil), (SIGSEGV, "enable=no")])
    func aCrashRestoresTheTerminalAndWritesTheReport(signal: Int32, backtracer setting: String?) throws {
        let swiftBacktracer = setting == Self.settings
        let base = NSTemporaryDirectory() + "aether-crash-\(UUID().uuidString.prefix(8))"
        let media = base + "/private-media-dir", config = base + "/config", state = base + "/state"
        defer { try? FileManager.default.removeItem(atPath: base) }
        for dir in [media, config + "/aether-tui", state] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("h264-720p.mkv"), toPath: media + "/clip.mkv")
        try "# config-comment-marker\nsub-font=ConfigMarkerFont\n"
            .write(toFile: config + "/aether-tui/aether-tui.conf", atomically: true, encoding: .utf8)
        let s = try TmuxSession([TestEnvironment.binary, media + "/clip.mkv", "--ao=null", "--volume=42", "--log-file=\(media)/player.log"],
                                columns: 220, rows: 40,
                                environment: ["TERM": "screen-256color", "XDG_RUNTIME_DIR": "/tmp/aether-test-xdg",
                                              "XDG_CONFIG_HOME": config, "XDG_STATE_HOME": state]
                                    .merging(setting.map { ["SWIFT_BACKTRACE": $0] } ?? [:]) { $1 },
                                afterExit: "stty -a")
        defer { s.close() }
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        #expect(s.display("#{alternate_on}") == "1")
        let pid = try #require(s.pid(of: "aether-tui"), "no aether-tui in the pane")
        let backtracer = Self.backtracer(of: pid)
        kill(pid, signal)
        #expect(s.waitFor(30) { $0.contains("EXIT=") && $0.contains("icanon") }, "\(s.screen())")
        let screen = s.screen()

        // The terminal as it was, and the shell sees death by the signal (128 + its number).
        #expect(screen.contains("EXIT=\(128 + Int(signal))"), "\(screen)")
        #expect(s.display("#{alternate_on}") == "0", "alternate screen left on")
        #expect(s.display("#{cursor_flag}") == "1", "cursor left hidden")
        let words = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        #expect(words.contains("echo") && words.contains("icanon") && !words.contains("-echo") && !words.contains("-icanon"),
                "stty -a after the exit:\n\(screen)")

        // One line of ours, and nothing of the backtracer's on the screen (no question above all).
        let prefix = "\(PlayerIdentity.name) crashed; report: "
        let said = screen.split(separator: "\n").filter { $0.contains("crashed") }
        #expect(said.count == 1 && said.first?.hasPrefix(prefix) == true, "\(screen)")
        for backtracerText in ["Press space", "Backtracing", "Thread 0", "*** "] {
            #expect(!screen.contains(backtracerText), "the screen shows \(backtracerText.debugDescription):\n\(screen)")
        }
        let path = try #require(said.first.map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) })
        #expect(path.hasPrefix(state + "/aether-tui/crashes/crash-") && path.hasSuffix("-\(pid).txt"), "\(path)")
        let report = try String(contentsOfFile: path, encoding: .utf8)

        // What happened, to whom, with what.
        let name = signal == SIGSEGV ? "SIGSEGV" : "SIGABRT"
        #expect(report.hasPrefix("\(PlayerIdentity.name) crashed: \(name)") && report.contains("signal \(signal), sent by process"),
                "\(report.prefix(300))")
        #expect(report.contains("\n\(PlayerIdentity.versionLine)\n") && report.contains("git commit "), "no version:\n\(report.prefix(800))")
        #expect(report.contains("\noptions: … --ao=null --volume=42 --log-file=…\n"), "options:\n\(report.prefix(800))")
        #expect(report.contains("\nplaying: clip.mkv\n  Container   Matroska") && report.contains("Video    #0  h264"),
                "item:\n\(report.prefix(1500))")
        // A backtrace: ours always; the Swift runtime's too, where its backtracer is installed.
        #expect(report.contains("The crashing thread's frames") && report.contains("  aether-tui+0x"), "no frames:\n\(report)")
        if swiftBacktracer, let backtracer, FileManager.default.isExecutableFile(atPath: backtracer) {
            #expect(report.contains("Thread 0 \"aether-tui\" crashed:") && report.contains("Backtrace took"),
                    "no Swift backtrace (\(backtracer)):\n\(report)")
        }
        if !swiftBacktracer { #expect(!report.contains("before ours") && !report.contains("Thread 0"), "\(report)") }
        #expect(!report.contains("Press space"))
        // Nothing of the config file, no path of the user's.
        for secret in ["ConfigMarkerFont", "config-comment-marker", "private-media-dir", base, NSTemporaryDirectory() + "aether-crash-"] {
            #expect(!report.contains(secret), "the report holds \(secret.debugDescription)")
        }
    }

    /// A crash while an item opens (a server that takes the connection and never answers): the
    /// report names the item opening by its URL's last segment, nothing else of the URL, and the
    /// terminal is back in its own modes (the open takes the keys, in raw mode, before the
    /// screen is up).
    @Test func aCrashWhileOpeningNamesTheItem() throws {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(server >= 0)
        defer { close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, length) == 0 && getsockname(server, $0, &length) == 0 }
        }
        #expect(bound && listen(server, 4) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let state = NSTemporaryDirectory() + "aether-crash-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let s = try TmuxSession([TestEnvironment.binary, "http://127.0.0.1:\(port)/private-path-marker/stream.mkv?token=query-marker",
                                 "--ao=null", "--network-timeout=60"],
                                columns: 220, rows: 40,
                                environment: ["TERM": "screen-256color", "XDG_RUNTIME_DIR": "/tmp/aether-test-xdg",
                                              "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": state],
                                afterExit: "stty -a")
        defer { s.close() }
        // The player's request is waiting on the listening socket: the open has begun.
        var pending = pollfd(fd: server, events: Int16(POLLIN), revents: 0)
        #expect(waitUntil(10, interval: 0.05) { poll(&pending, 1, 0) == 1 }, "the player never connected:\n\(s.screen())")
        let pid = try #require(s.pid(of: "aether-tui"), "no aether-tui in the pane")
        kill(pid, SIGSEGV)
        #expect(s.waitFor(30) { $0.contains("EXIT=") && $0.contains("icanon") }, "\(s.screen())")
        let screen = s.screen()
        #expect(screen.contains("EXIT=139"), "\(screen)")
        let words = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        #expect(words.contains("echo") && words.contains("icanon") && !words.contains("-echo") && !words.contains("-icanon"),
                "stty -a after the exit:\n\(screen)")
        let prefix = "\(PlayerIdentity.name) crashed; report: "
        let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix(prefix) }, "\(screen)")
        let report = try String(contentsOfFile: String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces), encoding: .utf8)
        #expect(report.contains("\nopening: stream.mkv\n") && !report.contains("playing:"), "\(report.prefix(1500))")
        #expect(report.contains("\noptions: … --ao=null --network-timeout=60\n"), "\(report.prefix(1500))")
        for secret in ["private-path-marker", "query-marker", "127.0.0.1:\(port)"] {
            #expect(!report.contains(secret), "the report holds \(secret.debugDescription)")
        }
    }
}
