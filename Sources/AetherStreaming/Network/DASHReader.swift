import AetherBase

/// Reads an MPD's elements into a ``DASHManifest``, level by level: the MPD's timing, each
/// Period's place on the timeline (its own start, else where the one before it ended), each
/// AdaptationSet and Representation with the BaseURL and the addressing each level hands down
/// (``DASHAddressing``). A representation or adaptation set it cannot use is left out with one
/// line (``leftOut``) and the rest plays; a budget of the whole manifest passed (``DASHBudget``)
/// refuses it.
struct DASHReader {
    let base: String
    let values: DASHValues
    /// Seconds since 1970: a dynamic manifest's `duration`-addressed segments are the ones
    /// available at this time.
    let now: Double
    var budget: DASHBudget
    /// What was left out (``DASHManifest/leftOut``).
    var leftOut: [String] = []

    init(base: String, now: Double, limits: DASHManifest.Limits, remote: Bool) {
        self.base = base
        self.now = now
        values = DASHValues(remote: remote)
        budget = DASHBudget(limits: limits)
    }

    /// Leaves `what` out with one sanitised log line (the manifest's other parts play).
    mutating func leaveOut(_ what: String, _ why: String) {
        let line = "\(what) left out: \(why)"
        AppLog.write("dash", line)
        if leftOut.count < 64 { leftOut.append(line) }
    }

    mutating func manifest(_ root: ManifestXML.Element) throws(OutsideValue.Refusal) -> DASHManifest {
        let dynamic = (root["type"] ?? "static") == "dynamic"
        var m = DASHManifest(isDynamic: dynamic, duration: try values.seconds(root["mediaPresentationDuration"], "mediaPresentationDuration"),
                             minimumUpdatePeriod: try values.seconds(root["minimumUpdatePeriod"], "minimumUpdatePeriod"),
                             availabilityStartTime: try values.dateTime(root["availabilityStartTime"]),
                             timeShiftBufferDepth: try values.seconds(root["timeShiftBufferDepth"], "timeShiftBufferDepth"),
                             periods: [])
        let mpdBase = try values.resolveBase(root, against: base)
        let periods = root.children("Period")
        let limits = budget.limits
        guard periods.count <= limits.periods else { throw OutsideValue.Refusal.budget("more than \(limits.periods) periods") }
        var previousEnd: Double? = 0
        for (p, element) in periods.enumerated() {
            // A period's start: its own, else where the previous one ended (ISO/IEC 23009-1 §5.3.2.1).
            guard let start = try values.seconds(element["start"], "Period@start") ?? previousEnd else {
                throw OutsideValue.Refusal("period \(p + 1) has no start and the one before it no duration")
            }
            let nextStart = try values.seconds(periods.dropFirst(p + 1).first?["start"], "Period@start")
            var duration = try values.seconds(element["duration"], "Period@duration")
            if duration == nil, let end = nextStart ?? m.duration.map({ $0 }) { duration = end - start }
            if let d = duration, d < 0 { throw OutsideValue.Refusal("period \(p + 1) ends before it starts") }
            previousEnd = duration.map { start + $0 }
            let periodBase = try values.resolveBase(element, against: mpdBase)
            let addressing = DASHAddressing().applying(element)
            let timing = DASHPeriodTiming(start: start, duration: duration, dynamic: dynamic, availabilityStart: m.availabilityStartTime,
                                          depth: m.timeShiftBufferDepth, now: now)
            var period = DASHManifest.Period(id: element["id"], start: start, duration: duration, adaptationSets: [])
            for (k, set) in element.children("AdaptationSet").enumerated() {
                do throws(OutsideValue.Refusal) {
                    let read = try adaptationSet(set, base: periodBase, addressing: addressing, period: timing)
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

    mutating func adaptationSet(_ set: ManifestXML.Element, base: String, addressing: DASHAddressing,
                                period: DASHPeriodTiming) throws(OutsideValue.Refusal) -> DASHManifest.AdaptationSet {
        let setBase = try values.resolveBase(set, against: base)
        let setAddressing = addressing.applying(set)
        var out = DASHManifest.AdaptationSet(id: set["id"], contentType: Self.contentType(set, nil),
                                             language: set["lang"].map { TextSanitizer.clean(String($0.prefix(35))) }, representations: [])
        for (k, element) in set.children("Representation").enumerated() {
            try budget.representation()
            do throws(OutsideValue.Refusal) {
                out.representations.append(try representation(element, in: set, base: setBase, addressing: setAddressing, period: period,
                                                              contentType: &out.contentType))
            } catch {
                if error.isBudget { throw error }
                leaveOut("representation '\(Self.name(element["id"], fallback: k + 1))'", error.message)
            }
        }
        return out
    }

    /// One representation; throws when it cannot be used (it is left out, the rest plays).
    mutating func representation(_ element: ManifestXML.Element, in set: ManifestXML.Element, base setBase: String,
                                 addressing setAddressing: DASHAddressing, period: DASHPeriodTiming,
                                 contentType: inout DASHManifest.ContentType) throws(OutsideValue.Refusal) -> DASHManifest.Representation {
        let id = element["id"] ?? ""
        // No rate, or 0: unknown (ranked after the known ones), not a reason to refuse.
        let bandwidth = try (element["bandwidth"] ?? set["bandwidth"]).map { t throws(OutsideValue.Refusal) in
            try OutsideValue.integer(t.trimmingWhitespace(), in: 0...DASHManifest.maxBandwidth, name: "Representation@bandwidth")
        } ?? 0
        var rep = DASHManifest.Representation(id: id, bandwidth: bandwidth)
        rep.width = try (element["width"] ?? set["width"]).map { t throws(OutsideValue.Refusal) in try OutsideValue.integer(t, in: 1...65_535, name: "width") }
        rep.height = try (element["height"] ?? set["height"]).map { t throws(OutsideValue.Refusal) in try OutsideValue.integer(t, in: 1...65_535, name: "height") }
        rep.codecs = (element["codecs"] ?? set["codecs"]).map { TextSanitizer.clean(String($0.prefix(200))) }
        rep.mimeType = element["mimeType"] ?? set["mimeType"]
        rep.frameRate = try (element["frameRate"] ?? set["frameRate"]).map { t throws(OutsideValue.Refusal) in
            try OutsideValue.clamped(OutsideValue.number(t, name: "frameRate"), to: 0...1000, name: "frameRate")
        }
        if contentType == .other { contentType = Self.contentType(set, element) }
        let repBase = try values.resolveBase(element, against: setBase)
        try setAddressing.applying(element).address(&rep, base: repBase, period: period, values: values, budget: &budget)
        if let periodDuration = period.duration, !period.dynamic {
            rep.segments = DASHManifest.clipped(rep.segments, to: period.start + periodDuration)
            rep.indexEnd = period.start + periodDuration
        }
        // (A live manifest may have none yet: its next reading will.)
        guard period.dynamic || rep.index != nil || !rep.segments.isEmpty else { throw OutsideValue.Refusal("it has no segment in its period") }
        return rep
    }

    static func contentType(_ set: ManifestXML.Element, _ rep: ManifestXML.Element?) -> DASHManifest.ContentType {
        if let t = set["contentType"]?.lowercased(), let known = DASHManifest.ContentType(rawValue: t) { return known }
        let mime = (rep?["mimeType"] ?? set["mimeType"] ?? "").lowercased()
        for kind in [DASHManifest.ContentType.video, .audio, .text, .image] where mime.hasPrefix(kind.rawValue + "/") { return kind }
        let codecs = (rep?["codecs"] ?? set["codecs"] ?? "").lowercased()
        if mime == "application/ttml+xml" || mime.hasPrefix("application/mp4") && (codecs.hasPrefix("stpp") || codecs.hasPrefix("wvtt")) { return .text }
        return .other
    }

    /// A name for a log line: the manifest's id, sanitised, else the element's place.
    static func name(_ id: String?, fallback: Int) -> String {
        guard let id, !id.isEmpty else { return "#\(fallback)" }
        return TextSanitizer.clean(String(id.prefix(40)))
    }
}
