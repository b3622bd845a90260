/// The ISO BMFF box reader the engine's box readers share (ISO/IEC 14496-12 §4.2): one box
/// header, and the boxes of one level with a budget. What a reader does with a box that does not
/// fit is its own (WebVTT in MP4 refuses it, the segment index names what is wrong); how a
/// header is read, and which boxes a level holds, is decided here.
///
/// A header is trusted only as far as the bytes given: a 64-bit size is read only when its 8
/// bytes are there, a size of 0 runs to the end of the range, a level holds at most
/// `maxBoxes` boxes, and a box's payload never leaves its range.
package enum ISOBMFFBoxes {
    /// A box header: its type and size as written.
    package struct Header: Sendable, Equatable {
        /// The four-character type, printable (a byte outside ASCII's printable range reads `?`).
        package var type: String
        /// The type as the big-endian number it is (`0x73696478` is `sidx`).
        package var code: UInt32
        /// The size written, 64-bit when the header says so; 0: to the end of what encloses it.
        package var size: UInt64
        /// 8, or 16 with a 64-bit size.
        package var length: Int
    }

    /// A box found in a level: its type and where its payload lies in the bytes.
    package struct Box: Sendable, Equatable {
        package var type: String
        package var start: Int
        package var payload: Range<Int>
        package init(type: String, start: Int, payload: Range<Int>) {
            self.type = type
            self.start = start
            self.payload = payload
        }
    }

    /// Why a level's box cannot be read (each reader words its own refusal).
    package enum Fault: Error, Equatable {
        /// More than the level's budget of boxes.
        case tooManyBoxes
        /// Fewer bytes than the header needs.
        case headerCutShort
        /// A 64-bit size larger than what is left of the range.
        case runsPast(type: String)
        /// A size smaller than the header, or larger than what is left.
        case doesNotFit(type: String, size: Int)
    }

    /// The header at `pos`, read from no further than `end` (nil: the header is cut short).
    package static func header(_ bytes: [UInt8], at pos: Int, end: Int) -> Header? {
        guard pos >= 0, end <= bytes.count, end - pos >= 8 else { return nil }
        let size32 = be32(bytes, pos)
        let code = be32(bytes, pos + 4)
        let type = String(decoding: bytes[(pos + 4)..<(pos + 8)].map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        guard size32 == 1 else { return Header(type: type, code: code, size: UInt64(size32), length: 8) }
        guard end - pos >= 16 else { return nil }
        return Header(type: type, code: code, size: UInt64(be32(bytes, pos + 8)) << 32 | UInt64(be32(bytes, pos + 12)), length: 16)
    }

    /// The boxes directly inside `range` of `bytes`, in order, at most `maxBoxes` (a size that
    /// runs past the range, or is smaller than its header, is a fault; a size of 0 runs to the
    /// range's end).
    package static func boxes(_ bytes: [UInt8], in range: Range<Int>, maxBoxes: Int) throws(Fault) -> [Box] {
        var out: [Box] = []
        var pos = range.lowerBound
        let end = min(range.upperBound, bytes.count)
        while pos < end {
            guard out.count < maxBoxes else { throw .tooManyBoxes }
            guard let header = header(bytes, at: pos, end: end) else { throw .headerCutShort }
            let remaining = end - pos
            let size: Int
            if header.size == 0 {
                size = remaining
            } else {
                guard header.length == 8 || header.size <= UInt64(remaining) else { throw .runsPast(type: header.type) }
                size = Int(clamping: header.size)
            }
            guard size >= header.length, size <= remaining else { throw .doesNotFit(type: header.type, size: size) }
            out.append(Box(type: header.type, start: pos, payload: (pos + header.length)..<(pos + size)))
            pos += size
        }
        return out
    }

    /// The boxes directly inside `range` of `bytes` as far as they can be told apart, for a
    /// reader that takes what is there (the encryption scan of a file's first megabytes): a box
    /// whose size runs past the range is clipped to it, a size of 0 runs to the range's end, and
    /// the level ends, without a fault, at a header cut short, a size smaller than its header,
    /// or after `maxBoxes` boxes.
    package static func clippedBoxes(_ bytes: [UInt8], in range: Range<Int>, maxBoxes: Int) -> [Box] {
        var out: [Box] = []
        var pos = max(0, range.lowerBound)
        let end = min(range.upperBound, bytes.count)
        while pos < end, out.count < maxBoxes, let header = header(bytes, at: pos, end: end) {
            let remaining = end - pos
            let size = header.size == 0 ? remaining : Int(clamping: min(header.size, UInt64(remaining)))
            guard header.size == 0 || header.size >= UInt64(header.length), size >= header.length else { break }
            out.append(Box(type: header.type, start: pos, payload: (pos + header.length)..<(pos + size)))
            pos += size
        }
        return out
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
