import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// DASH-IF thumbnail tracks (IOP 4.3 §6.2.6): an image adaptation set (`contentType="image"`
/// or an `image/*` mime type) whose representations address their sheets with a
/// `SegmentTemplate` (`$Number$`, `$Time$`, `$RepresentationID$`, `$Bandwidth$`; `duration`
/// or a `SegmentTimeline`) and declare the layout with an Essential- or SupplementalProperty
/// `http://dashif.org/thumbnail_tile` (or `…/guidelines/thumbnail_tile`) `value="CxR"`
/// (without one, each image is one thumbnail). The representation's width and height are the
/// whole sheet's. Static manifests only (a live one's numbering depends on the wall clock).
public enum DASHThumbnails {
    static let tileSchemes: Set<String> = ["http://dashif.org/thumbnail_tile", "http://dashif.org/guidelines/thumbnail_tile"]

    /// The thumbnail track of the manifest `text` (fetched from `base`): per period, the
    /// representation whose thumbnails are nearest `preferredWidth` (see
    /// ``SpriteTrack/choose(widths:preferredWidth:)``). Nil when there is none, the manifest is
    /// live or unreadable, or a sheet URL is not allowed (see ``SpriteTrack/allowed(_:base:)``).
    public static func track(in text: String, base: String, preferredWidth: Int = 320) -> SpriteTrack? {
        guard let mpd = ManifestXML.parse(text), mpd.name == "MPD", mpd["type"] ?? "static" == "static" else { return nil }
        let total = mpd["mediaPresentationDuration"].flatMap(isoDuration)
        let mpdBase = DASHManifest.baseURL(of: mpd, against: base)
        let periods = mpd.children("Period")
        var sheets: [SpriteSheet] = []
        var previousEnd: Double? = 0
        for (p, period) in periods.enumerated() {
            guard let start = period["start"].flatMap(isoDuration) ?? previousEnd else { return nil }
            let nextStart = periods.dropFirst(p + 1).first?["start"].flatMap(isoDuration)
            let duration = period["duration"].flatMap(isoDuration) ?? (nextStart ?? total).map { $0 - start }
            guard duration.map({ $0 > 0 }) ?? true else { previousEnd = start; continue }
            previousEnd = duration.map { start + $0 }
            let periodBase = DASHManifest.baseURL(of: period, against: mpdBase)
            var candidates: [(width: Int?, sheets: [SpriteSheet])] = []
            for set in period.children("AdaptationSet") {
                // An image set, or image representations in a set that does not say.
                let setIsImage = isImage(set)
                let setBase = DASHManifest.baseURL(of: set, against: periodBase)
                for representation in set.children("Representation") where setIsImage || isImage(representation) {
                    guard let made = sheetsOf(representation, in: set, base: setBase, periodStart: start, periodDuration: duration) else { continue }
                    candidates.append(made)
                }
            }
            guard let k = SpriteTrack.choose(widths: candidates.map(\.width), preferredWidth: preferredWidth) else { continue }
            sheets += candidates[k].sheets
            guard sheets.count <= SpriteTrack.maxSheets else { return nil }
        }
        guard sheets.allSatisfy({ SpriteTrack.allowed($0.url, base: base) }) else { return nil }
        return SpriteTrack(origin: .dash, sheets: sheets)
    }

    static func isImage(_ element: ManifestXML.Element) -> Bool {
        element["contentType"]?.lowercased() == "image" || element["mimeType"]?.lowercased().hasPrefix("image/") == true
    }

    /// One representation's sheets and thumbnail width; nil when it is not usable (no template,
    /// an unknown essential property, a bad layout or timing).
    private static func sheetsOf(_ rep: ManifestXML.Element, in set: ManifestXML.Element, base: String,
                                 periodStart: Double, periodDuration: Double?) -> (width: Int?, sheets: [SpriteSheet])? {
        // Layout from the representation, else the set. An essential property this player does
        // not know rules the representation out (ISO/IEC 23009-1 §5.8.4.8).
        var layout: (columns: Int, rows: Int) = (1, 1)
        for element in [set, rep] {
            for property in element.children("EssentialProperty") + element.children("SupplementalProperty") {
                let scheme = property["schemeIdUri"] ?? ""
                if tileSchemes.contains(scheme) {
                    guard let l = SpriteTrack.layout(property["value"] ?? "") else { return nil }
                    layout = l
                } else if property.name == "EssentialProperty" {
                    return nil
                }
            }
        }
        // The representation's template over the set's (attributes inherit one by one).
        var template = set.first("SegmentTemplate")?.attributes ?? [:]
        var timeline = set.first("SegmentTemplate")?.first("SegmentTimeline")
        if let own = rep.first("SegmentTemplate") {
            template.merge(own.attributes) { $1 }
            if let t = own.first("SegmentTimeline") { timeline = t }
        }
        guard let media = template["media"], !media.isEmpty else { return nil }
        let base = DASHManifest.baseURL(of: rep, against: base)
        let timescale = Double(template["timescale"].flatMap { Int64($0) } ?? 1)
        let startNumber = template["startNumber"].flatMap { Int64($0) } ?? 1
        let offset = template["presentationTimeOffset"].flatMap { Int64($0) } ?? 0
        guard timescale > 0, timescale <= 1e12, startNumber >= 0, startNumber < 1 << 40, offset >= 0 else { return nil }
        let id = rep["id"] ?? ""
        let bandwidth = rep["bandwidth"] ?? ""
        let width = rep["width"].flatMap { Int($0) } ?? set["width"].flatMap { Int($0) }
        let height = rep["height"].flatMap { Int($0) } ?? set["height"].flatMap { Int($0) }
        let tileWidth = width.flatMap { $0 > 0 && $0 % layout.columns == 0 ? $0 / layout.columns : nil }.flatMap { $0 <= SpriteTrack.maxTileEdge ? $0 : nil }
        let tileHeight = height.flatMap { $0 > 0 && $0 % layout.rows == 0 ? $0 / layout.rows : nil }.flatMap { $0 <= SpriteTrack.maxTileEdge ? $0 : nil }
        let tiles = Double(layout.columns * layout.rows)
        let periodEnd = periodDuration.map { periodStart + $0 }

        // (number, time in timescale units, seconds) of each segment.
        var segments: [(number: Int64, time: Int64, start: Double, duration: Double)] = []
        if let timeline {
            var t: Int64 = 0
            var number = startNumber
            let entries = timeline.children("S")
            for (k, s) in entries.enumerated() {
                if let given = s["t"].flatMap({ Int64($0) }) {
                    guard given >= 0 else { return nil }
                    t = given
                }
                guard let d = s["d"].flatMap({ Int64($0) }), d > 0, d < 1 << 50 else { return nil }
                var repeats = s["r"].flatMap { Int64($0) } ?? 0
                if repeats < 0 {
                    // Until the next S's t, else the period's end.
                    let until: Double? = entries.dropFirst(k + 1).first?["t"].flatMap { Int64($0) }.map { Double($0) }
                        ?? periodEnd.map { ($0 - periodStart) * timescale + Double(offset) }
                    guard let until else { return nil }
                    repeats = Int64(max(0, ((until - Double(t)) / Double(d) - 1e-9).rounded(.up) - 1).clamped(to: 0...Double(SpriteTrack.maxSheets)))
                }
                guard repeats <= Int64(SpriteTrack.maxSheets) else { return nil }
                for _ in 0...repeats {
                    let start = periodStart + Double(t - offset) / timescale
                    segments.append((number, t, start, Double(d) / timescale))
                    guard segments.count <= SpriteTrack.maxSheets else { return nil }
                    number += 1
                    let (next, overflow) = t.addingReportingOverflow(d)
                    guard !overflow else { return nil }
                    t = next
                }
            }
        } else {
            guard let d = template["duration"].flatMap({ Int64($0) }), d > 0, let periodDuration else { return nil }
            let seconds = Double(d) / timescale
            let count = (periodDuration / seconds - 1e-9).rounded(.up)
            guard seconds.isFinite, seconds > 0, count >= 1, count <= Double(SpriteTrack.maxSheets) else { return nil }
            for n in 0..<Int64(count) {
                segments.append((startNumber + n, offset + n * d, periodStart + Double(n) * seconds, seconds))
            }
        }
        var sheets: [SpriteSheet] = []
        for segment in segments {
            var duration = segment.duration
            if let periodEnd { duration = min(duration, periodEnd - segment.start) }
            guard duration > 0, segment.start.isFinite, segment.start >= 0 else { continue }
            guard let path = expand(media, id: id, number: segment.number, time: segment.time, bandwidth: bandwidth) else { return nil }
            sheets.append(SpriteSheet(url: URLReference.resolve(path, against: base), start: segment.start, duration: duration,
                                      columns: layout.columns, rows: layout.rows, tileWidth: tileWidth, tileHeight: tileHeight,
                                      tileDuration: segment.duration / tiles))
        }
        guard !sheets.isEmpty else { return nil }
        return (tileWidth, sheets)
    }

    /// A `SegmentTemplate` `media` with its identifiers filled in (`$Number%05d$` formats); nil
    /// for an unknown identifier or a broken one.
    static func expand(_ template: String, id: String, number: Int64, time: Int64, bandwidth: String) -> String? {
        var out = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let after = rest.index(after: dollar)
            guard let close = rest[after...].firstIndex(of: "$") else { return nil }
            let identifier = rest[after..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty { out += "$"; continue }
            let parts = identifier.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            var format = parts.count == 2 ? String(parts[1]) : nil
            let value: String
            switch parts[0] {
            case "RepresentationID":
                guard format == nil else { return nil }
                value = id
            case "Number": value = String(number)
            case "Time": value = String(time)
            case "Bandwidth": value = bandwidth
            default: return nil
            }
            if let f = format {
                // Only %0Nd (and %Nd, %d): a width for a decimal number.
                guard f.hasSuffix("d") else { return nil }
                format = String(f.dropLast())
                let zero = format!.hasPrefix("0")
                guard let width = format!.isEmpty ? 0 : Int(format!), width >= 0, width <= 32 else { return nil }
                out += String(repeating: zero ? "0" : " ", count: max(0, width - value.count)) + value
            } else {
                out += value
            }
        }
        out += rest
        return out
    }

    /// An ISO 8601 duration (`PT40.0S`, `P1DT2H3M4.5S`) in seconds; nil for anything else (years
    /// and months, whose length varies, included).
    static func isoDuration(_ text: String) -> Double? {
        var s = Substring(text.trimmingWhitespace().uppercased())
        guard s.hasPrefix("P") else { return nil }
        s = s.dropFirst()
        var total = 0.0, inTime = false, number = "", sawField = false
        for ch in s {
            if ch == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if ch.isNumber || ch == "." { number.append(ch); continue }
            guard let value = Double(number), value >= 0 else { return nil }
            number = ""
            sawField = true
            switch (ch, inTime) {
            case ("D", false): total += value * 86_400
            case ("W", false): total += value * 604_800
            case ("H", true): total += value * 3600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
        }
        guard number.isEmpty, sawField, total.isFinite, total <= 1e9 else { return nil }
        return total
    }
}
