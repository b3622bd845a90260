import AetherMedia

/// One subtitle event: sanitised text, or an RGBA bitmap at a position normalised to the video.
public struct SubtitleCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var content: Content
    /// For a text cue from an ASS event (every text decoder in FFmpeg makes one: SRT, WebVTT and
    /// mov_text too): where the script places it and its styled runs. nil for bitmaps.
    public var styled: StyledSubtitle?
    /// For a text cue from an ASS event: the event as the decoder made it and its track's
    /// header, for libass (``ASSOverlayRenderer``). nil for bitmaps and plain text.
    public var ass: ASSSource?
    /// For a WebVTT cue with settings: where they put it (also in ``styled``; libass gets it as
    /// `\an`/`\pos`).
    public var placement: CuePlacement?

    public init(start: Double, end: Double, content: Content, styled: StyledSubtitle? = nil) {
        self.start = start
        self.end = end
        self.content = content
        self.styled = styled
    }

    public init(start: Double, end: Double, content: Content, styled: StyledSubtitle?, ass: ASSSource?) {
        self.init(start: start, end: end, content: content, styled: styled)
        self.ass = ass
    }

    public enum Content: Sendable, Equatable {
        /// Plain text, sanitised; lines separated by `\n`.
        case text(String)
        case bitmap(SubtitleBitmap)
    }

    public var text: String? {
        if case .text(let t) = content { return t }
        return nil
    }

    /// A text cue with something for text cells to show (not a libass-only drawing).
    public var hasVisibleText: Bool { text.map { !$0.isEmpty } ?? false }

    /// An empty bitmap event: it ends the cue showing (PGS, DVB, DVD).
    var isClear: Bool {
        if case .bitmap(let b) = content { return b.rgba.isEmpty }
        return false
    }

    /// What the cue weighs against the store's byte budget: a bitmap's pixels, a libass
    /// event's line (up to 64 KiB each: typesetting drawings are long).
    var bitmapBytes: Int {
        if case .bitmap(let b) = content { return b.rgba.count }
        return ass?.event.utf8.count ?? 0
    }
}

/// Premultiplied RGBA pixels and where they go, as fractions of the video frame.
public struct SubtitleBitmap: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var pixelWidth: Int
    public var pixelHeight: Int
    public var rgba: [UInt8]

    public init(x: Double, y: Double, width: Double, height: Double, pixelWidth: Int, pixelHeight: Int, rgba: [UInt8]) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.rgba = rgba
    }
}

/// A subtitle track the user can pick: an embedded stream or a sidecar file.
public struct SubtitleTrackInfo: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case embedded(streamIndex: Int)
        case sidecar(path: String)
    }
    public var id: Int
    public var source: Source
    public var codec: String
    public var kind: SubtitleKind
    public var language: String?
    public var title: String?
    public var isDefault: Bool
    public var isForced: Bool
    /// What a menu shows (``TrackLabel``, as for audio): `eng · "Title" · subrip`, a sidecar's
    /// file name first.
    public var label: String {
        var file: String?
        if case .sidecar(let path) = source { file = path }
        return TrackLabel.make(file: file, language: language, title: title, codec: codec, isDefault: isDefault, isForced: isForced)
    }
}

/// Turns ASS/SSA event text into plain lines (AetherEngine's SubtitleRectText rules).
public enum ASSText {
    /// `rect->ass` in FFmpeg ≥ 3 is `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`;
    /// a full `Dialogue:` line has `Layer,Start,End,Style,…,Text`. Both have the text after the 8th
    /// (event) or 9th (Dialogue) comma.
    public static func plain(fromEvent event: String) -> String {
        var line = Substring(event)
        var fields = 8
        if line.hasPrefix("Dialogue:") {
            line = line.dropFirst("Dialogue:".count)
            fields = 9
        }
        var commas = 0
        var index = line.startIndex
        while index < line.endIndex, commas < fields {
            if line[index] == "," { commas += 1 }
            index = line.index(after: index)
        }
        let text = commas == fields ? line[index...] : line
        return clean(String(text))
    }

    /// Drops `{…}` override blocks; `\N` and `\n` become newlines, `\h` a space.
    public static func clean(_ text: String) -> String {
        var out = ""
        var inOverride = false
        var chars = text.makeIterator()
        while let ch = chars.next() {
            if inOverride {
                if ch == "}" { inOverride = false }
                continue
            }
            switch ch {
            case "{": inOverride = true
            case "\\":
                switch chars.next() {
                case "N", "n": out.append("\n")
                case "h": out.append(" ")
                case let other?:
                    out.append("\\")
                    out.append(other)
                case nil: out.append("\\")
                }
            default: out.append(ch)
            }
        }
        return out
    }
}
