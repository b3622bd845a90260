import AetherEngine
@testable import AetherStructure
import AetherTestSupport
import Foundation

/// What the container tab's parser tests share: fixtures without regenerating the corpus when
/// it is already there, whole-tree walks, and boxes and packets built in memory.
enum StructureTestSupport {
    /// A fixture's path. The corpus is generated only when the file is missing: the
    /// fixture script's own change would otherwise regenerate every fixture for a filtered run.
    static func fixture(_ name: String) -> String {
        let path = TestEnvironment.fixtureDirectory.appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : TestEnvironment.fixture(name)
    }

    /// Every node, depth first in file order, every container expanded (at most `limit` nodes).
    static func walk(_ parser: any StructureParser, limit: Int = 100_000) -> [StructureNode] {
        var out: [StructureNode] = []
        func visit(_ nodes: [StructureNode]) {
            for n in nodes where out.count < limit {
                out.append(n)
                if n.isContainer { visit(parser.children(of: n).nodes) }
            }
        }
        visit(parser.top().nodes)
        return out
    }

    static func field(_ node: StructureNode?, _ name: String) -> String? {
        node?.fields.first { $0.name == name }?.value
    }

    /// The current resident set in KiB (VmRSS: what the process holds now, not its peak).
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst(6).filter(\.isNumber)) ?? 0
        }
        return 0
    }

    /// Counts what a parser reads: the measure of its work that a budget bounds.
    final class CountingSource: ByteSource {
        let inner: any ByteSource
        var bytesRead = 0
        var reads = 0
        init(_ inner: any ByteSource) { self.inner = inner }
        var length: Int64 { inner.length }
        func read(at offset: Int64, count: Int) -> [UInt8] {
            let out = inner.read(at: offset, count: count)
            bytesRead += out.count
            reads += 1
            return out
        }
    }

    /// Runs `body` and its wall time in seconds.
    static func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try body()
        return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    // MARK: boxes

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }

    /// A box with a 32-bit size.
    static func box(_ type: String, _ payload: [UInt8] = []) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// A full box: version and flags first.
    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        box(type, [version] + Array(be32(flags).dropFirst()) + payload)
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + be32(512) + Array("isomiso2".utf8))

    // MARK: packets

    /// One 188-byte TS packet: `payload` (padded with 0xFF) after the header, or after an
    /// adaptation field when `adaptation` is given (its bytes after the length byte).
    static func packet(pid: Int, cc: Int, unitStart: Bool = false, payload: [UInt8] = [], adaptation: [UInt8]? = nil, hasPayload: Bool = true) -> [UInt8] {
        var p: [UInt8] = [0x47, UInt8((unitStart ? 0x40 : 0) | (pid >> 8 & 0x1F)), UInt8(pid & 0xFF),
                          UInt8((adaptation != nil ? 0x20 : 0) | (hasPayload ? 0x10 : 0) | (cc & 0x0F))]
        if var a = adaptation {
            if !hasPayload { a += [UInt8](repeating: 0xFF, count: max(0, 183 - a.count)) }
            p += [UInt8(a.count)] + a
        }
        p += payload
        p += [UInt8](repeating: 0xFF, count: max(0, 188 - p.count))
        return Array(p.prefix(188))
    }

    /// A PSI section with its CRC (syntax indicator set).
    static func section(table: UInt8, id: Int, body: [UInt8]) -> [UInt8] {
        let length = 5 + body.count + 4
        var s: [UInt8] = [table, UInt8(0xB0 | (length >> 8 & 0x0F)), UInt8(length & 0xFF)] + be16(id) + [0xC1, 0, 0] + body
        s += be32(TransportStreamParser.Scan.crc32(s))
        return s
    }
}
