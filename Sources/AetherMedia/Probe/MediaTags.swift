import CFFmpeg

/// The music tags of a source (ID3, Vorbis comments, MP4 atoms, Matroska tags), as libavformat
/// names them; every value sanitised for the terminal, nil when absent or empty.
///
/// Read from the container's metadata; in a file whose only stream is one audio track, each
/// missing key then from that stream's: Ogg (Vorbis, Opus) keeps its comments on the stream,
/// MP3, FLAC and MP4 on the container.
public struct MediaTags: Codable, Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    /// As written: `3`, or `3/12`.
    public var track: String?
    /// As written: `2021`, `2021-05-14` …
    public var date: String?
    public var genre: String?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, albumArtist: String? = nil,
                track: String? = nil, date: String? = nil, genre: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.albumArtist = albumArtist
        self.track = track
        self.date = date
        self.genre = genre
    }

    /// The first four-digit run of ``date`` (`2021-05-14` → `2021`), else the date as written.
    public var year: String? {
        guard let date else { return nil }
        let scalars = Array(date.unicodeScalars)
        var i = 0
        while i + 4 <= scalars.count {
            let digit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
            if scalars[i..<(i + 4)].allSatisfy(digit), i == 0 || !digit(scalars[i - 1]),
               i + 4 == scalars.count || !digit(scalars[i + 4]) {
                return String(String.UnicodeScalarView(scalars[i..<(i + 4)]))
            }
            i += 1
        }
        return date
    }

    /// No tag at all.
    public var isEmpty: Bool { self == MediaTags() }

    /// libavformat's keys, in the order of the properties (`av_dict_get` ignores case, so Vorbis
    /// comments' `ARTIST` matches; ID3's `TYER` and `TDRC` both arrive as `date`).
    static var keys: [(WritableKeyPath<MediaTags, String?>, [String])] { [
        (\.title, ["title"]), (\.artist, ["artist"]), (\.album, ["album"]),
        (\.albumArtist, ["album_artist", "albumartist"]), (\.track, ["track", "tracknumber"]),
        (\.date, ["date", "year"]), (\.genre, ["genre"]),
    ] }

    /// Reads the tags from `primary` (the container's metadata), then `fallback` for what is missing.
    static func read(_ primary: OpaquePointer?, fallback: OpaquePointer?) -> MediaTags {
        var tags = MediaTags()
        for (path, names) in keys {
            for dict in [primary, fallback] where tags[keyPath: path] == nil {
                tags[keyPath: path] = names.lazy.compactMap { MediaProbe.tag(dict, $0) }.first
            }
        }
        return tags
    }
}
