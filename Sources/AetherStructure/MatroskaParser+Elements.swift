import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// Element headers (ID, size, unknown sizes) and the node made of each element, by its family
// (``MatroskaParser/families``) or, for a leaf no family reads, by its type (``EBMLValues``).
extension MatroskaParser {
    typealias Header = EBMLHeader

    /// An element header from the bytes at its offset (``EBMLHeader``).
    static func parseHeader(_ b: [UInt8]) -> Header { EBMLHeader.parse(b) }

    /// One element being read: its header and where it ends (clipped to its parent).
    struct Element {
        let id: UInt32
        let info: EBMLElement?
        let offset: Int64
        let headerSize: Int64
        /// The size the header states (nil: unknown).
        let declared: UInt64?
        var end: Int64
        /// The bytes read at `offset` (`headerProbe` of them, fewer at the parent's end).
        let head: [UInt8]
        let depth: Int
        var damage: String?

        init(id: UInt32, info: EBMLElement?, offset: Int64, headerSize: Int64, declared: UInt64?, end: Int64,
             head: [UInt8], depth: Int) {
            self.id = id
            self.info = info
            self.offset = offset
            self.headerSize = headerSize
            self.declared = declared
            self.end = end
            self.head = head
            self.depth = depth
        }

        var name: String { info?.name ?? EBMLText.hexID(id) }
        var payloadOffset: Int64 { offset + headerSize }
        var payloadSize: Int64 { end - payloadOffset }
    }

    // MARK: - Nodes

    func node(for element: Element) -> StructureNode {
        var damage = element.damage
        var fields: [StructureField] = []
        var summary: String?
        var isContainer = false
        let size: Int64? = element.declared == nil ? nil : element.end - element.offset
        let family = families[element.id]
        switch element.info?.type {
        case .master:
            if element.depth >= budget.maxDepth {
                damage = (damage.map { $0 + "; " } ?? "")
                    + "\(element.name) at offset \(ContainerScan.grouped(element.offset)) is nested \(element.depth + 1) levels deep: "
                    + "its children (past the limit of \(budget.maxDepth)) are not read"
            } else {
                isContainer = true
            }
            summary = family?.read(element, damage: nil).summary
            if element.declared == nil { summary = "unknown size" + (summary.map { "; " + $0 } ?? "") }
        case .some(let type):
            if element.declared == nil {
                (summary, fields) = ("unknown size", [StructureField("size", "unknown")])
            } else if let family {
                (summary, fields, damage) = family.read(element, damage: damage)
            } else {
                (summary, fields, damage) = values.leaf(element, type: type, damage: damage)
            }
        case nil:
            (summary, fields) = values.unknown(element)
        }
        return StructureNode(name: element.name, offset: element.offset, headerSize: element.headerSize, size: size,
                             summary: summary.map(EBMLText.clip), fields: fields, damage: damage, isContainer: isContainer,
                             depth: element.depth, tag: UInt64(element.id))
    }
}
