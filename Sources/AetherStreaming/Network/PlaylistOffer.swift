/// An HLS playlist served to the demuxer (read whole at open or on a live reload), parsed once here
/// and handed to those that keep a copy: the switcher, a variant's (the anchor's may be served with
/// its byte ranges in its URLs), and the splice, any media playlist (not a master, not empty).
package enum PlaylistOffer {
    /// The bytes to serve for `bytes` read at `url`; nil `switcher` or `splice`: not theirs.
    package static func offer(_ url: String, _ bytes: [UInt8], to switcher: AdaptiveSwitcher?, splice: HLSSplice?) -> [UInt8] {
        guard switcher != nil || splice != nil, bytes.starts(with: Array("#EXTM3U".utf8)) else { return bytes }
        let read = String(decoding: bytes, as: UTF8.self)
        let rewritten = switcher?.served(url, text: read)
        let text = rewritten ?? read, served = rewritten.map { Array($0.utf8) } ?? bytes
        let spliced = splice != nil && text.contains("#EXTINF") && !text.contains("#EXT-X-STREAM-INF")
        guard switcher != nil || spliced, let playlist = try? HLSMediaPlaylist.parse(text, base: url) else { return served }
        switcher?.playlistFetched(url, playlist: playlist)
        if spliced { splice?.playlistSeen(url, playlist: playlist) }
        return served
    }
}
