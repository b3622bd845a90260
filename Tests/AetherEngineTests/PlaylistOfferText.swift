@testable import AetherStreaming

// The tests offer playlists as text; they go the session's way (``PlaylistOffer``).
extension AdaptiveSwitcher {
    /// Offers `text` at `url` to this switcher alone; returns what is served instead (nil: as read).
    @discardableResult
    func playlistFetched(_ url: String, text: String) -> String? {
        let served = PlaylistOffer.offer(url, Array(text.utf8), to: self, splice: nil)
        return served == Array(text.utf8) ? nil : String(decoding: served, as: UTF8.self)
    }
}

extension HLSSplice {
    /// Offers `text` at `url` to this splice alone.
    func playlistSeen(_ url: String, text: String) {
        _ = PlaylistOffer.offer(url, Array(text.utf8), to: nil, splice: self)
    }
}
