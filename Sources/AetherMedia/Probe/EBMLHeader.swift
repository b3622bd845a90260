/// An EBML element header (RFC 8794): an ID (a VINT of 1–4 bytes) and a size (a VINT of 1–8
/// bytes; all value bits set means "unknown"). The one reader of them: the Matroska structure
/// parser and the DASH segment server (``SegmentTransmuxer``'s clusters) read headers here.
package enum EBMLHeader: Equatable, Sendable {
    case element(id: UInt32, size: UInt64?, headerSize: Int64)
    case invalid(what: String, byte: UInt8)
    case cut

    /// The Matroska Cluster's ID.
    package static let clusterID: UInt32 = 0x1F43B675

    /// The header at `offset` of `b`: the ID's and size's lengths come from their first byte's
    /// leading zeros (none of them all zero).
    package static func parse(_ b: [UInt8], at offset: Int = 0) -> EBMLHeader {
        guard offset >= 0, offset < b.count else { return .cut }
        let first = b[offset]
        let idLength = first.leadingZeroBitCount + 1
        guard first != 0, idLength <= 4 else { return .invalid(what: "ID", byte: first) }
        guard b.count - offset > idLength else { return .cut }
        var id: UInt32 = 0
        for i in 0..<idLength { id = id << 8 | UInt32(b[offset + i]) }
        // All value bits set is reserved (RFC 8794 5): 0xFF, 0x7FFF, 0x3FFFFF, 0x1FFFFFFF.
        let valueBits = UInt32(7 * idLength)
        if id & ((1 << valueBits) - 1) == (1 << valueBits) - 1 { return .invalid(what: "ID", byte: first) }
        let sizeFirst = b[offset + idLength]
        guard sizeFirst != 0 else { return .invalid(what: "size", byte: sizeFirst) }
        let sizeLength = sizeFirst.leadingZeroBitCount + 1
        guard b.count - offset >= idLength + sizeLength else { return .cut }
        let mask = UInt8(truncatingIfNeeded: 0xFF >> sizeLength)
        var value = UInt64(sizeFirst & mask)
        var allOnes = sizeFirst & mask == mask
        for i in 1..<sizeLength {
            let byte = b[offset + idLength + i]
            value = value << 8 | UInt64(byte)
            allOnes = allOnes && byte == 0xFF
        }
        return .element(id: id, size: allOnes ? nil : value, headerSize: Int64(idLength + sizeLength))
    }
}
