import CFFmpeg

/// Where a WebVTT cue's settings (`line`, `position`, `align`) put it, normalised to the
/// picture: the anchor as ASS's numpad alignment and, when the settings place the cue, the
/// anchor's point (0…1 across and down). FFmpeg's WebVTT decoder drops the settings (the demuxer
/// hands them over as packet side data), so the player reads them itself; the cell outputs and
/// libass (``ASSOverlayRenderer``, as `\an` and `\pos` in the converted track's play area) both
/// follow them.
public struct CuePlacement: Sendable, Equatable {
    public var alignment: Int
    public var position: StyledSubtitle.Point?

    /// Settings read at most (a cue's settings are a few dozen bytes).
    static let maxSettingsBytes = 1024
    /// A `line` given as a number counts lines of this share of the picture's height (the 5vh
    /// text of a browser's default cue, with its line spacing).
    static let lineHeight = 0.0533

    /// The placement `settings` asks for; nil when it asks for none that changes the default
    /// (bottom centre) or names nothing understood. Unknown settings and malformed values are
    /// ignored one by one, as the WebVTT parser does.
    public static func webVTT(_ settings: String) -> CuePlacement? {
        var line: (value: Double, percent: Bool)?
        var position: Double?
        var horizontal = 2
        var aligned = false
        for token in settings.prefix(maxSettingsBytes).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let colon = token.firstIndex(of: ":") else { continue }
            let name = token[..<colon], value = token[token.index(after: colon)...]
            // `line:10%,end` and `position:30%,line-left`: the alignment after the comma is left
            // out (the anchor follows `align`).
            let number = value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
            switch name {
            case "line":
                if let p = percent(number) { line = (p, true) } else if let n = Double(number), n.isFinite, abs(n) <= 1000, n == n.rounded() {
                    line = (n, false)
                }
            case "position":
                if let p = percent(number) { position = p }
            case "align":
                switch value {
                case "start", "left":
                    horizontal = 1
                    aligned = true
                case "center", "middle":
                    horizontal = 2
                    aligned = true
                case "end", "right":
                    horizontal = 3
                    aligned = true
                default: break
                }
            default:
                continue
            }
        }
        guard line != nil || position != nil || aligned else { return nil }
        // The anchor row: the top for a line counted from the top or given in percent (the cue
        // box's top edge is there), the bottom for a line counted from the bottom and by default.
        var y: Double?
        var top = false
        if let line {
            if line.percent {
                y = line.value / 100
                top = true
            } else if line.value >= 0 {
                y = min(1, line.value * lineHeight)
                top = true
            } else {
                y = max(0, 1 + (line.value + 1) * lineHeight)
            }
        }
        let x = position.map { $0 / 100 }
        let alignment = (top ? 6 : 0) + horizontal
        guard x != nil || y != nil else { return CuePlacement(alignment: alignment, position: nil) }
        // A point needs both: the default across is where `align` puts the cue (0, ½, 1), the
        // default down the bottom.
        let defaultX = horizontal == 1 ? 0.0 : horizontal == 3 ? 1.0 : 0.5
        return CuePlacement(alignment: alignment, position: StyledSubtitle.Point(x: x ?? defaultX, y: y ?? 1))
    }

    /// `N%` with 0 ≤ N ≤ 100, else nil.
    static func percent(_ text: String) -> Double? {
        guard text.hasSuffix("%"), let v = Double(text.dropLast()), v.isFinite, (0...100).contains(v) else { return nil }
        return v
    }

    /// The placement of a WebVTT packet: its settings side data, nil without any.
    static func webVTT(_ packet: UnsafePointer<AVPacket>) -> CuePlacement? {
        var size = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_WEBVTT_SETTINGS, &size), size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: min(size, maxSettingsBytes))
        return webVTT(String(decoding: bytes, as: UTF8.self))
    }

    /// The ASS override that puts a cue there in a play area of `resX`×`resY`.
    package func assOverride(resX: Int, resY: Int) -> String {
        guard let position else { return "{\\an\(alignment)}" }
        let x = Int((position.x * Double(resX)).rounded()), y = Int((position.y * Double(resY)).rounded())
        return "{\\an\(alignment)\\pos(\(x),\(y))}"
    }
}
