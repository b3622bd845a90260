import AetherEngine
@testable import AetherMedia
@testable import AetherSubtitles
@testable import AetherPlayback
import AetherTestSupport
import CFFmpeg
import Foundation
import Testing

/// libass as the pixel outputs use it: cues decoded by the engine (header, events, attached
/// fonts), one overlay composited per change, blended at the render size; against FFmpeg's
/// `subtitles` filter (the same library and fonts) on the same frame.
@Suite(.serialized) struct ASSOverlayTests {
    /// Every text cue of `path`'s first subtitle track, decoded as the demuxer decodes them,
    /// with the file's attached fonts.
    static func cues(_ path: String) throws -> [SubtitleCue] {
        let format = try FormatContext(url: path, interrupt: InterruptToken(clock: .monotonic))
        let fonts = SourceOpener.attachedFonts(format)
        let index = try #require((0..<format.streamCount).first {
            format.stream($0)?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE
        })
        let stream = try #require(format.stream(index))
        let decoder = try CodecContext(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base, threads: 1)
        let packet = try Packet()
        var cues: [SubtitleCue] = []
        while try format.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            cues += SubtitleDecoder.decode(packet, decoder: decoder, stream: stream, timeline: Timeline(origin: 0),
                                           width: 320, height: 240, origin: 0)
        }
        return cues.map { cue in
            var cue = cue
            cue.ass?.fonts = fonts
            return cue
        }
    }

    static func grey(_ w: Int, _ h: Int) -> [UInt8] { [UInt8](repeating: 128, count: w * h * 3) }

    /// Our picture: grey, the overlay at `seconds` blended in.
    static func ours(_ cues: [SubtitleCue], at seconds: Double, _ w: Int, _ h: Int,
                     options: ASSStyleOptions = ASSStyleOptions(), storage: (width: Int, height: Int)? = nil) -> [UInt8] {
        let renderer = ASSOverlayRenderer(options: options, shaping: .simple)
        renderer.update(cues: cues.filter { $0.start <= seconds && seconds < $0.end }, atSeconds: seconds, width: w, height: h,
                        storage: storage)
        var picture = grey(w, h)
        renderer.overlay?.blend(into: &picture, width: w, height: h)
        return picture
    }

    /// FFmpeg's `subtitles` filter over a grey `w`×`h` frame at `seconds` (blending in RGB).
    static func reference(_ path: String, at seconds: Double, _ w: Int, _ h: Int, originalSize: String? = nil) throws -> [UInt8] {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ass-overlay-ref-\(getpid()).rgb").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x808080:s=\(w)x\(h):r=10:d=\(Int(seconds) + 1)",
                             "-vf", "format=rgb24,subtitles=filename=\(path)" + (originalSize.map { ":original_size=\($0)" } ?? ""), "-ss", "\(seconds)", "-frames:v", "1",
                             "-f", "rawvideo", "-pix_fmt", "rgb24", out], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// PSNR of `a` against `b` over the bounding boxes of the pixels either one changed from
    /// grey, and how many pixels those boxes hold.
    static func boxPSNR(_ a: [UInt8], _ b: [UInt8], _ w: Int, _ h: Int) -> (psnr: Double, pixels: Int) {
        let changed = (0..<(w * h)).filter { p in (0..<3).contains { a[p * 3 + $0] != 128 || b[p * 3 + $0] != 128 } }
        var sum = 0.0, count = 0
        for box in boxes(changed, w, h) {
            for y in box.y0...box.y1 { for x in box.x0...box.x1 { for c in 0..<3 {
                let i = (y * w + x) * 3 + c
                let d = Double(Int(a[i]) - Int(b[i]))
                sum += d * d; count += 1
            } } }
        }
        let mse = sum / Double(max(count, 1))
        return (mse == 0 ? 99 : 10 * log10(255 * 255 / mse), count / 3)
    }

    /// Bounding boxes of 8-connected groups of `pixels`, grown by 2 px.
    static func boxes(_ pixels: [Int], _ width: Int, _ height: Int) -> [(x0: Int, y0: Int, x1: Int, y1: Int)] {
        ASSTrackRendererTests.boxes(pixels, width: width, height: height)
    }

    /// At a render size other than the script's PlayRes and the video's (480×360 for 320×240):
    /// PlayResX/Y scale; the storage size is the video's, as FFmpeg's `original_size` sets it.
    @Test(.enabled(if: SubtitlesFilterReference.keepsColours, "this ffmpeg's subtitles filter draws VSFilter's TV.601 colours on RGB: no reference"))
    func theOverlayAtTheRenderSizeMatchesFFmpegsSubtitlesFilter() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-signs.mkv")
        let cues = try Self.cues(fixture)
        #expect(cues.count == 5 && cues.allSatisfy { $0.ass?.header.isNative == true })
        let (w, h) = (480, 360)
        let ours = Self.ours(cues, at: 2, w, h, storage: (320, 240))
        let reference = try Self.reference(fixture, at: 2, w, h, originalSize: "320x240")
        try #require(reference.count == ours.count)
        if let dump = ProcessInfo.processInfo.environment["AETHER_ASS_DUMP"] {
            try Data(ours).write(to: URL(fileURLWithPath: dump + ".ours.rgb"))
            try Data(reference).write(to: URL(fileURLWithPath: dump + ".ref.rgb"))
        }
        let (psnr, pixels) = Self.boxPSNR(ours, reference, w, h)
        print("libass overlay at 480x360 vs ffmpeg subtitles: \(String(format: "%.2f", psnr)) dB over \(pixels) px of boxes")
        #expect(pixels > 3000)
        #expect(psnr >= 40, "PSNR \(psnr) dB")
        // The \an8 sign is in the top rows, the bottom line in the bottom rows.
        let inkRows = (0..<h).filter { y in (0..<w).contains { x in ours[(y * w + x) * 3 + 2] > 200 } }
        #expect(inkRows.contains { $0 < h / 8 } && inkRows.contains { $0 > h * 7 / 8 })
    }

    @Test(.enabled(if: SubtitlesFilterReference.keepsColours, "this ffmpeg's subtitles filter draws VSFilter's TV.601 colours on RGB: no reference"))
    func theAttachedFontIsUsedAndDiffersFromTheFallback() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-font.mkv")
        let cues = try Self.cues(fixture)
        let fonts = try #require(cues.first?.ass?.fonts)
        #expect(fonts.fonts.count == 1 && fonts.fonts[0].name == "AetherSerif.ttf")
        let (w, h) = (320, 240)
        let withFont = Self.ours(cues, at: 1, w, h)
        let fallback = Self.ours(cues.map { var c = $0; c.ass?.fonts = nil; return c }, at: 1, w, h)
        let reference = try Self.reference(fixture, at: 1, w, h)
        let sameAsFFmpeg = Self.boxPSNR(withFont, reference, w, h)
        let againstFallback = Self.boxPSNR(withFont, fallback, w, h)
        print(String(format: "attached font: %.2f dB vs ffmpeg (which loads it too); %.2f dB vs the fallback font", sameAsFFmpeg.psnr, againstFallback.psnr))
        #expect(sameAsFFmpeg.psnr >= 40)
        #expect(againstFallback.psnr < 25, "the attached serif glyphs differ from the fallback's")
    }

    @Test func aStillMomentIsNotCompositedAgainAndAnEndedCueClears() throws {
        let cues = try Self.cues(TestEnvironment.subtitleFixture("ass-signs.mkv"))
        let renderer = ASSOverlayRenderer(shaping: .simple)
        #expect(renderer.update(cues: cues, atSeconds: 2, width: 320, height: 240))
        #expect(renderer.overlay != nil && renderer.composites == 1)
        #expect(!renderer.update(cues: cues, atSeconds: 2, width: 320, height: 240), "detect_change: nothing new")
        #expect(renderer.composites == 1)
        #expect(renderer.update(cues: cues, atSeconds: 2, width: 640, height: 480), "a new size draws again")
        #expect(renderer.update(cues: [], atSeconds: 6, width: 640, height: 480))
        #expect(renderer.overlay == nil)
    }

    /// A SubRip sidecar goes through libass with the options' style: colour and --sub-pos.
    @Test func convertedSubtitlesTakeTheOptionsStyle() throws {
        let srt = "1\n00:00:00,000 --> 00:00:05,000\nHello <i>there</i>\n"
        let format = try FormatContext(bytes: Array(srt.utf8), clock: .monotonic)
        let stream = try #require(format.stream(0))
        let decoder = try CodecContext(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base, threads: 1)
        let packet = try Packet()
        var cues: [SubtitleCue] = []
        while try format.read(into: packet) {
            cues += SubtitleDecoder.decode(packet, decoder: decoder, stream: stream, timeline: format.timeline, width: 0, height: 0, origin: 0)
            packet.unref()
        }
        try #require(cues.count == 1)
        #expect(cues[0].ass?.header.isNative == false)
        let (w, h) = (640, 360)
        func redRows(_ options: ASSStyleOptions) -> [Int] {
            let picture = Self.ours(cues, at: 1, w, h, options: options)
            return (0..<h).filter { y in (0..<w).contains { x in
                let i = (y * w + x) * 3
                return picture[i] > 200 && picture[i + 1] < 60 && picture[i + 2] < 60
            } }
        }
        var red = ASSStyleOptions()
        red.color = try #require(ASSStyleOptions.parseColor("#FF0000"))
        let bottom = redRows(red)
        #expect(!bottom.isEmpty, "the text is drawn in --sub-color")
        var raised = red
        raised.position = 50
        let middle = redRows(raised)
        #expect(!middle.isEmpty && middle.max()! < bottom.min()!, "--sub-pos=50 lifts it: \(middle.max() ?? -1) vs \(bottom.min() ?? -1)")
        var big = red
        big.fontSize = 110
        #expect(redRows(big).count > bottom.count * 3 / 2, "--sub-font-size makes it taller")
    }

    @Test func optionValuesAreCheckedAndClamped() {
        #expect(ASSStyleOptions.parseColor("#FF8000") == 0xFF80_00FF)
        #expect(ASSStyleOptions.parseColor("#80FF8000") == 0xFF80_0080)
        for bad in ["red", "#12345", "#GG0000", "FF0000", "#FF00000000", ""] { #expect(ASSStyleOptions.parseColor(bad) == nil, "\(bad)") }
        var o = ASSStyleOptions()
        o.fontSize = .nan; o.scale = 1e300; o.position = -4; o.borderSize = .infinity
        #expect(o.fontSize == 1 && o.scale == 100 && o.position == 0 && o.borderSize == 100)
        // A font name cannot break the header it is written into.
        o.font = "Evil,Name\n[Events]\nDialogue: x"
        let header = String(decoding: o.defaultHeader(aspect: .nan), as: UTF8.self)
        let lines = header.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("[Events]") }.count == 1 && !lines.contains { $0.hasPrefix("Dialogue") })
        #expect(header.contains("PlayResX: 1280"))
    }
}

/// The hostile doors of the libass path: bounded, logged once, never waiting past the budget.
@Suite(.serialized) struct ASSOverlayHostileTests {
    /// The load tests' 1280×720 script header (one `Default` style).
    static let header = ASSTrackRendererLoadTests.header

    static func cue(_ n: Int, header: ASSHeader, fonts: ASSFontSet? = nil, text: String, start: Double = 0, end: Double = 10) -> SubtitleCue {
        SubtitleCue(start: start, end: end, content: .text(text), styled: nil,
                    ass: ASSSource(header: header, fonts: fonts, event: "\(n),0,Default,,0,0,0,,\(text)"))
    }

    @Test func aHugeAttachmentAndABrokenFontAreSkippedOrLoggedOnceAndTextStillDraws() throws {
        let skip = "'huge.ttf' (\(50 << 20) bytes) skipped"
        let before = ASSLog.recentLines(containing: skip)
        let huge = ASSFontSet.Font(name: "huge.ttf", data: [UInt8](repeating: 0, count: 50 << 20))
        let set = ASSFontSet(fonts: [huge, huge, ASSFontSet.Font(name: "broken.ttf", data: [0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0xEE, count: 4096))])
        #expect(set.fonts.map(\.name) == ["broken.ttf"], "a 50 MB attachment is over the limit")
        #expect(ASSLog.recentLines(containing: skip) - before == 1, "the same skip is logged once")
        let header = ASSHeader(bytes: Self.header, isNative: true)
        let renderer = ASSOverlayRenderer(shaping: .simple)
        renderer.update(cues: [Self.cue(1, header: header, fonts: set, text: "still drawn")], atSeconds: 1, width: 640, height: 360)
        #expect(renderer.overlay != nil, "a font that fails to load leaves the fallback")
    }

    @Test func aMalformedHeaderAndEventsStillDrawTheValidOne() throws {
        let header = ASSHeader(bytes: Array("[Script Info]\nPlayResX: -5\n[V4+ Styles]\nFormat: Name\nStyle: ,,,,\n\u{0}\u{FF}".utf8), isNative: true)
        let renderer = ASSOverlayRenderer(shaping: .simple)
        var garbage = Self.cue(1, header: header, text: "x")
        garbage.ass?.event = "no commas at all"
        var binary = Self.cue(2, header: header, text: "y")
        binary.ass?.event = "2,\u{0}\u{1B}[2J,,,,,,,\u{FFFF}"
        renderer.update(cues: [garbage, binary, Self.cue(3, header: header, text: "still shown")], atSeconds: 1, width: 320, height: 240)
        #expect(renderer.overlay != nil)
        // An absurd play area: drawn or not, nothing traps and the call comes back.
        let absurd = ASSHeader(bytes: Array("[Script Info]\nPlayResX: 99999999999\nPlayResY: 1e99\n".utf8), isNative: true)
        renderer.update(cues: [Self.cue(1, header: absurd, text: "huge")], atSeconds: 1, width: 320, height: 240)
    }

    /// 10,000 events on screen at once: the render thread waits for libass no longer than its
    /// budget, keeps the last overlay, and the skip is counted (and logged once). With a budget
    /// of nothing it does not wait at all (libass cannot have drawn 10,000 signs by then), so no
    /// reading of the wall clock decides the test; what a frame's budget costs in playback is
    /// `aether-bench subtitles`'.
    @Test func tenThousandEventsNeverHoldTheRenderThreadPastItsBudget() throws {
        let header = ASSHeader(bytes: Self.header, isNative: true)
        let cues = (0..<10_000).map { i in
            Self.cue(i, header: header, text: "{\\pos(\((i * 37) % 1280),\((i * 53) % 720))\\frz\(i % 90)\\blur3}Sign \(i)")
        }
        let worker = ASSOverlayWorker(options: ASSStyleOptions(), shaping: .simple)
        defer { worker.stop() }
        for frame in 0..<5 {
            let overlay = worker.overlay(cues: cues, atSeconds: 1 + Double(frame) * 0.04, width: 1280, height: 720, budget: 0)
            #expect(overlay == nil, "frame \(frame): nothing drawn yet, so nothing to keep")
        }
        #expect(worker.skippedUpdates == 5, "each update libass was not done with was skipped: \(worker.skippedUpdates)")
    }

    /// A 1 MiB event line is cut at 64 KiB and weighs that much against the store's byte budget.
    @Test func aHugeEventIsCutAndCountedAgainstTheStoresBudget() throws {
        let line = "1,0,Default,,0,0,0,,{\\p1}m 0 0" + String(repeating: " l 1 1", count: 200_000)
        let cut = line.withCString { SubtitleDecoder.limitedEvent($0) }
        #expect(cut.utf8.count == ASSSource.maxEventBytes)
        let header = ASSHeader(bytes: Self.header, isNative: true)
        var cue = Self.cue(1, header: header, text: "")
        cue.ass?.event = cut
        #expect(cue.bitmapBytes == ASSSource.maxEventBytes)
        let renderer = ASSOverlayRenderer(fontconfig: false)
        renderer.update(cues: [cue], atSeconds: 1, width: 320, height: 240)  // a cut drawing: drawn or not, it returns
    }

    @Test func aWorkerStopsAndJoinsAndAnswersNothingAfter() {
        let worker = ASSOverlayWorker(options: ASSStyleOptions())
        worker.stop()
        worker.stop()
        #expect(worker.overlay(cues: [], atSeconds: 0, width: 10, height: 10, budget: 1) == nil)
    }
}

extension ASSOverlayTests {
    /// Cues fetched again after a seek come from a second decoder of the same stream (another
    /// header object, the same bytes): one libass track keeps drawing all of them.
    @Test func cuesFromASecondDecoderOfTheSameTrackShareItsRenderer() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-signs.mkv")
        let first = try Self.cues(fixture), second = try Self.cues(fixture)
        #expect(first[0].ass?.header !== second[0].ass?.header)
        let renderer = ASSOverlayRenderer(shaping: .simple)
        let mixed = Array(first.prefix(2)) + Array(second.dropFirst(2))
        renderer.update(cues: mixed, atSeconds: 2, width: 320, height: 240)
        var picture = Self.grey(320, 240)
        renderer.overlay?.blend(into: &picture, width: 320, height: 240)
        let whole = Self.ours(first, at: 2, 320, 240)
        #expect(Self.boxPSNR(picture, whole, 320, 240).psnr >= 60, "every cue drawn, once")
    }
}

extension ASSOverlayTests {
    /// `s`: the libass rendering burnt in at source resolution, the sign at its scripted place;
    /// with `--sub-ass=no` the drawing is not (plain text only).
    @Test func screenshotsBurnInTheLibassRenderingAtSourceResolution() throws {
        let fixture = TestEnvironment.subtitleFixture("ass-sign-e2e.mkv")
        let cues = try Self.cues(fixture)
        let green = [UInt8](repeating: 0, count: 320 * 240 * 3).enumerated().map { $0.offset % 3 == 1 ? UInt8(0xC0) : 0 }
        let still = StillImage(width: 320, height: 240, pixels: green, seconds: 1, isKeyframe: true)
        let burnt = try still.burning(cues, style: ASSStyleOptions(), at: 1)
        func isRed(_ p: [UInt8], _ x: Int, _ y: Int) -> Bool {
            let i = (y * 320 + x) * 3
            return p[i] > 200 && p[i + 1] < 60 && p[i + 2] < 60
        }
        #expect(isRed(burnt.pixels, 245, 165) && isRed(burnt.pixels, 295, 215), "inside the scripted square")
        #expect(!isRed(burnt.pixels, 235, 165) && !isRed(burnt.pixels, 245, 155) && !isRed(burnt.pixels, 305, 215))
        var off = ASSStyleOptions()
        off.enabled = false
        let plain = try still.burning(cues, style: off, at: 1)
        #expect(!isRed(plain.pixels, 270, 190), "--sub-ass=no: no drawing")
    }
}

extension ASSOverlayHostileTests {
    /// A Matroska file with a 50 MB "font" attachment (made here, removed after): skipped before
    /// it is copied, logged once; the attached fonts under the limits are still read.
    @Test func aFiftyMegabyteAttachmentInAFileIsSkippedBeforeItIsCopied() throws {
        let dir = NSTemporaryDirectory() + "aether-ass-attach-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(FileManager.default.createFile(atPath: dir + "/huge.ttf", contents: Data(count: 50_000_000)))
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=s=64x64:d=1", "-c:v", "libx264",
                             "-attach", dir + "/huge.ttf", "-metadata:s:t:0", "mimetype=font/ttf",
                             "-attach", font, "-metadata:s:t:1", "mimetype=application/vnd.ms-opentype",
                             dir + "/a.mkv"], timeout: 60)
        try #require(r.status == 0, "\(r.stderr)")
        let skip = "'huge.ttf' (50000000 bytes) skipped"
        let before = ASSLog.recentLines(containing: skip)
        let format = try FormatContext(url: dir + "/a.mkv", interrupt: InterruptToken(clock: .monotonic))
        let fonts = try #require(SourceOpener.attachedFonts(format))
        #expect(fonts.fonts.map(\.name) == ["DejaVuSerif.ttf"])
        _ = SourceOpener.attachedFonts(format)
        #expect(ASSLog.recentLines(containing: skip) - before == 1, "the skip is logged once")
    }
}
