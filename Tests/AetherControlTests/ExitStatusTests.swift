import AetherControl
import AetherTestSupport
import Foundation
import Testing

/// The one exit-status table (unit tier): how a run's outcome maps to a status, and the man
/// page's EXIT STATUS list, which must name every status of the table and no other.
@Suite struct ExitStatusTests {
    @Test func aRunEndsWithTheStatusOfWhatPlayed() {
        #expect(ExitStatus.of(played: 1, failed: 0, items: 1, endedEarly: false) == .ok)
        #expect(ExitStatus.of(played: 1, failed: 0, items: 1, endedEarly: true) == .incomplete)
        #expect(ExitStatus.of(played: 0, failed: 1, items: 1, endedEarly: false) == .failed, "one file that failed: 1, as mpv")
        #expect(ExitStatus.of(played: 0, failed: 3, items: 3, endedEarly: false) == .incomplete)
        #expect(ExitStatus.of(played: 2, failed: 1, items: 3, endedEarly: false) == .partial)
        // A network cause, and nothing else: its own status, whether the open failed, every
        // item failed, or the one item ended early.
        #expect(ExitStatus.of(played: 0, failed: 1, items: 1, endedEarly: false, network: true) == .network)
        #expect(ExitStatus.of(played: 0, failed: 3, items: 3, endedEarly: false, network: true) == .network)
        #expect(ExitStatus.of(played: 1, failed: 0, items: 1, endedEarly: true, network: true) == .network)
        #expect(ExitStatus.of(played: 2, failed: 1, items: 3, endedEarly: false, network: true) == .partial)
        #expect(ExitStatus.of(played: 1, failed: 0, items: 1, endedEarly: false, network: true) == .ok)
    }

    /// The numbers of the `.It` items of the man page's EXIT STATUS section.
    static func manStatuses() throws -> [Int32] {
        let text = try String(contentsOfFile: TestEnvironment.root.path + "/man/aether-tui.1", encoding: .utf8)
        let start = try #require(text.range(of: ".Sh EXIT STATUS\n"))
        let rest = text[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n.Sh ")?.lowerBound ?? rest.endIndex)]
        let list = section[..<(section.range(of: ".El")?.lowerBound ?? section.endIndex)]
        return list.split(separator: "\n").compactMap { line in line.hasPrefix(".It ") ? Int32(line.dropFirst(4)) : nil }
    }

    @Test func theManPageListsEveryStatusOfTheTable() throws {
        #expect(try Self.manStatuses() == ExitStatus.allCases.map(\.rawValue))
    }
}
