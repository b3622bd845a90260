import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--equalizer` on the command line (#63): the presets listed, a bad value refused in one line
/// naming what it takes, a profile's bad line said once while the rest plays, an unreadable
/// profile said and played flat, and the stats naming the equalizer and the preamp it runs with.
/// Tier: cli.
struct EqualizerCommandTests {
    static func run(_ arguments: [String]) -> (ProcessResult, [[String: Any]]) {
        let stats = FileManager.default.temporaryDirectory.appendingPathComponent("aether-eq-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-aac-2audio-srt-ass.mkv"), "--vo=null", "--ao=null",
                             "--length=1.5", "--no-config", "--stats-file", stats] + arguments, timeout: 30)
        let lines = (try? String(contentsOfFile: stats, encoding: .utf8))?.split(separator: "\n") ?? []
        return (r, lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
    }

    @Test func helpListsThePresetsWithTheirCurves() {
        let r = Process.run([TestEnvironment.binary, "--equalizer=help"], timeout: 10)
        #expect(r.status == 0)
        for preset in ["bass", "treble", "vocal", "loudness", "acoustic", "electronic", "speech"] {
            #expect(r.stdout.contains("\n  \(preset) "), "\(preset):\n\(r.stdout)")
        }
        #expect(r.stdout.contains("31.5 63 125 250 500 1k 2k 4k 8k 16k Hz"))
    }

    @Test(arguments: [("--equalizer=loud", "is not a preset (flat, bass, treble"),
                      ("--equalizer=bands:1,2", "bands: takes 10 gains in dB, 2 given"),
                      ("--equalizer=bands:0,0,0,0,0,0,0,0,0,nan", "is not a finite number")])
    func aBadValueIsOneLineAndStatusOne(argument: String, says: String) {
        let r = Process.run([TestEnvironment.binary, TestEnvironment.fixture("h264-aac.flv"), argument, "--vo=null", "--ao=null"], timeout: 10)
        #expect(r.status == 1, "\(argument): \(r.stderr)")
        #expect(r.stderr.contains(says), "\(argument): \(r.stderr)")
    }

    @Test func aProfilesBadLineIsSaidOnceAndTheRestPlays() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("aether-hd\(UUID().uuidString.prefix(6)).txt").path
        try "Preamp: -2 dB\r\nFilter 1: ON PK Fc 1000 Hz Gain 6 dB Q 1\r\nFilter 2: ON PK Fc 100 Hz Gain 3 dB Q 0\r\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (r, stats) = Self.run(["--equalizer=\(path)"])
        #expect(r.status == 0, "\(r.stderr)")
        let name = (path as NSString).lastPathComponent
        #expect(r.stderr.components(separatedBy: "\(name):3: Q 0 is not in").count == 2, "said once:\n\(r.stderr)")
        // +6 dB at 1 kHz met by the preamp: -2 lowered to -6.
        let said = stats.compactMap { ($0["telemetry"] as? [String: Any])?["equalizer"] as? String }
        #expect(said.first == "\(name), preamp -6.0 dB (lowered: no frequency gains)", "\(said)")
    }

    @Test func anUnreadableProfilePlaysFlat() {
        let (r, stats) = Self.run(["--equalizer=/nonexistent/eq.txt"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("equalizer profile '/nonexistent/eq.txt': cannot read it") && r.stderr.contains("the equalizer is off"), "\(r.stderr)")
        #expect(!stats.isEmpty && stats.allSatisfy { ($0["telemetry"] as? [String: Any])?["equalizer"] == nil }, "flat: the stats name no equalizer")
    }

    @Test func aPresetRunsWithItsSafePreamp() {
        let (r, stats) = Self.run(["--equalizer=bass"])
        #expect(r.status == 0, "\(r.stderr)")
        let said = stats.compactMap { ($0["telemetry"] as? [String: Any])?["equalizer"] as? String }.first ?? ""
        #expect(said.hasPrefix("bass, preamp -") && said.hasSuffix("(lowered: no frequency gains)"), "\(said)")
    }
}
