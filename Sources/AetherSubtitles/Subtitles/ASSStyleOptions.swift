import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// How text subtitles are drawn by libass in pixel outputs, under mpv's option names
/// (`--sub-ass`, `--sub-font`, `--sub-font-size`, `--sub-color`, `--sub-border-size`,
/// `--sub-pos`, `--sub-scale`, `--sub-ass-override`). The values are already checked (see
/// ``ASSStyleOptions/parseColor(_:)`` and the ranges below); the setters clamp again.
public struct ASSStyleOptions: Sendable, Equatable {
    /// `--sub-ass-override`: `yes` scales dialogue by `--sub-scale`, `force` also replaces the
    /// script's dialogue style with the options' one, `no` draws the script as authored.
    public enum Override: String, Sendable, CaseIterable { case yes, force, no }

    /// `--sub-ass`: false keeps text subtitles as text cells in pixel outputs.
    public var enabled = true
    public var font = "sans-serif"
    /// Scaled pixels at a picture height of 720 (mpv's unit).
    public var fontSize = 55.0 { didSet { fontSize = Self.fontSizeRange.clamp(fontSize) } }
    /// RRGGBBAA, AA the opacity.
    public var color: UInt32 = 0xFFFF_FFFF
    public var borderSize = 3.0 { didSet { borderSize = Self.borderRange.clamp(borderSize) } }
    /// Vertical position of the bottom line, percent of the picture's height (100: the bottom).
    public var position = 100.0 { didSet { position = Self.positionRange.clamp(position) } }
    public var scale = 1.0 { didSet { scale = Self.scaleRange.clamp(scale) } }
    public var override: Override = .yes

    public static let fontSizeRange = 1.0...9000.0
    public static let borderRange = 0.0...100.0
    public static let positionRange = 0.0...150.0
    public static let scaleRange = 0.0...100.0
    /// Longest font family name kept.
    public static let maxFontName = 256

    public init() {}

    /// `#RRGGBB` or `#AARRGGBB` (mpv's hex forms) → RRGGBBAA; nil for anything else.
    public static func parseColor(_ text: String) -> UInt32? {
        var hex = Substring(text.trimmingWhitespace())
        guard hex.first == "#" else { return nil }
        hex = hex.dropFirst()
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        if hex.count == 6 { return value << 8 | 0xFF }
        return value << 8 | value >> 24  // AARRGGBB → RRGGBBAA
    }

    /// The play area of ``defaultHeader(aspect:)``: 720 high, as wide as the aspect asks.
    public func playArea(aspect: Double) -> (x: Int, y: Int) {
        let y = 720
        return (Int((Double(y) * (aspect.isFinite && aspect > 0.1 && aspect < 10 ? aspect : 16.0 / 9)).rounded()), y)
    }

    /// The `[Script Info]`/`[V4+ Styles]` header for subtitles that are not ASS (SubRip, WebVTT,
    /// mov_text): one `Default` style from the options, the play area `playResX`×720 (the
    /// picture's aspect, so glyphs are not stretched).
    public func defaultHeader(aspect: Double) -> [UInt8] {
        let (playResX, playResY) = playArea(aspect: aspect)
        let r = color >> 24, g = (color >> 16) & 0xFF, b = (color >> 8) & 0xFF, a = 255 - (color & 0xFF)
        let primary = String(cFormat: "&H%02X%02X%02X%02X", a, b, g, r)
        let name = String(font.unicodeScalars.filter { $0.value >= 0x20 && $0 != "," && $0 != "\u{7F}" }.prefix(Self.maxFontName))
        let header = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: \(playResX)
        PlayResY: \(playResY)
        ScaledBorderAndShadow: yes
        WrapStyle: 0

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,\(name.isEmpty ? "sans-serif" : name),\(fontSize),\(primary),&H000000FF,&H00000000,&H80000000,0,0,0,0,100,100,0,0,1,\(borderSize),0,2,25,25,22,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
        return Array(header.utf8)
    }
}

extension ClosedRange where Bound == Double {
    func clamp(_ value: Double) -> Double { value.isNaN ? lowerBound : Swift.min(upperBound, Swift.max(lowerBound, value)) }
}
