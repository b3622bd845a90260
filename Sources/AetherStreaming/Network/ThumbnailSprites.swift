import AetherMedia
import Foundation

/// One image of a thumbnail track: a sheet (sprite) of `columns` × `rows` thumbnails laid out
/// row-major, each standing for ``tileDuration`` seconds from ``start``.
public struct SpriteSheet: Sendable, Equatable {
    /// Where the image is (absolute URL, or a path for a local manifest).
    public var url: String
    /// Media seconds the sheet's first thumbnail starts at.
    public var start: Double
    /// Seconds the sheet covers (a last sheet may cover less than its layout could).
    public var duration: Double
    public var columns: Int
    public var rows: Int
    /// One thumbnail's size as the manifest gives it (HLS `RESOLUTION`; a DASH representation's
    /// size divided by the layout); nil when it does not say.
    public var tileWidth: Int?
    public var tileHeight: Int?
    /// Seconds one thumbnail stands for.
    public var tileDuration: Double

    public init(url: String, start: Double, duration: Double, columns: Int, rows: Int,
                tileWidth: Int?, tileHeight: Int?, tileDuration: Double) {
        self.url = url
        self.start = start
        self.duration = duration
        self.columns = columns
        self.rows = rows
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.tileDuration = tileDuration
    }

    public var end: Double { start + duration }

    /// Thumbnails that carry pictures: as many as the sheet's time needs, at most the layout's.
    public var tileCount: Int {
        let needed = (duration / tileDuration - 1e-6).rounded(.up)
        return max(1, min(columns * rows, needed.isFinite ? Int(max(1, min(1e6, needed))) : 1))
    }
}

/// The thumbnail for a time: which sheet, which cell of it, the time it stands for.
public struct SpriteTile: Sendable, Equatable {
    public var sheet: SpriteSheet
    /// Row-major position in the sheet (0-based).
    public var index: Int
    public var column: Int { index % sheet.columns }
    public var row: Int { index / sheet.columns }
    /// The time range the thumbnail stands for.
    public var start: Double
    public var end: Double

    /// The thumbnail's rectangle in a decoded sheet `width` × `height` pixels: the manifest's
    /// thumbnail size on an axis where the picture is a whole number of thumbnails no more than
    /// the layout holds (a sheet cropped after its last row is fine), else the picture divided by
    /// the layout (a sheet stored at another size than declared). Nil when the cell lies outside
    /// the picture.
    public func rect(sheetWidth width: Int, sheetHeight height: Int) -> PixelRect? {
        func edge(_ declared: Int?, _ actual: Int, _ cells: Int) -> Int {
            if let declared, declared > 0, actual >= declared, actual <= declared * cells, actual % declared == 0 { return declared }
            return actual / cells
        }
        let w = edge(sheet.tileWidth, width, sheet.columns), h = edge(sheet.tileHeight, height, sheet.rows)
        let rect = PixelRect(x: column * w, y: row * h, width: w, height: h)
        guard w > 0, h > 0, rect.x + w <= width, rect.y + h <= height else { return nil }
        return rect
    }
}

public struct PixelRect: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// A thumbnail track published by an adaptive stream's manifest (a DASH-IF thumbnail
/// adaptation set, an HLS image stream): its sheets in time order.
public struct SpriteTrack: Sendable, Equatable {
    public enum Origin: String, Sendable { case dash = "DASH", hls = "HLS" }
    public var origin: Origin
    public var sheets: [SpriteSheet]

    /// Sheets a track may have (a hostile manifest could ask for billions).
    public static let maxSheets = 20_000
    /// Thumbnails per sheet, per axis, and in all.
    public static let maxLayout = 256
    public static let maxTilesPerSheet = 4096
    /// Largest thumbnail edge believed.
    public static let maxTileEdge = 8192

    public init?(origin: Origin, sheets: [SpriteSheet]) {
        let ordered = sheets.sorted { $0.start < $1.start }
        guard !ordered.isEmpty, ordered.count <= Self.maxSheets else { return nil }
        self.origin = origin
        self.sheets = ordered
    }

    /// Seconds from the first sheet's start to the last one's end.
    public var end: Double { sheets.last?.end ?? 0 }

    /// The thumbnail standing for `seconds`: before the first sheet, the first thumbnail; past the
    /// end (or in a gap after a sheet), the last thumbnail before.
    public func tile(at seconds: Double) -> SpriteTile? {
        guard let first = sheets.first else { return nil }
        let t = seconds.isNaN ? first.start : min(1e12, max(first.start, seconds))
        // The last sheet starting at or before t.
        var low = 0, high = sheets.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if sheets[mid].start <= t { low = mid } else { high = mid - 1 }
        }
        let sheet = sheets[low]
        let index = min(sheet.tileCount - 1, max(0, Int(((t - sheet.start) / sheet.tileDuration + 1e-9).rounded(.down).clamped(0, 1e6))))
        let start = sheet.start + Double(index) * sheet.tileDuration
        return SpriteTile(sheet: sheet, index: index, start: start, end: min(sheet.end, start + sheet.tileDuration))
    }

    /// One line for the log: `DASH thumbnails: 2 sheets of 5×2, 160×90 px, 2 s each`.
    public var summary: String {
        guard let s = sheets.first else { return "\(origin.rawValue) thumbnails: none" }
        let size = s.tileWidth.flatMap { w in s.tileHeight.map { "\(w)×\($0) px, " } } ?? ""
        return "\(origin.rawValue) thumbnails: \(sheets.count) sheet\(sheets.count == 1 ? "" : "s") of \(s.columns)×\(s.rows), \(size)\(String(format: "%g", s.tileDuration)) s each"
    }

    /// `CxR` (`5x2`): a layout within the limits, else nil.
    static func layout(_ text: String) -> (columns: Int, rows: Int)? {
        let parts = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]),
              (1...maxLayout).contains(c), (1...maxLayout).contains(r), c * r <= maxTilesPerSheet else { return nil }
        return (c, r)
    }

    /// `WxH`: a size within the limits, else nil.
    static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.trimmingCharacters(in: .whitespaces).lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...maxTileEdge).contains(w), (1...maxTileEdge).contains(h) else { return nil }
        return (w, h)
    }

    /// Which of several thumbnail sizes to use: the narrowest at least `preferredWidth` wide,
    /// else the widest (an unknown width counts as 0).
    static func choose(widths: [Int?], preferredWidth: Int) -> Int? {
        guard !widths.isEmpty else { return nil }
        let w = widths.map { $0 ?? 0 }
        if let best = w.indices.filter({ w[$0] >= preferredWidth }).min(by: { w[$0] < w[$1] }) { return best }
        return w.indices.max { w[$0] < w[$1] }
    }

    /// Whether a sheet's URL may be fetched for a manifest at `base`: a network manifest's sheets
    /// must be http(s) (a remote manifest must not read local files); a local one's may be paths,
    /// `file:` or http(s).
    package static func allowed(_ url: String, base: String) -> Bool {
        let scheme = NetworkSettings.scheme(of: url)
        if scheme == "http" || scheme == "https" { return true }
        if NetworkSettings.isNetwork(base) { return false }
        return scheme == nil || scheme == "file"
    }
}

private extension Double {
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(high, Swift.max(low, self)) }
}

// MARK: - DASH

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
        let mpdBase = baseURL(of: mpd, against: base)
        let periods = mpd.children("Period")
        var sheets: [SpriteSheet] = []
        var previousEnd: Double? = 0
        for (p, period) in periods.enumerated() {
            guard let start = period["start"].flatMap(isoDuration) ?? previousEnd else { return nil }
            let nextStart = periods.dropFirst(p + 1).first?["start"].flatMap(isoDuration)
            let duration = period["duration"].flatMap(isoDuration) ?? (nextStart ?? total).map { $0 - start }
            guard duration.map({ $0 > 0 }) ?? true else { previousEnd = start; continue }
            previousEnd = duration.map { start + $0 }
            let periodBase = baseURL(of: period, against: mpdBase)
            var candidates: [(width: Int?, sheets: [SpriteSheet])] = []
            for set in period.children("AdaptationSet") {
                // An image set, or image representations in a set that does not say.
                let setIsImage = isImage(set)
                let setBase = baseURL(of: set, against: periodBase)
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

    /// `base` with the element's first `BaseURL` applied.
    static func baseURL(of element: ManifestXML.Element, against base: String) -> String {
        guard let text = element.first("BaseURL")?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            return base
        }
        return HLSMasterPlaylist.resolve(text, against: base)
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
        let base = baseURL(of: rep, against: base)
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
                    repeats = Int64(max(0, ((until - Double(t)) / Double(d) - 1e-9).rounded(.up) - 1).clamped(0, Double(SpriteTrack.maxSheets)))
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
            sheets.append(SpriteSheet(url: HLSMasterPlaylist.resolve(path, against: base), start: segment.start, duration: duration,
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
        var s = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
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

// MARK: - HLS

/// One `#EXT-X-IMAGE-STREAM-INF` of an HLS master playlist (Roku/Apple image media playlists).
public struct HLSImageStream: Sendable, Equatable {
    public var uri: String
    public var bandwidth: Int?
    /// One thumbnail's size.
    public var width: Int?
    public var height: Int?
    public var codecs: String?
}

public enum HLSThumbnails {
    /// The image streams of a master playlist (URIs resolved against `base`); empty for a media
    /// playlist or no HLS at all.
    public static func imageStreams(in text: String, base: String) -> [HLSImageStream] {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return [] }
        var streams: [HLSImageStream] = []
        for line in lines where line.hasPrefix("#EXT-X-IMAGE-STREAM-INF:") {
            let a = HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-IMAGE-STREAM-INF:".count)))
            guard let uri = a["URI"]?.trimmingCharacters(in: .whitespaces), !uri.isEmpty else { continue }
            var stream = HLSImageStream(uri: HLSMasterPlaylist.resolve(uri, against: base))
            stream.bandwidth = a["BANDWIDTH"].flatMap { Int($0) }
            if let size = a["RESOLUTION"].flatMap(SpriteTrack.size) { stream.width = size.width; stream.height = size.height }
            stream.codecs = a["CODECS"]
            streams.append(stream)
        }
        return streams
    }

    /// The stream whose thumbnails are nearest `preferredWidth`.
    public static func choose(_ streams: [HLSImageStream], preferredWidth: Int = 320) -> HLSImageStream? {
        SpriteTrack.choose(widths: streams.map(\.width), preferredWidth: preferredWidth).map { streams[$0] }
    }

    /// An image media playlist: per sheet `#EXTINF:<seconds>,`, optionally
    /// `#EXT-X-TILES:RESOLUTION=WxH,LAYOUT=CxR,DURATION=<seconds>` (without it, one thumbnail
    /// per image), then the image's URI. `stream` gives the thumbnail size when a sheet's tag does
    /// not. VOD only (`#EXT-X-ENDLIST` or `#EXT-X-PLAYLIST-TYPE:VOD`); byte-range sheets are not
    /// supported. Nil when unusable, or when a sheet URL is not allowed (see
    /// ``SpriteTrack/allowed(_:base:)``).
    public static func track(inPlaylist text: String, base: String, stream: HLSImageStream? = nil) -> SpriteTrack? {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var sheets: [SpriteSheet] = []
        var time = 0.0
        var extinf: Double?
        var tiles: [String: String]?
        var complete = false
        for line in lines {
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard let d = Double(value.trimmingCharacters(in: .whitespaces)), d.isFinite, d > 0, d <= 1e7 else { return nil }
                extinf = d
            } else if line.hasPrefix("#EXT-X-TILES:") {
                tiles = HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-TILES:".count)))
            } else if line.hasPrefix("#EXT-X-BYTERANGE") {
                return nil
            } else if line == "#EXT-X-ENDLIST" || line == "#EXT-X-PLAYLIST-TYPE:VOD" {
                complete = true
            } else if !line.hasPrefix("#") {
                guard let duration = extinf else { return nil }
                var layout: (columns: Int, rows: Int) = (1, 1)
                var size = stream.flatMap { s in s.width.flatMap { w in s.height.map { (width: w, height: $0) } } }
                var tileDuration = duration
                if let tiles {
                    if let l = tiles["LAYOUT"] {
                        guard let parsed = SpriteTrack.layout(l) else { return nil }
                        layout = parsed
                    }
                    if let r = tiles["RESOLUTION"] {
                        guard let parsed = SpriteTrack.size(r) else { return nil }
                        size = parsed
                    }
                    tileDuration = duration / Double(layout.columns * layout.rows)
                    if let d = tiles["DURATION"] {
                        guard let parsed = Double(d), parsed.isFinite, parsed > 0, parsed <= 1e7 else { return nil }
                        tileDuration = parsed
                    }
                }
                sheets.append(SpriteSheet(url: HLSMasterPlaylist.resolve(line, against: base), start: time, duration: duration,
                                          columns: layout.columns, rows: layout.rows, tileWidth: size?.width,
                                          tileHeight: size?.height, tileDuration: tileDuration))
                guard sheets.count <= SpriteTrack.maxSheets else { return nil }
                time += duration
                extinf = nil
                tiles = nil
            }
        }
        guard complete, sheets.allSatisfy({ SpriteTrack.allowed($0.url, base: base) }) else { return nil }
        return SpriteTrack(origin: .hls, sheets: sheets)
    }
}
