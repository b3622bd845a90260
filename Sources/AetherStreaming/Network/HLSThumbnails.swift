import AetherMedia
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
            .map { $0.trimmingWhitespace() }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return [] }
        var streams: [HLSImageStream] = []
        for line in lines where line.hasPrefix("#EXT-X-IMAGE-STREAM-INF:") {
            let a = HLSMasterPlaylist.attributes(String(line.dropFirst("#EXT-X-IMAGE-STREAM-INF:".count)))
            guard let uri = a["URI"]?.trimmingWhitespace(), !uri.isEmpty else { continue }
            var stream = HLSImageStream(uri: URLReference.resolve(uri, against: base))
            stream.bandwidth = a["BANDWIDTH"].flatMap { Int($0) }
            if let size = a["RESOLUTION"].flatMap(SpriteTrack.size) {
                stream.width = size.width
                stream.height = size.height
            }
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
            .map { $0.trimmingWhitespace() }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { return nil }
        var sheets: [SpriteSheet] = []
        var time = 0.0
        var extinf: Double?
        var tiles: [String: String]?
        var complete = false
        for line in lines {
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard let d = Double(value.trimmingWhitespace()), d.isFinite, d > 0, d <= 1e7 else { return nil }
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
                sheets.append(SpriteSheet(url: URLReference.resolve(line, against: base), start: time, duration: duration,
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
