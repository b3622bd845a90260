import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Live HLS written in real time by `Tests/Scripts/live_hls.sh` (ffmpeg `-re`), served on
/// loopback: the bar says LIVE, rewinding and pausing put playback behind the edge, End goes
/// back, and (SoakTests) hours of it would stay in bounded memory.
@Suite(.serialized) struct LiveTests {
    @Test func theBarSaysLiveRewindingGoesBehindAndEndReturns() throws {
        let stream = try LiveStream(seconds: 90)
        defer { stream.stop() }
        #expect(stream.waitForSegments(3))
        let cache = NSTemporaryDirectory() + "aether-live-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let session = try TmuxSession([TestEnvironment.binary, stream.url, "--ao=null", "--vo=halfblock"],
                                      columns: 100, rows: 30, environment: ["XDG_CACHE_HOME": cache])
        defer { session.close() }
        session.send("o")  // keep the transport bar up
        #expect(session.waitFor(15) { $0.contains("LIVE") && !$0.contains("LIVE -") }, "no LIVE:\n\(session.screen())")
        // Let some of the stream pass, then go back 10 s.
        Thread.sleep(forTimeInterval: 6)   // measurement window: 6 s of the stream played (a window to rewind in)
        session.send("Left")
        session.send("Left")
        #expect(session.waitFor(5) { $0.contains("LIVE -00:") }, "not behind after rewinding:\n\(session.screen())")
        // Paused, the edge moves on: further behind.
        session.send("Space")
        Thread.sleep(forTimeInterval: 3)   // measurement window: paused, the edge moves on
        let behindPaused = Self.behind(session.screen())
        Thread.sleep(forTimeInterval: 3)   // measurement window: and on
        let later = Self.behind(session.screen())
        #expect(behindPaused != nil && later != nil && later! > behindPaused!, "\(String(describing: behindPaused)) then \(String(describing: later))")
        // End: back to live (and playing again).
        session.send("End")
        session.send("Space")
        #expect(session.waitFor(8) { $0.contains("LIVE") && !$0.contains("LIVE -") }, "not back at live:\n\(session.screen())")
        session.send("q")
        #expect(session.waitFor(5) { $0.contains("EXIT=0") })
        // The kept window's files went with the player.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: cache + "/aether-tui")) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func aLiveDASHStreamShowsLiveAndRewinds() throws {
        let stream = try LiveStream(seconds: 60, dash: true)
        defer { stream.stop() }
        #expect(stream.waitForSegments(4))
        let session = try TmuxSession([TestEnvironment.binary, stream.url, "--ao=null", "--vo=halfblock"], columns: 100, rows: 30)
        defer { session.close() }
        session.send("o")
        #expect(session.waitFor(15) { $0.contains("LIVE") }, "no LIVE:\n\(session.screen())")
        Thread.sleep(forTimeInterval: 6)   // measurement window: 6 s of the stream played (a window to rewind in)
        session.send("Left")
        #expect(session.waitFor(5) { $0.contains("LIVE -00:") }, "not behind after rewinding:\n\(session.screen())")
        session.send("End")
        #expect(session.waitFor(8) { $0.contains("LIVE") && !$0.contains("LIVE -") }, "not back at live:\n\(session.screen())")
    }

    /// MPEG-TS over UDP (what a multicast feed looks like to libavformat, on loopback): the
    /// player listens, ffmpeg sends in real time; live, with the kept window to rewind in.
    @Test func anMPEGTSStreamOverUDPIsLive() throws {
        let port = Int.random(in: 20_000...40_000)
        let url = "udp://127.0.0.1:\(port)"
        let session = try TmuxSession([TestEnvironment.binary, url, "--ao=null", "--vo=halfblock"], columns: 100, rows: 30)
        defer { session.close() }
        // The player listening: its UDP port bound (/proc/net/udp, the port in hex).
        let bound = String(format: ":%04X ", port)
        #expect(waitUntil(10, interval: 0.02) {
            readToEnd("/proc/net/udp").contains(bound) || readToEnd("/proc/net/udp6").contains(bound)
        }, "nothing listens on UDP port \(port):\n\(session.screen())")
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=24",
                            "-re", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-t", "40", "-c:v", "libx264", "-preset", "ultrafast",
                            "-g", "24", "-c:a", "aac", "-f", "mpegts", url + "?pkt_size=1316"]
        sender.standardOutput = FileHandle.nullDevice
        sender.standardError = FileHandle.nullDevice
        try sender.run()
        defer {
            if sender.isRunning { _ = Process.run(["/usr/bin/pkill", "-KILL", "-f", url], timeout: 10); sender.waitUntilExit() }
        }
        session.send("o")
        #expect(session.waitFor(20) { $0.contains("LIVE") }, "no LIVE:\n\(session.screen())")
        Thread.sleep(forTimeInterval: 4)   // measurement window: 4 s of the stream played (a window to rewind in)
        session.send("Left")
        #expect(session.waitFor(5) { $0.contains("LIVE -00:") }, "not behind after rewinding:\n\(session.screen())")
        session.send("q")
        #expect(session.waitFor(5) { $0.contains("EXIT=0") }, "\(session.screen())")
    }

    /// `LIVE -00:12` → 12.
    static func behind(_ screen: String) -> Int? {
        guard let range = screen.range(of: "LIVE -") else { return nil }
        let text = screen[range.upperBound...].prefix(5)
        let parts = text.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
    }
}
