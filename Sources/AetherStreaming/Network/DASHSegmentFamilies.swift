import AetherBase

/// `SegmentTemplate`: `$Number$`, `$Time$`, `$RepresentationID$` and `$Bandwidth$` (with `%0Nd`
/// widths) in `@media` and `@initialization`, numbered from `@startNumber`, timed in
/// `@timescale` less `@presentationTimeOffset`, by a `SegmentTimeline` or by `@duration` (a
/// static period's to its end, a dynamic one's available now).
struct DASHSegmentTemplate {
    /// The attributes met on the way down, the lower level's winning.
    var attributes: [String: String] = [:]

    mutating func inherit(_ element: ManifestXML.Element) { attributes.merge(element.attributes) { $1 } }

    func address(_ rep: inout DASHManifest.Representation, media: String, timeline: DASHSegmentTimeline?, base: String,
                 period: DASHPeriodTiming, values: DASHValues, budget: inout DASHBudget) throws(OutsideValue.Refusal) {
        let t = attributes
        if !rep.bandwidthKnown, (media + (t["initialization"] ?? "")).contains("$Bandwidth") {
            throw OutsideValue.Refusal("its SegmentTemplate names $Bandwidth$ and it has no bandwidth")
        }
        let (timescale, startNumber, offset) = try values.numbering(t, of: "SegmentTemplate")
        if let initTemplate = t["initialization"] {
            guard let path = DASHThumbnails.expand(initTemplate, id: rep.id, number: Int64(startNumber), time: 0, bandwidth: String(rep.bandwidth)) else {
                throw OutsideValue.Refusal("SegmentTemplate@initialization '\(TextSanitizer.clean(String(initTemplate.prefix(80))))' has an unknown identifier")
            }
            rep.initialization = DASHManifest.Resource(url: try values.url(path, base), range: nil)
        }
        let limit = budget.limits.segmentsPerRepresentation
        let times: [DASHSegmentTimeline.Entry]
        if let timeline {
            times = try timeline.entries(timescale: timescale, startNumber: startNumber, offset: offset, period: period, limit: limit, values: values)
        } else {
            guard let d = try values.integer(t["duration"], 1...Int(1 << 53), "SegmentTemplate@duration") else {
                throw OutsideValue.Refusal("SegmentTemplate has neither duration nor SegmentTimeline")
            }
            times = try Self.numbered(duration: d, timescale: timescale, startNumber: startNumber, offset: offset, period: period, limit: limit)
        }
        for e in times {
            guard let path = DASHThumbnails.expand(media, id: rep.id, number: Int64(e.number), time: Int64(e.time),
                                                   bandwidth: String(rep.bandwidth)) else {
                throw OutsideValue.Refusal("SegmentTemplate@media '\(TextSanitizer.clean(String(media.prefix(80))))' has an unknown identifier")
            }
            try budget.append(DASHManifest.Segment(resource: DASHManifest.Resource(url: try values.url(path, base), range: nil),
                                                   start: period.start + Double(e.time - offset) / Double(timescale),
                                                   duration: Double(e.duration) / Double(timescale), number: Int64(e.number),
                                                   timeOffset: period.start - Double(offset) / Double(timescale)), to: &rep)
        }
    }

    /// `@duration` addressing: a static period's segments to its end; a dynamic one's available
    /// at ``DASHPeriodTiming/now`` (within `timeShiftBufferDepth`, at most `limit` back from the
    /// live edge).
    static func numbered(duration d: Int, timescale: Int, startNumber: Int, offset: Int, period: DASHPeriodTiming,
                         limit budget: Int) throws(OutsideValue.Refusal) -> [DASHSegmentTimeline.Entry] {
        let seconds = Double(d) / Double(timescale)
        guard seconds > 0, seconds <= DASHManifest.maxSeconds else { throw OutsideValue.Refusal("SegmentTemplate@duration is not a usable length") }
        var first = 0
        var count: Int
        if period.dynamic, let availabilityStart = period.availabilityStart {
            // Segment k is available once its end has passed: (k + 1) × seconds ≤ elapsed.
            let elapsed = period.now - availabilityStart - period.start
            guard elapsed.isFinite else { throw OutsideValue.Refusal("the live timing is unusable") }
            let available = OutsideValue.clampedInteger((elapsed / seconds).rounded(.down), to: 0...Int(1 << 53)) ?? 0
            var end = available
            if let periodDuration = period.duration {
                end = min(end, OutsideValue.clampedInteger((periodDuration / seconds).rounded(.up), to: 0...Int(1 << 53)) ?? 0)
            }
            let window = period.depth.map { OutsideValue.clampedInteger(($0 / seconds).rounded(.up), to: 1...budget) ?? budget } ?? budget
            first = max(0, end - min(window, budget))
            count = end - first
        } else {
            guard let periodDuration = period.duration else { throw OutsideValue.Refusal("SegmentTemplate@duration in a period of unknown length") }
            guard let n = OutsideValue.clampedInteger((periodDuration / seconds - 1e-9).rounded(.up), to: 0...(budget + 1)) else {
                throw OutsideValue.Refusal("the period's length is unusable")
            }
            guard n <= budget else { throw OutsideValue.Refusal("SegmentTemplate describes more than \(budget) segments") }
            count = n
        }
        var out: [DASHSegmentTimeline.Entry] = []
        out.reserveCapacity(count)
        for k in first..<(first + count) {
            guard let number = DASHValues.add(startNumber, k), let span = DASHValues.multiply(k, d), let time = DASHValues.add(offset, span) else {
                throw OutsideValue.Refusal("SegmentTemplate numbers overflow")
            }
            out.append((number, time, d))
        }
        return out
    }
}

/// `SegmentTimeline`: `S@t/d/r` entries, `r=-1` repeating up to the next `S@t`, else the period's
/// end; every repeat count is bounded by the segment budget before anything is expanded.
struct DASHSegmentTimeline {
    /// A segment's number and its time and duration in timescale units.
    typealias Entry = (number: Int, time: Int, duration: Int)

    let element: ManifestXML.Element

    /// The entries, at most `limit` of them; numbered from `startNumber`, timed from `offset`
    /// where the first `S` has no `@t`.
    func entries(timescale: Int, startNumber: Int, offset: Int, period: DASHPeriodTiming, limit budget: Int,
                 values: DASHValues) throws(OutsideValue.Refusal) -> [Entry] {
        let entries = element.children("S")
        guard entries.count <= budget else { throw OutsideValue.Refusal("SegmentTimeline has more than \(budget) S elements") }
        var out: [Entry] = []
        var t = offset
        var number = startNumber
        for (k, s) in entries.enumerated() {
            if let given = try values.integer(s["t"], DASHValues.ticks, "S@t") { t = given }
            guard let d = try values.integer(s["d"], 1...Int(1 << 53), "S@d") else { throw OutsideValue.Refusal("an S element has no d") }
            var repeats = try values.integer(s["r"], -1...budget, "S@r") ?? 0
            if repeats < 0 {
                let next = try values.integer(entries.dropFirst(k + 1).first?["t"], DASHValues.ticks, "S@t")
                let until: Double
                if let next { until = Double(next) }
                else if let periodEnd = period.end { until = (periodEnd - period.start) * Double(timescale) + Double(offset) }
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
                guard let nextT = DASHValues.add(t, d), let nextNumber = DASHValues.add(number, 1) else {
                    throw OutsideValue.Refusal("SegmentTimeline times overflow")
                }
                t = nextT
                number = nextNumber
            }
        }
        return out
    }
}

/// `SegmentList`: `SegmentURL@media/mediaRange` in order, timed by a `SegmentTimeline` or by
/// `@duration`, numbered from `@startNumber`; `Initialization@sourceURL/range`.
struct DASHSegmentList {
    /// The attributes met on the way down, the lower level's winning.
    var attributes: [String: String] = [:]
    /// The lowest level's `SegmentURL`s (nil: no level gave any).
    var urls: [ManifestXML.Element]?
    var initialization: ManifestXML.Element?

    mutating func inherit(_ element: ManifestXML.Element) {
        attributes.merge(element.attributes) { $1 }
        let urls = element.children("SegmentURL")
        if !urls.isEmpty { self.urls = urls }
        if let i = element.first("Initialization") { initialization = i }
    }

    func address(_ rep: inout DASHManifest.Representation, urls: [ManifestXML.Element], timeline: DASHSegmentTimeline?, base: String,
                 period: DASHPeriodTiming, values: DASHValues, budget: inout DASHBudget) throws(OutsideValue.Refusal) {
        let (timescale, startNumber, offset) = try values.numbering(attributes, of: "SegmentList")
        if let i = initialization { rep.initialization = try values.resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base) }
        var durations: [(time: Int, duration: Int)] = []
        if let timeline {
            durations = try timeline.entries(timescale: timescale, startNumber: startNumber, offset: offset, period: period,
                                             limit: budget.limits.segmentsPerRepresentation, values: values).map { ($0.time, $0.duration) }
        } else {
            guard let d = try values.integer(attributes["duration"], 1...Int(1 << 53), "SegmentList@duration") else {
                throw OutsideValue.Refusal("SegmentList has neither duration nor SegmentTimeline")
            }
            var time = offset
            for _ in urls {
                durations.append((time, d))
                guard let next = DASHValues.add(time, d) else { throw OutsideValue.Refusal("SegmentList times overflow") }
                time = next
            }
        }
        for (k, element) in urls.enumerated() where k < durations.count {
            let r = try values.resource(element, urlAttribute: "media", rangeAttribute: "mediaRange", base: base)
            try budget.append(DASHManifest.Segment(resource: r, start: period.start + Double(durations[k].time - offset) / Double(timescale),
                                                   duration: Double(durations[k].duration) / Double(timescale),
                                                   number: Int64(startNumber) + Int64(k),
                                                   timeOffset: period.start - Double(offset) / Double(timescale)), to: &rep)
        }
    }
}

/// `SegmentBase`, or a bare BaseURL: one resource. Its index is `@indexRange` of the media or a
/// `RepresentationIndex` (its `@range` of its `@sourceURL`, else of the media): the segments come
/// from that `sidx` (``DASHManifest/resolveIndexes(limits:fetch:)``). With no index the whole
/// resource is one segment as long as its period.
struct DASHSegmentBase {
    /// The attributes met on the way down, the lower level's winning.
    var attributes: [String: String] = [:]
    var initialization: ManifestXML.Element?
    var index: ManifestXML.Element?

    mutating func inherit(_ element: ManifestXML.Element) {
        attributes.merge(element.attributes) { $1 }
        if let i = element.first("Initialization") { initialization = i }
        if let i = element.first("RepresentationIndex") { index = i }
    }

    func address(_ rep: inout DASHManifest.Representation, base: String, period: DASHPeriodTiming, values: DASHValues,
                 budget: inout DASHBudget) throws(OutsideValue.Refusal) {
        let b = attributes
        if let i = initialization { rep.initialization = try values.resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base) }
        let whole = try values.url("", base)
        // An index's references count from the end of its range either way (as Shaka reads a
        // separate index), and the segments are the media's.
        var indexResource: DASHManifest.Resource?
        if let text = b["indexRange"] {
            indexResource = DASHManifest.Resource(url: whole, range: try DASHValues.byteRange(text, name: "SegmentBase@indexRange"))
        } else if let i = index {
            let r = try values.resource(i, urlAttribute: "sourceURL", rangeAttribute: "range", base: base)
            guard r.range != nil else { throw OutsideValue.Refusal("a RepresentationIndex without @range") }
            indexResource = r
        }
        if let indexResource, let range = indexResource.range {
            rep.index = indexResource
            rep.indexMedia = whole
            rep.indexStart = period.start
            rep.indexPresentationOffset = Int64(try values.integer(b["presentationTimeOffset"], DASHValues.ticks, "SegmentBase@presentationTimeOffset") ?? 0)
            rep.indexTimescale = Int64(try values.integer(b["timescale"], DASHValues.timescales, "SegmentBase@timescale") ?? 1)
            if rep.initialization == nil, range.offset > 0, indexResource.url == whole {
                // ISO BMFF on-demand: the init section is everything before the index.
                rep.initialization = DASHManifest.Resource(url: whole, range: DASHManifest.ByteRange(offset: 0, length: range.offset))
            } else if let initialization = rep.initialization, initialization.url == indexResource.url, let r = initialization.range,
                      r.offset < range.offset, r.offset + r.length > range.offset {
                // An Initialization range over the index (a packager's guess, even past it into the
                // first fragment): the init section is what comes before the index, as lavf and
                // Shaka read it; the fragment's head in it would make no segment rewrite.
                rep.initialization = DASHManifest.Resource(url: initialization.url, range: DASHManifest.ByteRange(offset: r.offset, length: range.offset - r.offset))
            }
            return
        }
        guard let duration = period.duration, duration > 0 else { return }
        try budget.append(DASHManifest.Segment(resource: DASHManifest.Resource(url: whole, range: nil), start: period.start,
                                               duration: duration, number: 0, timeOffset: period.start), to: &rep)
    }
}
