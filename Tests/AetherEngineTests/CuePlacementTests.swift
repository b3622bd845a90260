import AetherEngine
@testable import AetherSubtitles
import Foundation
import Testing

/// WebVTT cue settings (`line`, `position`, `align`), which FFmpeg's decoder drops: read from the
/// packets' side data, followed by the cell outputs (``StyledSubtitle``) and by libass.
@Suite(.serialized) struct CuePlacementTests {
    typealias Point = StyledSubtitle.Point

    @Test func settingsBecomeAnAnchorAndAPoint() {
        #expect(CuePlacement.webVTT("line:10% position:20% align:start") == CuePlacement(alignment: 7, position: Point(x: 0.2, y: 0.1)))
        #expect(CuePlacement.webVTT("line:0") == CuePlacement(alignment: 8, position: Point(x: 0.5, y: 0)))
        #expect(CuePlacement.webVTT("line:2 align:end") == CuePlacement(alignment: 9, position: Point(x: 1, y: 2 * CuePlacement.lineHeight)))
        #expect(CuePlacement.webVTT("line:-1") == CuePlacement(alignment: 2, position: Point(x: 0.5, y: 1)))
        #expect(CuePlacement.webVTT("align:end") == CuePlacement(alignment: 3, position: nil))
        #expect(CuePlacement.webVTT("position:30%,line-left") == CuePlacement(alignment: 2, position: Point(x: 0.3, y: 1)))
        #expect(CuePlacement.webVTT("line:50%,center align:middle") == CuePlacement(alignment: 8, position: Point(x: 0.5, y: 0.5)))
        // Nothing that moves the cue: the default placement (nil).
        for none in ["", "vertical:rl", "size:50%", "region:fred", "line", "align:"] { #expect(CuePlacement.webVTT(none) == nil, "\(none)") }
    }

    @Test func hostileSettingsAreIgnoredOneByOne() {
        // Out of range, not numbers, not finite: each ignored, the rest kept.
        #expect(CuePlacement.webVTT("line:1e400% position:-5% line:nan% line:99999999 position:101% align:évil") == nil)
        #expect(CuePlacement.webVTT("line:inf position:1e-400% align:start") == CuePlacement(alignment: 1, position: Point(x: 0, y: 1)))
        #expect(CuePlacement.webVTT("line:0.5 line:-1000") == CuePlacement(alignment: 2, position: Point(x: 0.5, y: 0)))
        // A huge settings string is read no further than its budget (the position past it is not seen).
        let long = String(repeating: "x:y ", count: 5000) + "position:10%"
        #expect(CuePlacement.webVTT(long) == nil)
        #expect(CuePlacement.webVTT("\u{0}\u{1B}[31m line:\u{202E}5%") == nil)
    }

    @Test func theOverrideGoesFirstInTheEventsText() {
        let p = CuePlacement(alignment: 7, position: Point(x: 0.25, y: 0.1))
        #expect(p.assOverride(resX: 1280, resY: 720) == "{\\an7\\pos(320,72)}")
        #expect(CuePlacement(alignment: 3, position: nil).assOverride(resX: 1280, resY: 720) == "{\\an3}")
        #expect(ASSOverlayRenderer.placed("5,0,Default,,0,0,0,,Hello, world", p, playArea: (1280, 720))
                == "5,0,Default,,0,0,0,,{\\an7\\pos(320,72)}Hello, world")
        // Not an event line: left as it is.
        #expect(ASSOverlayRenderer.placed("5,0,Default", p, playArea: (1280, 720)) == "5,0,Default")
    }

    /// A WebVTT file with a cue at the top left (`line:0 align:start position:5%`) and one with no
    /// settings: read through the demuxer and decoder as the player reads them, the first is
    /// placed in the cell outputs and drawn by libass at the top left, the second at the bottom.
    @Test func aVTTFileSCueSettingsPlaceItsCues() throws {
        let dir = NSTemporaryDirectory() + "aether-vtt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/cues.vtt"
        try """
        WEBVTT

        00:00:00.000 --> 00:00:02.000 line:0 align:start position:5%
        Top left

        00:00:02.000 --> 00:00:04.000
        Bottom centre

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let cues = try ASSOverlayTests.cues(path)
        try #require(cues.count == 2, "\(cues.map(\.text))")
        #expect(cues[0].placement == CuePlacement(alignment: 7, position: Point(x: 0.05, y: 0)))
        #expect(cues[0].styled?.alignment == 7 && cues[0].styled?.position == Point(x: 0.05, y: 0))
        #expect(cues[1].placement == nil && cues[1].styled?.alignment == 2)
        let renderer = ASSOverlayRenderer(fontconfig: true)
        renderer.update(cues: [cues[0]], atSeconds: 1, width: 320, height: 240)
        let top = try #require(renderer.overlay, "the first cue draws nothing")
        #expect(top.y < 30 && top.x < 40, "the top-left cue is at \(top.x),\(top.y) \(top.width)×\(top.height)")
        renderer.update(cues: [cues[1]], atSeconds: 3, width: 320, height: 240)
        let bottom = try #require(renderer.overlay, "the second cue draws nothing")
        #expect(bottom.y > 160 && bottom.x > 40, "the bottom cue is at \(bottom.x),\(bottom.y) \(bottom.width)×\(bottom.height)")
    }
}
