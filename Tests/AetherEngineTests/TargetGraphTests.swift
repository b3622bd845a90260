import AetherTestSupport
import Foundation
import Testing

/// The target list drawn in the README and in the engine's DocC (Targets.md) is what
/// Package.swift declares (unit tier): a target added, removed or given another import
/// fails here until both say so.
@Suite struct TargetGraphTests {
    /// `Package.swift`'s targets (not the C ones, not test support) and their dependencies.
    static func declared() throws -> [String: [String]] {
        try graph(types: ["regular"]).filter { name, _ in !name.hasPrefix("C") && !name.hasSuffix("TestSupport") && name != "EndToEndSupport" }
    }

    /// Every target of `types` in `Package.swift` (`regular`, `executable`, `system`, `test`), with the targets it depends on, in the order written (products left out).
    static func graph(types: Set<String>) throws -> [String: [String]] {
        // A scratch path of its own: the package's .build is locked while its tests run.
        let scratch = NSTemporaryDirectory() + "aether-dump-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let r = Process.run(["/usr/bin/env", "swift", "package", "--package-path", TestEnvironment.root.path, "--scratch-path", scratch,
                             "dump-package"], timeout: 60)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
        var out: [String: [String]] = [:]
        for target in (root["targets"] as? [[String: Any]]) ?? [] {
            guard let type = target["type"] as? String, types.contains(type), let name = target["name"] as? String else { continue }
            out[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency["byName"].flatMap { ($0 as? [Any])?.first as? String }
                    ?? dependency["target"].flatMap { ($0 as? [Any])?.first as? String }
            }
        }
        return out
    }

    /// The package's targets `Sources/<name>/` imports (`import`, `@testable`, `@_exported`).
    static func imports(of name: String, among targets: Set<String>) throws -> Set<String> {
        let directory = TestEnvironment.root.appendingPathComponent("Sources/\(name)")
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var found = Set<String>()
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && $0 != "public" && $0 != "internal" && $0 != "package" }
                if words.count == 2, words[0] == "import", targets.contains(String(words[1])) { found.insert(String(words[1])) }
            }
        }
        return found
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

    /// #60 item 5: each target imports exactly the package's targets it declares (a room names
    /// what it uses; a declared target it no longer uses fails too), none of the hosts' rooms
    /// takes the `AetherEngine` umbrella, only `AetherScreen` calls ncurses, and reading a key
    /// needs no FFmpeg.
    @Test func eachTargetImportsWhatItDeclares() throws {
        let graph = try Self.graph(types: ["regular", "executable", "system"])
        let sources = Set(graph.keys)
        let root = TestEnvironment.root.path + "/Sources/"
        // The Swift targets under Sources/ (the C ones have no Swift imports; the test support
        // targets live under Tests/).
        for (name, dependencies) in graph.sorted(by: { $0.key < $1.key })
            where !name.hasPrefix("C") && FileManager.default.fileExists(atPath: root + name) {
            let imported = try Self.imports(of: name, among: sources)
            let declared = Set(dependencies).intersection(sources)
            #expect(imported == declared, "\(name) imports \(imported.subtracting(declared).sorted()) undeclared; declares \(declared.subtracting(imported).sorted()) unimported")
        }
        // ncurses has one owner (#60 item 5): the screen's target; the views and the host call it.
        #expect(graph.filter { $0.value.contains("CNcurses") }.keys.sorted() == ["AetherScreen"], "\(graph.filter { $0.value.contains("CNcurses") }.keys.sorted())")
        for room in ["AetherControl", "AetherInput", "AetherTUI"] {
            #expect(graph[room]?.contains("AetherEngine") == false, "\(room) takes the umbrella")
        }
        var closure = Set<String>(), next = ["AetherInput"]
        while let name = next.popLast() {
            if closure.insert(name).inserted { next += graph[name] ?? [] }
        }
        #expect(!closure.contains("CFFmpeg") && !closure.contains("CALSA") && !closure.contains("CLibass"), "AetherInput reaches \(closure.sorted())")
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
