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
}
