import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A terminal reply the probe understands.
package enum TerminalReply: Equatable {
    /// DA1: `CSI ? Ps ; … c`.
    case deviceAttributes([Int])
    /// XTSMGRAPHICS: `CSI ? Pi ; Ps ; Pv … S`.
    case graphicsAttribute(item: Int, status: Int, values: [Int])
    /// Window reports: `CSI 6 ; h ; w t` (cell px), `CSI 4 ; h ; w t` (text area px), `CSI 8 ; rows ; cols t`.
    case windowReport(kind: Int, first: Int, second: Int)
    /// DECRPM: `CSI ? mode ; Ps $ y`.
    case modeReport(mode: Int, value: Int)
    /// DSR: `CSI Ps n` (0 = ready), the sentinel.
    case statusReport(Int)
    /// kitty graphics: `APC G i=<id> ; OK ST` (`ok`), or an error such as `ENOTSUPPORTED:…`.
    case kittyGraphics(imageID: Int?, ok: Bool)
    /// XTVERSION: `DCS > | name(version) ST`, e.g. `XTerm(379)`.
    case terminalVersion(String)
    /// XTGETTCAP: `DCS 1 + r name=value ; … ST` (names and values hex-encoded on the wire,
    /// decoded here), or `DCS 0 + r name ST` for a name the terminal does not know (`valid` false).
    case termcap(valid: Bool, entries: [TermcapEntry])
    /// DECRQSS: `DCS 1 $ r setting ST` (e.g. `0;38:2::1:2:3m` for the current SGR), or
    /// `DCS 0 $ r ST` for a request the terminal does not answer (`valid` false).
    case setting(valid: Bool, text: String)
    /// The background colour (OSC 11): `OSC 11 ; rgb:RRRR/GGGG/BBBB ST` (or BEL), each part 1 to
    /// 4 hex digits, as 0…1.
    case background(RGBColour)
}

/// A colour a terminal reports, each component 0…1.
public struct RGBColour: Equatable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    /// WCAG 2's relative luminance (sRGB components linearised).
    public var luminance: Double {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// Black text reads better on it than white (its contrast with black is the greater):
    /// luminance above 0.179.
    public var isLight: Bool { (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) }

    /// WCAG 2's contrast ratio with `other` (1…21).
    public func contrast(with other: RGBColour) -> Double {
        let (a, b) = (luminance, other.luminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}

/// One capability of an XTGETTCAP reply: `RGB` → `8`, `Tc` → nil (a boolean has no value).
package struct TermcapEntry: Equatable {
    var name: String
    var value: String?
}

/// Splits the bytes read from the terminal into replies and everything else.
///
/// Bytes that are not replies (keys typed while probing) are handed back as stray input so the
/// host can use them; an incomplete sequence at the end of a read waits for the next read.
/// Numbers are clamped, never trapped on: the input is the terminal's, not ours. CSI replies
/// (`ESC [` or C1 CSI), APC strings (`ESC _ … ESC \`, kitty's graphics replies), DCS strings
/// (`ESC P … ESC \`: XTVERSION, XTGETTCAP, DECRQSS) and OSC strings (`ESC ] … ESC \` or BEL:
/// the background colour) are understood; a string longer than
/// ``ReplyLimits/apcReplyBytes`` or with a byte no reply has (a control, a non-ASCII byte) is
/// stray from its ESC up to that point, and the scan goes on from there — a reply after it (the
/// DSR sentinel) is still found.
package struct ReplyParser {
    private var pending: [UInt8] = []
    /// Longest CSI sequence accepted; longer runs are not replies.
    private let maxSequence = 128

    package init() {}

    package mutating func feed(_ bytes: [UInt8]) -> (replies: [TerminalReply], stray: [UInt8]) {
        pending += bytes
        var replies: [TerminalReply] = []
        var stray: [UInt8] = []
        var i = 0
        let data = pending
        scan: while i < data.count {
            let b = data[i]
            var bodyStart: Int
            if b == 0x1B {
                guard i + 1 < data.count else { break scan }   // lone ESC: wait for more
                if data[i + 1] == UInt8(ascii: "_") || data[i + 1] == UInt8(ascii: "P") || data[i + 1] == UInt8(ascii: "]") {
                    switch Self.scanString(data, from: i) {
                    case .incomplete:
                        break scan
                    case .stray(let end):
                        stray += data[i..<end]
                        i = end
                    case .reply(let reply, let end):
                        replies.append(reply)
                        i = end
                    case .unknown(let end):
                        stray += data[i..<end]
                        i = end
                    }
                    continue
                }
                guard data[i + 1] == UInt8(ascii: "[") else {
                    stray.append(b)
                    i += 1
                    continue
                }
                bodyStart = i + 2
            } else if b == 0x9B {
                bodyStart = i + 1
            } else {
                stray.append(b)
                i += 1
                continue
            }
            // Parameters 0x30–0x3F, intermediates 0x20–0x2F, final 0x40–0x7E.
            var j = bodyStart
            while j < data.count, data[j] >= 0x20, data[j] <= 0x3F { j += 1 }
            if j >= data.count {
                if j - i > maxSequence {
                    stray += data[i..<j]
                    i = j
                    continue
                }
                break scan   // incomplete: wait
            }
            let final = data[j]
            guard final >= 0x40, final <= 0x7E else {
                stray += data[i...j]
                i = j + 1
                continue
            }
            if let reply = Self.interpret(Array(data[bodyStart..<j]), final: final) {
                replies.append(reply)
            } else {
                stray += data[i...j]
            }
            i = j + 1
        }
        pending = Array(data[i...])
        return (replies, stray)
    }

    private enum StringScan {
        /// No terminator yet, within the length limit: wait for the next read.
        case incomplete
        /// Not a reply: stray up to `end` (exclusive), where the scan goes on.
        case stray(end: Int)
        /// A complete APC string that is not a reply we know.
        case unknown(end: Int)
        case reply(TerminalReply, end: Int)
    }

    /// Scans the APC (`ESC _`), DCS (`ESC P`) or OSC (`ESC ]`) string at `start`: printable
    /// ASCII up to `ESC \` (an OSC's up to BEL too), at most ``ReplyLimits/apcReplyBytes`` in all.
    private static func scanString(_ data: [UInt8], from start: Int) -> StringScan {
        let limit = ReplyLimits.apcReplyBytes
        let kind = data[start + 1]
        var j = start + 2
        while j < data.count {
            guard j - start < limit else { return .stray(end: j) }
            let b = data[j]
            if b == 0x07, kind == UInt8(ascii: "]") {
                let reply = interpretOSC(Array(data[(start + 2)..<j]))
                return reply.map { .reply($0, end: j + 1) } ?? .unknown(end: j + 1)
            }
            if b == 0x1B {
                guard j + 1 < data.count else { return .incomplete }
                guard data[j + 1] == UInt8(ascii: "\\"), j + 2 - start <= limit else { return .stray(end: j) }
                let body = Array(data[(start + 2)..<j])
                let reply = kind == UInt8(ascii: "P") ? interpretDCS(body) : kind == UInt8(ascii: "]") ? interpretOSC(body) : interpretAPC(body)
                if let reply { return .reply(reply, end: j + 2) }
                return .unknown(end: j + 2)
            }
            guard b >= 0x20, b <= 0x7E else { return .stray(end: j) }
            j += 1
        }
        return j - start >= limit ? .stray(end: j) : .incomplete
    }

    /// `G i=31 ; OK` → a kitty reply (keys before `;`, the message after it).
    private static func interpretAPC(_ body: [UInt8]) -> TerminalReply? {
        guard body.first == UInt8(ascii: "G") else { return nil }
        let rest = body.dropFirst()
        let semicolon = rest.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
        var imageID: Int?
        for pair in rest[..<semicolon].split(separator: UInt8(ascii: ",")) {
            guard pair.count >= 2, pair.first == UInt8(ascii: "i"), pair[pair.startIndex + 1] == UInt8(ascii: "=") else { continue }
            imageID = numbers(Array(pair.dropFirst(2))).first
        }
        let message = semicolon < rest.endIndex ? Array(rest[(semicolon + 1)...]) : []
        return .kittyGraphics(imageID: imageID, ok: message == Array("OK".utf8))
    }

    /// `11;rgb:ffff/ffff/ffff` → the background colour: three parts of 1 to 4 hex digits each
    /// (XParseColor's `rgb:` form, which xterm, kitty, foot and mlterm answer in); nil for
    /// anything else.
    private static func interpretOSC(_ body: [UInt8]) -> TerminalReply? {
        let prefix = Array("11;rgb:".utf8)
        guard body.starts(with: prefix) else { return nil }
        let parts = body.dropFirst(prefix.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var values: [Double] = []
        for part in parts {
            guard (1...4).contains(part.count) else { return nil }
            var value = 0
            for b in part {
                guard let digit = Self.hexDigit(b) else { return nil }
                value = value << 4 | Int(digit)
            }
            values.append(Double(value) / Double((1 << (4 * part.count)) - 1))
        }
        return .background(RGBColour(red: values[0], green: values[1], blue: values[2]))
    }

    /// `> | XTerm(379)` → the terminal's name and version; `1 + r 524742=38` → XTGETTCAP;
    /// `1 $ r 0;38:2::1:2:3m` → DECRQSS (printable ASCII by the scan, at most
    /// ``ReplyLimits/apcReplyBytes`` long).
    private static func interpretDCS(_ body: [UInt8]) -> TerminalReply? {
        if body.starts(with: Array(">|".utf8)) {
            let name = String(decoding: body.dropFirst(2).prefix(ReplyLimits.terminalVersionBytes), as: UTF8.self)
                .trimmingWhitespace()
            return name.isEmpty ? nil : .terminalVersion(name)
        }
        guard body.count >= 3, body[0] == UInt8(ascii: "0") || body[0] == UInt8(ascii: "1"),
              body[2] == UInt8(ascii: "r") else { return nil }
        let valid = body[0] == UInt8(ascii: "1")
        let rest = body.dropFirst(3)
        switch body[1] {
        case UInt8(ascii: "$"):
            return .setting(valid: valid, text: String(decoding: rest, as: UTF8.self))
        case UInt8(ascii: "+"):
            return termcap(valid: valid, rest)
        default:
            return nil
        }
    }

    /// XTGETTCAP's `name=value;name…`, hex pairs decoded; nil when a name or value is not hex
    /// or decodes to a byte no capability name has. At most ``ReplyLimits/termcapEntries``.
    private static func termcap(valid: Bool, _ text: ArraySlice<UInt8>) -> TerminalReply? {
        var entries: [TermcapEntry] = []
        for item in text.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true)
            .prefix(ReplyLimits.termcapEntries) {
            let parts = item.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = hexText(parts[0]), !name.isEmpty else { return nil }
            var value: String?
            if parts.count == 2 {
                guard let v = hexText(parts[1]) else { return nil }
                value = v
            }
            entries.append(TermcapEntry(name: name, value: value))
        }
        return .termcap(valid: valid, entries: entries)
    }

    /// A hex digit's value, nil for any other byte.
    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `524742` → `RGB`: pairs of hex digits, each a printable ASCII byte; nil otherwise.
    private static func hexText(_ hex: ArraySlice<UInt8>) -> String? {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            guard let high = hexDigit(hex[i]), let low = hexDigit(hex[i + 1]) else { return nil }
            let byte = high << 4 | low
            guard byte >= 0x20, byte <= 0x7E else { return nil }
            bytes.append(byte)
            i += 2
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func interpret(_ body: [UInt8], final: UInt8) -> TerminalReply? {
        var params = body
        var marker: UInt8?
        if let first = params.first, first == UInt8(ascii: "?") || first == UInt8(ascii: ">") {
            marker = first
            params.removeFirst()
        }
        var intermediate: UInt8?
        if let last = params.last, last >= 0x20, last <= 0x2F {
            intermediate = last
            params.removeLast()
        }
        let numbers = numbers(params)
        switch (marker, intermediate, final) {
        case (UInt8(ascii: "?"), nil, UInt8(ascii: "c")):
            return .deviceAttributes(numbers)
        case (UInt8(ascii: "?"), nil, UInt8(ascii: "S")) where numbers.count >= 2:
            return .graphicsAttribute(item: numbers[0], status: numbers[1], values: Array(numbers.dropFirst(2)))
        case (nil, nil, UInt8(ascii: "t")) where numbers.count >= 3:
            return .windowReport(kind: numbers[0], first: numbers[1], second: numbers[2])
        case (UInt8(ascii: "?"), UInt8(ascii: "$"), UInt8(ascii: "y")) where numbers.count >= 2:
            return .modeReport(mode: numbers[0], value: numbers[1])
        case (nil, nil, UInt8(ascii: "n")) where numbers.count == 1:
            return .statusReport(numbers[0])
        default:
            return nil
        }
    }

    /// `1;2;;3` → [1, 2, 0, 3]; values clamp at 1,000,000.
    private static func numbers(_ params: [UInt8]) -> [Int] {
        var result: [Int] = []
        var current = 0
        var any = false
        for b in params {
            if b >= 0x30 && b <= 0x39 {
                current = min(1_000_000, current * 10 + Int(b - 0x30))
                any = true
            } else if b == UInt8(ascii: ";") || b == UInt8(ascii: ":") {
                result.append(current)
                current = 0
                any = true
            }
        }
        if any { result.append(current) }
        return result
    }
}
