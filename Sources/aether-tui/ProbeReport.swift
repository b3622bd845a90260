import AetherEngine
import Foundation

/// The human-readable `probe` report. Every string in `MediaInfo` is already sanitised.
enum ProbeReport {
    static func render(_ info: MediaInfo) -> String {
        var out = ""
        func line(_ s: String) { out += s + "\n" }
        line("\(info.url)")
        line("  Container   \(info.containerLongName) (\(info.container))")
        if let title = info.title { line("  Title       \(title)") }
        var summary = "  Duration    \(info.duration.map(timestamp) ?? "unknown")"
        if let rate = info.bitRate { summary += "   bitrate \(kbps(rate))" }
        line(summary)
        if !info.chapters.isEmpty {
            line("  Chapters    \(info.chapters.count)")
            for (n, c) in info.chapters.enumerated() {
                line("    #\(n + 1)  \(timestamp(c.start)) – \(timestamp(c.end))  \(c.title ?? "")")
            }
        }
        for v in info.video {
            var parts = [codec(v.codec, v.profile), "\(v.width)×\(v.height)"]
            if let pf = v.pixelFormat { parts.append(pf + (v.bitDepth.map { " \($0)-bit" } ?? "")) }
            if let fps = v.frameRate { parts.append("\(fpsText(fps)) fps") }
            parts.append(v.isInterlaced ? "interlaced (\(v.fieldOrder))" : v.fieldOrder)
            if v.colorPrimaries != nil || v.colorTransfer != nil || v.colorMatrix != nil {
                parts.append("colour \(v.colorPrimaries ?? "?")/\(v.colorTransfer ?? "?")/\(v.colorMatrix ?? "?")")
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

    static func timestamp(_ seconds: Double) -> String {
        let ms = Int(saturating: (max(-3.6e12, min(3.6e12, seconds)) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    private static func kbps(_ bits: Int) -> String { "\((bits + 500) / 1000) kb/s" }

    private static func fpsText(_ fps: Double) -> String {
        fps == fps.rounded() ? String(Int(fps)) : String(format: "%.3f", fps)
    }
}
