import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Tier: cli. When nothing could be played the player says so in one line and exits non-zero,
/// as mpv does (issue 48, 2): an empty directory, one without media, `--start` past the end.
struct NothingPlayedTests {
    @Test func anEmptyDirectoryOrOneWithoutMediaIsOneLineAndStatusTwo() throws {
        let base = NSTemporaryDirectory() + "aether-nothing-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/empty", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/notes", withIntermediateDirectories: true)
        try "not media\n".write(toFile: base + "/notes/readme.txt", atomically: true, encoding: .utf8)
        for dir in ["empty", "notes"] {
            let (r, s) = try PlayerRuns.headless([base + "/" + dir, "--no-config"], timeout: 10)
            let lines = r.stderr.split(separator: "\n")
            #expect(r.status == 2 && lines.count == 1 && lines.first?.contains("nothing to play: ") == true
                    && lines.first?.contains("no media files") == true && s.isEmpty, "\(dir): \(r.status) \(r.stderr)")
        }
    }

    @Test func aStartPastTheEndPlaysNothingAndSaysSo() throws {
        let sine = TestEnvironment.fixture("sine-1k.mkv"), red = TestEnvironment.fixture("solid-red.mkv")
        var (r, s) = try PlayerRuns.headless([sine, "--start=99:00", "--no-config"], timeout: 10)
        #expect(r.status == 1 && r.stderr == "aether-tui: 'sine-1k.mkv': --start 1:39:00 is past its end (00:05)\n" && s.isEmpty,
                "\(r.status) \(r.stderr)")
        // Two items: both said, status 2 (none of several played); one that plays: status 3.
        (r, _) = try PlayerRuns.headless([sine, red, "--start=4", "--no-config"], timeout: 10)
        #expect(r.status == 3 && r.stderr.contains("'solid-red.mkv': --start 00:04 is past its end"), "\(r.status) \(r.stderr)")
        (r, _) = try PlayerRuns.headless([sine, red, "--start=99", "--no-config"], timeout: 10)
        #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 2, "\(r.status) \(r.stderr)")
    }

    /// A playlist of 100 000 items that cannot play (issue 62, item 0). Each failed open made the
    /// crash report's item watch a reabstraction thunk deeper, and the stack overflowed near the
    /// 9 500th item (SIGSEGV, exit 139). Now: status 2 (nothing played), the first 20 reasons and
    /// a count, and no per-item growth: the peak memory of 100 000 items is that of 10 000 plus
    /// the playlist itself. The CPU bound is the debug build's (about 33 s here since each item
    /// opens on the controller's open thread, #60: 27 s of it is the open and the walk, as
    /// inline; a quadratic walk would take minutes); a release build takes about 12 s.
    @Test func aHundredThousandItemsThatCannotPlayEndInOneSummary() throws {
        let base = NSTemporaryDirectory() + "aether-long-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        func list(_ n: Int) throws -> String {
            let path = base + "/list-\(n).m3u"
            let lines = (0..<n).map { base + "/missing-\($0).mkv" }
            try ("#EXTM3U\n" + lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let options = ["--no-config", "--vo=null", "--ao=null"]
        // At the lowest priority: 15 s of a core's CPU must not slow the suites beside it.
        let small = HostileHTTP.measure([try list(10_000)] + options, timeout: 60, background: true)
        let big = HostileHTTP.measure([try list(100_000)] + options, timeout: 180, background: true)
        #expect(small.status == 2 && big.status == 2 && !big.timedOut, "exit \(small.status) and \(big.status); \(big.lines.suffix(2))")
        #expect(big.lines.count == 21 && big.lines.first == "aether-tui: cannot open '\(base)/missing-0.mkv': No such file or directory"
                && big.lines.last == "aether-tui: … and 99980 more items that could not be played", "\(big.lines.prefix(2)) \(big.lines.suffix(1))")
        #expect(big.cpuSeconds > 0 && big.cpuSeconds <= 60, "\(big.cpuSeconds) CPU s for 100 000 items")
        // The playlist's 90 000 more items are about 13 MB; a line, closure or observer kept per
        // item would be more.
        let grown = big.peakRSSKiB - small.peakRSSKiB
        #expect(small.peakRSSKiB > 0 && grown <= 32 << 10, "peak RSS \(small.peakRSSKiB) KiB for 10 000, \(big.peakRSSKiB) KiB for 100 000")
    }
}
