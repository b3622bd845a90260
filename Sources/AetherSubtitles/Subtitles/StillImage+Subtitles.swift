import AetherBase
import AetherMedia
import CFFmpeg
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension StillImage {
    /// The picture with `cues` burnt in, as mpv's `s` screenshot has them: bitmap cues (PGS,
    /// DVB, DVD) blended at their place; text cues from ASS events (every text decoder makes
    /// them) drawn by libass at the picture's (source) resolution as their script places and
    /// styles them, at `cueSeconds` on the cues' timeline, with the file's fonts and `style`
    /// (``ASSOverlayRenderer``); other text cues, or all of them when `style` is nil or
    /// `--sub-ass=no`, rendered plain by libavfilter's `subtitles` filter at the bottom, centred.
    public func burning(_ cues: [SubtitleCue], style: ASSStyleOptions? = nil, at cueSeconds: Double? = nil) throws(FFmpegError) -> StillImage {
        var pixels = self.pixels
        for cue in cues {
            if case .bitmap(let bitmap) = cue.content {
                SubtitleBlender.blend(bitmap, into: &pixels, width: width, height: height)
            }
        }
        var plain = cues
        if let style, style.enabled, let cueSeconds, cues.contains(where: { $0.ass != nil }) {
            let renderer = ASSOverlayRenderer(options: style)
            renderer.update(cues: cues.filter { $0.ass != nil }, atSeconds: cueSeconds, width: width, height: height)
            renderer.overlay?.blend(into: &pixels, width: width, height: height)
            plain = cues.filter { $0.ass == nil }
        }
        let texts = plain.compactMap { cue -> String? in
            if case .text(let text) = cue.content, !text.isEmpty { return text }
            return nil
        }
        let blended = StillImage(width: width, height: height, pixels: pixels, seconds: seconds, isKeyframe: isKeyframe)
        guard !texts.isEmpty else { return blended }
        return StillImage(width: width, height: height, pixels: try blended.renderingText(texts.joined(separator: "\n")),
                          seconds: seconds, isKeyframe: isKeyframe)
    }

    /// The picture's pixels run through `subtitles=` with a one-cue SRT file shown throughout.
    private func renderingText(_ text: String) throws(FFmpegError) -> [UInt8] {
        // The cue's text goes through a file, never into the filter string (no escaping games).
        let path = Paths.temporaryDirectory(environment: ProcessInfo.processInfo.environment) + "aether-tui-burn-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).srt"
        let body = TextSanitizer.clean(text, keepNewlines: true)
        guard FileManager.default.createFile(atPath: path, contents: Data("1\n00:00:00,000 --> 99:00:00,000\n\(body)\n\n".utf8)) else {
            throw FFmpegError(function: "burn subtitles", message: "cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frame = try rgbFrame()
        let graph = try FilterGraph(video: "subtitles=filename=\(path):original_size=\(width)x\(height),format=rgb24",
                                    like: frame, timeBase: AVRational(num: 1, den: 1000))
        try graph.push(frame)
        let out = try Frame()
        guard try graph.pull(into: out), out.pointer.pointee.data.0 != nil,
              out.pointer.pointee.width == Int32(width), out.pointer.pointee.height == Int32(height) else {
            throw FFmpegError(function: "burn subtitles", message: "the subtitles filter gave no picture")
        }
        defer { out.unref() }
        var result = [UInt8](repeating: 0, count: width * height * 3)
        result.withUnsafeMutableBytes { ToneMapper.copyPacked(out, size: PixelSize(width: width, height: height), into: $0) }
        return result
    }
}
