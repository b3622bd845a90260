import AetherTestSupport
import Foundation
import Testing

/// The target list drawn in the README and in the engine's DocC (Targets.md) is what
/// Package.swift declares (unit tier): a target added, removed or given another import
/// fails here until both say so.
@Suite struct TargetGraphTests {
    /// `Package.swift`'s targets (not the C ones, not test support) and their dependencies.
    static func declared() throws -> [String: [String]] {
        // A scratch path of its own: the package's .build is locked while its tests run.
        let scratch = NSTemporaryDirectory() + "aether-dump-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let r = Process.run(["/usr/bin/env", "swift", "package", "--package-path", TestEnvironment.root.path, "--scratch-path", scratch,
                             "dump-package"], timeout: 60)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
        var out: [String: [String]] = [:]
        for target in (root["targets"] as? [[String: Any]]) ?? [] {
            guard target["type"] as? String == "regular", let name = target["name"] as? String, !name.hasPrefix("C"),
                  !name.hasSuffix("TestSupport"), name != "EndToEndSupport" else { continue }
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { ($0.values.first as? [Any])?.first as? String }
            out[name] = dependencies
        }
        return out
    }

    /// The list between `<!-- target list -->` and `<!-- end of target list -->` in `path`.
    static func drawn(in path: String) throws -> [String: [String]] {
        let text = try String(contentsOfFile: TestEnvironment.root.path + "/" + path, encoding: .utf8)
        let start = try #require(text.range(of: "<!-- target list -->"), "\(path): no target list")
        let end = try #require(text.range(of: "<!-- end of target list -->"), "\(path): the list does not end")
        var out: [String: [String]] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("- ") {
            let sides = line.dropFirst(2).components(separatedBy: " → ")
            let names = { (s: String) in s.components(separatedBy: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }.filter { !$0.isEmpty } }
            guard let name = sides.first.map(names)?.first else { continue }
            out[name] = sides.count > 1 ? names(sides[1]) : []
        }
        return out
    }

    @Test func theDrawnTargetListIsPackageSwifts() throws {
        let declared = try Self.declared()
        #expect(declared.count >= 15, "\(declared.keys.sorted())")
        #expect(declared["AetherPlayback"]?.contains("AetherDownload") == false, "the player imports no download code")
        for path in ["README.md", "Sources/AetherEngine/AetherEngine.docc/Targets.md"] {
            let drawn = try Self.drawn(in: path)
            for name in Set(declared.keys).union(drawn.keys).sorted() {
                #expect(drawn[name] == declared[name], "\(path): \(name) → \(drawn[name] ?? ["(missing)"]) but Package.swift says \(declared[name] ?? ["(no such target)"])")
            }
        }
    }
}
