import Foundation
import Testing
@testable import TerminalGraphics

/// The terminal's background colour (OSC 11, #62 item 14; unit tier): the replies xterm 379 and
/// mlterm sent under Xvfb (`rgb:ffff/ffff/ffff`, ST-terminated), kitty's BEL form, the 2-digit
/// form, then hostile and broken ones, which set nothing and keep the rest of the probe whole.
@Suite struct BackgroundReplyTests {
    static func probe(_ reply: String, chunk: Int = .max) -> CapabilityProbe.Report {
        DirectColorProbeTests.probe(reply + DirectColorProbeTests.dsr, chunk: chunk)
    }

    @Test(arguments: [("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\", 1.0, 1.0, 1.0, true),     // xterm, mlterm: white
                      ("\u{1B}]11;rgb:0000/0000/0000\u{07}", 0.0, 0.0, 0.0, false),     // BEL-terminated
                      ("\u{1B}]11;rgb:00/2b/36\u{1B}\\", 0.0, 43.0 / 255, 54.0 / 255, false),   // solarized base03, 2 digits
                      ("\u{1B}]11;rgb:f/8/0\u{1B}\\", 1.0, 8.0 / 15, 0.0, true)] as [(String, Double, Double, Double, Bool)])
    func aReplyGivesTheBackground(reply: String, red: Double, green: Double, blue: Double, light: Bool) throws {
        for chunk in [Int.max, 1, 5] {
            let report = Self.probe(reply, chunk: chunk)
            let colour = try #require(report.capabilities.background, "chunk \(chunk): no background from \(reply.debugDescription)")
            #expect(abs(colour.red - red) < 1e-9 && abs(colour.green - green) < 1e-9 && abs(colour.blue - blue) < 1e-9, "\(colour)")
            #expect(colour.isLight == light && report.strayInput.isEmpty && report.capabilities.probe.answered)
        }
        #expect(Self.probe(reply).capabilities.summaryLines.contains { $0.hasPrefix("background (OSC 11): #") })
    }

    /// Five digits, a missing part, a colour space we do not read, a control inside, a string
    /// that never ends: no background, and the DSR after it is still read.
    @Test(arguments: ["\u{1B}]11;rgb:fffff/ffff/ffff\u{1B}\\", "\u{1B}]11;rgb:ffff/ffff\u{1B}\\", "\u{1B}]11;rgba:1/1/1/1\u{1B}\\",
                      "\u{1B}]11;rgb:ff\u{01}f/0/0\u{1B}\\", "\u{1B}]11;rgb:zz/00/00\u{07}", "\u{1B}]10;rgb:ffff/ffff/ffff\u{1B}\\",
                      "\u{1B}]11;rgb:" + String(repeating: "f", count: 5000)])
    func hostileRepliesSetNothing(reply: String) {
        let report = Self.probe(reply)
        #expect(report.capabilities.background == nil, "\(reply.prefix(40).debugDescription)")
        #expect(report.capabilities.probe.answered, "the DSR after it was lost: \(reply.prefix(40).debugDescription)")
    }
}
