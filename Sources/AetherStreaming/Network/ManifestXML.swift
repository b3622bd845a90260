import CFFmpeg

/// A small, forgiving XML reader for DASH manifests: elements, attributes and text, nothing
/// more. Comments, processing instructions, the XML declaration and a DOCTYPE (with its internal
/// subset) are skipped; CDATA is text; the five predefined entities and numeric character
/// references are decoded, any other entity is left as written (no DTD is ever read, so no
/// entity expands into anything). Namespace prefixes are dropped from element and attribute
/// names (`mpd:Period` is `Period`). Malformed markup, more than ``maxElements`` elements or
/// nesting deeper than ``maxDepth`` gives nil: a manifest is remote input.
package struct ManifestXML {
    struct Element: Equatable {
        var name: String
        var attributes: [String: String] = [:]
        var children: [Element] = []
        /// The element's own text (CDATA included), children's text excluded.
        var text = ""

        subscript(attribute: String) -> String? { attributes[attribute] }

        /// Direct children called `name`.
        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }
        func first(_ name: String) -> Element? { children.first { $0.name == name } }
    }

    static let maxElements = 200_000
    static let maxDepth = 64

    /// The document's root element, or nil when `text` is not well-formed enough to read.
    static func parse(_ text: String) -> Element? {
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

/// The parsers of remote playlists and manifests run on untrusted bytes in one call each, for the
/// fuzzers (`aether-fuzz hls|dash`) and the replay of their regression files.
public enum ManifestCheck {
    static let base = "http://fuzz.invalid/stream/index"

    /// An HLS master or media playlist through every HLS reader: the master parser and variant
    /// choice, the image streams and an image media playlist. Returns how much it found.
    @discardableResult
    public static func hls(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var found = 0
        if let master = HLSMasterPlaylist.parse(text, base: base + ".m3u8") {
            found += master.variants.count + master.renditions.count
            for preference in [VariantPreference.auto, .min, .max, .atMost(1_000_000)] {
                if let k = VariantChooser.choose(master.variants, preference: preference, range: .auto) {
                    found += master.needsRenditions(master.variants[k]) ? 1 : 0
                    _ = master.variants[k].summary
                    // Bit-rate switching's ladder and one decision over its rates.
                    let ladder = VariantChooser.ladder(master.variants, anchor: k, limit: AdaptivePolicy().maxRungs)
                    let rates = ladder.map { Double(master.variants[$0].bandwidth) }
                    if let here = ladder.firstIndex(of: k) {
                        found += AdaptiveRule.decide(current: here, rates: rates, estimate: 2e6, recent: 1e6, buffer: 3,
                                                     segmentSeconds: 2, sinceSwitch: 10, policy: AdaptivePolicy())?.rung ?? 0
                    }
                }
            }
        }
        // A byte-range playlist rewritten for switching, and the ranges read back from its URLs.
        if let rewritten = HLSMediaPlaylist.rangesAsURLs(text, base: base + ".m3u8"),
           let media = try? HLSMediaPlaylist.parse(rewritten, base: base + ".m3u8") {
            found += media.segments.compactMap { HLSMediaPlaylist.rangedURL($0.uri)?.range.length }.count
        }
        found += HLSMediaPlaylist.rangedURL(text)?.range.offset ?? 0
        // As a media playlist (what bit-rate switching reads of each variant).
        if let media = try? HLSMediaPlaylist.parse(text, base: base + ".m3u8") {
            found += media.segments.count + (media.isSwitchable ? 1 : 0)
            if let last = media.segments.last {
                found += media.index(startingAt: last.start, tolerance: 0.5) ?? 0
                // Live switching: by sequence number, by date, and the numbering check.
                found += media.index(sequence: last.sequence) ?? 0
                found += AdaptiveSwitcher.match(last, in: media, byDate: true) ?? 0
                found += AdaptiveSwitcher.needsDates(media, anchor: media) ? 1 : 0
            }
            // The switcher over it: a reload of the anchor and a segment planned from a second
            // variant whose playlist is the same text (never waiting).
            let a = base + "a.m3u8", b = base + "b.m3u8"
            let switcher = AdaptiveSwitcher(variants: [StreamVariant(uri: a, bandwidth: 1_000_000), StreamVariant(uri: b, bandwidth: 2_000_000)],
                                            ladder: [0, 1], anchor: 0, anchorPlaylist: media, policy: AdaptivePolicy(), loader: { _ in text })
            switcher.playlistFetched(a, text: text)
            switcher.playlistFetched(b, text: text)
            switcher.arm()
            if let first = media.segments.first, let plan = switcher.plan(for: first.uri) {
                switcher.downloaded(plan, bytes: 1 << 20, seconds: 0.1)
                found += switcher.abandon(plan, loaded: 1 << 10, elapsed: 1e9) == nil ? 0 : 1
            }
        }
        let streams = HLSThumbnails.imageStreams(in: text, base: base + ".m3u8")
        found += streams.count
        if let track = HLSThumbnails.track(inPlaylist: text, base: base + ".m3u8", stream: HLSThumbnails.choose(streams)) {
            found += track.sheets.count
            for t in [-1.0, 0, 1.5, 1e9, .nan, .infinity] {
                if let tile = track.tile(at: t) { _ = tile.rect(sheetWidth: 1600, sheetHeight: 900) }
            }
            _ = track.summary
        }
        return found
    }

    /// A DASH manifest through every DASH reader: the pre-check libxml2's copy also passes
    /// (xml_guard.c), the XML reader, the foreign-reference scan and the thumbnail track.
    @discardableResult
    public static func dash(_ bytes: [UInt8]) -> Int {
        var found = ManifestXML.refusal(bytes) == nil ? 1 : 0
        let text = String(decoding: bytes, as: UTF8.self)
        if let root = ManifestXML.parse(text) { found += root.children.count }
        if StreamVariants.foreignReference(inManifest: text) != nil { found += 1 }
        if let track = DASHThumbnails.track(in: text, base: base + ".mpd") {
            found += track.sheets.count
            for t in [-1.0, 0, 1.5, 1e9, .nan] {
                if let tile = track.tile(at: t) { _ = tile.rect(sheetWidth: 1600, sheetHeight: 900) }
            }
        }
        return found
    }

    /// An MPD through the DASH playback reader: the MPD parser (as a remote manifest and as a
    /// local one, static timing and live timing), its joined tracks, and the input's own bytes
    /// as the `sidx` every on-demand representation asks for. Checks what the parser promises:
    /// segment budgets, finite times, http(s) only from a remote manifest.
    @discardableResult
    public static func mpd(_ bytes: [UInt8]) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var found = 0
        var limits = DASHManifest.Limits()
        limits.segmentsPerRepresentation = 5000
        limits.totalSegments = 20_000
        for (base, now) in [(base + ".mpd", 1e9), ("/fuzz/local.mpd", 1.7e9)] {
            guard var m = try? DASHManifest.parse(text, base: base, now: now, limits: limits) else { continue }
            try? m.resolveIndexes(limits: limits) { resource in
                guard let range = resource.range, range.offset < bytes.count else { return nil }
                return Array(bytes[Int(range.offset)..<min(bytes.count, Int(range.offset + min(range.length, 1 << 20)))])
            }
            var total = 0
            for period in m.periods {
                for set in period.adaptationSets {
                    for rep in set.representations {
                        precondition(rep.segments.count <= limits.segmentsPerRepresentation, "past the segment budget")
                        total += rep.segments.count
                        for s in rep.segments {
                            precondition(s.start.isFinite && s.duration.isFinite && s.duration > 0, "an unusable segment time")
                            if base.hasPrefix("http") {
                                precondition(s.resource.url.hasPrefix("http://") || s.resource.url.hasPrefix("https://"), "a local URL from a remote manifest")
                            }
                        }
                    }
                }
            }
            precondition(total <= limits.totalSegments, "past the manifest's segment budget")
            found += total + m.tracks.count
            // The translation into HLS playlists: every one reads back as what it was made from.
            for preference in [VariantPreference.auto, .min] {
                guard let p = try? DASHPlaylists.make(m, url: base, preference: preference, range: .auto, audioLanguages: ["eng"]) else { continue }
                precondition(p.mediaPlaylists.count + 1 == p.documents.count, "a media playlist that does not read back")
                if let master = p.documents[p.masterURL] {
                    precondition(HLSMasterPlaylist.parse(master, base: p.masterURL) != nil, "a master that does not read back")
                }
                found += p.documents.count
                // A live manifest translated again after itself: the numbers carry on and read back.
                if m.isDynamic, let again = try? DASHPlaylists.make(m, url: base, preference: preference, range: .auto,
                                                                    audioLanguages: ["eng"], previous: p) {
                    for (uri, numbering) in again.numbering {
                        precondition((0...Int(Int32.max)).contains(numbering.first), "a media sequence out of range")
                        precondition(again.mediaPlaylists[uri]?.mediaSequence == numbering.first, "a media sequence that does not read back")
                    }
                    found += again.numbering.count
                }
            }
        }
        if let index = try? SegmentIndex.parse(bytes, at: 0) { found += index.references.count }
        return found
    }
}

