/// Whether a resource read by a ``ResilientInput`` is a playlist or manifest, and so may deliver
/// at most ``NetworkSession/manifestBudget`` bytes: known by its name (`.m3u8`, `.m3u`, `.mpd`),
/// its content type, or its first bytes (after a byte-order mark and white space: `#EXTM3U` is an
/// HLS playlist, libavformat's HLS demuxer reads nothing else; `<` is XML). Media is unbounded.
struct DocumentBudget {
    /// Bytes the resource may deliver (nil: media, or not known yet).
    private(set) var limit: Int64?
    /// What the budgeted resource is, for the refusal (`playlist`, `manifest`).
    private(set) var kind = ""
    /// Whether it is known yet.
    private(set) var classified = false
    /// Past its budget: no byte more is read.
    var refused = false
    /// The body's first bytes while it is not yet known whether it is a playlist or manifest.
    private var head: [UInt8] = []

    /// By its name's `ext`ension or its content type (`mime`, lower case).
    mutating func classify(extension ext: String, mime: String) {
        if ext == "m3u8" || ext == "m3u" || mime.contains("mpegurl") {
            set("playlist")
        } else if ext == "mpd" || mime.contains("dash+xml") {
            set("manifest")
        }
    }

    /// By the body's first bytes, given as they arrive; `atStart`: `bytes` are the resource's
    /// first (a read that resumes or starts at an offset tells nothing).
    mutating func classify(_ bytes: UnsafeBufferPointer<UInt8>, atStart: Bool) {
        guard atStart || !head.isEmpty else { classified = true; return }
        head += bytes.prefix(64 - head.count)
        var text = head[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let playlist = Array("#EXTM3U".utf8)
        if text.first == UInt8(ascii: "<") {
            set("manifest")
        } else if text.starts(with: playlist) {
            set("playlist")
        } else if text.count >= playlist.count || !playlist.starts(with: text) || head.count >= 64 {
            classified = true
        }
        if classified { head = [] }
    }

    private mutating func set(_ what: String) {
        limit = NetworkSession.manifestBudget
        kind = what
        classified = true
    }
}
