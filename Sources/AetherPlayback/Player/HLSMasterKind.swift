import AetherBase
import AetherMedia
import AetherStreaming
import AetherTransport

/// An HLS master playlist (`.m3u8`), read ahead within ``NetworkSession/manifestBudget``: a
/// remote one naming anything but http(s) is refused. The variant is chosen here and, when its
/// sound is muxed in, its media playlist opens alone, so that no other variant is ever fetched;
/// one with audio renditions opens through the master, which the demuxer is served from memory.
/// With `--hls-bitrate=auto` on a network master, bit-rate switching over the ladder. A media
/// playlist, or one that cannot be read, is no master: libavformat opens it as it is.
struct HLSMasterKind: SourceKind {
    let target: DemuxTarget

    init?(_ request: OpenRequest) throws(PlayerError) {
        let url = request.url, options = request.options
        guard StreamVariants.isHLS(url), let bytes = try request.prefetch(url, what: "playlist"),
              let master = HLSMasterPlaylist.parse(String(decoding: bytes, as: UTF8.self), base: url),
              let k = VariantChooser.choose(master.variants, preference: options.stream.variantPreference, range: options.stream.videoRange)
        else { return nil }
        // A remote master may only point at http(s): never at local files.
        if NetworkSettings.isNetwork(url),
           let foreign = (master.variants.compactMap(\.uri) + master.renditions.compactMap(\.uri))
            .first(where: { !["http", "https"].contains(NetworkSettings.scheme(of: $0) ?? "file") }) {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': the playlist refers to '\(TextSanitizer.clean(foreign))' (a network source may only use http and https)", cause: .refused(budget: false))
        }
        var target = DemuxTarget(url: url)
        target.variants = master.variants
        target.variant = master.variants[k]
        if !master.needsRenditions(master.variants[k]), let uri = master.variants[k].uri { target.url = uri }
        // Played through the master: the demuxer's open of it is served our copy.
        if target.url == url { request.prefetched.keep(url, bytes) }
        AppLog.write("net", "HLS master: \(master.variants.count) variants; playing \(k + 1) (\(master.variants[k].summary))\(target.url == url ? " through the master (separate audio renditions)" : "")")
        if options.stream.variantPreference == .auto, NetworkSettings.isNetwork(url) {
            target.switcher = Self.switcher(master: master, anchor: k, request: request)
        }
        self.target = target
    }

    /// Bit-rate switching around `master.variants[anchor]` (whose media playlist libavformat
    /// plays), or nil when there is nothing to switch between or the anchor's playlist cannot be
    /// read or switched (``HLSMediaPlaylist/rangedSwitchRefusal``: no segments, keys, an init
    /// section, a byte range that cannot be read): then the variant stays fixed (logged). Byte
    /// ranges switch: the demuxer is served the playlist with each range named in its URL.
    ///
    /// A variant whose sound is in separate `EXT-X-MEDIA TYPE=AUDIO` renditions is played
    /// through the master by libavformat's hls demuxer, which opens the rendition playlists
    /// itself and reads the chosen rendition (`--alang`) beside the variant; the switcher then
    /// replaces only the anchor's (video) segments, so the audio rendition plays on untouched
    /// and the ladder is the variants of the same audio group. Such a master switches only when
    /// every audio rendition of the group is VOD too (``renditionRefusal(_:group:loader:)``).
    ///
    /// A live anchor playlist switches too (segments matched by media sequence number,
    /// ``AdaptiveSwitcher``). Every playlist read here is kept in `prefetched`, so the demuxer's
    /// first open of it is served from memory (no playlist is fetched twice at open).
    static func switcher(master: HLSMasterPlaylist, anchor: Int, request: OpenRequest) -> AdaptiveSwitcher? {
        let options = request.options, openOptions = request.openOptions, prefetched = request.prefetched
        let policy = AdaptivePolicy()
        let ladder = VariantChooser.ladder(master.variants, anchor: anchor, limit: policy.maxRungs)
        guard ladder.count > 1, let rung = ladder.firstIndex(of: anchor), let uri = master.variants[anchor].uri else { return nil }
        let settings = options.network
        let timeout = min(options.opening.timeout, max(1, settings.readTimeout))
        // The switcher's playlists (each variant's, a live one's reloads) on connections of its
        // own, kept between its fetches: it reads on its own thread while the demuxer reads the
        // open's. The cookies are the open's.
        let transport = TransportSession(policy: settings.tls, cookies: request.transport.cookies)
        let loader: @Sendable (String) -> String? = { url in
            SmallFetch.text(url, options: openOptions, settings: settings, interrupt: InterruptToken(clock: options.time), timeout: timeout,
                            limit: Int(NetworkSession.manifestBudget), transport: transport)
        }
        // What the demuxer will open next: kept for its first open.
        let opening: @Sendable (String) -> String? = { url in
            guard let text = loader(url) else { return nil }
            prefetched.keep(url, Array(text.utf8))
            return text
        }
        guard let text = opening(uri) else {
            AppLog.write("abr", "no switching: the variant's playlist cannot be read")
            return nil
        }
        // Byte ranges: the demuxer is served the playlist with each range named in its URL.
        let ranged = HLSMediaPlaylist.rangesAsURLs(text, base: uri)
        let playlist: HLSMediaPlaylist
        do { playlist = try HLSMediaPlaylist.parse(ranged ?? text, base: uri) } catch {
            AppLog.write("abr", "no switching: the variant's playlist is refused (\(error.message))")
            return nil
        }
        if let why = playlist.rangedSwitchRefusal {
            AppLog.write("abr", "no switching: the variant's playlist \(why)")
            return nil
        }
        if master.needsRenditions(master.variants[anchor]), let group = master.variants[anchor].audioGroup,
           let why = renditionRefusal(master, group: group, live: !playlist.isEnded, loader: opening) {
            AppLog.write("abr", "no switching: \(why)")
            return nil
        }
        AppLog.write("abr", "switching between \(ladder.count) variants: \(ladder.map { String(master.variants[$0].bandwidth) }.joined(separator: ", ")) b/s\(ranged == nil ? "" : " (byte ranges named in the segment URLs)")\(playlist.isEnded ? "" : " (live: segments matched by media sequence number)")")
        return AdaptiveSwitcher(variants: master.variants, ladder: ladder, anchor: rung, anchorPlaylist: playlist,
                                policy: policy, servesRanges: true, clock: request.options.time, loader: loader)
    }

    /// Audio renditions of one group checked at most before switching (a master naming more
    /// keeps its start variant).
    static let maxCheckedRenditions = 16

    /// Why the audio renditions of `group` rule out switching the variants that play with
    /// them, or nil: each rendition playlist of the group (at most ``maxCheckedRenditions``)
    /// must be readable, a media playlist, and VOD when the variants are (`live` false: a live
    /// rendition beside VOD variants has no fixed timeline to switch the video against), live
    /// when they are live.
    static func renditionRefusal(_ master: HLSMasterPlaylist, group: String, live: Bool = false,
                                 loader: (String) -> String?) -> String? {
        let audio = master.renditions.filter { $0.type == "AUDIO" && $0.groupID == group && $0.uri != nil }
        guard audio.count <= maxCheckedRenditions else {
            return "the audio group has \(audio.count) renditions (more than \(maxCheckedRenditions))"
        }
        for r in audio {
            let name = TextSanitizer.clean(r.name ?? r.language ?? r.groupID)
            guard let uri = r.uri, let text = loader(uri) else { return "the audio rendition '\(name)' cannot be read" }
            let playlist: HLSMediaPlaylist
            do { playlist = try HLSMediaPlaylist.parse(text, base: uri) } catch {
                return "the audio rendition '\(name)' is refused (\(error.message))"
            }
            guard playlist.isEnded != live else {
                return "the audio rendition '\(name)' is \(live ? "VOD while the variants are live" : "live while the variants are VOD")"
            }
        }
        return nil
    }
}
