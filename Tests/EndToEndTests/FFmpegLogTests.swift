import AetherTestSupport
import Foundation
import Testing

/// FFmpeg's diagnostics (`[h264 @ 0x…] error while decoding …`) belong in `--log-file`, never on
/// stderr, which is the terminal: not in headless mode, not from `probe`, not before logging is
/// configured.
@Suite struct FFmpegLogTests {
    /// A copy of h264-720p.mkv with 2 KB in the middle scrambled (the decoder complains about
    /// it); the caller removes it.
    static func makeDamaged() -> String {
        let path = NSTemporaryDirectory() + "aether-damaged-\(UUID().uuidString).mkv"
        var data = [UInt8](FileManager.default.contents(atPath: TestEnvironment.fixture("h264-720p.mkv")) ?? Data())
        let middle = data.count / 2
        for i in stride(from: middle, to: min(data.count, middle + 2000), by: 7) { data[i] ^= 0x5A }
        FileManager.default.createFile(atPath: path, contents: Data(data))
        return path
    }

    static func ffmpegLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains(" @ 0x") }
    }

    @Test func headlessPlaybackOfADamagedFilePrintsNoFFmpegLines() throws {
        let damaged = Self.makeDamaged(), log = NSTemporaryDirectory() + "aether-log-\(UUID().uuidString).txt"
        defer { for path in [damaged, log] { try? FileManager.default.removeItem(atPath: path) } }
        let r = Process.run([TestEnvironment.binary, damaged, "--vo=null", "--ao=null", "--speed=4", "--log-file", log],
                            timeout: 30)
        #expect(!r.timedOut)
        #expect(Self.ffmpegLines(r.stderr).isEmpty, "FFmpeg lines on stderr:\n\(r.stderr)")
        #expect(Self.ffmpegLines(r.stdout).isEmpty)
        // The damage did make FFmpeg speak: into the log file.
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(!Self.ffmpegLines(logged).isEmpty, "the damaged file made no FFmpeg diagnostics; the test proves nothing")
    }

    @Test func withoutALogFileNothingIsPrinted() {
        let damaged = Self.makeDamaged()
        defer { try? FileManager.default.removeItem(atPath: damaged) }
        let r = Process.run([TestEnvironment.binary, damaged, "--vo=null", "--ao=null", "--speed=4"], timeout: 30)
        #expect(!r.timedOut)
        #expect(Self.ffmpegLines(r.stderr).isEmpty, "FFmpeg lines on stderr:\n\(r.stderr)")
        let p = Process.run([TestEnvironment.binary, "probe", damaged], timeout: 30)
        #expect(Self.ffmpegLines(p.stderr + p.stdout).isEmpty, "FFmpeg lines from probe:\n\(p.stderr)")
    }
}
