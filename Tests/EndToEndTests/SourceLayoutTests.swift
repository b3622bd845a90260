import AetherTestSupport
import Foundation
import Testing

/// The house rules of the source tree: each target under `Sources/` at most 6,000 lines of Swift
/// and each Swift file at most 450, so that a newcomer can read a target and a file whole.
struct SourceLayoutTests {
    static let maximumTargetLines = 6_000
    static let maximumFileLines = 450

    /// Lines of every Swift file under `Sources/`, by target.
    static func lines() throws -> [String: [(file: String, lines: Int)]] {
        let sources = TestEnvironment.root.appendingPathComponent("Sources")
        var byTarget: [String: [(file: String, lines: Int)]] = [:]
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let directory = sources.appendingPathComponent(target)
            guard let walker = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(relative), encoding: .utf8)
                let count = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
                byTarget[target, default: []].append((target + "/" + relative, count))
            }
        }
        return byTarget
    }

    @Test func everyTargetAndFileIsWithinItsSize() throws {
        let byTarget = try Self.lines()
        #expect(byTarget.count >= 15, "the targets under Sources/ were not found: \(byTarget.keys.sorted())")
        for (target, files) in byTarget.sorted(by: { $0.key < $1.key }) {
            let total = files.reduce(0) { $0 + $1.lines }
            #expect(total <= Self.maximumTargetLines, "\(target) has \(total) lines (at most \(Self.maximumTargetLines))")
            for file in files where file.lines > Self.maximumFileLines {
                Issue.record("\(file.file) has \(file.lines) lines (at most \(Self.maximumFileLines))")
            }
        }
    }
}
