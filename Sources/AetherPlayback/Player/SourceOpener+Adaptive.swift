import AetherMedia
import AetherStreaming
import AetherSubtitles
import CFFmpeg
import AetherBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// Reading HLS masters and DASH manifests ahead of libavformat, and the bit-rate switchers made of them.
extension SourceOpener {
    /// A playlist or manifest read ahead of libavformat, within ``NetworkSession/manifestBudget``:
    /// nil when it cannot be read (libavformat's own open then says why); throws when it is over
    /// the budget.
    static func prefetch(_ url: String, what: String, options: [String: String], settings: NetworkSettings,
                                 interrupt: InterruptToken, timeout: Double) throws -> [UInt8]? {
        do {
            let bytes: [UInt8] = try SmallFetch.bytes(url, options: options, settings: settings, interrupt: interrupt,
                                                      timeout: timeout, limit: Int(NetworkSession.manifestBudget))
            return bytes
        } catch where error.code == aether_AVERROR(EFBIG) {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(what) \(error.message)")
        } catch where error.code == aether_AVERROR_EXIT() && !interrupt.isCancelled {
            // The open deadline passed (a server that drips): libavformat would wait as long again.
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': the \(what) did not arrive within \(String(cFormat: "%g", timeout)) s")
        } catch {
            return nil
        }
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
    static func switcher(master: HLSMasterPlaylist, anchor: Int, options: PlayerOptions,
                                 openOptions: [String: String], prefetched: PrefetchedDocuments) -> AdaptiveSwitcher? {
        let policy = AdaptivePolicy()
        let ladder = VariantChooser.ladder(master.variants, anchor: anchor, limit: policy.maxRungs)
        guard ladder.count > 1, let rung = ladder.firstIndex(of: anchor), let uri = master.variants[anchor].uri else { return nil }
        let settings = options.network
        let timeout = min(options.openTimeout, max(1, settings.readTimeout))
        let loader: @Sendable (String) -> String? = { url in
            SmallFetch.text(url, options: openOptions, settings: settings, interrupt: InterruptToken(), timeout: timeout,
                            limit: Int(NetworkSession.manifestBudget))
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
                                policy: policy, servesRanges: true, loader: loader)
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

    /// Bit-rate switching between the video representations of a translated DASH manifest
    /// around `p.variants[anchor]`, or nil (logged): fewer than two, or byte ranges without
    /// init sections. A dynamic manifest switches like live HLS (segments matched by media
    /// sequence number, that is `$Number$`; by date where the numbers differ). fMP4 segments are served as MPEG-TS with their own representation's
    /// parameter sets in band (``SegmentTransmuxer``), so the playlists name no init section and
    /// a segment of any representation decodes after any other's.
    static func switcher(dash: DASHSource, anchor: Int) -> AdaptiveSwitcher? {
        let p = dash.playlists
        let policy = AdaptivePolicy()
        let ladder = VariantChooser.ladder(p.variants, anchor: anchor, limit: policy.maxRungs)
        guard ladder.count > 1, let rung = ladder.firstIndex(of: anchor), let uri = p.variants[anchor].uri,
              let playlist = p.mediaPlaylists[uri] else { return nil }
        if let why = playlist.switchRefusal {
            AppLog.write("abr", "no switching: the DASH representation \(why)")
            return nil
        }
        AppLog.write("abr", "switching between \(ladder.count) DASH representations: \(ladder.map { String(p.variants[$0].bandwidth) }.joined(separator: ", ")) b/s\(dash.manifest.isDynamic ? " (live: segments matched by media sequence number)" : "")")
        return AdaptiveSwitcher(variants: p.variants, ladder: ladder, anchor: rung, anchorPlaylist: playlist, policy: policy,
                                localLoader: true, loader: { url in dash.document(url).map { String(decoding: $0, as: UTF8.self) } })
    }

    /// A remote DASH manifest read by our MPD parser and translated to HLS playlists
    /// (``DASHSource``); throws the parser's refusal as the open's error.
    static func dashSource(url: String, bytes: [UInt8], options: PlayerOptions,
                                   openOptions: [String: String]) throws -> DASHSource {
        let settings = options.network
        let timeout = min(options.openTimeout, max(1, settings.readTimeout))
        let choice = DASHSource.Choice(preference: options.variantPreference, range: options.videoRange,
                                       audioLanguages: options.audioLanguages)
        do {
            return try DASHSource(url: url, bytes: bytes, choice: choice, index: { resource in
                guard let range = resource.range else { return nil }
                return try? SmallFetch.bytes(resource.url, options: openOptions, settings: settings, interrupt: InterruptToken(),
                                             timeout: timeout, limit: 16 << 20, range: range)
            }, refetch: {
                try? SmallFetch.bytes(url, options: openOptions, settings: settings, interrupt: InterruptToken(), timeout: timeout,
                                      limit: Int(NetworkSession.manifestBudget))
            })
        } catch {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(error.message)")
        }
    }

    /// libavformat's "Invalid data found when processing input" (`AVERROR_INVALIDDATA`).
    static let invalidData: Int32 = -0x4144_4E49

    /// An http(s) source libavformat reached but did not recognise as media: a page for yt-dlp.
    struct NotMedia: Error { let error: PlayerError }

    /// Opens `url`; an http(s) URL that turns out not to be media (libavformat reads it but
    /// recognises no format, and it begins as HTML does) is handed to yt-dlp (``YtdlRunner``) unless
    /// `--ytdl=no`, and what it names plays: its video (or only) URL as the source, a separate
    /// audio URL as the first `--audio-file`, with its HTTP headers (the user's own win) and
}
