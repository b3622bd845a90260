import AetherTestSupport
import Foundation
import Testing

/// The house rules of the source tree: each Swift file at most 450 lines, so that a newcomer can
/// read a file whole. A target's size is reported, not capped (DESIGN: a target is as big as its
/// idea; a cap of 6,000 lines had four targets cut to fit it).
struct SourceLayoutTests {
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

    @Test func everyFileIsWithinItsSizeAndTargetsAreReported() throws {
        let byTarget = try Self.lines()
        #expect(byTarget.count >= 15, "the targets under Sources/ were not found: \(byTarget.keys.sorted())")
        for (target, files) in byTarget.sorted(by: { $0.key < $1.key }) {
            print("size: target \(target): \(files.reduce(0) { $0 + $1.lines }) lines in \(files.count) files")
            for file in files where file.lines > Self.maximumFileLines {
                Issue.record("\(file.file) has \(file.lines) lines (at most \(Self.maximumFileLines))")
            }
        }
    }
}
