import AetherEngine
import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// Live HLS for three minutes (soak.sh, not CI): the timeshift window stays bounded in memory
/// and on disk.
@Suite(.serialized) struct LiveMemorySoakTests {
    /// Three minutes of live HLS with a 20 s window and 1 MiB of it in memory: the window spills
    /// to disk and old parts are dropped; the player's memory stays flat; nothing is left behind.
    @Test(.timeLimit(.minutes(5))) func threeMinutesOfLiveStayInBoundedMemory() throws {
        let stream = try LiveStream(seconds: 240)
        defer { stream.stop() }
        #expect(stream.waitForSegments(3))
        let cache = NSTemporaryDirectory() + "aether-live-cache-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let stats = PlayerRuns.temp("stats.jsonl")
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
        let summary = try #require(try PlayerRuns.summaries(stats).first)
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
