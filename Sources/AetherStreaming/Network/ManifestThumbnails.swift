import AetherBase
import AetherMedia
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// What a manifest says of its thumbnails (read by `DASHThumbnails` and `HLSThumbnails`): the
// sheets, their layout and times; no bytes. AetherStills' `SpriteSheetStills` fetches the sheets
// and cuts them into stills.

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
        let index = min(sheet.tileCount - 1, max(0, Int(((t - sheet.start) / sheet.tileDuration + 1e-9).rounded(.down).clamped(to: 0...1e6))))
        let start = sheet.start + Double(index) * sheet.tileDuration
        return SpriteTile(sheet: sheet, index: index, start: start, end: min(sheet.end, start + sheet.tileDuration))
    }

    /// One line for the log: `DASH thumbnails: 2 sheets of 5×2, 160×90 px, 2 s each`.
    public var summary: String {
        guard let s = sheets.first else { return "\(origin.rawValue) thumbnails: none" }
        let size = s.tileWidth.flatMap { w in s.tileHeight.map { "\(w)×\($0) px, " } } ?? ""
        return "\(origin.rawValue) thumbnails: \(sheets.count) sheet\(sheets.count == 1 ? "" : "s") of \(s.columns)×\(s.rows), \(size)\(String(cFormat: "%g", s.tileDuration)) s each"
    }

    /// `CxR` (`5x2`): a layout within the limits, else nil.
    static func layout(_ text: String) -> (columns: Int, rows: Int)? {
        let parts = text.trimmingWhitespace().lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]),
              (1...maxLayout).contains(c), (1...maxLayout).contains(r), c * r <= maxTilesPerSheet else { return nil }
        return (c, r)
    }

    /// `WxH`: a size within the limits, else nil.
    static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.trimmingWhitespace().lowercased().split(separator: "x", omittingEmptySubsequences: false)
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

