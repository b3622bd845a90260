import CFFmpeg

/// A small, forgiving XML reader for DASH manifests: elements, attributes and text, nothing
/// more. Comments, processing instructions, the XML declaration and a DOCTYPE (with its internal
/// subset) are skipped; CDATA is text; the five predefined entities and numeric character
/// references are decoded, any other entity is left as written (no DTD is ever read, so no
/// entity expands into anything). Namespace prefixes are dropped from element and attribute
/// names (`mpd:Period` is `Period`). Malformed markup, more than ``maxElements`` elements or
/// nesting deeper than ``maxDepth`` gives nil: a manifest is remote input.
package struct ManifestXML {
    package struct Element: Equatable {
        package var name: String
        package var attributes: [String: String] = [:]
        package var children: [Element] = []
        /// The element's own text (CDATA included), children's text excluded.
        package var text = ""

        package subscript(attribute: String) -> String? { attributes[attribute] }

        /// Direct children called `name`.
        package func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        package func first(_ name: String) -> Element? { children.first { $0.name == name } }
    }

    static let maxElements = 200_000
    static let maxDepth = 64

    /// The document's root element, or nil when `text` is not well-formed enough to read.
    package static func parse(_ text: String) -> Element? {
        var reader = Reader(bytes: Array(text.utf8))
        return reader.document()
    }

    /// Why a remote manifest is refused before libavformat's DASH demuxer (libxml2) may see it,
    /// or nil: larger than 16 MiB, a DOCTYPE or an entity declaration (the rule of xml_guard.c,
    /// which libavformat's own parse passes too), not well-formed enough to read, or more than
    /// ``maxElements`` elements or ``maxDepth`` levels.
    package static func refusal(_ bytes: [UInt8]) -> String? {
        let rule = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { aether_xml_refusal($0.baseAddress, Int32(clamping: $0.count)) }
        }
        switch rule {
        case 0: break
        case 2: return "manifest larger than 16 MiB refused"
        case 3: return "the manifest has a DOCTYPE or declares XML entities (refused)"
        default: return "the manifest is empty"
        }
        var reader = Reader(bytes: bytes)
        guard reader.document() == nil else { return nil }
        if reader.count > maxElements || reader.stack.count >= maxDepth {
            return "the manifest has more than \(maxElements) elements or \(maxDepth) levels (refused)"
        }
        return "the manifest is not well-formed XML (near byte \(min(reader.i, bytes.count)))"
    }

    private struct Reader {
        let bytes: [UInt8]
        var i = 0
        var stack: [Element] = []
        var root: Element?
        var count = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() -> Element? {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "<") {
                    guard markup() else { return nil }
                } else {
                    let start = i
                    while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
                    if !stack.isEmpty { stack[stack.count - 1].text += Self.decode(bytes[start..<i]) }
                }
                if root != nil { return root }
            }
            return nil  // the root never closed
        }

        private func starts(with literal: String) -> Bool {
            let l = Array(literal.utf8)
            return i + l.count <= bytes.count && bytes[i..<(i + l.count)].elementsEqual(l)
        }

        /// Moves past the next `literal`; false when there is none.
        private mutating func skip(past literal: String) -> Bool {
            let l = Array(literal.utf8)
            while i + l.count <= bytes.count {
                if bytes[i..<(i + l.count)].elementsEqual(l) {
                    i += l.count
                    return true
                }
                i += 1
            }
            return false
        }

        private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

        private static func isNameByte(_ b: UInt8) -> Bool {
            !isSpace(b) && b != UInt8(ascii: "/") && b != UInt8(ascii: ">") && b != UInt8(ascii: "=")
                && b != UInt8(ascii: "<") && b != UInt8(ascii: "\"") && b != UInt8(ascii: "'")
        }

        private mutating func skipSpace() { while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 } }

        private mutating func name() -> String? {
            let start = i
            while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
            guard i > start else { return nil }
            let full = String(decoding: bytes[start..<i], as: UTF8.self)
            // `prefix:local` → `local` (but `xmlns:x` stays distinct from `x`).
            if full.hasPrefix("xmlns") { return full }
            return full.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? full
        }

        /// At a `<`: one piece of markup. False on malformed input or a limit passed.
        private mutating func markup() -> Bool {
            if starts(with: "<!--") { return skip(past: "-->") }
            if starts(with: "<?") { return skip(past: "?>") }
            if starts(with: "<![CDATA[") {
                i += 9
                let start = i
                guard skip(past: "]]>") else { return false }
                if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: bytes[start..<(i - 3)], as: UTF8.self) }
                return true
            }
            if starts(with: "<!") {
                // DOCTYPE and the like: up to the `>` outside any `[...]` internal subset.
                var depth = 0
                while i < bytes.count {
                    let b = bytes[i]
                    i += 1
                    if b == UInt8(ascii: "[") { depth += 1 }
                    else if b == UInt8(ascii: "]") { depth -= 1 }
                    else if b == UInt8(ascii: ">"), depth <= 0 { return true }
                }
                return false
            }
            if starts(with: "</") {
                i += 2
                guard let closing = name() else { return false }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return false }
                i += 1
                // Closes the innermost open element of that name (an unmatched end tag is ignored).
                guard let open = stack.lastIndex(where: { $0.name == closing }) else { return true }
                while stack.count > open { close() }
                return true
            }
            i += 1
            guard let tag = name() else { return false }
            var element = Element(name: tag)
            while true {
                skipSpace()
                guard i < bytes.count else { return false }
                if bytes[i] == UInt8(ascii: ">") {
                    i += 1
                    return open(element, selfClosing: false)
                }
                if starts(with: "/>") {
                    i += 2
                    return open(element, selfClosing: true)
                }
                guard let key = name() else { return false }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { return false }
                i += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return false }
                let quote = bytes[i]
                i += 1
                let start = i
                while i < bytes.count, bytes[i] != quote { i += 1 }
                guard i < bytes.count else { return false }
                element.attributes[key] = Self.decode(bytes[start..<i])
                i += 1
            }
        }

        private mutating func open(_ element: Element, selfClosing: Bool) -> Bool {
            count += 1
            guard count <= ManifestXML.maxElements, stack.count < ManifestXML.maxDepth else { return false }
            stack.append(element)
            if selfClosing { close() }
            return true
        }

        private mutating func close() {
            let done = stack.removeLast()
            if stack.isEmpty {
                if root == nil { root = done }
            } else {
                stack[stack.count - 1].children.append(done)
            }
        }

        /// Text with the predefined entities and character references decoded.
        static func decode(_ raw: ArraySlice<UInt8>) -> String {
            guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
            var out = ""
            var rest = Substring(String(decoding: raw, as: UTF8.self))
            while let amp = rest.firstIndex(of: "&") {
                out += rest[..<amp]
                guard let semi = rest[amp...].prefix(12).firstIndex(of: ";") else {
                    out += "&"
                    rest = rest[rest.index(after: amp)...]
                    continue
                }
                let entity = rest[rest.index(after: amp)..<semi]
                var replacement: String?
                switch entity {
                case "amp": replacement = "&"
                case "lt": replacement = "<"
                case "gt": replacement = ">"
                case "quot": replacement = "\""
                case "apos": replacement = "'"
                default:
                    if entity.hasPrefix("#") {
                        let digits = entity.dropFirst()
                        let value = digits.hasPrefix("x") || digits.hasPrefix("X")
                            ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                        if let value, value != 0, let scalar = Unicode.Scalar(value) { replacement = String(Character(scalar)) }
                    }
                }
                if let replacement {
                    out += replacement
                    rest = rest[rest.index(after: semi)...]
                } else {
                    out += "&"
                    rest = rest[rest.index(after: amp)...]
                }
            }
            out += rest
            return out
        }
    }
}
