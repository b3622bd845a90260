import AetherBase
import AetherMedia

/// A text cue as its ASS script placed and styled it, reduced to what text cells can show:
/// where it goes (numpad alignment, an explicit `\pos`, the margins), how it wraps, and runs of
/// text with bold, italic and a colour. Every run's text is sanitised (no control, bidi or
/// zero-width characters); override tags, drawings (`\p1`…`\p0`) and animation are gone.
public struct StyledSubtitle: Sendable, Equatable {
    /// An RGB colour (ASS stores `&HAABBGGRR`; alpha is dropped).
    public typealias RGB = RGBColor

    /// Text drawn in one style; may hold `\n` (a hard line break).
    public struct Run: Sendable, Equatable {
        public var text: String
        public var bold: Bool
        public var italic: Bool
        /// The primary colour, nil when it is the default white (drawn in the theme's colour).
        public var color: RGB?
        public init(text: String, bold: Bool = false, italic: Bool = false, color: RGB? = nil) {
            self.text = text
            self.bold = bold
            self.italic = italic
            self.color = color
        }
    }

    /// A point as fractions of the script's play area (0…1 across and down).
    public struct Point: Sendable, Equatable {
        public var x: Double, y: Double
    }

    /// Numpad alignment: 1–3 bottom, 4–6 middle, 7–9 top; left, centre, right.
    public var alignment = 2
    /// `\pos` (or `\move`'s start), nil when the event is placed by alignment and margins.
    public var position: Point?
    /// Margins as fractions of the play area's width (left, right) and height (vertical).
    public var marginLeft = 0.0
    public var marginRight = 0.0
    public var marginVertical = 0.0
    /// The script's WrapStyle: 0 smart (top line wider), 1 end of line, 2 none, 3 smart (bottom wider).
    public var wrapStyle = 0
    public var layer = 0
    /// The event's order in the script (ReadOrder): collisions are resolved in this order.
    public var readOrder = 0
    public var runs: [Run] = []

    public init(runs: [Run] = []) { self.runs = runs }

    /// The text without styles (what a plain text path shows).
    public var plainText: String { runs.map(\.text).joined() }

    /// True when the horizontal placement is centred, left or right (from the alignment).
    public var horizontal: Int { (alignment - 1) % 3 }  // 0 left, 1 centre, 2 right
    /// 0 bottom, 1 middle, 2 top.
    public var vertical: Int { (alignment - 1) / 3 }
}

/// The parts of an ASS script's header ([Script Info] and the styles) that place and style
/// events in text cells. Bounded: at most `maxHeaderBytes` are read, `maxStyles` styles kept.
public struct ASSScript: Sendable, Equatable {
    public struct Style: Sendable, Equatable {
        public var bold = false
        public var italic = false
        public var color: StyledSubtitle.RGB? = nil
        /// True when the primary colour is fully transparent (the text is not drawn).
        public var hidden = false
        public var alignment = 2
        public var marginLeft = 10
        public var marginRight = 10
        public var marginVertical = 10
    }

    static let maxHeaderBytes = 1 << 20
    static let maxStyles = 1024

    public var playResX = 384
    public var playResY = 288
    public var wrapStyle = 0
    /// Styles by name; `"Default"` is used for unknown names (as libass does), then the first.
    public var styles: [String: Style] = [:]
    var firstStyle: Style?

    public init() {}

    /// The style an event names (a leading `*` is ignored, as libass does).
    public func style(named name: String) -> Style {
        var name = Substring(name)
        while name.first == "*" { name = name.dropFirst() }
        return styles[String(name)] ?? styles["Default"] ?? firstStyle ?? Style()
    }

    /// Reads PlayResX/Y, WrapStyle and the `[V4+ Styles]` (or SSA's `[V4 Styles]`) lines.
    public static func parse(_ header: String) -> ASSScript {
        var script = ASSScript()
        var resX: Int?, resY: Int?
        var section = ""
        var format: [String] = []
        var legacy = false
        for raw in header.utf8.prefix(maxHeaderBytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let line = String(decoding: raw, as: UTF8.self).trimmingASSSpace
            if line.hasPrefix("[") {
                section = line.lowercased()
                legacy = section == "[v4 styles]"
                format = []
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingASSSpace.lowercased()
            let value = line[line.index(after: colon)...].trimmingASSSpace
            switch section {
            case "[script info]":
                switch key {
                case "playresx": resX = Int(value).flatMap { (1...65_536).contains($0) ? $0 : nil }
                case "playresy": resY = Int(value).flatMap { (1...65_536).contains($0) ? $0 : nil }
                case "wrapstyle": if let w = Int(value), (0...3).contains(w) { script.wrapStyle = w }
                default: break
                }
            case "[v4+ styles]", "[v4 styles]":
                if key == "format" {
                    format = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingASSSpace.lowercased() }
                } else if key == "style", script.styles.count < maxStyles {
                    if format.isEmpty { format = defaultFormat }
                    let fields = splitFields(value, count: format.count)
                    var style = Style()
                    var name = "Default"
                    for (i, field) in fields.enumerated() where i < format.count {
                        let f = field.trimmingASSSpace
                        switch format[i] {
                        case "name": name = f
                        case "primarycolour", "primarycolor":
                            if let (rgb, alpha) = parseColor(f) {
                                style.color = isWhite(rgb) ? nil : rgb
                                style.hidden = alpha == 0xFF
                            }
                        case "bold": style.bold = (Int(f) ?? 0) != 0
                        case "italic": style.italic = (Int(f) ?? 0) != 0
                        case "alignment":
                            if let a = Int(f) { style.alignment = legacy ? numpad(legacy: a) ?? 2 : ((1...9).contains(a) ? a : 2) }
                        case "marginl": style.marginLeft = Int(f).map { clampMargin($0) } ?? style.marginLeft
                        case "marginr": style.marginRight = Int(f).map { clampMargin($0) } ?? style.marginRight
                        case "marginv": style.marginVertical = Int(f).map { clampMargin($0) } ?? style.marginVertical
                        default: break
                        }
                    }
                    if script.firstStyle == nil { script.firstStyle = style }
                    script.styles[name] = style
                }
            default: break
            }
        }
        // libass's defaults when one or both are missing.
        switch (resX, resY) {
        case let (x?, y?):
            script.playResX = x
            script.playResY = y
        case let (x?, nil):
            script.playResX = x
            script.playResY = x == 1280 ? 1024 : max(1, x * 3 / 4)
        case let (nil, y?):
            script.playResY = y
            script.playResX = y == 1024 ? 1280 : max(1, y * 4 / 3)
        case (nil, nil): break
        }
        return script
    }

    static let defaultFormat = ["name", "fontname", "fontsize", "primarycolour", "secondarycolour", "outlinecolour",
                                "backcolour", "bold", "italic", "underline", "strikeout", "scalex", "scaley", "spacing",
                                "angle", "borderstyle", "outline", "shadow", "alignment", "marginl", "marginr", "marginv",
                                "encoding"]

    static func clampMargin(_ m: Int) -> Int { min(max(m, 0), 65_536) }

    /// SSA's alignment (1–3 bottom, +4 top, +8 middle) as a numpad value.
    static func numpad(legacy a: Int) -> Int? {
        let h = a & 3
        guard h != 0, (1...11).contains(a) else { return nil }
        return h + (a & 4 != 0 ? 6 : a & 8 != 0 ? 3 : 0)
    }

    static func isWhite(_ c: StyledSubtitle.RGB) -> Bool { c.r == 255 && c.g == 255 && c.b == 255 }

    /// `&HAABBGGRR`, `&HBBGGRR&`, or a decimal number → (RGB, alpha).
    static func parseColor<S: StringProtocol>(_ text: S) -> (StyledSubtitle.RGB, UInt8)? {
        var s = Substring(text).trimmingASSSpace[...]
        var hex = false
        while let f = s.first, f == "&" || f == "H" || f == "h" {
            if f != "&" { hex = true }
            s = s.dropFirst()
        }
        while s.last == "&" { s = s.dropLast() }
        let digits = s.prefix { hex ? $0.isHexDigit : ($0.isNumber || $0 == "-") }.prefix(10)
        guard !digits.isEmpty else { return nil }
        let parsed: UInt32?
        if hex { parsed = UInt32(digits.suffix(8), radix: 16) } else { parsed = Int64(digits).map { UInt32(truncatingIfNeeded: $0) } }
        guard let v = parsed else { return nil }
        let rgb = StyledSubtitle.RGB(r: UInt8(v & 0xFF), g: UInt8((v >> 8) & 0xFF), b: UInt8((v >> 16) & 0xFF))
        return (rgb, UInt8(v >> 24))
    }

    /// `count` comma-separated fields; the last one keeps any further commas.
    static func splitFields(_ text: String, count: Int) -> [Substring] {
        guard count > 1 else { return [text[...]] }
        var fields: [Substring] = []
        var rest = text[...]
        while fields.count < count - 1, let comma = rest.firstIndex(of: ",") {
            fields.append(rest[..<comma])
            rest = rest[rest.index(after: comma)...]
        }
        fields.append(rest)
        return fields
    }
}

/// One ASS event (a decoder's `rect->ass`, or a `Dialogue:` line) turned into a
/// ``StyledSubtitle`` against its script's header.
public enum ASSEvent {
    /// Longest event text read, in UTF-8 bytes (the cue's text is cut further by the store).
    static let maxEventBytes = 64 << 10
    /// Most runs kept (style changes past this are drawn in the last run's style).
    static let maxRuns = 256

    /// `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text` (FFmpeg ≥ 3's
    /// `rect->ass`) or `Dialogue: Layer,Start,End,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    public static func parse(_ event: String, script: ASSScript) -> StyledSubtitle {
        var line = Substring(event.utf8.count > maxEventBytes ? String(decoding: event.utf8.prefix(maxEventBytes), as: UTF8.self) : event)
        var dialogue = false
        if line.hasPrefix("Dialogue:") {
            line = line.dropFirst("Dialogue:".count)
            dialogue = true
        }
        let fields = ASSScript.splitFields(String(line), count: dialogue ? 10 : 9)
        var sub = StyledSubtitle()
        sub.wrapStyle = script.wrapStyle
        let text: Substring
        let styleName: String
        var margins: [Int?] = [nil, nil, nil]
        if dialogue, fields.count == 10 {
            sub.layer = Int(fields[0].trimmingASSSpace) ?? 0
            styleName = fields[3].trimmingASSSpace
            margins = [Int(fields[5].trimmingASSSpace), Int(fields[6].trimmingASSSpace), Int(fields[7].trimmingASSSpace)]
            text = fields[9]
        } else if !dialogue, fields.count == 9 {
            sub.readOrder = Int(fields[0].trimmingASSSpace) ?? 0
            sub.layer = Int(fields[1].trimmingASSSpace) ?? 0
            styleName = fields[2].trimmingASSSpace
            margins = [Int(fields[4].trimmingASSSpace), Int(fields[5].trimmingASSSpace), Int(fields[6].trimmingASSSpace)]
            text = fields[8]
        } else {
            styleName = "Default"
            text = line
        }
        let style = script.style(named: styleName)
        // An event's non-zero margin replaces the style's.
        func margin(_ event: Int?, _ fallback: Int) -> Int { event.map { $0 > 0 ? ASSScript.clampMargin($0) : fallback } ?? fallback }
        let resX = Double(script.playResX), resY = Double(script.playResY)
        sub.marginLeft = min(1, Double(margin(margins[0], style.marginLeft)) / resX)
        sub.marginRight = min(1, Double(margin(margins[1], style.marginRight)) / resX)
        sub.marginVertical = min(1, Double(margin(margins[2], style.marginVertical)) / resY)
        sub.alignment = style.alignment
        var parser = TextParser(script: script, style: style)
        parser.run(text, into: &sub)
        return sub
    }

    /// Walks the event text: override blocks change the state, text outside them is collected
    /// into runs.
    private struct TextParser {
        let script: ASSScript
        var style: ASSScript.Style
        var bold: Bool
        var italic: Bool
        var color: StyledSubtitle.RGB?
        var hidden: Bool
        var drawing = false
        var alignmentSet = false
        var positionSet = false
        var runs: [StyledSubtitle.Run] = []
        var pending = String.UnicodeScalarView()

        init(script: ASSScript, style: ASSScript.Style) {
            self.script = script
            self.style = style
            bold = style.bold
            italic = style.italic
            color = style.color
            hidden = style.hidden
        }

        mutating func run(_ text: Substring, into sub: inout StyledSubtitle) {
            // Fast path, most dialogue: no override block and no escape, one run.
            if !text.utf8.contains(UInt8(ascii: "{")), !text.utf8.contains(UInt8(ascii: "\\")) {
                let clean = hidden ? "" : TextSanitizer.clean(String(text), keepNewlines: true)
                sub.runs = clean.isEmpty ? [] : [StyledSubtitle.Run(text: clean, bold: bold, italic: italic, color: color)]
                return
            }
            let scalars = Array(text.unicodeScalars)
            var i = 0
            while i < scalars.count {
                let c = scalars[i]
                if c == "{" {
                    // An override block; one left open runs to the end and is dropped whole.
                    var j = i + 1
                    while j < scalars.count, scalars[j] != "}" { j += 1 }
                    flush()
                    override(scalars[(i + 1)..<j], into: &sub)
                    i = j + 1
                    continue
                }
                if c == "\\", i + 1 < scalars.count {
                    switch scalars[i + 1] {
                    case "N":
                        append("\n")
                        i += 2
                        continue
                    case "n":
                        append(script.wrapStyle == 2 ? "\n" : " ")
                        i += 2
                        continue
                    case "h":
                        append("\u{A0}")
                        i += 2
                        continue
                    default: break
                    }
                }
                append(c)
                i += 1
            }
            flush()
            sub.runs = runs
        }

        mutating func append(_ c: Unicode.Scalar) {
            guard !drawing, !hidden else { return }
            pending.append(c)
        }

        mutating func flush() {
            guard !pending.isEmpty else { return }
            let text = TextSanitizer.clean(String(pending), keepNewlines: true)
            pending = String.UnicodeScalarView()
            guard !text.isEmpty else { return }
            if let last = runs.last, last.bold == bold, last.italic == italic, last.color == color {
                runs[runs.count - 1].text += text
            } else if runs.count >= ASSEvent.maxRuns {
                runs[runs.count - 1].text += text
            } else {
                runs.append(StyledSubtitle.Run(text: text, bold: bold, italic: italic, color: color))
            }
        }

        /// One `{…}` block: `\tag` after `\tag`; unknown tags and comments are skipped.
        mutating func override(_ block: ArraySlice<Unicode.Scalar>, into sub: inout StyledSubtitle) {
            var i = block.startIndex
            while i < block.endIndex {
                guard block[i] == "\\" else { i += 1; continue }
                i += 1
                // The tag's name and arguments run to the next backslash outside parentheses.
                var j = i
                var depth = 0
                while j < block.endIndex {
                    let c = block[j]
                    if c == "(" { depth += 1 } else if c == ")" { depth = max(0, depth - 1) } else if c == "\\", depth == 0 { break }
                    j += 1
                }
                tag(String(String.UnicodeScalarView(block[i..<j])), into: &sub)
                i = j
            }
        }

        mutating func tag(_ t: String, into sub: inout StyledSubtitle) {
            func number(after prefix: String) -> Double? {
                Double(t.dropFirst(prefix.count).trimmingASSSpace).flatMap { $0.isFinite ? $0 : nil }
            }
            func arguments(after prefix: String) -> [Double] {
                var body = t.dropFirst(prefix.count).trimmingASSSpace[...]
                guard body.first == "(" else { return [] }
                body = body.dropFirst()
                if let close = body.firstIndex(of: ")") { body = body[..<close] }
                return body.split(separator: ",").prefix(8).compactMap { Double($0.trimmingASSSpace).flatMap { $0.isFinite ? $0 : nil } }
            }
            if t.hasPrefix("pos(") || t.hasPrefix("move(") {
                let a = arguments(after: t.hasPrefix("pos(") ? "pos" : "move")
                if !positionSet, a.count >= 2 {  // the first \pos or \move wins, as in libass
                    positionSet = true
                    sub.position = StyledSubtitle.Point(x: a[0] / Double(script.playResX), y: a[1] / Double(script.playResY))
                }
            } else if t.hasPrefix("an") {
                if !alignmentSet, let a = number(after: "an"), let n = Int(exactly: a), (1...9).contains(n) {
                    alignmentSet = true
                    sub.alignment = n
                }
            } else if t.hasPrefix("alpha") {
                if let (value, _) = ASSScript.parseColor(t.dropFirst(5)) { hidden = value.r == 0xFF }  // &HAA&: alpha alone
            } else if t.hasPrefix("a"), let f = t.dropFirst().first, f.isNumber {
                if !alignmentSet, let a = number(after: "a"), let n = Int(exactly: a), let numpad = ASSScript.numpad(legacy: n) {
                    alignmentSet = true
                    sub.alignment = numpad
                }
            } else if t.hasPrefix("1a") {
                if let (value, _) = ASSScript.parseColor(t.dropFirst(2)) { hidden = value.r == 0xFF }
            } else if t.hasPrefix("b"), t.count == 1 || t.dropFirst().first!.isNumber {
                let v = number(after: "b") ?? -1
                bold = v < 0 ? style.bold : (v == 1 || v >= 700)
            } else if t.hasPrefix("i"), t.count == 1 || t.dropFirst().first!.isNumber {
                let v = number(after: "i") ?? -1
                italic = v < 0 ? style.italic : v != 0
            } else if t.hasPrefix("c&") || t.hasPrefix("1c") || t == "c" {
                let value = t.hasPrefix("1c") ? t.dropFirst(2) : t.dropFirst(1)
                if let (rgb, _) = ASSScript.parseColor(value) {
                    color = ASSScript.isWhite(rgb) ? nil : rgb
                } else {
                    color = style.color
                }
            } else if t.hasPrefix("p"), !t.hasPrefix("pos"), !t.hasPrefix("pbo") {
                if let v = number(after: "p") { drawing = v > 0 }
            } else if t.hasPrefix("r"), !t.hasPrefix("rnd") {
                let name = t.dropFirst().trimmingASSSpace
                style = name.isEmpty ? style : script.style(named: name)
                bold = style.bold
                italic = style.italic
                color = style.color
                hidden = style.hidden
            }
            // Everything else (\t, \fad, \k, \fs, \blur, \clip, \org, \fr …) changes pixels, not cells.
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs ASS allows around fields.
    var trimmingASSSpace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
