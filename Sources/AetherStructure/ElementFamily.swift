import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads Matroska elements' payloads within the budget: from the bytes read with the header when
/// they are there, else one read of the source, never more than ``StructureBudget/maxFieldBytes``.
protocol EBMLReader {
    var source: any ByteSource { get }
    var budget: StructureBudget { get }
}

/// One family of Matroska elements read in their own way: the parser finds an element's family
/// by its ID (``MatroskaParser/families``), as the output drivers are chosen from their
/// registry; a leaf no family names is read by its type (``EBMLValues``).
protocol ElementFamily: EBMLReader, AnyObject {
    /// The IDs this family reads (each in one family only).
    static var ids: [UInt32] { get }
    /// One of its elements as a node's summary and fields, with `damage` (what the element
    /// already carries) and what reading it found. A leaf is read only when its size is known; of
    /// a master only the summary is shown (its children are its fields).
    func read(_ element: MatroskaParser.Element, damage: String?) -> (summary: String?, fields: [StructureField], damage: String?)
}

extension EBMLReader {
    /// Up to `limit` bytes of an element's payload (from the header read when they are in it).
    func payload(of element: MatroskaParser.Element, limit: Int64) -> [UInt8] {
        let wanted = min(element.payloadSize, limit, Int64(budget.maxFieldBytes))
        guard wanted > 0 else { return [] }
        let start = Int(element.headerSize)
        if Int64(element.head.count - start) >= wanted { return Array(element.head[start..<(start + Int(wanted))]) }
        return source.read(at: element.payloadOffset, count: Int(wanted))
    }
}
