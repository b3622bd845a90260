import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// #62 item 14 in a real xterm (terminals tier): without `--theme`, the chrome's theme follows
/// the background xterm reports (OSC 11): xterm's own default, white, gets `light`; xterm told
/// `background: black` gets `default` (whose colours ThemeContrastTests holds to 3:1 there).
@Suite(.serialized) struct ThemeBackgroundXtermTests {
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil),
          arguments: [([String](), "light", "light"), (["XTerm*background: black", "XTerm*foreground: white"], "default", "dark")])
    func theThemeFollowsTheReportedBackground(resources: [String], theme: String, background: String) throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let log = PlayerRuns.temp("theme.log")
        defer { try? FileManager.default.removeItem(atPath: (log as NSString).deletingLastPathComponent) }
        let x = try XtermSession(command: "'\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=halfblock --ao=null --pause --no-config --log-file='\(log)'",
                                 resources: resources)
        defer { x.stop() }
        let line = "theme \(theme): the terminal's background is \(background) (OSC 11)"
        let found = waitUntil(20, interval: 0.1) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(line) }
        #expect(found, "no '\(line)' in the log: \(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").prefix(1500))")
    }
}
