import AetherEngine
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The human-readable `probe` report. Every string in `MediaInfo` is already sanitised.
enum ProbeReport {
    /// The report, headed by `heading` (default: the source's path or URL).
    static func render(_ info: MediaInfo, heading: String? = nil) -> String {
        var out = ""
        func line(_ s: String) { out += s + "\n" }
        line(heading ?? "\(info.url)")
        line("  Container   \(info.containerLongName) (\(info.container))")
        if let title = info.title { line("  Title       \(title)") }
        var summary = "  Duration    \(info.duration.map(timestamp) ?? "unknown")"
        if let rate = info.bitRate { summary += "   bitrate \(kbps(rate))" }
        line(summary)
        if !info.titles.isEmpty {
            line("  Titles      \(info.titles.count) (a disc; --edition=N plays another)")
            for t in info.titles {
                line("    #\(t.number)  \(timestamp(t.duration))  \(t.chapters) chapter\(t.chapters == 1 ? "" : "s")\(t.playlist.map { "  \($0)" } ?? "")\(t.playing ? "  (playing)" : "")")
            }
        }
        if !info.chapters.isEmpty {
            line("  Chapters    \(info.chapters.count)")
            for (n, c) in info.chapters.enumerated() {
                line("    #\(n + 1)  \(timestamp(c.start)) – \(timestamp(c.end))  \(c.title ?? "")")
            }
        }
        for v in info.video {
            let upright = v.uprightSize
            var parts = [codec(v.codec, v.profile), "\(upright.width)×\(upright.height)"
                         + (v.rotation == 0 ? "" : " (rotated \(v.rotation)°, coded \(v.width)×\(v.height))")]
            if let pf = v.colour.pixelFormat { parts.append(pf + (v.colour.bitDepth.map { " \($0)-bit" } ?? "")) }
            if let fps = v.frameRate { parts.append("\(fpsText(fps)) fps") }
            parts.append(v.isInterlaced ? "interlaced (\(v.fieldOrder))" : v.fieldOrder)
            if v.colour.primaries != nil || v.colour.transfer != nil || v.colour.matrix != nil {
                parts.append("colour \(v.colour.primaries ?? "?")/\(v.colour.transfer ?? "?")/\(v.colour.matrix ?? "?")")
            }
            var format = v.format.rawValue
            if let dv = v.dolbyVision { format += " profile \(dv.profile) level \(dv.level)" }
            parts.append(format)
            line("  Video    #\(v.index)  " + parts.joined(separator: "  ") + flags(v.tags))
        }
        for a in info.audio {
            var parts = [codec(a.codec, a.profile), "\(a.sampleRate) Hz", "\(a.layoutShort) (\(a.layout))"]
            if a.isAtmos { parts.append("Atmos") }
            if let br = a.bitRate { parts.append(kbps(br)) }
            line("  Audio    #\(a.index)  " + parts.joined(separator: "  ") + flags(a.tags))
        }
        for s in info.subtitles {
            line("  Subtitle #\(s.index)  \(s.codec) (\(s.kind.rawValue))" + flags(s.tags))
        }
        for a in info.attachments {
            var parts = [a.kind]
            if let f = a.filename { parts.append(f) }
            if let m = a.mimeType { parts.append(m) }
            if a.size > 0 { parts.append("\(a.size) bytes") }
            line("  Attached #\(a.index)  " + parts.joined(separator: "  "))
        }
        return out
    }

    private static func codec(_ name: String, _ profile: String?) -> String {
        profile.map { "\(name) (\($0))" } ?? name
    }

    private static func flags(_ tags: StreamTags) -> String {
        var parts: [String] = []
        if let l = tags.language { parts.append(l) }
        if let t = tags.title { parts.append("\"\(t)\"") }
        if tags.isDefault { parts.append("[default]") }
        if tags.isForced { parts.append("[forced]") }
        return parts.isEmpty ? "" : "  " + parts.joined(separator: "  ")
    }

    /// `hh:mm:ss.mmm`; a time out of all reason (a damaged header's 9e18 s) as plain seconds,
    /// never through an integer conversion that could trap.
    static func timestamp(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return String(cFormat: "%.3f s", seconds) }
        let ms = Int((seconds * 1000).rounded())
        return String(cFormat: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    private static func kbps(_ bits: Int) -> String { "\(bits / 1000 + (bits % 1000 >= 500 ? 1 : 0)) kb/s" }

    private static func fpsText(_ fps: Double) -> String {
        fps.isFinite && fps == fps.rounded() && abs(fps) < 1e15 ? String(Int(fps)) : String(cFormat: "%.3f", fps)
    }
}

/// The `probe --packets` / `--frames` tables: fixed-width columns (a value too wide for its column
/// pushes the rest of its row right rather than being cut), `N/A` where FFmpeg gave no value, times
/// as ffprobe prints them (`%.6f`, never converted to an integer). Every string in the records is
/// already sanitised.
enum InspectionTable {
    static let packetColumns = line([
        ("stream", 6, .right), ("type", 8, .left), ("pts", 12, .right), ("pts_time", 14, .right),
        ("dts", 12, .right), ("dts_time", 14, .right), ("duration", 9, .right), ("duration_time", 13, .right),
        ("size", 9, .right), ("pos", 12, .right), ("flags", 5, .left), ("side_data", 0, .left),
    ])

    static func row(_ p: PacketRecord) -> String {
        line([
            (String(p.stream), 6, .right), (p.kind.rawValue, 8, .left), (ticks(p.pts), 12, .right),
            (seconds(p.ptsTime), 14, .right), (ticks(p.dts), 12, .right), (seconds(p.dtsTime), 14, .right),
            (ticks(p.duration), 9, .right), (seconds(p.durationTime), 13, .right), (String(p.size), 9, .right),
            (p.position.map { String($0) } ?? "N/A", 12, .right), (p.flags, 5, .left),
            (p.sideData.joined(separator: ", "), 0, .left),
        ])
    }

    static let frameColumns = line([
        ("stream", 6, .right), ("type", 8, .left), ("pict", 4, .left), ("key", 3, .left),
        ("pts_time", 16, .right), ("best_effort_time", 16, .right), ("pkt_pos", 12, .right),
        ("pkt_size", 8, .right), ("fields", 6, .left), ("size", 11, .left), ("format", 24, .left),
        ("decode_errors", 0, .left),
    ])

    static func row(_ f: FrameRecord) -> String {
        let fields = f.kind != .video ? "-" : !f.picture.isInterlaced ? "prog" : f.picture.topFieldFirst ? "tff" : "bff"
        let size: String
        var format = f.format ?? "N/A"
        if f.kind == .audio {
            size = "\(f.samples.sampleCount ?? 0) smp"
            if let rate = f.samples.sampleRate { format += " \(rate) Hz" }
            if let layout = f.samples.channelLayout ?? f.samples.channels.map({ "\($0) ch" }) { format += " \(layout)" }
        } else {
            size = "\(f.picture.width ?? 0)×\(f.picture.height ?? 0)"
        }
        return line([
            (String(f.stream), 6, .right), (f.kind.rawValue, 8, .left), (f.picture.pictureType ?? "-", 4, .left),
            (f.isKey ? "K" : "-", 3, .left), (seconds(f.times.ptsTime), 16, .right), (seconds(f.times.bestEffortTime), 16, .right),
            (f.origin.position.map { String($0) } ?? "N/A", 12, .right),
            (f.origin.size.map { String($0) } ?? "N/A", 8, .right), (fields, 6, .left), (size, 11, .left),
            (format, 24, .left), (f.damage.decodeErrors.joined(separator: ","), 0, .left),
        ])
    }

    static func row(_ e: DecodeErrorRecord) -> String {
        var text = "ERROR \(e.function): \(e.message)"
        if let p = e.packet {
            text += " (packet pts_time \(seconds(p.ptsTime)), dts_time \(seconds(p.dtsTime)), pos "
                + "\(p.position.map { String($0) } ?? "N/A"), size \(p.size), flags \(p.flags))"
        } else {
            text += " (while draining the decoder)"
        }
        return line([(String(e.stream), 6, .right), (e.kind.rawValue, 8, .left), (text, 0, .left)])
    }

    static func row(_ s: SkippedStream) -> String {
        line([(String(s.stream), 6, .right), (s.kind.rawValue, 8, .left), ("skipped (\(s.codec)): \(s.reason)", 0, .left)])
    }

    /// `# stream 0: video h264, time base 1/1000` for each listed stream.
    static func streamLines(_ streams: [InspectedStream]) -> [String] {
        streams.map { "# stream \($0.index): \($0.kind.rawValue) \($0.codec), time base \($0.timeBase)" }
    }

    /// The closing `#` line: totals and why the listing stopped.
    static func summary(_ end: InspectionEnd, noun: String) -> String {
        var text: String
        if noun == "frame" {
            text = "# \(plural(end.frames, "frame"))"
            if end.damagedFrames > 0 { text += " (\(end.damagedFrames) damaged)" }
            text += ", \(plural(end.decodeErrors, "decode error")), \(plural(end.packets, "packet")) read"
        } else {
            text = "# \(plural(end.packets, "packet"))"
        }
        switch end.reason {
        case .endOfFile: text += "; end of file"
        case .countLimit: text += "; stopped at --count (--count all for the rest)"
        case .lengthLimit: text += "; stopped at --length"
        case .readError: text += "; stopped by a read error: \(end.error ?? "unknown")"
        case .timedOut: text += "; stopped: a read blocked longer than --read-timeout"
        }
        return text
    }

    private enum Alignment { case left, right }

    /// Columns separated by two spaces; width 0 = as wide as the value (last column).
    private static func line(_ cells: [(String, Int, Alignment)]) -> String {
        var out = ""
        for (n, (text, width, alignment)) in cells.enumerated() {
            if n > 0 { out += "  " }
            let pad = String(repeating: " ", count: max(0, width - text.count))
            out += alignment == .right ? pad + text : (n == cells.count - 1 ? text : text + pad)
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    private static func ticks(_ value: Int64?) -> String { value.map { String($0) } ?? "N/A" }

    private static func seconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "N/A" }
        return String(cFormat: "%.6f", value)
    }

    private static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
