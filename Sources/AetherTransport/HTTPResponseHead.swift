import AetherBase

/// The head of an HTTP response (its status line and header fields) read as it arrives, within
/// budgets: at most ``maxBytes`` bytes and ``maxLines`` lines, counted before anything is kept,
/// so a server whose headers never end costs a bounded read, not what it sends. Accepts HTTP/1.0,
/// 1.1 and 2 status lines and SHOUTcast's `ICY 200 OK`; lines end with CRLF or a bare LF; a
/// field line that does not parse is left out (one note), the rest kept.
///
/// Fed from one thread (the connection's reader).
package struct HTTPResponseHead {
    /// Header bytes, status line included, a response may have.
    package static let maxBytes = 64 << 10
    /// Header lines, status line included, a response may have.
    package static let maxLines = 256

    package enum Outcome: Equatable {
        /// More bytes are needed.
        case incomplete
        /// The head is whole; the body starts at this offset of the bytes fed (counted over
        /// every feed).
        case complete(bodyOffset: Int)
        /// The head was refused (one line that names the budget or the fault).
        case refused(String)
    }

    /// The status code (200, 206, 302, …); 0 until the status line is read.
    package private(set) var status = 0
    /// The status line's reason phrase (cleaned).
    package private(set) var reason = ""
    /// The header fields in order, names lower-cased, values trimmed, as sent (clean one
    /// before it is shown).
    package private(set) var fields: [(name: String, value: String)] = []
    /// Field lines left out (no colon, an empty name, a name with spaces).
    package private(set) var malformed = 0

    private var line: [UInt8] = []
    private var bytes = 0
    private var lines = 0
    private var outcome = Outcome.incomplete

    package init() {}

    /// The value of field `name` (lower case), the first one.
    package func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Reads `chunk`; what the head is now.
    package mutating func feed(_ chunk: UnsafeRawBufferPointer) -> Outcome {
        guard outcome == .incomplete else { return outcome }
        for byte in chunk {
            bytes += 1
            guard bytes <= Self.maxBytes else {
                return finish(.refused("the response's header is longer than \(Self.maxBytes >> 10) KiB (the header budget)"))
            }
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            lines += 1
            if lines > Self.maxLines {
                return finish(.refused("the response's header has more than \(Self.maxLines) lines (the header budget)"))
            }
            defer { line.removeAll(keepingCapacity: true) }
            if lines == 1 {
                if let refusal = readStatus() { return finish(.refused(refusal)) }
            } else if line.isEmpty {
                return finish(.complete(bodyOffset: bytes))
            } else {
                readField()
            }
        }
        return .incomplete
    }

    private mutating func finish(_ result: Outcome) -> Outcome {
        outcome = result
        line = []
        return result
    }

    /// The status line: `HTTP/1.x NNN reason`, `HTTP/2 NNN` (as libcurl writes an HTTP/2 answer's) or `ICY NNN reason`; nil, or why it is refused.
    private mutating func readStatus() -> String? {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") || parts[0] == "HTTP/2" || parts[0] == "ICY",
              parts[1].count == 3, let code = Int(parts[1]), (100...599).contains(code) else {
            return "the server's answer is not HTTP: '\(TextSanitizer.clean(String(text.prefix(60))))'"
        }
        status = code
        reason = parts.count > 2 ? TextSanitizer.clean(String(parts[2].prefix(120))) : ""
        return nil
    }

    private mutating func readField() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
              !line[..<colon].contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else {
            malformed += 1
            return
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace()
        fields.append((name, value))
    }
}
