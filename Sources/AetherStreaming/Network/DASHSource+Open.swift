import AetherBase
import AetherMedia
import AetherTransport

extension DASHSource {
    /// What libavformat's HLS demuxer is told to open a translation: its segments are MPEG-TS
    /// made here from fMP4 whatever their URLs end in (`.mp4` for SegmentBase), which the
    /// demuxer's extension rule, meant for what a remote playlist names, would refuse (our
    /// parser checked every URL).
    package static let demuxOptions = ["extension_picky": "0"]

    /// A remote manifest (`bytes`, read from `url`) read by our parser and translated, its index
    /// ranges and its reloads fetched with the source's options and settings, each within
    /// `timeout` seconds, on connections of the source's own (kept between reloads, which come
    /// from the loading thread while the demuxer reads; with the open's `cookies`, nil: a store
    /// of their own): the one way playback and the previews make one. Throws ``ManifestXML/refusal(_:)``'s or the parser's refusal.
    package static func remote(url: String, bytes: [UInt8], choice: Choice, openOptions: [String: String],
                               settings: NetworkSettings, timeout: Double, cookies: CookieStore?,
                               clock: TimeSource) throws(OutsideValue.Refusal) -> DASHSource {
        // The manifest's XML rules first (no DOCTYPE or entities, well-formed, within its element
        // budget), as playback checks them before anything reads a manifest: the previews refuse
        // what playback refuses.
        if let why = ManifestXML.refusal(bytes) { throw OutsideValue.Refusal(why) }
        let transport = TransportSession(policy: settings.tls, cookies: cookies)
        return try DASHSource(url: url, bytes: bytes, choice: choice, index: { resource in
            guard let range = resource.range else { return nil }
            return try? SmallFetch.bytes(resource.url, options: openOptions, settings: settings, interrupt: InterruptToken(clock: clock),
                                         timeout: timeout, limit: 16 << 20, range: range, transport: transport)
        }, refetch: {
            try? SmallFetch.bytes(url, options: openOptions, settings: settings, interrupt: InterruptToken(clock: clock), timeout: timeout,
                                  limit: Int(NetworkSession.manifestBudget), transport: transport)
        })
    }
}

extension FormatContext {
    /// Opens `source`'s translation for a reader of its own (the previews): its playlists from
    /// memory, its segments fetched through the transport and served as MPEG-TS.
    package convenience init(dash source: DASHSource, options: [String: String], timeout: Double, interrupt: InterruptToken,
                             network: NetworkSettings) throws(FFmpegError) {
        try self.init(url: source.playlists.masterURL, options: options.merging(DASHSource.demuxOptions) { $1 }, timeout: timeout,
                      interrupt: interrupt, network: network, adaptive: nil, documents: { source.document($0) },
                      transmuxed: { source.fetch(for: $0) })
    }
}
