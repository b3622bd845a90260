import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
import AetherTestSupport
import CFFmpeg
import Foundation
import Testing

/// libass into RGB pictures, fed as the demuxer feeds it (codec private data, then blocks),
/// against FFmpeg's `subtitles` filter (the same library) on the same frame.
@Suite(.serialized) struct ASSTrackRendererTests {
    static let width = 320, height = 240

    /// The fixture's ASS track: header (extradata) and its events with their times (ms).
    static func track(_ path: String) throws -> (header: [UInt8], events: [(data: [UInt8], start: Int64, duration: Int64)]) {
        let format = try FormatContext(url: path, interrupt: InterruptToken(clock: .monotonic))
        var index = -1
        var header: [UInt8] = []
        for i in 0..<format.streamCount {
            guard let par = format.stream(i)?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE else { continue }
            index = i
            if let extra = par.pointee.extradata { header = Array(UnsafeBufferPointer(start: extra, count: Int(par.pointee.extradata_size))) }
        }
        let stream = try #require(format.stream(index))
        let tb = stream.pointee.time_base
        let packet = try Packet()
        var events: [(data: [UInt8], start: Int64, duration: Int64)] = []
        while try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index, let data = packet.pointer.pointee.data, let pts = packet.pts else { continue }
            let ms = { (v: Int64) in av_rescale_q(v, tb, AVRational(num: 1, den: 1000)) }
            events.append((Array(UnsafeBufferPointer(start: data, count: packet.size)), ms(pts), ms(packet.duration)))
        }
        return (header, events)
    }

    static func grey() -> [UInt8] { [UInt8](repeating: 128, count: width * height * 3) }

    /// FFmpeg's `subtitles` filter shapes text with libass's simple shaper (see
    /// ``ASSTrackRenderer/Shaping``): compared with the same shaper. (With the complex one the
    /// kerning moves glyphs by sub-pixels: 37 dB over the boxes here.)
    @Test(.enabled(if: SubtitlesFilterReference.keepsColours, "this ffmpeg's subtitles filter draws VSFilter's TV.601 colours on RGB: no reference"))
    func matchesFFmpegsSubtitlesFilterOverTheTextBoxes() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-signs.mkv")
        let (header, events) = try Self.track(fixture)
        #expect(!header.isEmpty && events.count == 5)
        let renderer = try #require(ASSTrackRenderer(header: header, shaping: .simple))
        for e in events { renderer.addEvent(e.data, startMs: e.start, durationMs: e.duration) }
        var ours = Self.grey()
        let blended = ours.withUnsafeMutableBufferPointer {
            renderer.render(atMilliseconds: 2000, into: $0, width: Self.width, height: Self.height, stride: Self.width * 3)
        }
        #expect(blended)
        // The reference: a grey frame at 2 s through `subtitles` (blending in RGB).
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ass-ref-\(getpid()).rgb").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x808080:s=320x240:r=10:d=3",
                             "-vf", "format=rgb24,subtitles=filename=\(fixture)", "-ss", "2", "-frames:v", "1",
                             "-f", "rawvideo", "-pix_fmt", "rgb24", out], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let reference = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        if let dump = ProcessInfo.processInfo.environment["AETHER_ASS_DUMP"] {
            try Data(ours).write(to: URL(fileURLWithPath: dump + ".ours.rgb"))
            try Data(reference).write(to: URL(fileURLWithPath: dump + ".ref.rgb"))
        }
        try #require(reference.count == ours.count)
        // The subtitle bounding boxes: connected regions of pixels either picture changed.
        let changed = (0..<(Self.width * Self.height)).filter { p in
            (0..<3).contains { reference[p * 3 + $0] != 128 || ours[p * 3 + $0] != 128 }
        }
        #expect(changed.count > 1000, "the text covers \(changed.count) pixels")
        var sum = 0.0
        var count = 0
        for box in Self.boxes(changed) {
            for y in box.y0...box.y1 { for x in box.x0...box.x1 { for c in 0..<3 {
                let i = (y * Self.width + x) * 3 + c
                let d = Double(Int(ours[i]) - Int(reference[i]))
                sum += d * d; count += 1
            } } }
        }
        let mse = sum / Double(max(count, 1))
        let psnr = mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
        print("ASS PSNR vs ffmpeg subtitles over \(count / 3) px of boxes: \(String(format: "%.2f", psnr)) dB")
        #expect(psnr >= 40, "PSNR \(psnr) dB")
        // Not just grey against grey: our blend put the text where FFmpeg did.
        let ink = changed.filter { p in ours[p * 3] != 128 }.count
        #expect(ink > 500)
    }

    @Test func aSecondRenderOfTheSameImagesBlendsNothing() throws {
        let (header, events) = try Self.track(TestEnvironment.subtitleFixture("ass-signs.mkv"))
        let renderer = try #require(ASSTrackRenderer(header: header))
        for e in events { renderer.addEvent(e.data, startMs: e.start, durationMs: e.duration) }
        for e in events { renderer.addEvent(e.data, startMs: e.start, durationMs: e.duration) }  // a re-read: libass drops duplicates
        #expect(renderer.trackEventCount == events.count)
        var picture = Self.grey()
        func render(_ ms: Int64) -> Bool {
            picture.withUnsafeMutableBufferPointer { renderer.render(atMilliseconds: ms, into: $0, width: Self.width, height: Self.height, stride: Self.width * 3) }
        }
        #expect(render(2000))
        #expect(!render(2000), "unchanged images: the last blend stands")
        #expect(render(6000), "the events ended: the picture changes")
        #expect(!render(7000))
    }

    /// Bounding boxes of 8-connected groups of `pixels` (indices), grown by 2 px.
    static func boxes(_ pixels: [Int]) -> [(x0: Int, y0: Int, x1: Int, y1: Int)] { boxes(pixels, width: width, height: height) }

    /// The same in a picture `width` pixels wide and `height` high (``ASSOverlayTests`` too).
    static func boxes(_ pixels: [Int], width: Int, height: Int) -> [(x0: Int, y0: Int, x1: Int, y1: Int)] {
        var set = Set(pixels)
        var out: [(Int, Int, Int, Int)] = []
        while let start = set.first {
            set.remove(start)
            var stack = [start]
            var x0 = Int.max, y0 = Int.max, x1 = 0, y1 = 0
            while let p = stack.popLast() {
                let x = p % width, y = p / width
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                for dy in -1...1 { for dx in -1...1 {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                    if set.remove(ny * width + nx) != nil { stack.append(ny * width + nx) }
                } }
            }
            out.append((max(0, x0 - 2), max(0, y0 - 2), min(width - 1, x1 + 2), min(height - 1, y1 + 2)))
        }
        return out
    }
}

/// Hostile and heavy scripts through libass: bounded and logged once (what a frame costs is
/// `aether-bench subtitles`').
@Suite(.serialized) struct ASSTrackRendererLoadTests {
    static let header = Array("""
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 1280
        PlayResY: 720

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,DejaVu Sans,40,&H00FFFFFF,&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,2,1,2,20,20,30,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        """.utf8)

    @Test func aMalformedHeaderAndGarbageEventsStillRender() throws {
        let renderer = try #require(ASSTrackRenderer(header: Array("[Script Info]\nPlayResX: -5\n[V4+ Styles]\nFormat: Name\nStyle: ,,,,\n\u{0}\u{FF}".utf8)))
        renderer.addEvent(Array("not,an,event".utf8), startMs: 0, durationMs: 1000)
        renderer.addEvent([0xFF, 0xFE, 0x00, 0x41], startMs: 0, durationMs: 1000)
        renderer.addEvent(Array("0,0,Default,,0,0,0,,still shown".utf8), startMs: 0, durationMs: 1000)
        // On grey: libass 0.17.1 draws the event in its own white default style; 0.17.3 names the
        // unnamed style line "Default" (as VSFilter does), which is black and takes the event.
        var picture = [UInt8](repeating: 100, count: 320 * 240 * 3)
        let changed = picture.withUnsafeMutableBufferPointer { renderer.render(atMilliseconds: 500, into: $0, width: 320, height: 240, stride: 960) }
        #expect(changed)
        #expect(picture.filter { $0 != 100 }.count > 200, "the valid event was drawn")
        // A picture too small for its stride is refused, not written past.
        var small = [UInt8](repeating: 0, count: 10)
        #expect(!small.withUnsafeMutableBufferPointer { renderer.render(atMilliseconds: 500, into: $0, width: 320, height: 240, stride: 960) })
    }
}
