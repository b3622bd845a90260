import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// The headless player (`--vo=null --ao=null`) on a private session bus, driven by `playerctl`
/// as media keys and scripts drive it.
@Suite struct MPRISEndToEndTests {
    /// The player running on `bus` in a background thread; `result` is set when it exits.
    final class RunningPlayer: Sendable {
        private let outcome = Guarded<ProcessResult?>(nil)

        init(_ arguments: [String], environment: [String: String]) {
            let thread = Thread { [self] in
                let r = Process.run([TestEnvironment.binary] + arguments, environment: environment, timeout: 40)
                outcome.withLock { $0 = r }
            }
            thread.start()
        }

        var result: ProcessResult? { outcome.withLock { $0 } }

        /// Waits for the player to exit.
        func waitForExit(timeout: Double = 10) throws -> ProcessResult {
            try Poll.until(timeout: timeout) { result != nil }
            return result!
        }
    }

    static func number(_ r: ProcessResult) -> Double? { Double(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }

    @Test func playerctlPausesSeeksReadsAndStopsTheHeadlessPlayer() throws {
        let bus = try SessionBus()
        let path = TestEnvironment.fixture("h264-720p.mkv")
        let player = RunningPlayer([path, "--vo=null", "--ao=null", "--no-config"], environment: bus.environment)
        func ctl(_ arguments: String...) -> ProcessResult { bus.run(["/usr/bin/playerctl", "-p", "aether-tui"] + arguments) }
        try Poll.until(timeout: 15) { ctl("status").stdout == "Playing\n" || player.result != nil }
        #expect(player.result == nil, "the player left early: \(player.result?.stderr ?? "")")
        #expect(bus.playerctl("-l").stdout == "aether-tui\n")

        // Metadata: the file name as the title (the file has no title tag), its length, its URL.
        #expect(ctl("metadata", "title").stdout == "h264-720p.mkv\n")
        #expect(ctl("metadata", "xesam:url").stdout == URL(fileURLWithPath: path).absoluteString + "\n")
        let length = try #require(Self.number(ctl("metadata", "mpris:length")))
        #expect(abs(length / 1e6 - 12) < 0.1, "length \(length) µs")

        // play-pause pauses: the status says so and the position stops.
        let log = try bus.monitorSignals(path: "/org/mpris/MediaPlayer2")
        #expect(ctl("play-pause").status == 0)
        try Poll.until(timeout: 2) { ctl("status").stdout == "Paused\n" }
        try Poll.until(timeout: 2) { log.text.contains("string \"Paused\"") }
        // A frame already on its way may still land: until two reads 0.1 s apart agree.
        var last: Double?
        _ = waitUntil(2, interval: 0.1) {
            let now = Self.number(ctl("position"))
            defer { last = now }
            return now != nil && now == last
        }
        let p1 = try #require(Self.number(ctl("position")))
        Thread.sleep(forTimeInterval: 0.6)   // measurement window: paused, the position must not move
        let p2 = try #require(Self.number(ctl("position")))
        #expect(p1 == p2, "paused, yet the position moved from \(p1) to \(p2)")

        // position 3 seeks there (and says so with Seeked).
        #expect(ctl("position", "3").status == 0)
        try Poll.until(timeout: 3) { abs((Self.number(ctl("position")) ?? 0) - 3) < 0.15 }
        try Poll.until(timeout: 2) { log.text.contains("member=Seeked") }
        #expect(log.text.contains("int64 3000000"), "\(log.text)")

        // Volume both ways.
        #expect(ctl("volume", "0.5").status == 0)
        try Poll.until(timeout: 2) { Self.number(ctl("volume")) == 0.5 }

        // Shuffle is writable (issue 48, 9), both ways.
        #expect(ctl("shuffle").stdout == "Off\n")
        #expect(ctl("shuffle", "On").status == 0)
        try Poll.until(timeout: 2) { ctl("shuffle").stdout == "On\n" }
        #expect(ctl("shuffle", "Off").status == 0)
        try Poll.until(timeout: 2) { ctl("shuffle").stdout == "Off\n" }

        // Playing again, the position moves on from 3 s.
        #expect(ctl("play").status == 0)
        try Poll.until(timeout: 2) { ctl("status").stdout == "Playing\n" }
        try Poll.until(timeout: 3) { (Self.number(ctl("position")) ?? 0) > 3.3 }

        // Stop ends the player (mpv's `stop` with nothing left to play), cleanly and quietly.
        #expect(ctl("stop").status == 0)
        let r = try player.waitForExit()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        #expect(bus.playerctl("-l").stdout == "")
    }

    @Test func theTitleTagIsSanitisedAndQuitEndsThePlayer() throws {
        let bus = try SessionBus()
        let player = RunningPlayer([TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--vo=null", "--ao=null",
                                    "--no-config", "--loop-file=inf"], environment: bus.environment)
        try Poll.until(timeout: 15) {
            bus.playerctl("-p", "aether-tui", "status").stdout == "Playing\n" || player.result != nil
        }
        // The container title is "Demo<ESC>[31m Title".
        #expect(bus.playerctl("-p", "aether-tui", "metadata", "title").stdout == "Demo Title\n")
        let quit = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.aether-tui",
                            "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Quit"])
        #expect(quit.status == 0, "\(quit.stderr)")
        let r = try player.waitForExit()
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func musicTagsReachTheMetadata() throws {
        let bus = try SessionBus()
        let cache = NSTemporaryDirectory() + "aether-cache-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let player = RunningPlayer([TestEnvironment.fixture("music-tagged.mp3"), "--vo=null", "--ao=null",
                                    "--no-config", "--loop-file=inf"], environment: bus.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        try Poll.until(timeout: 15) {
            bus.playerctl("-p", "aether-tui", "status").stdout == "Playing\n" || player.result != nil
        }
        func field(_ key: String) -> String { bus.playerctl("-p", "aether-tui", "metadata", key).stdout }
        #expect(field("title") == "Test Title\n")
        #expect(field("artist") == "Test Artist\n")
        #expect(field("album") == "Album One\n", "sanitised")
        #expect(field("xesam:trackNumber") == "3\n")
        #expect(field("xesam:genre") == "Ambient\n")
        // The cover (a 120×80 PNG in the file's ID3 APIC) as a file (issue 48, 9): a file:// URL
        // of a PNG of that size in $XDG_CACHE_HOME/aether-tui/covers.
        var art = ""
        try Poll.until(timeout: 5) { art = field("mpris:artUrl"); return art.hasPrefix("file://") }
        let path = try #require(URL(string: art.trimmingCharacters(in: .whitespacesAndNewlines))?.path)
        #expect(path.hasPrefix(cache + "/aether-tui/covers/") && path.hasSuffix(".png"), "\(art)")
        let size = Process.run(["/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path], timeout: 10)
        #expect(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "120,80", "\(size.stdout) \(size.stderr)")
        _ = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.aether-tui",
                     "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Quit"])
        #expect(try player.waitForExit().status == 0)
    }

    @Test(arguments: ["unset", "nowhere"])
    func withoutABusThePlayerRunsSilently(bus: String) throws {
        let runtime = NSTemporaryDirectory() + "aether-nobus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        // No address and no $XDG_RUNTIME_DIR/bus, or an address nothing listens on.
        let environment = (bus == "unset"
            ? ["/usr/bin/env", "-u", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR=\(runtime)"]
            : ["/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=unix:path=\(runtime)/bus", "XDG_RUNTIME_DIR=\(runtime)"])
            + ["XDG_CACHE_HOME=\(runtime)/cache"]
        for file in ["h264-aac-2audio-srt-ass.mkv", "music-tagged.mp3"] {
            let r = Process.run(environment + [TestEnvironment.binary, TestEnvironment.fixture(file),
                                               "--vo=null", "--ao=null", "--no-config", "--length=1"], timeout: 20)
            #expect(!r.timedOut)
            #expect(r.status == 0)
            #expect(r.stderr == "", "no bus is not worth a word")
        }
        // Nothing reads a cover file without MPRIS: none is written.
        #expect(!FileManager.default.fileExists(atPath: runtime + "/cache/aether-tui/covers"))
    }

    @Test func noMprisKeepsThePlayerOffTheBus() throws {
        let bus = try SessionBus()
        let player = RunningPlayer([TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--vo=null", "--ao=null",
                                    "--no-config", "--no-mpris", "--length=1.5"], environment: bus.environment)
        var listed = false
        // Looks every 0.1 s for as long as the player runs.
        #expect(waitUntil(30, interval: 0.1) {
            listed = listed || bus.playerctl("-l").stdout != ""
            return player.result != nil
        }, "the player did not end")
        #expect(!listed)
        #expect(player.result?.status == 0, "\(player.result?.stderr ?? "")")
    }

    @Test func mediaKeysDriveTheTerminalPlayer() throws {
        let bus = try SessionBus()
        var environment = bus.environment
        environment.merge(["TERM": "screen-256color", "COLORTERM": "truecolor"]) { $1 }
        let s = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--ao=null", "--no-config"],
                                environment: environment)
        defer { s.close() }
        func ctl(_ arguments: String...) -> ProcessResult { bus.run(["/usr/bin/playerctl", "-p", "aether-tui"] + arguments) }
        #expect(s.waitFor(8) { PlayerRuns.time(in: $0) != nil }, "the transport bar never appeared:\n\(s.screen())")
        try Poll.until(timeout: 5) { ctl("status").stdout == "Playing\n" }
        #expect(ctl("play-pause").status == 0)
        #expect(s.waitFor(2) { $0.contains("‖") }, "\(s.screen())")
        #expect(ctl("status").stdout == "Paused\n")
        let paused = try #require(PlayerRuns.time(in: s.screen()))
        Thread.sleep(forTimeInterval: 1.2)   // measurement window: paused, the time must not move
        #expect(PlayerRuns.time(in: s.screen()) == paused, "time moved while paused")
        #expect(ctl("position", "7").status == 0)
        #expect(s.waitFor(3) { PlayerRuns.time(in: $0) == 7 }, "\(s.screen())")
        #expect(ctl("metadata", "title").stdout == "h264-720p.mkv\n")
        let quit = bus.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.aether-tui",
                            "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Quit"])
        #expect(quit.status == 0, "\(quit.stderr)")
        #expect(s.waitFor(5) { $0.contains("EXIT=0") }, "\(s.screen())")
        #expect(s.display("#{alternate_on}") == "0", "alternate screen left on")
    }
}
