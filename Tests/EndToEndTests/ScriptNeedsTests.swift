import AetherTestSupport
import Foundation
import Testing

/// #61 item 1: a script that needs a program says so at its start, naming the Debian package
/// (`needs`, Tests/Scripts/needs.sh), instead of failing half-way with "command not found".
/// Each is run on a PATH that holds every program of /usr/bin but the ones taken away. Tier: cli.
@Suite struct ScriptNeedsTests {
    /// A directory of links to /usr/bin's programs but `without`.
    static func path(without: Set<String>) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aether-path-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: "/usr/bin") where !without.contains(name) {
            try FileManager.default.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: "/usr/bin/" + name)
        }
        return dir
    }

    @Test(arguments: [
        ("Tests/Fixtures/make-fixtures.sh", "make-fixtures: missing ffmpeg (package ffmpeg), ffprobe (package ffmpeg): bash Tests/Scripts/install-deps.sh installs them"),
        ("Tests/Fixtures/make-network-fixtures.sh", "make-network-fixtures: missing ffmpeg (package ffmpeg), ffprobe (package ffmpeg):"),
        ("Tests/Scripts/hostile-corpus.sh", "hostile-corpus: missing ffmpeg (package ffmpeg), ffprobe (package ffmpeg):"),
        // #61 item 4: the repository's tools.
        ("Tests/Scripts/apt-repo.sh", "apt-repo.sh: missing gpg (package gnupg), apt-ftparchive (package apt-utils):"),
    ])
    func aMissingProgramIsNamedWithItsPackageAtTheStart(script: String, says: String) throws {
        let path = try Self.path(without: ["ffmpeg", "ffprobe", "gpg", "apt-ftparchive"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("aether-needs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = Process.run(["/usr/bin/bash", TestEnvironment.root.path + "/" + script, out],
                            environment: ["PATH": path, "HOME": NSTemporaryDirectory()], timeout: 30)
        #expect(r.status == 1, "\(script): \(r.stderr)")
        #expect(r.stderr.hasPrefix(says), "\(script): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/h264-aac-2audio-srt-ass.mkv"), "nothing made")
    }

    /// #60 item 8: without dvdauthor the disc fixtures cannot be made. On a developer's machine
    /// that is said and the disc suites report themselves skipped (exit 0); under CI
    /// (`AETHER_REQUIRE_FIXTURES=1`, .ci/run) it fails the run instead of going green without them.
    @Test func aMissingDiscToolFailsCIAndIsSaidElsewhere() throws {
        let path = try Self.path(without: ["dvdauthor"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("aether-disc-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let script = TestEnvironment.root.path + "/Tests/Fixtures/make-disc-fixtures.sh"
        for (require, status) in [("1", Int32(1)), ("0", Int32(0))] {
            let r = Process.run(["/usr/bin/bash", script, out],
                                environment: ["PATH": path, "HOME": NSTemporaryDirectory(), "AETHER_REQUIRE_FIXTURES": require], timeout: 30)
            #expect(r.status == status, "AETHER_REQUIRE_FIXTURES=\(require): \(r.stderr)")
            #expect(r.stderr.contains("make-disc-fixtures: dvdauthor not found (package dvdauthor)"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out + "/dvd.iso"), "nothing made")
        }
        // And CI asks for it.
        let ci = try String(contentsOfFile: TestEnvironment.root.path + "/.ci/run", encoding: .utf8)
        #expect(ci.contains("export AETHER_REQUIRE_FIXTURES=1"))
    }
}
