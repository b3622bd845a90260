import AetherTestSupport
import Foundation
import Testing

/// The shape of a type (unit tier): nothing implicitly unwrapped (a rule: it fails); the house's
/// guide of 400 lines counting its extensions (and the types nested in it) and 15 stored
/// properties is reported, not enforced (#60: a count is evidence, and a type is as big as its
/// idea; the cap had code bent to fit it). Types over the guide are printed as `size: …` lines,
/// which `test.sh` repeats at the end of its run. A type that only declares (an options struct
/// whose body is its option list) is left out of the report, and its doc comment says so
/// ("only declares"). Types are read from `Sources/` as written at the left margin: `class`,
/// `struct`, `enum`, `actor` and their `extension`s, measured by their braces.
@Suite struct TypeShapeTests {
    static let maximumLines = 400
    static let maximumStoredProperties = 15

    struct Shape {
        var lines = 0
        var stored = 0
        var onlyDeclares = false
        var unwrapped: [String] = []
    }

    static let declaration = try! NSRegularExpression(
        pattern: #"^(?:(?:public|internal|private|fileprivate|final|open|package|@\w+(?:\([^)]*\))?)\s+)*(class|struct|enum|actor|extension)\s+([A-Za-z_][\w.]*)"#)
    static let property = try! NSRegularExpression(
        pattern: #"^\s*(?:(?:public|private|fileprivate|internal|package|weak|unowned|lazy|nonisolated|@\w+(?:\([^)]*\))?|(?:public|private|fileprivate|internal)\((?:set)\))\s+)*(var|let)\s+\w+"#)

    /// The code of a line: no string literals, no `//` comment.
    static func code(_ line: Substring) -> String {
        var out = "", inString = false, escaped = false
        var previous: Character = " "
        for c in line {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            if c == "\"" { inString = true; continue }
            if c == "/", previous == "/" { out.removeLast(); break }
            out.append(c)
            previous = c
        }
        return out
    }

    static func shapes() throws -> [String: Shape] {
        let sources = TestEnvironment.root.appendingPathComponent("Sources").path
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var shapes: [String: Shape] = [:]
        for file in files {
            let module = String(file.split(separator: "/").first ?? "")
            let lines = try String(contentsOfFile: sources + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var i = 0
            while i < lines.count {
                let line = String(lines[i])
                guard let match = declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                      let kindRange = Range(match.range(at: 1), in: line), let nameRange = Range(match.range(at: 2), in: line) else { i += 1; continue }
                let isExtension = line[kindRange] == "extension"
                // A type and every extension of it or of a type nested in it (`extension A.B`)
                // are one shape: a nested type's extensions in files of their own count too (#60).
                let key = module + "." + (line[nameRange].split(separator: "<").first.map(String.init)?.split(separator: ".").first.map(String.init) ?? "")
                var shape = shapes[key] ?? Shape()
                if !isExtension {
                    var k = i - 1
                    while k >= 0, lines[k].trimmingCharacters(in: .whitespaces).hasPrefix("///") || lines[k].hasPrefix("@") {
                        if lines[k].contains("only declares") { shape.onlyDeclares = true }
                        k -= 1
                    }
                }
                var depth = 0, started = false, j = i
                while j < lines.count {
                    let code = Self.code(lines[j])
                    if started, depth == 1, j > i, !isExtension,
                       let p = property.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)), !code.contains("static ") {
                        let keyword = Range(p.range(at: 1), in: code).map { String(code[$0]) }
                        // A computed property has a body, and no `=` before it.
                        let brace = code.firstIndex(of: "{"), equals = code.firstIndex(of: "=")
                        let computed = keyword == "var" && brace != nil && (equals == nil || equals! > brace!)
                        if !computed { shape.stored += 1 }
                        if code.range(of: #":\s*[\w.<>\[\]]+!\s*(=|$)"#, options: .regularExpression) != nil {
                            shape.unwrapped.append("\(file):\(j + 1)")
                        }
                    }
                    depth += code.filter { $0 == "{" }.count - code.filter { $0 == "}" }.count
                    if code.contains("{") { started = true }
                    if started, depth <= 0 { break }
                    j += 1
                }
                shape.lines += j - i + 1
                shapes[key] = shape
                i = j + 1
            }
        }
        return shapes
    }

    @Test func nothingIsImplicitlyUnwrappedAndSizesAreReported() throws {
        let shapes = try Self.shapes()
        #expect(shapes.count > 300, "the types under Sources/ were found: \(shapes.count)")
        #expect((shapes["AetherTUI.TUIApp"]?.lines ?? 0) > 100, "TUIApp was measured with its extensions")
        // The transport-stream reader's nested types are extended in files of their own: counted with it.
        #expect(shapes["AetherStructure.TransportStreamParser.Scan"] == nil)
        #expect((shapes["AetherStructure.TransportStreamParser"]?.lines ?? 0) > 600, "\(shapes["AetherStructure.TransportStreamParser"]?.lines ?? 0)")
        var unwrapped: [String] = []
        for (name, shape) in shapes.sorted(by: { $0.key < $1.key }) {
            if !shape.unwrapped.isEmpty { unwrapped.append("\(name): implicitly unwrapped at \(shape.unwrapped.joined(separator: ", "))") }
            guard !shape.onlyDeclares else { continue }
            if shape.lines > Self.maximumLines || shape.stored > Self.maximumStoredProperties {
                print("size: \(name) \(shape.lines) lines counting its extensions, \(shape.stored) stored properties (guide: \(Self.maximumLines), \(Self.maximumStoredProperties))")
            }
        }
        #expect(unwrapped.isEmpty, "\(unwrapped.joined(separator: "\n"))")
    }

    /// The measure itself: a computed property is not stored, a closure default is; nested types
    /// and extensions count toward their type.
    @Test func theMeasureCountsWhatItShould() {
        #expect(Self.code("let a = \"// not a comment\" // a comment") == "let a =  ")
        #expect(Self.code(#"let b = "a \"quoted\" {" + c"#) == "let b =  + c")
    }
}
