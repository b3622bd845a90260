/// A terminal reply the probe understands.
enum TerminalReply: Equatable {
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
}

/// Splits the bytes read from the terminal into replies and everything else.
///
/// Bytes that are not replies (keys typed while probing) are handed back as stray input so the
/// host can use them; an incomplete sequence at the end of a read waits for the next read.
/// Numbers are clamped, never trapped on: the input is the terminal's, not ours.
struct ReplyParser {
    private var pending: [UInt8] = []
    /// Longest CSI sequence accepted; longer runs are not replies.
    private let maxSequence = 128

    mutating func feed(_ bytes: [UInt8]) -> (replies: [TerminalReply], stray: [UInt8]) {
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
