import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// `--version` says what the player runs on, as `mpv --version` does (issue 46, 5): the git
/// commit it was built from, and each FFmpeg
/// library's version is the installed library's own (pkg-config's, the headers built against,
/// and the running one agree on one machine).
struct VersionTests {
    @Test func versionNamesTheFFmpegLibrariesItRunsOn() throws {
        let r = Process.run([TestEnvironment.binary, "--version"], timeout: 10)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("aether-tui ") == true && lines.contains { $0.hasPrefix("built with Swift 6.") }, "\(r.stdout)")
        for library in ["libavcodec", "libavformat", "libavutil", "libswscale", "libswresample"] {
            let installed = Process.run(["/usr/bin/pkg-config", "--modversion", library], timeout: 10).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!installed.isEmpty)
            #expect(lines.contains("  \(library) \(installed)"), "\(library) \(installed) in:\n\(r.stdout)")
        }
        // The commit the binary was built from: this checkout's (the build ran on it).
        let head = Process.run(["/usr/bin/git", "-C", TestEnvironment.root.path, "rev-parse", "--short=12", "HEAD"], timeout: 10)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(head.count == 12, "no git checkout at \(TestEnvironment.root.path)")
        let commit = try #require(lines.dropFirst().first.flatMap { $0.hasPrefix("git commit ") ? String($0.dropFirst(11)) : nil },
                                  "no commit line:\n\(r.stdout)")
        #expect(commit == head || commit == head + "-dirty", "\(commit) against HEAD \(head)")
        let json = Process.run([TestEnvironment.binary, "--version", "--json"], timeout: 10)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let libraries = try #require(object["libraries"] as? [[String: String]])
        #expect(libraries.count == 5 && libraries.allSatisfy { $0["built"] == $0["running"] }, "\(json.stdout)")
        #expect(object["name"] as? String == "aether-tui")
        #expect(object["commit"] as? String == commit)
        // #61 item 7: a commit that is not the release's tag says so in the version, as Debian
        // spells a snapshot: the release, `+git`, the commit's date (UTC) and its short hash.
        let git = { (args: [String]) in
            Process.run(["/usr/bin/env", "TZ=UTC", "/usr/bin/git", "-C", TestEnvironment.root.path] + args, timeout: 10)
        }
        let release = try #require((object["version"] as? String)?.split(separator: "+").first.map(String.init))
        let tagged = git(["describe", "--exact-match", "--tags", "--match", "v" + release, "HEAD"]).status == 0
        let date = git(["log", "-1", "--format=%cd", "--date=format-local:%Y%m%d", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let short = git(["rev-parse", "--short=7", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = tagged ? release : "\(release)+git\(date).\(short)"
        #expect(object["version"] as? String == expected && lines.first == "aether-tui \(expected)", "\(r.stdout)")
    }
}
