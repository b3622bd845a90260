import AetherBase
import AetherMedia
import AetherStreaming
import AetherSubtitles

/// A DASH manifest (`.mpd`), read ahead within ``NetworkSession/manifestBudget`` and checked
/// (``ManifestXML/refusal(_:)``: no DOCTYPE or entities, well-formed, element count;
/// libavformat's own read has no bound). A remote one plays through our reader (``DASHSource``):
/// translated to HLS playlists served from memory, its fMP4 segments served as MPEG-TS, its
/// periods as chapters and its WebVTT text sets as subtitle tracks. A local manifest is read
/// by libavformat's dash demuxer, which opens what it names itself (within the sources'
/// protocol whitelist, which has no http: a remote fragment is refused). `--demuxer-lavf-dash`
/// applies to local manifests only: a remote one always plays through our reader, as
/// libavformat's demuxer would fetch its fragments over its own HTTP (issue 59), and the
/// player says so once.
struct DASHManifestKind: SourceKind {
    /// Our reader's translation (nil: libavformat's dash demuxer reads the manifest).
    let source: DASHSource?
    let target: DemuxTarget
    /// The open's options and headers, for the text sets' files.
    private let request: OpenRequest

    init?(_ request: OpenRequest) throws(PlayerError) {
        let url = request.url, options = request.options
        guard StreamVariants.isDASH(url), let bytes = try request.prefetch(url, what: "manifest") else { return nil }
        if let why = ManifestXML.refusal(bytes) {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(why)", cause: .refused(budget: false))
        }
        self.request = request
        var target = DemuxTarget(url: url)
        // A remote manifest: our reader, which checks every URL itself and leaves out the
        // representation that names another (the rest plays).
        guard ["http", "https"].contains(NetworkSettings.scheme(of: url) ?? "") else {
            source = nil
            self.target = target
            return
        }
        if options.stream.lavfDASH {
            let line = "--demuxer-lavf-dash: a remote manifest plays through the player's own DASH reader (libavformat's would fetch over its own HTTP)"
            AppLog.write("net", line)
            target.warnings.append(line)
        }
        let source = try Self.dashSource(url: url, bytes: bytes, request: request)
        self.source = source
        for line in DASHPlaylists.unfollowable(source.manifest) {
            AppLog.write("net", line)
            target.warnings.append(line)
        }
        let p = source.playlists
        // A translated manifest is named by its own URL, not its in-memory master's.
        (target.url, target.name) = (p.masterURL, url)
        target.variants = p.variants
        target.variant = p.chosen.map { p.variants[$0] }
        AppLog.write("net", "DASH through our reader: \(p.variants.count) video representation(s)\(target.variant.map { "; playing \($0.summary)" } ?? ""), \(p.renditions.count) audio set(s)\(source.manifest.isDynamic ? ", live" : "")")
        if options.stream.variantPreference == .auto, let k = p.chosen {
            target.switcher = Self.switcher(dash: source, anchor: k, clock: options.time)
        }
        target.documents = { source.document($0) }
        target.transmuxed = { source.fetch(for: $0) }
        target.demuxOptions.merge(DASHSource.demuxOptions) { $1 }
        target.changesCodec = source.manifest.changesCodec
        self.target = target
    }

    /// Our reader's translation reaches libavformat as HLS playlists: the container is what the
    /// user opened, and says how it plays; each period is a chapter.
    func refine(_ info: inout MediaInfo) {
        guard let source else { return }
        info.container = "dash"
        info.containerLongName = "MPEG-DASH (translated to HLS for playback)"
        if info.chapters.isEmpty { info.chapters = source.manifest.periodChapters }
    }

    /// Bit-rate switching between the video representations of a translated DASH manifest
    /// around `p.variants[anchor]`, or nil (logged): fewer than two, or byte ranges without
    /// init sections. A dynamic manifest switches like live HLS (segments matched by media
    /// sequence number, that is `$Number$`; by date where the numbers differ). fMP4 segments are served as MPEG-TS with their own representation's
    /// parameter sets in band (``SegmentTransmuxer``), so the playlists name no init section and
    /// a segment of any representation decodes after any other's.
    static func switcher(dash: DASHSource, anchor: Int, clock: TimeSource) -> AdaptiveSwitcher? {
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
                                localLoader: true, clock: clock, loader: { url in dash.document(url).map { String(decoding: $0, as: UTF8.self) } })
    }

    /// A remote DASH manifest read by our MPD parser and translated to HLS playlists
    /// (``DASHSource``); throws the parser's refusal as the open's error.
    static func dashSource(url: String, bytes: [UInt8], request: OpenRequest) throws(PlayerError) -> DASHSource {
        let options = request.options, openOptions = request.openOptions, settings = options.network
        let timeout = min(options.opening.timeout, max(1, settings.readTimeout))
        let choice = DASHSource.Choice(preference: options.stream.variantPreference, range: options.stream.videoRange,
                                       audioLanguages: options.audio.languages)
        do {
            return try DASHSource.remote(url: url, bytes: bytes, choice: choice, openOptions: openOptions, settings: settings, timeout: timeout,
                                         cookies: request.transport.cookies, clock: options.time)
        } catch {
            throw PlayerError("cannot open '\(TextSanitizer.clean(url))': \(error.message)")
        }
    }

    /// WebVTT files (or WebVTT text segments) fetched for one DASH text set at most, and their
    /// bytes in all (``SubtitleStore/maxSidecarBytes``).
    static let maxTextSegments = 64

    /// The text adaptation sets of a DASH manifest played through our reader, as subtitle
    /// tracks (libavformat's HLS demuxer, which plays the translation, reads no subtitle
    /// renditions in 5.1): a WebVTT set's representation (`text/vtt`, or `.vtt` files without a
    /// MIME type; the one a download takes) has its files fetched with the source's headers and
    /// joined, each period's cues moved by the period's start (``WebVTTJoin``), within
    /// ``maxTextSegments`` files and ``SubtitleStore/maxSidecarBytes``; tagged with the set's
    /// `lang`. A set of WebVTT in MP4 (`wvtt`: `application/mp4`, codecs `wvtt`) has its init
    /// section and segments fetched the same way (within the same budgets) and its samples read
    /// into cues (``WVTTReader``). TTML and stpp sets are left out with one log line each
    /// (libavformat 5.1 reads no TTML), as downloads do.
    func addText(to subtitles: SubtitleStore) {
        guard let manifest = source?.manifest else { return }
        let options = request.options, openOptions = request.openOptions
        let timeout = min(options.opening.timeout, max(1, options.network.readTimeout))
        for (k, track) in manifest.tracks.enumerated() where track.contentType == .text {
            let name = "text adaptation set \(k + 1) (language \(track.language.map { TextSanitizer.clean(String($0.prefix(32))) } ?? "none"))"
            var total = 0  // the set's bytes fetched
            let fetch = { (resource: DASHManifest.Resource) -> [UInt8]? in
                guard let bytes = try? SmallFetch.bytes(resource.url, options: openOptions, settings: options.network, interrupt: InterruptToken(clock: options.time),
                                                        timeout: timeout, limit: SubtitleStore.maxSidecarBytes - total, range: resource.range) else { return nil }
                total += bytes.count
                return bytes
            }
            let rep: DASHManifest.Representation
            let read: (cues: [WebVTTJoin.Cue], from: String)?
            if let webVTT = track.representations.last(where: { !$0.segments.isEmpty && $0.isWebVTT }) {
                (rep, read) = (webVTT, Self.webVTTCues(webVTT, name: name, fetch: fetch))
            } else if let wvtt = track.representations.last(where: { !$0.segments.isEmpty && Self.isWVTT($0) }) {
                (rep, read) = (wvtt, Self.wvttCues(wvtt, name: name, fetch: fetch))
            } else {
                AppLog.write("dash", "\(name) left out: only WebVTT can be read (not TTML or stpp)")
                continue
            }
            guard let read else { continue }
            let first = rep.segments[0].resource.url
            do {
                let id = try subtitles.addDocument(Array(WebVTTJoin.document(read.cues, shift: 0).utf8), name: first, path: first,
                                                   language: track.language)
                AppLog.write("dash", "\(name): \(read.cues.count) cues from \(read.from), subtitle track \(id + 1)")
            } catch {
                AppLog.write("dash", "\(name) left out: \(error.description)")
            }
        }
    }

    /// Whether a text representation is WebVTT in MP4 (`wvtt`).
    private static func isWVTT(_ rep: DASHManifest.Representation) -> Bool {
        (rep.mimeType?.lowercased().hasPrefix("application/mp4") ?? true) && (rep.codecs?.lowercased().hasPrefix("wvtt") ?? false)
    }

    /// A WebVTT set's cues: at most ``maxTextSegments`` files fetched and joined, each period's
    /// cues moved by the period's start (``WebVTTJoin``); nil (logged) when they cannot be.
    private static func webVTTCues(_ rep: DASHManifest.Representation, name: String,
                                   fetch: (DASHManifest.Resource) -> [UInt8]?) -> (cues: [WebVTTJoin.Cue], from: String)? {
        guard rep.segments.count <= maxTextSegments else {
            AppLog.write("dash", "\(name) left out: \(rep.segments.count) files (more than \(maxTextSegments))")
            return nil
        }
        var files: [[UInt8]] = []
        for segment in rep.segments {
            guard let bytes = fetch(segment.resource) else {
                AppLog.write("dash", "\(name) left out: its files cannot be read")
                return nil
            }
            files.append(bytes)
        }
        do { return (try WebVTTJoin.cues(files, offsets: rep.segments.map(\.periodStart)), "\(files.count) WebVTT file(s)") } catch {
            AppLog.write("dash", "\(name) left out: \(error.message)")
            return nil
        }
    }

    /// A `wvtt` set's cues: its init section and at most ``maxTextSegments`` segments fetched,
    /// their samples read (``WVTTReader``), each segment's cues placed at its start on the
    /// presentation timeline; nil (logged) when they cannot be.
    private static func wvttCues(_ rep: DASHManifest.Representation, name: String,
                                 fetch: (DASHManifest.Resource) -> [UInt8]?) -> (cues: [WebVTTJoin.Cue], from: String)? {
        guard let initialization = rep.initialization else {
            AppLog.write("dash", "\(name) left out: its WebVTT in MP4 has no init section")
            return nil
        }
        guard rep.segments.count <= maxTextSegments else {
            AppLog.write("dash", "\(name) left out: \(rep.segments.count) segments (more than \(maxTextSegments))")
            return nil
        }
        guard let head = fetch(initialization) else {
            AppLog.write("dash", "\(name) left out: its init section cannot be read")
            return nil
        }
        var segments: [(bytes: [UInt8], start: Double)] = []
        for segment in rep.segments {
            guard let bytes = fetch(segment.resource) else {
                AppLog.write("dash", "\(name) left out: its segments cannot be read")
                return nil
            }
            segments.append((bytes, segment.start))
        }
        do { return (try WVTTReader.cues(initialization: head, segments: segments), "\(segments.count) WebVTT in MP4 segment(s)") } catch {
            AppLog.write("dash", "\(name) left out: \(error.message)")
            return nil
        }
    }
}
