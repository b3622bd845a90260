import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension DASHManifest {
    /// Inheritable addressing: the attributes and children of `SegmentTemplate`, `SegmentList`
    /// and `SegmentBase` met on the way down (Period → AdaptationSet → Representation).
    struct Addressing {
        var template: [String: String] = [:]
        var timeline: ManifestXML.Element?
        var list: [String: String]?
        var listURLs: [ManifestXML.Element]?
        var listInit: ManifestXML.Element?
        var segmentBase: [String: String]?
        var baseInit: ManifestXML.Element?
        var baseIndex: ManifestXML.Element?
        var hasTemplate = false

        func applying(_ element: ManifestXML.Element) -> Addressing {
            var a = self
            if let t = element.first("SegmentTemplate") {
                a.hasTemplate = true
                a.template.merge(t.attributes) { $1 }
                if let timeline = t.first("SegmentTimeline") { a.timeline = timeline }
            }
            if let l = element.first("SegmentList") {
                a.list = (a.list ?? [:]).merging(l.attributes) { $1 }
                let urls = l.children("SegmentURL")
                if !urls.isEmpty { a.listURLs = urls }
                if let i = l.first("Initialization") { a.listInit = i }
                if let timeline = l.first("SegmentTimeline") { a.timeline = timeline }
            }
            if let b = element.first("SegmentBase") {
                a.segmentBase = (a.segmentBase ?? [:]).merging(b.attributes) { $1 }
                if let i = b.first("Initialization") { a.baseInit = i }
                if let i = b.first("RepresentationIndex") { a.baseIndex = i }
            }
            return a
        }
    }

    struct Reader {
        let base: String
        let now: Double
        let limits: Limits
        /// A manifest from the network: only http(s) URLs.
        let remote: Bool
        var total = 0
        var representationCount = 0
        /// What was left out (``DASHManifest/leftOut``).
        var leftOut: [String] = []

        /// Leaves `what` out with one sanitised log line (the manifest's other parts play).
        mutating func leaveOut(_ what: String, _ why: String) {
            let line = "\(what) left out: \(why)"
            AppLog.write("dash", line)
            if leftOut.count < 64 { leftOut.append(line) }
        }

        mutating func manifest(_ root: ManifestXML.Element) throws(OutsideValue.Refusal) -> DASHManifest {
            let dynamic = (root["type"] ?? "static") == "dynamic"
            var m = DASHManifest(isDynamic: dynamic, duration: try seconds(root["mediaPresentationDuration"], "mediaPresentationDuration"),
                                 minimumUpdatePeriod: try seconds(root["minimumUpdatePeriod"], "minimumUpdatePeriod"),
                                 availabilityStartTime: try dateTime(root["availabilityStartTime"]),
                                 timeShiftBufferDepth: try seconds(root["timeShiftBufferDepth"], "timeShiftBufferDepth"),
                                 periods: [])
            let mpdBase = try resolveBase(root, against: base)
            let periods = root.children("Period")
            guard periods.count <= limits.periods else { throw OutsideValue.Refusal.budget("more than \(limits.periods) periods") }
            var previousEnd: Double? = 0
            for (p, element) in periods.enumerated() {
                // A period's start: its own, else where the previous one ended (ISO/IEC 23009-1 §5.3.2.1).
                guard let start = try seconds(element["start"], "Period@start") ?? previousEnd else {
                    throw OutsideValue.Refusal("period \(p + 1) has no start and the one before it no duration")
                }
                let nextStart = try seconds(periods.dropFirst(p + 1).first?["start"], "Period@start")
                var duration = try seconds(element["duration"], "Period@duration")
                if duration == nil, let end = nextStart ?? m.duration.map({ $0 }) { duration = end - start }
                if let d = duration, d < 0 { throw OutsideValue.Refusal("period \(p + 1) ends before it starts") }
                previousEnd = duration.map { start + $0 }
                let periodBase = try resolveBase(element, against: mpdBase)
                let addressing = Addressing().applying(element)
                var period = Period(id: element["id"], start: start, duration: duration, adaptationSets: [])
                for (k, set) in element.children("AdaptationSet").enumerated() {
                    do throws(OutsideValue.Refusal) {
                        let read = try adaptationSet(set, base: periodBase, addressing: addressing,
                                                     periodStart: start, periodDuration: duration, dynamic: dynamic,
                                                     availabilityStart: m.availabilityStartTime, depth: m.timeShiftBufferDepth)
                        guard read.contentType != .other else {
                            let mime = (set["mimeType"] ?? set.first("Representation")?["mimeType"]).map { " '\(TextSanitizer.clean(String($0.prefix(60))))'" } ?? ""
                            throw OutsideValue.Refusal("its content\(mime.isEmpty ? " type is not given" : mime) is not video, audio, text or images")
                        }
                        period.adaptationSets.append(read)
                    } catch {
                        // The manifest's own budgets hold for all of it.
                        if error.isBudget { throw error }
                        leaveOut("adaptation set '\(Self.name(set["id"], fallback: k + 1))'", error.message)
                    }
                }
                m.periods.append(period)
            }
            m.leftOut = leftOut
            return m
        }

        mutating func adaptationSet(_ set: ManifestXML.Element, base: String, addressing: Addressing, periodStart: Double,
                                    periodDuration: Double?, dynamic: Bool, availabilityStart: Double?,
                                    depth: Double?) throws(OutsideValue.Refusal) -> AdaptationSet {
            let setBase = try resolveBase(set, against: base)
            let setAddressing = addressing.applying(set)
            var out = AdaptationSet(id: set["id"], contentType: Self.contentType(set, nil), language: set["lang"].map { TextSanitizer.clean(String($0.prefix(35))) },
                                    representations: [])
            for (k, element) in set.children("Representation").enumerated() {
                representationCount += 1
                guard representationCount <= limits.representations else {
                    throw OutsideValue.Refusal.budget("more than \(limits.representations) representations")
                }
                do throws(OutsideValue.Refusal) {
                    out.representations.append(try representation(element, in: set, base: setBase, addressing: setAddressing,
                                                                   periodStart: periodStart, periodDuration: periodDuration, dynamic: dynamic,
                                                                   availabilityStart: availabilityStart, depth: depth, contentType: &out.contentType))
                } catch {
                    if error.isBudget { throw error }
                    leaveOut("representation '\(Self.name(element["id"], fallback: k + 1))'", error.message)
                }
            }
            return out
        }

        static func contentType(_ set: ManifestXML.Element, _ rep: ManifestXML.Element?) -> ContentType {
            if let t = set["contentType"]?.lowercased(), let known = ContentType(rawValue: t) { return known }
            let mime = (rep?["mimeType"] ?? set["mimeType"] ?? "").lowercased()
            for kind in [ContentType.video, .audio, .text, .image] where mime.hasPrefix(kind.rawValue + "/") { return kind }
            let codecs = (rep?["codecs"] ?? set["codecs"] ?? "").lowercased()
            if mime == "application/ttml+xml" || mime.hasPrefix("application/mp4") && (codecs.hasPrefix("stpp") || codecs.hasPrefix("wvtt")) { return .text }
            return .other
        }

        // MARK: addressing

        mutating func address(_ rep: inout Representation, addressing a: Addressing, base: String, periodStart: Double,
                              periodDuration: Double?, dynamic: Bool, availabilityStart: Double?,
                              depth: Double?) throws(OutsideValue.Refusal) {
            let periodEnd = periodDuration.map { periodStart + $0 }
            if a.hasTemplate, let media = a.template["media"] {
                let t = a.template
                if !rep.bandwidthKnown, (media + (t["initialization"] ?? "")).contains("$Bandwidth") {
                    throw OutsideValue.Refusal("its SegmentTemplate names $Bandwidth$ and it has no bandwidth")
                }
                let timescale = try integer(t["timescale"], Self.timescalesRange, "SegmentTemplate@timescale") ?? 1
                let startNumber = try integer(t["startNumber"], ticks, "SegmentTemplate@startNumber") ?? 1
                let offset = try integer(t["presentationTimeOffset"], ticks, "SegmentTemplate@presentationTimeOffset") ?? 0
                if let initTemplate = t["initialization"] {
                    guard let path = DASHThumbnails.expand(initTemplate, id: rep.id, number: Int64(startNumber), time: 0, bandwidth: String(rep.bandwidth)) else {
                        throw OutsideValue.Refusal("SegmentTemplate@initialization '\(TextSanitizer.clean(String(initTemplate.prefix(80))))' has an unknown identifier")
                    }
                    rep.initialization = Resource(url: try url(path, base), range: nil)
                }
                let times: [(number: Int, time: Int, duration: Int)]
                if let timeline = a.timeline {
                    times = try timelineEntries(timeline, timescale: timescale, startNumber: startNumber, offset: offset,
                                                periodStart: periodStart, periodEnd: periodEnd)
                } else {
                    guard let d = try integer(t["duration"], 1...Int(1 << 53), "SegmentTemplate@duration") else {
                        throw OutsideValue.Refusal("SegmentTemplate has neither duration nor SegmentTimeline")
                    }
                    times = try numbered(duration: d, timescale: timescale, startNumber: startNumber, offset: offset,
                                         periodStart: periodStart, periodDuration: periodDuration, dynamic: dynamic,
                                         availabilityStart: availabilityStart, depth: depth)
                }
                for e in times {
                    guard let path = DASHThumbnails.expand(media, id: rep.id, number: Int64(e.number), time: Int64(e.time),
                                                           bandwidth: String(rep.bandwidth)) else {
                        throw OutsideValue.Refusal("SegmentTemplate@media '\(TextSanitizer.clean(String(media.prefix(80))))' has an unknown identifier")
                    }
                    try append(&rep, Segment(resource: Resource(url: try url(path, base), range: nil),
                                             start: periodStart + Double(e.time - offset) / Double(timescale),
                                             duration: Double(e.duration) / Double(timescale), number: Int64(e.number),
                                             timeOffset: periodStart - Double(offset) / Double(timescale)))
                }
                return
            }
            if let list = a.list, let urls = a.listURLs {
                let timescale = try integer(list["timescale"], Self.timescalesRange, "SegmentList@timescale") ?? 1
                let startNumber = try integer(list["startNumber"], ticks, "SegmentList@startNumber") ?? 1
                let offset = try integer(list["presentationTimeOffset"], ticks, "SegmentList@presentationTimeOffset") ?? 0
                if let i = a.listInit { rep.initialization = try resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base) }
                var durations: [(time: Int, duration: Int)] = []
                if let timeline = a.timeline {
                    durations = try timelineEntries(timeline, timescale: timescale, startNumber: startNumber, offset: offset,
                                                    periodStart: periodStart, periodEnd: periodEnd).map { ($0.time, $0.duration) }
                } else {
                    guard let d = try integer(list["duration"], 1...Int(1 << 53), "SegmentList@duration") else {
                        throw OutsideValue.Refusal("SegmentList has neither duration nor SegmentTimeline")
                    }
                    var time = offset
                    for _ in urls {
                        durations.append((time, d))
                        guard let next = Self.add(time, d) else { throw OutsideValue.Refusal("SegmentList times overflow") }
                        time = next
                    }
                }
                for (k, element) in urls.enumerated() where k < durations.count {
                    let r = try resource(element, urlAttribute: "media", rangeAttribute: "mediaRange", base: base)
                    try append(&rep, Segment(resource: r, start: periodStart + Double(durations[k].time - offset) / Double(timescale),
                                             duration: Double(durations[k].duration) / Double(timescale),
                                             number: Int64(startNumber) + Int64(k),
                                             timeOffset: periodStart - Double(offset) / Double(timescale)))
                }
                return
            }
            // SegmentBase, or a bare BaseURL: one resource.
            let b = a.segmentBase ?? [:]
            if let i = a.baseInit { rep.initialization = try resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base) }
            let whole = try url("", base)
            // The index: `@indexRange` of the media, or a `RepresentationIndex` (its `@range` of
            // its `@sourceURL`, else of the media). Its references count from the end of the
            // range either way (as Shaka reads a separate index), and the segments are the media's.
            var indexResource: Resource?
            if let text = b["indexRange"] {
                indexResource = Resource(url: whole, range: try Self.byteRange(text, name: "SegmentBase@indexRange"))
            } else if let i = a.baseIndex {
                let r = try resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base)
                guard r.range != nil else { throw OutsideValue.Refusal("a RepresentationIndex without @range") }
                indexResource = r
            }
            if let indexResource, let range = indexResource.range {
                rep.index = indexResource
                rep.indexMedia = whole
                rep.indexStart = periodStart
                rep.indexPresentationOffset = Int64(try integer(b["presentationTimeOffset"], ticks, "SegmentBase@presentationTimeOffset") ?? 0)
                rep.indexTimescale = Int64(try integer(b["timescale"], Self.timescalesRange, "SegmentBase@timescale") ?? 1)
                if rep.initialization == nil, range.offset > 0, indexResource.url == whole {
                    // ISO BMFF on-demand: the init section is everything before the index.
                    rep.initialization = Resource(url: whole, range: ByteRange(offset: 0, length: range.offset))
                }
                return
            }
            guard let duration = periodDuration, duration > 0 else { return }
            try append(&rep, Segment(resource: Resource(url: whole, range: nil), start: periodStart, duration: duration, number: 0,
                                     timeOffset: periodStart))
        }

        static let timescalesRange = DASHManifest.timescales
        var ticks: ClosedRange<Int> { DASHManifest.ticks }

        mutating func append(_ rep: inout Representation, _ segment: Segment) throws(OutsideValue.Refusal) {
            guard segment.duration > 0, segment.duration <= DASHManifest.maxSeconds, segment.start.isFinite, abs(segment.start) <= DASHManifest.maxSeconds else {
                throw OutsideValue.Refusal("a segment of representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))' has an unusable time or duration")
            }
            guard rep.segments.count < limits.segmentsPerRepresentation else {
                throw OutsideValue.Refusal("representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))' has more than \(limits.segmentsPerRepresentation) segments")
            }
            total += 1
            guard total <= limits.totalSegments else { throw OutsideValue.Refusal.budget("the manifest has more than \(limits.totalSegments) segments") }
            rep.segments.append(segment)
        }

        /// `S@t/d/r` entries → (number, time, duration) in timescale units. `r=-1` repeats up to
        /// the next `S@t`, else the period's end; every repeat count is bounded by the segment
        /// budget before anything is expanded.
        func timelineEntries(_ timeline: ManifestXML.Element, timescale: Int, startNumber: Int, offset: Int,
                             periodStart: Double, periodEnd: Double?) throws(OutsideValue.Refusal) -> [(number: Int, time: Int, duration: Int)] {
            let entries = timeline.children("S")
            let budget = limits.segmentsPerRepresentation
            guard entries.count <= budget else { throw OutsideValue.Refusal("SegmentTimeline has more than \(budget) S elements") }
            var out: [(number: Int, time: Int, duration: Int)] = []
            var t = offset
            var number = startNumber
            for (k, s) in entries.enumerated() {
                if let given = try integer(s["t"], ticks, "S@t") { t = given }
                guard let d = try integer(s["d"], 1...Int(1 << 53), "S@d") else { throw OutsideValue.Refusal("an S element has no d") }
                var repeats = try integer(s["r"], -1...budget, "S@r") ?? 0
                if repeats < 0 {
                    let next = try integer(entries.dropFirst(k + 1).first?["t"], ticks, "S@t")
                    let until: Double
                    if let next { until = Double(next) }
                    else if let periodEnd { until = (periodEnd - periodStart) * Double(timescale) + Double(offset) }
                    else { throw OutsideValue.Refusal("S@r=-1 with neither a following S@t nor a period end") }
                    let count = ((until - Double(t)) / Double(d)).rounded(.up)
                    guard let n = OutsideValue.clampedInteger(count, to: 0...(budget + 1)) else { throw OutsideValue.Refusal("S@r=-1 repeats no number of times") }
                    repeats = n - 1
                    if repeats < 0 { continue }
                }
                guard out.count + repeats + 1 <= budget else {
                    throw OutsideValue.Refusal("SegmentTimeline describes more than \(budget) segments")
                }
                for _ in 0...repeats {
                    out.append((number, t, d))
                    guard let nextT = Self.add(t, d), let nextNumber = Self.add(number, 1) else {
                        throw OutsideValue.Refusal("SegmentTimeline times overflow")
                    }
                    t = nextT
                    number = nextNumber
                }
            }
            return out
        }

        /// `SegmentTemplate@duration` addressing: a static period's segments to its end; a
        /// dynamic one's available at ``now`` (within `timeShiftBufferDepth`, at most the
        /// segment budget back from the live edge).
        func numbered(duration d: Int, timescale: Int, startNumber: Int, offset: Int, periodStart: Double, periodDuration: Double?,
                      dynamic: Bool, availabilityStart: Double?, depth: Double?) throws(OutsideValue.Refusal) -> [(number: Int, time: Int, duration: Int)] {
            let seconds = Double(d) / Double(timescale)
            guard seconds > 0, seconds <= DASHManifest.maxSeconds else { throw OutsideValue.Refusal("SegmentTemplate@duration is not a usable length") }
            let budget = limits.segmentsPerRepresentation
            var first = 0
            var count: Int
            if dynamic, let availabilityStart {
                // Segment k is available once its end has passed: (k + 1) × seconds ≤ elapsed.
                let elapsed = now - availabilityStart - periodStart
                guard elapsed.isFinite else { throw OutsideValue.Refusal("the live timing is unusable") }
                let available = OutsideValue.clampedInteger((elapsed / seconds).rounded(.down), to: 0...Int(1 << 53)) ?? 0
                var end = available
                if let periodDuration { end = min(end, OutsideValue.clampedInteger((periodDuration / seconds).rounded(.up), to: 0...Int(1 << 53)) ?? 0) }
                let window = depth.map { OutsideValue.clampedInteger(($0 / seconds).rounded(.up), to: 1...budget) ?? budget } ?? budget
                first = max(0, end - min(window, budget))
                count = end - first
            } else {
                guard let periodDuration else { throw OutsideValue.Refusal("SegmentTemplate@duration in a period of unknown length") }
                guard let n = OutsideValue.clampedInteger((periodDuration / seconds - 1e-9).rounded(.up), to: 0...(budget + 1)) else {
                    throw OutsideValue.Refusal("the period's length is unusable")
                }
                guard n <= budget else { throw OutsideValue.Refusal("SegmentTemplate describes more than \(budget) segments") }
                count = n
            }
            var out: [(number: Int, time: Int, duration: Int)] = []
            out.reserveCapacity(count)
            for k in first..<(first + count) {
                guard let number = Self.add(startNumber, k), let span = Self.multiply(k, d), let time = Self.add(offset, span) else {
                    throw OutsideValue.Refusal("SegmentTemplate numbers overflow")
                }
                out.append((number, time, d))
            }
            return out
        }

        // MARK: values

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

        static func byteRange(_ text: String, name: String) throws(OutsideValue.Refusal) -> ByteRange {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw OutsideValue.Refusal("'\(name)': '\(TextSanitizer.clean(String(text.prefix(40))))' is not a byte range") }
            let first = try OutsideValue.integer(String(parts[0]), in: 0...(1 << 50), name: name)
            let last = try OutsideValue.integer(String(parts[1]), in: first...(1 << 50), name: name)
            return ByteRange(offset: Int64(first), length: Int64(last - first + 1))
        }

        func resource(_ element: ManifestXML.Element, urlAttribute: String, rangeAttribute: String,
                      base: String) throws(OutsideValue.Refusal) -> Resource {
            let range = try element[rangeAttribute].map { t throws(OutsideValue.Refusal) in try Self.byteRange(t, name: rangeAttribute) }
            return Resource(url: try url(element[urlAttribute] ?? "", base), range: range)
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

    /// The element's first `BaseURL`, trimmed (nil: none, or empty).
    static func baseURLText(of element: ManifestXML.Element) -> String? {
        guard let text = element.first("BaseURL")?.text.trimmingWhitespaceAndNewlines(), !text.isEmpty else { return nil }
        return text
    }

    /// `base` with the element's first `BaseURL` applied (ISO/IEC 23009-1 §5.6: each level's
    /// resolves against the level above): the one BaseURL resolution of the DASH readers. The
    /// manifest reader checks what it gives (``Reader/resolveBase(_:against:)``), the thumbnail
    /// reader the sheet URLs it ends with.
    static func baseURL(of element: ManifestXML.Element, against base: String) -> String {
        baseURLText(of: element).map { URLReference.resolve($0, against: base) } ?? base
    }
}
