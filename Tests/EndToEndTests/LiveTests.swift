import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// Live HLS written in real time by `Tests/Scripts/live_hls.sh` (ffmpeg `-re`), served on
/// loopback: the bar says LIVE, rewinding and pausing put playback behind the edge, End goes
/// back, and hours of it would stay in bounded memory (three minutes measured).
@Suite(.serialized) struct LiveTests {
    /// A live stream being written into a temporary directory and served over HTTP.
    final class LiveStream {
        let directory: String
        let server: LoopbackHTTP
        private let writer: Process
        let dash: Bool

        /// HLS by `live_hls.sh`, or (`dash`) a dynamic DASH MPD written by the ffmpeg CLI (with
        /// `twoVideos`, two video representations, 300k and 600k).
        init(seconds: Int, dash: Bool = false, twoVideos: Bool = false) throws {
            self.dash = dash
            directory = NSTemporaryDirectory() + "aether-live-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            if dash {
                writer.arguments = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                    "-re", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=24", "-re", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                                    "-t", String(seconds), "-map", "0:v"] + (twoVideos ? ["-map", "0:v"] : []) + ["-map", "1:a",
                                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "48", "-keyint_min", "48", "-sc_threshold", "0",
                                    "-b:v", "300k"] + (twoVideos ? ["-b:v:1", "600k"] : []) + ["-c:a", "aac", "-b:a", "64k",
                                    "-f", "dash", "-seg_duration", "2", "-window_size", "6", "-extra_window_size", "2",
                                    "-use_template", "1", "-use_timeline", "1", directory + "/live.mpd"]
            } else {
                writer.arguments = ["bash", TestEnvironment.scripts.appendingPathComponent("live_hls.sh").path, directory, String(seconds)]
            }
            writer.standardOutput = FileHandle.nullDevice
            writer.standardError = FileHandle.nullDevice
            try writer.run()
            server = try LoopbackHTTP(root: directory)
        }

        /// Waits until the live playlist lists `count` segments (a player joins 3 back).
        func waitForSegments(_ count: Int, timeout: Double = 30) -> Bool {
            let end = Date().addingTimeInterval(timeout)
            while Date() < end {
                if dash {
                    // Media segments of the video representation on disk.
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                    if names.filter({ $0.hasPrefix("chunk-stream0-") }).count >= count { return true }
                    Thread.sleep(forTimeInterval: 0.2)
                    continue
                }
                let text = (try? String(contentsOfFile: directory + "/index.m3u8", encoding: .utf8)) ?? ""
                if text.components(separatedBy: "#EXTINF").count - 1 >= count { return true }
                Thread.sleep(forTimeInterval: 0.2)
            }
            return false
        }

        var url: String { server.url(dash ? "live.mpd" : "index.m3u8") }

        func stop() {
            if writer.isRunning {
                // The script and its ffmpeg both name the (unique) directory. A signal the script
                // would trap can be blocked in what the test runner spawns: SIGKILL both.
                _ = Process.run(["/usr/bin/pkill", "-KILL", "-f", directory], timeout: 10)
                writer.waitUntilExit()
            }
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }

        deinit { stop() }
    }

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
        Thread.sleep(forTimeInterval: 6)
        session.send("Left")
        session.send("Left")
        #expect(session.waitFor(5) { $0.contains("LIVE -00:") }, "not behind after rewinding:\n\(session.screen())")
        // Paused, the edge moves on: further behind.
        session.send("Space")
        Thread.sleep(forTimeInterval: 3)
        let behindPaused = Self.behind(session.screen())
        Thread.sleep(forTimeInterval: 3)
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
        Thread.sleep(forTimeInterval: 6)
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
        Thread.sleep(forTimeInterval: 0.5)
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
        Thread.sleep(forTimeInterval: 4)
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

    /// Three minutes of live HLS with a 20 s window and 1 MiB of it in memory: the window spills
    /// to disk and old parts are dropped; the player's memory stays flat; nothing is left behind.
    @Test(.timeLimit(.minutes(5))) func threeMinutesOfLiveStayInBoundedMemory() throws {
        let stream = try LiveStream(seconds: 240)
        defer { stream.stop() }
        #expect(stream.waitForSegments(3))
        let cache = NSTemporaryDirectory() + "aether-live-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let stats = EverydayPlayerTests.temp("stats.jsonl")
        let player = Process()
        player.executableURL = URL(fileURLWithPath: TestEnvironment.binary)
        player.arguments = [stream.url, "--vo=null", "--ao=null", "--length=180", "--timeshift=20", "--timeshift-memory=1",
                            "--stats-file", stats]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache
        player.environment = environment
        player.standardOutput = FileHandle.nullDevice
        player.standardError = FileHandle.nullDevice
        try player.run()
        defer { if player.isRunning { player.terminate(); player.waitUntilExit() } }
        func rssKiB() -> Int? {
            let status = (try? String(contentsOfFile: "/proc/\(player.processIdentifier)/status", encoding: .utf8)) ?? ""
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        Thread.sleep(forTimeInterval: 60)
        let early = rssKiB()
        let spillDir = cache + "/aether-tui"
        let spilled = (try? FileManager.default.contentsOfDirectory(atPath: spillDir)) ?? []
        #expect(!spilled.isEmpty, "the window never spilled to disk")
        Thread.sleep(forTimeInterval: 110)
        let late = rssKiB()
        let chunks = spilled.first.map { (try? FileManager.default.contentsOfDirectory(atPath: spillDir + "/" + $0)) ?? [] } ?? []
        player.waitUntilExit()
        #expect(player.terminationStatus == 0)
        let summary = try #require(try EverydayPlayerTests.summaries(stats).first)
        #expect(abs(summary.mediaSeconds - 180) < 3, "played \(summary.mediaSeconds) s")
        #expect(summary.endedEarly == nil)
        let growth = (late ?? 0) - (early ?? 0)
        print("live RSS at 60 s: \(early ?? -1) KiB, at 170 s: \(late ?? -1) KiB (growth \(growth) KiB); spill chunks at 170 s: \(chunks.count)")
        #expect(early != nil && late != nil && growth < 8 * 1024, "RSS grew by \(growth) KiB")
        // About 20 s of a ~100 kB/s stream in 256 KiB chunks (a quarter of the memory cap): ten or
        // so, not three minutes' worth (about seventy).
        #expect(chunks.count <= 20, "\(chunks.count) spill chunks kept: \(chunks)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: spillDir)) ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
