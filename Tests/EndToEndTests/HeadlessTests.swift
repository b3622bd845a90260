import AetherEngine
import AetherTestSupport
import Foundation
import Testing

/// `aether-tui FILE --vo=null`: the headless player as scripts run it.
@Suite struct HeadlessTests {
    /// A cut file is said to end where its picture and sound end (the last audio or video
    /// packet, as ffprobe finds it), not where a subtitle event that reaches past the cut does.
    @Test(arguments: [("truncated.mkv", "4.03"), ("truncated-subtitle.mkv", "40.13")])
    func truncatedFileEndsWithAClearErrorAndNoHang(name: String, length: String) throws {
        let path = TestEnvironment.fixture(name)
        let r = Process.run([TestEnvironment.binary, path, "--vo=null", "--ao=null", "--speed=4"], timeout: 20)
        #expect(!r.timedOut)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("aether-tui: '\(path)': file ends at "), "\(r.stderr)")
        #expect(r.stderr.hasSuffix(" s of \(length) s (truncated?)\n"), "\(r.stderr)")
        let said = try #require(Double(r.stderr.split(separator: " ").dropFirst(5).first ?? ""), "\(r.stderr)")
        let times = ["v", "a"].flatMap { kind in
            Process.run(["/usr/bin/ffprobe", "-v", "quiet", "-select_streams", kind, "-show_entries", "packet=pts_time",
                         "-of", "csv=p=0", path], timeout: 20).stdout.split(separator: "\n").compactMap { Double($0) }
        }
        let lastPacket = try #require(times.max())
        #expect(abs(said - lastPacket) < 0.05, "said \(said) s, the last audio or video packet is at \(lastPacket) s")
    }

    @Test func unreadableFilesFailAtOnce() {
        for name in ["random.mkv", "empty.mkv"] {
            let path = TestEnvironment.fixture(name)
            let r = Process.run([TestEnvironment.binary, path, "--vo=null", "--ao=null"], timeout: 20)
            #expect(!r.timedOut)
            #expect(r.status == 1)
            #expect(r.stderr == "aether-tui: cannot open '\(path)': Invalid data found when processing input\n")
        }
    }

    /// Options with values no player should take: one line naming the option, a usage exit,
    /// never a trap in a later integer conversion.
    @Test(arguments: ["--volume=nan", "--speed=inf", "--sub-delay=nan", "--sub-delay=1e308", "--audio-delay=1e308",
                      "--cache-secs=1e308", "--cache-pause-wait=1e308", "--timeshift=1e308", "--network-timeout=1e308",
                      "--start=nan", "--vid=1e300", "--aid=99999999999999999999",
                      "--vd-lavc-threads=17", "--vd-lavc-threads=-1", "--vd-lavc-threads=99999999999999999999",
                      "--ytdl=1e308", "--ytdl-format=-1e308", "--ytdl-raw-options=-1e308=nan"])
    func hostileOptionValuesAreOneLine(option: String) {
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--vo=null", "--ao=null",
                             "--length=0.2", option], timeout: 20)
        let name = String(option.prefix { $0 != "=" })
        #expect(r.status != 0 && !r.timedOut, "\(option): status \(r.status)")
        #expect(r.stderr.contains(name), "\(option): \(r.stderr)")
    }

    @Test func statsFileHasTelemetryLinesAndASummary() throws {
        let stats = NSTemporaryDirectory() + "aether-stats-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-720p.mkv"), "--vo=null", "--ao=null",
                             "--start=2", "--length=2.5", "--stats-file", stats], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 3)
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{\"telemetry\":") })
        struct Line: Decodable { let summary: PlaybackSummary }
        let summary = try JSONDecoder().decode(Line.self, from: Data(lines.last!.utf8)).summary
        #expect(abs(summary.mediaSeconds - 2.5) < 0.05, "played \(summary.mediaSeconds) s")
        #expect(summary.frames.presented == 60)
        #expect(summary.frames.dropped == 0)
        #expect(summary.cpuSeconds > 0 && summary.peakRSSKiB > 0)
        // The bit rate is the media's as it plays, not the reading: the demuxer has read this
        // whole local file ahead by the second line, yet the rate stays near the file's
        // (about 1 Mbit/s; issue 19 saw 0.00 Mb/s).
        struct Telemetry: Decodable { let telemetry: TelemetrySnapshot }
        let rates = try lines.dropLast().map { try JSONDecoder().decode(Telemetry.self, from: Data($0.utf8)).telemetry.bitrates.instant }
        #expect(rates.dropFirst().allSatisfy { $0 > 300_000 && $0 < 4_000_000 }, "\(rates)")
    }
}
