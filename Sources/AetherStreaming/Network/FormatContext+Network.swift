import AetherTransport
import AetherMedia

extension FormatContext {
    /// Opens `url` and reads stream information.
    /// The corresponding C functions are `avformat_open_input` and `avformat_find_stream_info`.
    /// - Parameters:
    ///   - options: demuxer/protocol options (e.g. `headers`, `user_agent`).
    ///   - timeout: seconds that opening and probing may block before giving up.
    ///   - network: for a network URL, read it through the resilient reader with these settings
    ///     (retries, read deadline, headers on every nested request, network-only protocols for
    ///     nested opens); nil opens it with libavformat's plain protocols.
    public convenience init(url: String, options: [String: String] = [:], timeout: Double = 15,
                            interrupt: InterruptToken,
                            network: NetworkSettings?) throws(FFmpegError) {
        try self.init(url: url, options: options, timeout: timeout, interrupt: interrupt, network: network, adaptive: nil)
    }

    /// An HLS variant's media playlist whose segments `adaptive` may take from other variants
    /// (bit-rate switching; it sees every segment download, the probe's included).
    /// `documents`: playlists served from memory (a DASH manifest translated to HLS, ``DASHSource``).
    /// `prefetched`: playlists the opener read, served once each (``PrefetchedDocuments``).
    package convenience init(url: String, options: [String: String], timeout: Double, interrupt: InterruptToken,
                     network: NetworkSettings?, adaptive: AdaptiveSwitcher?,
                     documents: (@Sendable (String) -> [UInt8]?)? = nil,
                     transmuxed: (@Sendable (String) -> DASHPlaylists.Fetch?)? = nil,
                     prefetched: PrefetchedDocuments? = nil, transport: TransportSession? = nil) throws(FFmpegError) {
        try self.init(url: url, options: options, timeout: timeout, interrupt: interrupt, memory: nil, network: network) { options in
            // A local HLS playlist too: the segments it names over HTTP come through the
            // transport (libavformat's http is on no whitelist), the local ones from the file.
            let scheme = NetworkSettings.scheme(of: url)
            guard let network, scheme == "http" || scheme == "https" || LocalPlaylist.holds(url) else { return nil }
            let session = NetworkSession(settings: network, interrupt: interrupt, options: options, transport: transport, adaptive: adaptive,
                                         documents: documents, transmuxed: transmuxed, prefetched: prefetched)
            options["protocol_whitelist"] = NetworkSession.networkWhitelist
            // HLS would reuse its own http connections (an assertion on ours): one request each.
            options["http_persistent"] = "0"
            return session
        }
    }

    /// Bit-rate switching of this source (nil: the variant is fixed).
    package var adaptive: AdaptiveSwitcher? { (network as? NetworkSession)?.adaptive }
}

extension NetworkSession: NetworkTransport {
    package var status: NetworkStatus { monitor.status }
}
