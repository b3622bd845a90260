import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// One text cue as libass reads it: the decoder's event line (`ReadOrder,Layer,Style,Name,
/// MarginL,MarginR,MarginV,Effect,Text`, at most ``maxEventBytes``), the track's header and the
/// fonts attached to the file. Header and fonts are shared by every cue of a track (compared
/// by identity).
public struct ASSSource: Sendable, Equatable {
    public var header: ASSHeader
    public var fonts: ASSFontSet?
    public var event: String
    /// An event longer than this is cut (a 4 MiB line is hostile, not typesetting).
    public static let maxEventBytes = 64 << 10

    public init(header: ASSHeader, fonts: ASSFontSet? = nil, event: String) {
        self.header = header
        self.fonts = fonts
        self.event = event
    }

    /// What tells two events apart after a re-read: a script's own event keeps its ReadOrder
    /// (Matroska stores it); a converted one (SubRip …) gets a new one from the decoder each read,
    /// so it is left out.
    var dedupKey: Substring {
        if header.isNative { return Substring(event) }
        guard let comma = event.firstIndex(of: ",") else { return Substring(event) }
        return event[event.index(after: comma)...]
    }

    public static func == (a: ASSSource, b: ASSSource) -> Bool {
        a.header === b.header && a.fonts === b.fonts && a.event == b.event
    }
}

/// A subtitle track's ASS header as its decoder made it (`subtitle_header`): the file's own for
/// ASS/SSA, FFmpeg's default for SubRip, WebVTT and mov_text (`isNative` false: the player's
/// default style, ``ASSStyleOptions``, replaces it).
public final class ASSHeader: Sendable {
    public let bytes: [UInt8]
    public let isNative: Bool
    /// Largest header kept (a header is a few KiB; a hostile one is cut here).
    public static let maxBytes = 1 << 20

    public init(bytes: [UInt8], isNative: Bool) {
        self.bytes = Array(bytes.prefix(Self.maxBytes))
        self.isNative = isNative
    }
}

/// The fonts attached to a file (Matroska attachments), read once when it opens; bounded by
/// ``maxFontBytes`` each and ``maxTotalBytes`` in all (a larger attachment is skipped and
/// logged once).
public final class ASSFontSet: Sendable {
    public struct Font: Sendable {
        public let name: String
        public let data: [UInt8]
        public init(name: String, data: [UInt8]) { self.name = name; self.data = data }
    }
    public let fonts: [Font]
    public static let maxFontBytes = 32 << 20
    public static let maxTotalBytes = 64 << 20
    public static let maxFonts = 256
    package static var limitText: String { "over the font limits (\(maxFontBytes >> 20) MiB a font, \(maxTotalBytes >> 20) MiB in all)" }

    /// MIME types of font attachments (mkvmerge's and the registered ones).
    static let fontTypes: Set<String> = ["application/x-truetype-font", "application/x-font-ttf", "application/x-font",
                                         "application/x-font-otf", "application/vnd.ms-opentype", "application/font-sfnt",
                                         "font/ttf", "font/otf", "font/sfnt", "font/collection", "font/woff", "font/woff2"]

    public init(fonts: [Font]) {
        var kept: [Font] = []
        var total = 0
        for font in fonts.prefix(Self.maxFonts) {
            guard !font.data.isEmpty else { continue }
            guard font.data.count <= Self.maxFontBytes, total + font.data.count <= Self.maxTotalBytes else {
                ASSLog.receive(level: 1, line: "font attachment '\(font.name)' (\(font.data.count) bytes) skipped: \(Self.limitText)")
                continue
            }
            total += font.data.count
            kept.append(font)
        }
        self.fonts = kept
    }

    /// True when an attachment of this MIME type (or file name) is a font.
    public static func isFont(mimeType: String?, filename: String?) -> Bool {
        if let mime = mimeType?.lowercased(), fontTypes.contains(mime) { return true }
        let name = filename?.lowercased() ?? ""
        return [".ttf", ".otf", ".ttc", ".otc"].contains { name.hasSuffix($0) }
    }
}
