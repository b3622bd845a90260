/// Gapless playback (`--gapless-audio`, mpv's; ``PlayerSessions`` holds the item prepared).
extension Player {
    /// Opens `url` ahead on a thread of its own to follow the playing item on its device: only
    /// after an item of sound alone (no video), with `options.gapless` not `.no`, and only when
    /// the next item has sound alone too and (`.weak`) the same rate and channels. Anything else
    /// is left to the ordinary switch, with one log line. Calling it again for the same URL does
    /// nothing; for another URL it replaces what was prepared.
    public func prepareNext(url: String, options given: PlayerOptions) { sessions.prepareNext(url: url, options: given) }

    /// The URL prepared or being prepared (nil: none).
    public var preparedNext: String? { sessions.preparedNext }

    /// Whether loading `url` now takes the prepared item that already plays on from this one.
    public func continues(to url: String) -> Bool { sessions.continues(to: url) }
}
