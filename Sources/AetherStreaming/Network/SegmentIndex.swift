import AetherBase
import AetherMedia

/// The `sidx` box (ISO/IEC 14496-12 §8.16.3) of an on-demand representation: where each
/// subsegment's bytes are and how long it plays. Bounded: the box must fit the bytes given,
/// at most `maxReferences` references, sizes and durations non-zero; a reference to another
/// `sidx` (a hierarchical index) is refused.
public struct SegmentIndex: Sendable, Equatable {
    public struct Reference: Sendable, Equatable {
        public var size: Int64
        public var duration: Int64
    }

    public var timescale: Int64
    public var earliestPresentationTime: Int64
    /// Absolute byte offset of the first subsegment in the resource.
    public var firstOffset: Int64
    public var references: [Reference]

    /// Parses the box at the start of `bytes`, which were read from byte `offset` of the resource.
    public static func parse(_ bytes: [UInt8], at offset: Int64, maxReferences: Int = 100_000) throws(OutsideValue.Refusal) -> SegmentIndex {
        // The header through the engine's one box reader; the payload's fields below.
        guard let box = ISOBMFFBoxes.header(bytes, at: 0, end: bytes.count) else { throw OutsideValue.Refusal("the segment index is cut short") }
        if box.length == 16, box.size > UInt64(bytes.count) { throw OutsideValue.Refusal("the segment index box is larger than its range") }
        let size = box.size, header = UInt64(box.length)
        guard box.code == 0x7369_6478 else { throw OutsideValue.Refusal("no sidx box at the index range") }
        guard size >= header + 24, size <= UInt64(bytes.count) else { throw OutsideValue.Refusal("the segment index box does not fit its range") }
        var r = ByteReader(bytes: bytes, position: box.length)
        guard let versionFlags = r.u32(), r.u32() != nil, let timescale = r.u32(), timescale > 0 else {
            throw OutsideValue.Refusal("the segment index has no timescale")
        }
        let version = versionFlags >> 24
        let earliest: UInt64, first: UInt64
        if version == 0 {
            guard let e = r.u32(), let f = r.u32() else { throw OutsideValue.Refusal("the segment index is cut short") }
            earliest = e
            first = f
        } else {
            guard let e = r.u64(), let f = r.u64() else { throw OutsideValue.Refusal("the segment index is cut short") }
            earliest = e
            first = f
        }
        guard earliest <= 1 << 53, first <= 1 << 50 else { throw OutsideValue.Refusal("the segment index's times or offsets are out of range") }
        guard r.u16() != nil, let count = r.u16() else { throw OutsideValue.Refusal("the segment index is cut short") }
        guard Int(count) <= maxReferences else { throw OutsideValue.Refusal("the segment index has more than \(maxReferences) references") }
        guard UInt64(r.position) + UInt64(count) * 12 <= size else { throw OutsideValue.Refusal("the segment index is cut short") }
        var refs: [Reference] = []
        refs.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let word = r.u32(), let duration = r.u32(), r.u32() != nil else { throw OutsideValue.Refusal("the segment index is cut short") }
            guard word >> 31 == 0 else { throw OutsideValue.Refusal("a hierarchical segment index (a sidx referring to a sidx) is not supported") }
            let referenced = word & 0x7FFF_FFFF
            guard referenced > 0, duration > 0 else { throw OutsideValue.Refusal("a segment index entry has no size or duration") }
            refs.append(Reference(size: Int64(referenced), duration: Int64(duration)))
        }
        guard offset >= 0, offset <= 1 << 50 else { throw OutsideValue.Refusal("the segment index's offset is out of range") }
        return SegmentIndex(timescale: Int64(timescale), earliestPresentationTime: Int64(earliest),
                            firstOffset: offset + Int64(size) + Int64(first), references: refs)
    }

    private struct ByteReader {
        let bytes: [UInt8]
        var position = 0
        mutating func u16() -> UInt64? { take(2) }
        mutating func u32() -> UInt64? { take(4) }
        mutating func u64() -> UInt64? { take(8) }
        private mutating func take(_ n: Int) -> UInt64? {
            guard position + n <= bytes.count else { return nil }
            var v: UInt64 = 0
            for b in bytes[position..<(position + n)] { v = v << 8 | UInt64(b) }
            position += n
            return v
        }
    }
}
