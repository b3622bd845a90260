import Foundation

/// FFmpeg's `subtitles` filter as the reference a libass blend is compared with. FFmpeg 8 and
/// later draw a script without a `YCbCr Matrix` line with VSFilter's TV.601 colours even on an
/// RGB frame (white becomes 235); the player, like mpv on RGB output, draws ASS colours as they
/// are written, so there the filter is no reference and the comparison reports itself skipped.
public enum SubtitlesFilterReference {
    /// Whether the installed ffmpeg draws written colours unchanged: a white drawing over
    /// black, through the filter, comes out white.
    public static let keepsColours: Bool = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aether-ass-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("white.ass").path
        let out = dir.appendingPathComponent("out.rgb").path
        let text = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 64
            PlayResY: 64

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,DejaVu Sans,18,&H00FFFFFF,&H00FFFFFF,&H00FFFFFF,&H00FFFFFF,0,0,0,0,100,100,0,0,1,0,0,7,0,0,0,1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:00.00,0:00:05.00,Default,,0,0,0,,{\\pos(0,0)\\p1}m 0 0 l 64 0 64 64 0 64{\\p0}

            """
        guard (try? text.write(toFile: script, atomically: true, encoding: .utf8)) != nil else { return true }
        let r = Process.run(["/usr/bin/ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=64x64:r=10:d=1",
                             "-vf", "format=rgb24,subtitles=filename=\(script)", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out],
                            timeout: 60)
        guard r.status == 0, let data = FileManager.default.contents(atPath: out), !data.isEmpty else { return true }
        return data.max() == 255
    }()
}
