import AetherTestSupport
import EndToEndSupport
import Foundation
import Testing

/// tmux inside xterm (issue 32, item 1): what the player knows of the terminal outside tmux,
/// asked through tmux's passthrough and read again when the window changes. Tier: terminals.
@Suite(.serialized) struct TmuxInXtermTests {
    /// The panes' environment, as a user's tmux gives it.
    static let environment = ["TERM": "screen-256color", "COLORTERM": "truecolor",
                              "XDG_CONFIG_HOME": TestEnvironment.isolatedHomes.config, "XDG_STATE_HOME": TestEnvironment.isolatedHomes.state]

    /// Attaches an xterm of `columns` × `rows` to `session` and waits until tmux has made the
    /// window its size.
    static func attach(_ session: TmuxSession, columns: Int, rows: Int, resources: [String] = []) throws -> XtermSession {
        let x = try XtermSession(command: "/usr/bin/tmux -L '\(session.socket)' attach -t \(session.name)", columns: columns, rows: rows,
                                 resources: resources)
        let attached = waitUntil(10, interval: 0.05) { session.display("#{window_width}x#{window_height}") == "\(columns)x\(rows)" }
        if !attached { x.stop() }
        try #require(attached, "the xterm never attached: \(session.display("#{window_width}x#{window_height}")); \(x.state)")
        return x
    }

    /// xterm draws no sixel image wider or taller than its `maxGraphicSize` (1000×1000 unless
    /// set); tmux 3.3 says nothing of it, so the limit is asked of xterm through the passthrough.
    /// Here the window (160×48 cells of 6×13 px: 960×624) is wider than a 640×480 limit: the
    /// picture is capped to it and shows (before: a 797×598 picture xterm refused, a black
    /// screen with "0 dropped" in the stats).
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func theSixelPictureIsCappedToTheOuterTerminalsLimit() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let tmux = try TmuxSession(["/bin/sh"], environment: Self.environment, options: ["allow-passthrough": "on"])
        defer { tmux.close() }
        let x = try Self.attach(tmux, columns: 160, rows: 48, resources: ["XTerm*maxGraphicSize: 640x480"])
        defer { x.stop() }
        // The player starts in the attached pane (its probe reaches xterm through tmux).
        tmux.tmux(["send-keys", "-t", tmux.name, "-l",
                   "exec '\(TestEnvironment.binary)' '\(TestEnvironment.fixture("solid-red.mkv"))' --vo=sixel --ao=null --pause"])
        tmux.send("Enter")
        let picture = x.waitForRedPicture(minimum: 50_000)
        #expect(picture.count >= 50_000, "no picture through tmux (\(picture.count) red pixels; \(x.state)):\n\(tmux.screen())")
        #expect(picture.x1 - picture.x0 + 1 <= 640 && picture.y1 - picture.y0 + 1 <= 480,
                "the picture is not capped to xterm's 640×480: \(picture)")
        print("tmux in xterm (limit 640×480): red picture \(picture)")
    }

    /// A player started before any terminal attached sees tmux's placeholder of 16×32-px cells;
    /// when an xterm attaches, the pane's new size comes with the real cell size, and the
    /// half-block picture is laid out for it (before: kept 16×32, a 4:3 picture drawn ~8 % too
    /// narrow). The picture's shape is read from the pane.
    @Test(.enabled(if: XtermSession.toolsPresent || ProcessInfo.processInfo.environment["CI"] != nil))
    func theCellSizeIsReadAgainWhenATerminalAttaches() throws {
        #expect(XtermSession.toolsPresent, "Xvfb, xterm, xwd, ffmpeg or xdotool missing")
        let tmux = try TmuxSession([TestEnvironment.binary, TestEnvironment.fixture("solid-red.mkv"), "--vo=halfblock", "--ao=null", "--pause"],
                                   columns: 100, rows: 30, environment: Self.environment, options: ["allow-passthrough": "on"])
        defer { tmux.close() }
        #expect(tmux.waitFor(10) { $0.contains("00:00") }, "the player did not start:\n\(tmux.screen())")
        let x = try Self.attach(tmux, columns: 160, rows: 48)
        defer { x.stop() }
        let cell = (width: Double(x.windowSize.width) / 160, height: Double(x.windowSize.height) / 48)
        var extent = (columns: 0, rows: 0)
        let shaped = waitUntil(10, interval: 0.1) {
            // Solid red: every picture cell has a red background.
            extent = tmux.colours().extent { $0.r > 200 && $0.g < 40 && $0.b < 40 }
            guard extent.columns > 0, extent.rows > 0 else { return false }
            let aspect = Double(extent.columns) * cell.width / (Double(extent.rows) * cell.height)
            return abs(aspect / (4.0 / 3) - 1) < 0.03
        }
        #expect(shaped, "the picture is \(extent) cells of \(cell) px, not 4:3:\n\(tmux.screen())")
        print("tmux attached from xterm: \(extent) cells of \(cell) px")
    }
}
