import AetherBase
import AetherMedia
import FoundationEssentials

/// How a manifest's values read, each from outside: numbers and durations through
/// ``OutsideValue`` (a negative, overflowing or absurd value refuses with one line; `Int(double)`
/// is never used), dates, byte ranges, and URLs resolved against their level's BaseURL and
/// checked (no control character; a manifest fetched over the network names only http(s), as the
/// HLS rule: a remote manifest must not read local files).
struct DASHValues {
    /// A manifest from the network: only http(s) URLs.
    let remote: Bool

    /// Timescales accepted (1 Hz to 10 GHz).
    static let timescales: ClosedRange<Int> = 1...10_000_000_000
    /// `t`, `presentationTimeOffset` and `startNumber` accepted (2^53: exact in a Double).
    static let ticks: ClosedRange<Int> = 0...(1 << 53)

    static func add(_ a: Int, _ b: Int) -> Int? {
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }

    static func multiply(_ a: Int, _ b: Int) -> Int? {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : r
    }

    func integer(_ text: String?, _ range: ClosedRange<Int>, _ name: String) throws(OutsideValue.Refusal) -> Int? {
        guard let text else { return nil }
        return try OutsideValue.integer(text.trimmingWhitespace(), in: range, name: name)
    }

    /// A `SegmentTemplate`'s or `SegmentList`'s (`element`) `@timescale`, `@startNumber` and
    /// `@presentationTimeOffset`, read in that order (1, 1 and 0 when not given).
    func numbering(_ attributes: [String: String], of element: String) throws(OutsideValue.Refusal) -> (timescale: Int, startNumber: Int, offset: Int) {
        (try integer(attributes["timescale"], Self.timescales, "\(element)@timescale") ?? 1,
         try integer(attributes["startNumber"], Self.ticks, "\(element)@startNumber") ?? 1,
         try integer(attributes["presentationTimeOffset"], Self.ticks, "\(element)@presentationTimeOffset") ?? 0)
    }

    func seconds(_ text: String?, _ name: String) throws(OutsideValue.Refusal) -> Double? {
        guard let text else { return nil }
        guard let value = DASHThumbnails.isoDuration(text) else {
            throw OutsideValue.Refusal("'\(name)': '\(TextSanitizer.clean(String(text.prefix(40))))' is not a duration in 0…\(Int(DASHManifest.maxSeconds)) s")
        }
        return value
    }

    func dateTime(_ text: String?) throws(OutsideValue.Refusal) -> Double? {
        guard let text else { return nil }
        let trimmed = text.trimmingWhitespace()
        for style in [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)] {
            if trimmed.utf8.count <= 64, let date = try? style.parse(trimmed) { return date.timeIntervalSince1970 }
        }
        // Without a zone: UTC (as dash.js reads it).
        if trimmed.utf8.count <= 64, !trimmed.hasSuffix("Z") {
            for style in [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)] {
                if let date = try? style.parse(trimmed + "Z") { return date.timeIntervalSince1970 }
            }
        }
        throw OutsideValue.Refusal("'availabilityStartTime': '\(TextSanitizer.clean(String(text.prefix(40))))' is not a date")
    }

    static func byteRange(_ text: String, name: String) throws(OutsideValue.Refusal) -> DASHManifest.ByteRange {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw OutsideValue.Refusal("'\(name)': '\(TextSanitizer.clean(String(text.prefix(40))))' is not a byte range") }
        let first = try OutsideValue.integer(String(parts[0]), in: 0...(1 << 50), name: name)
        let last = try OutsideValue.integer(String(parts[1]), in: first...(1 << 50), name: name)
        return DASHManifest.ByteRange(offset: Int64(first), length: Int64(last - first + 1))
    }

    func resource(_ element: ManifestXML.Element, urlAttribute: String, rangeAttribute: String,
                  base: String) throws(OutsideValue.Refusal) -> DASHManifest.Resource {
        let range = try element[rangeAttribute].map { t throws(OutsideValue.Refusal) in try Self.byteRange(t, name: rangeAttribute) }
        return DASHManifest.Resource(url: try url(element[urlAttribute] ?? "", base), range: range)
    }

    /// `path` against `base`; a remote manifest's URLs must be http(s), and no URL may hold
    /// a control character (it would end a playlist line).
    func url(_ path: String, _ base: String) throws(OutsideValue.Refusal) -> String {
        let trimmed = path.trimmingWhitespaceAndNewlines()
        return try checked(trimmed.isEmpty ? base : URLReference.resolve(trimmed, against: base))
    }

    /// A resolved URL as the manifest may name one (see ``url(_:_:)``).
    func checked(_ resolved: String) throws(OutsideValue.Refusal) -> String {
        guard resolved.utf8.count <= 4096, !resolved.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw OutsideValue.Refusal("the manifest names a URL too long or with control characters")
        }
        if remote, !["http", "https"].contains(NetworkSettings.scheme(of: resolved) ?? "file") {
            throw OutsideValue.Refusal("the manifest refers to '\(TextSanitizer.clean(String(resolved.prefix(120))))' (a network source may only use http and https)")
        }
        return resolved
    }

    /// ``DASHManifest/baseURL(of:against:)``, with the URL it names checked as ``url(_:_:)`` checks one.
    func resolveBase(_ element: ManifestXML.Element, against base: String) throws(OutsideValue.Refusal) -> String {
        guard DASHManifest.baseURLText(of: element) != nil else { return base }
        return try checked(DASHManifest.baseURL(of: element, against: base))
    }
}
