import AetherBase

/// How a representation's segments are addressed, handed down Period → AdaptationSet →
/// Representation: one reader per element family (``DASHSegmentTemplate``, ``DASHSegmentList``,
/// ``DASHSegmentBase``), each inheriting its element attribute by attribute, asked in that order;
/// the first that applies lists the segments. A `SegmentTimeline` (a template's or a list's) is
/// the last one met on the way down.
struct DASHAddressing {
    var template = DASHSegmentTemplate()
    var list = DASHSegmentList()
    var base = DASHSegmentBase()
    var timeline: DASHSegmentTimeline?

    /// This addressing with `element`'s own (a Period, an AdaptationSet, a Representation) applied.
    func applying(_ element: ManifestXML.Element) -> DASHAddressing {
        var a = self
        if let t = element.first("SegmentTemplate") {
            a.template.inherit(t)
            if let timeline = t.first("SegmentTimeline") { a.timeline = DASHSegmentTimeline(element: timeline) }
        }
        if let l = element.first("SegmentList") {
            a.list.inherit(l)
            if let timeline = l.first("SegmentTimeline") { a.timeline = DASHSegmentTimeline(element: timeline) }
        }
        if let b = element.first("SegmentBase") { a.base.inherit(b) }
        return a
    }

    /// Lists `rep`'s segments (its init section, its `sidx` to fetch) by the family that applies:
    /// a template with `@media`, else a list with `SegmentURL`s, else the base (or a bare BaseURL:
    /// one resource).
    func address(_ rep: inout DASHManifest.Representation, base url: String, period: DASHPeriodTiming, values: DASHValues,
                 budget: inout DASHBudget) throws(OutsideValue.Refusal) {
        if let media = template.attributes["media"] {
            try template.address(&rep, media: media, timeline: timeline, base: url, period: period, values: values, budget: &budget)
        } else if let urls = list.urls {
            try list.address(&rep, urls: urls, timeline: timeline, base: url, period: period, values: values, budget: &budget)
        } else {
            try base.address(&rep, base: url, period: period, values: values, budget: &budget)
        }
    }
}

/// Where a period sits on the presentation timeline and when a dynamic one's segments are
/// available: what every addressing family places segments by.
struct DASHPeriodTiming {
    /// Seconds on the presentation timeline.
    var start: Double
    /// Seconds; nil when neither the period nor what follows it says.
    var duration: Double?
    var dynamic: Bool
    /// The manifest's `availabilityStartTime` (seconds since 1970).
    var availabilityStart: Double?
    /// The manifest's `timeShiftBufferDepth` (seconds).
    var depth: Double?
    /// The time (seconds since 1970) a dynamic period's `duration`-addressed segments are placed at.
    var now: Double

    var end: Double? { duration.map { start + $0 } }
}

/// The manifest's budgets as it is read: at most ``DASHManifest/Limits/representations``
/// representations, ``DASHManifest/Limits/segmentsPerRepresentation`` segments per representation
/// and ``DASHManifest/Limits/totalSegments`` in all. A budget of the whole manifest passed refuses
/// it (``OutsideValue/Refusal/budget(_:)``); one representation's refuses only it.
struct DASHBudget {
    let limits: DASHManifest.Limits
    private(set) var segments = 0
    private(set) var representations = 0

    /// Counts one more representation.
    mutating func representation() throws(OutsideValue.Refusal) {
        representations += 1
        guard representations <= limits.representations else {
            throw OutsideValue.Refusal.budget("more than \(limits.representations) representations")
        }
    }

    /// Appends `segment` to `rep` once its time and length are usable and it is within the budgets.
    mutating func append(_ segment: DASHManifest.Segment, to rep: inout DASHManifest.Representation) throws(OutsideValue.Refusal) {
        guard segment.duration > 0, segment.duration <= DASHManifest.maxSeconds, segment.start.isFinite, abs(segment.start) <= DASHManifest.maxSeconds else {
            throw OutsideValue.Refusal("a segment of representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))' has an unusable time or duration")
        }
        guard rep.segments.count < limits.segmentsPerRepresentation else {
            throw OutsideValue.Refusal("representation '\(TextSanitizer.clean(String(rep.id.prefix(40))))' has more than \(limits.segmentsPerRepresentation) segments")
        }
        segments += 1
        guard segments <= limits.totalSegments else { throw OutsideValue.Refusal.budget("the manifest has more than \(limits.totalSegments) segments") }
        rep.segments.append(segment)
    }
}
