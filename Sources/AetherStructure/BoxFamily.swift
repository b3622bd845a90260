import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reads boxes' payloads into fields, within the budget: at most
/// ``StructureBudget/maxFieldBytes`` (and never more than 64 KiB) of a box, through the parser's
/// window.
protocol BoxReader {
    var window: ContainerScan.Window { get }
    var budget: StructureBudget { get }
}

/// One family of boxes whose payloads a reader decodes: the parser walks the boxes and hands each
/// to the family that names its type (``ISOBMFFParser/families``), as the output drivers are
/// chosen from their registry.
protocol BoxFamily: BoxReader {
    /// The box types this family reads (each in one family only).
    static var boxes: [String] { get }
    init(window: ContainerScan.Window, budget: StructureBudget)
    /// Sets `node`'s summary and fields from its payload (and, for a box that holds boxes, its
    /// container flag and where its children start, `tag`); what the payload lacks is said in
    /// `damage`.
    func read(_ node: inout StructureNode, type: String, damage: inout [String])
}

extension BoxReader {
    /// The bytes of a box's payload that field decoding may read.
    func payload(_ node: StructureNode, limit: Int = Int.max) -> [UInt8] {
        let available = (node.size ?? 0) - node.headerSize
        guard available > 0 else { return [] }
        let cap = min(limit, budget.maxFieldBytes, 64 << 10)
        return window.read(at: node.payloadOffset, count: Int(min(available, Int64(max(0, cap)))))
    }

    /// Says `node`, a `type` box, is too short for its `what` (one damage line).
    func tooShort(_ node: StructureNode, _ type: String, _ what: String, _ damage: inout [String]) {
        damage.append("'\(type)' at offset \(ContainerScan.grouped(node.offset)) is too short for its \(what)")
    }

    /// The payload's full length (what the box says it holds, clipped to its parent).
    func payloadLength(_ node: StructureNode) -> Int64 { max(0, (node.size ?? 0) - node.headerSize) }

    /// Reads a full box's version and flags into `node`'s fields.
    func versionFlags(_ c: inout ContainerScan.Cursor, _ node: inout StructureNode) -> (UInt8, UInt32)? {
        guard let v = c.u8(), let f = c.u24() else { return nil }
        node.fields.append(StructureField("version", String(v)))
        if f != 0 { node.fields.append(StructureField("flags", String(cFormat: "0x%06x", f))) }
        return (v, f)
    }

    func fullBox(_ c: inout ContainerScan.Cursor, _ node: inout StructureNode) -> Bool { versionFlags(&c, &node) != nil }
}
