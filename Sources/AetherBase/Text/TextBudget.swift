import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Budgets for the text files the player reads from outside (`aether-tui.conf`, `input.conf`,
/// playlists, watch-later entries): a file is read up to a byte budget and split into lines on
/// its bytes, and a line longer than ``maxLineBytes`` is refused with `name:N: line too long`
/// before any `String` is made of it, so no file costs more than its budget in time or memory.
public enum TextBudget {
    /// A line longer than this (64 KiB) is refused.
    public static let maxLineBytes = 64 << 10

    /// One line of a file: its 1-based number and its text (without the newline and a
    /// trailing CR), or nil when it was longer than the cap.
    public struct Line: Sendable {
        public var number: Int
        public var text: String?
    }

    /// The first `limit` bytes of the regular file at `path` (never more is read), and whether
    /// the file was longer. nil: missing, unreadable, or not a regular file (a FIFO, a device).
    public static func read(path: String, limit: Int) -> (bytes: [UInt8], truncated: Bool)? {
        // One byte past the budget tells a file of exactly `limit` from a longer one.
        guard let bytes = try? FileBytes.read(path: path, limit: max(0, limit) + 1, truncating: true, regularOnly: true).get() else { return nil }
        return (Array(bytes.prefix(max(0, limit))), bytes.count > max(0, limit))
    }

    /// A text file's bytes as UTF-8: UTF-16 (little or big endian) by its byte order mark,
    /// converted (an unpaired surrogate becomes U+FFFD); UTF-8's own mark dropped; anything
    /// else as it is. A Windows editor saves text files so (Equalizer APO's profiles too).
    public static func utf8(fromMarked bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        let little = bytes.starts(with: [0xFF, 0xFE]), big = bytes.starts(with: [0xFE, 0xFF])
        guard little || big else { return bytes }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 2
        while index + 1 < bytes.count {
            let (a, b) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            units.append(little ? a | b << 8 : a << 8 | b)
            index += 2
        }
        return Array(String(decoding: units, as: UTF16.self).utf8)
    }

    /// Splits `bytes` on LF; every line's text is decoded (invalid UTF-8 repaired) unless it is
    /// longer than `maxLineBytes`. With `dropPartialLast`, a last line with no newline is left
    /// out (the file was cut at its budget).
    public static func lines(_ bytes: some Collection<UInt8>, maxLineBytes: Int = maxLineBytes,
                             dropPartialLast: Bool = false) -> [Line] {
        let all = Array(bytes)
        var out: [Line] = []
        var start = 0
        var number = 0
        while start < all.count {
            number += 1
            let end = all[start...].firstIndex(of: 0x0A) ?? all.count
            if end == all.count, dropPartialLast { break }
            var stop = end
            if stop > start, all[stop - 1] == 0x0D { stop -= 1 }
            if stop - start > maxLineBytes {
                out.append(Line(number: number, text: nil))
            } else {
                out.append(Line(number: number, text: String(decoding: all[start..<stop], as: UTF8.self)))
            }
            start = end + 1
        }
        return out
    }

    /// Calls `body` with each LF-separated line of `bytes` (a trailing CR and the spaces and
    /// tabs around it trimmed, on the bytes), in order, until it returns false; a line longer
    /// than `maxLineBytes` comes as nil. Nothing is copied but the lines `body` keeps.
    public static func forEachLine(_ bytes: [UInt8], maxLineBytes: Int = maxLineBytes,
                                   _ body: (_ number: Int, _ line: ArraySlice<UInt8>?) -> Bool) {
        var start = 0
        var number = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var from = start, to = end
            while to > from, bytes[to - 1] == 0x0D || bytes[to - 1] == 0x20 || bytes[to - 1] == 0x09 { to -= 1 }
            while from < to, bytes[from] == 0x20 || bytes[from] == 0x09 { from += 1 }
            guard body(number, end - start > maxLineBytes ? nil : bytes[from..<to]) else { return }
            start = end + 1
        }
    }

    /// `1 MiB`, `64 KiB`: a budget as the warnings name it.
    public static func describe(bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }
}
